"""Decisions as labels: reward folding, regression cases, the reviews-topic publisher (in memory)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.retry import Backoff
from consumers.memory import MemoryBroker
from consumers.outbox import CURSOR, ReviewPublisher, decision_message
from consumers.runner import Outgoing, TransientError
from pipeline.checks.stage import verify
from pipeline.engine import process_path
from pipeline.rewards.decisions import CHECK_TASK, check_records, reviewed_flags
from pipeline.rewards.records import build_reward_records
from pipeline.rewards.regressions import regression_cases, standing
from schemas.models import DocumentResult, Flag
from schemas.reviews import ReviewAction, ReviewDecision, ReviewStatus

SAMPLE = Path(__file__).resolve().parents[1] / "sample_docs" / "halvorsen_2025_form_10k.pdf"
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def result() -> DocumentResult:
    r = verify(process_path(SAMPLE))
    assert len(r.flags) >= 2, "the sample must raise two flags to judge"
    return r


def decision(
    flag: Flag, action: ReviewAction, status: ReviewStatus, n: int, *, reason: str | None = None
) -> ReviewDecision:
    return ReviewDecision.model_validate(
        {
            "review_id": f"r{n:04d}",
            "flag_id": flag.flag_id,
            "doc_id": flag.doc_id,
            "source": flag.source,
            "rule": flag.rule,
            "kind": flag.kind,
            "severity": flag.severity,
            "metric": flag.metric,
            "period": flag.period.key if flag.period else None,
            "pages": flag.pages,
            "confidence": flag.confidence,
            "action": action,
            "status_before": "open",
            "status": status,
            "reason": reason,
            "reviewer": "alice",
            "decided_at": T0,
            "version": n,
        }
    )


def test_the_standing_decision_is_the_latest_that_changed_the_status(result: DocumentResult) -> None:
    a, b = result.flags[:2]
    trail = [
        decision(a, "dismiss", "dismissed", 1, reason="wrong_pairing"),
        decision(a, "comment", "dismissed", 2),
        decision(a, "reopen", "open", 3),
        decision(b, "dismiss", "dismissed", 4, reason="wrong_scale"),
        decision(b, "confirm", "confirmed", 5),
    ]
    judged = standing(trail)
    assert set(judged) == {b.flag_id}  # a was reopened: open again, no label
    assert judged[b.flag_id].action == "confirm"


def test_a_dismissed_flag_stops_counting_against_its_figures(result: DocumentResult) -> None:
    flag = next(f for f in result.flags if f.severity == "error")
    cited = {(e.page, e.text) for e in flag.evidence}

    def consistency(reviews: dict[str, ReviewDecision]) -> list[float]:
        records = build_reward_records(result, reviews=reviews, created_at=T0)
        return [r.components["consistency"] for r in records]

    before = consistency({})
    dismissed = consistency({flag.flag_id: decision(flag, "dismiss", "dismissed", 1, reason="wrong_pairing")})
    assert before != dismissed and all(d >= b for b, d in zip(before, dismissed, strict=True))
    assert reviewed_flags(result.flags, {flag.flag_id: decision(flag, "dismiss", "dismissed", 1)}) == [
        f for f in result.flags if f.flag_id != flag.flag_id
    ]
    assert cited  # the flag names figures, so some record changed because of it


def test_a_confirmed_warning_counts_as_an_error(result: DocumentResult) -> None:
    flag = result.flags[0].model_copy(update={"severity": "warning"})
    (kept,) = reviewed_flags([flag], {flag.flag_id: decision(flag, "confirm", "confirmed", 1)})
    assert kept.severity == "error" and kept.flag_id == flag.flag_id


def test_each_judged_flag_is_a_labelled_example_for_its_rule(result: DocumentResult) -> None:
    a, b = result.flags[:2]
    trail = [
        decision(a, "confirm", "confirmed", 1),
        decision(b, "dismiss", "dismissed", 2, reason="wrong_scale"),
    ]
    records = {
        r.extractor: r for r in check_records(trail, {f.flag_id: f for f in result.flags}, created_at=T0)
    }
    confirmed, dismissed = records[f"rule:{a.rule}"], records[f"rule:{b.rule}"]
    assert (confirmed.reward, confirmed.components, confirmed.label_reason) == (1.0, {"analyst": 1.0}, None)
    assert (dismissed.reward, dismissed.label_reason) == (0.0, "wrong_scale")
    assert {confirmed.task, dismissed.task} == {CHECK_TASK}
    assert json.loads(confirmed.completion)["message"] == a.message
    assert all(f"[page {e.page}]" in confirmed.context for e in a.evidence)
    # a flag a later run no longer raises still labels its rule, from what the decision repeats
    (orphan,) = check_records([decision(a, "confirm", "confirmed", 1)], {}, created_at=T0)
    assert orphan.reward == 1.0 and orphan.pages == a.pages


def test_dismissed_flags_become_regression_cases(result: DocumentResult) -> None:
    a, b = result.flags[:2]
    trail = [
        decision(a, "dismiss", "dismissed", 1, reason="different_basis"),
        decision(b, "dismiss", "dismissed", 2, reason="wrong_pairing"),
        decision(b, "confirm", "confirmed", 3),  # changed their mind: no case
    ]
    (case,) = regression_cases(trail, {f.flag_id: f for f in result.flags})
    assert (case.rule, case.reason, case.pages, case.source) == (a.rule, "different_basis", a.pages, a.source)
    assert case.evidence == a.evidence and case.message == a.message


class Log:
    """A review store's decision log and cursors, as the publisher sees them."""

    def __init__(self, decisions: Sequence[ReviewDecision]) -> None:
        self.rows = [(i + 1, d) for i, d in enumerate(decisions)]
        self.cursors: dict[str, int] = {}

    def decisions_since(self, seq: int = 0, limit: int = 1000) -> list[tuple[int, ReviewDecision]]:
        return [r for r in self.rows if r[0] > seq][:limit]

    def cursor(self, name: str) -> int:
        return self.cursors.get(name, 0)

    def advance_cursor(self, name: str, seq: int) -> None:
        self.cursors[name] = max(seq, self.cursors.get(name, 0))


def _publisher(log: Log, broker: MemoryBroker, fail: list[int], batch: int = 2) -> ReviewPublisher:
    async def publish(messages: Sequence[Outgoing]) -> None:
        if fail[0] > 0:
            fail[0] -= 1
            raise TransientError("broker down")
        for m in messages:
            broker.produce(m.topic, m.value, m.key, m.headers)

    return ReviewPublisher(
        log, publish, "tieout.reviews", batch=batch, interval_s=0.01, backoff=Backoff(base_s=0.01, max_s=0.02)
    )


def test_the_publisher_sends_every_decision_in_order_and_waits_out_an_outage(result: DocumentResult) -> None:
    flags = result.flags
    trail = [decision(flags[i % len(flags)], "comment", "open", i) for i in range(5)]
    log, broker, fail = Log(trail), MemoryBroker(), [3]

    async def scenario() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(_publisher(log, broker, fail).run(stop))
        while log.cursor(CURSOR) != 5 and not task.done():  # all sent, however slow the machine
            await asyncio.sleep(0.01)
        stop.set()
        await task

    asyncio.run(scenario())
    got = [ReviewDecision.model_validate_json(v) for v in broker.values("tieout.reviews")]
    assert [d.review_id for d in got] == [d.review_id for d in trail]  # each once, after three failures
    assert fail == [0] and log.cursor(CURSOR) == 5
    record = broker.records("tieout.reviews")[0]
    assert record.key == trail[0].flag_id.encode()
    assert dict(record.headers)["review_id"] == trail[0].review_id.encode()


def test_a_failed_round_leaves_the_cursor_and_the_next_round_repeats_it(result: DocumentResult) -> None:
    trail = [decision(result.flags[0], "comment", "open", i) for i in range(3)]
    log, broker, fail = Log(trail), MemoryBroker(), [1]
    publisher = _publisher(log, broker, fail, batch=10)
    with pytest.raises(TransientError):
        asyncio.run(publisher.publish_once())
    assert log.cursor(CURSOR) == 0 and broker.values("tieout.reviews") == []
    assert asyncio.run(publisher.publish_once()) == 3 and log.cursor(CURSOR) == 3
    assert asyncio.run(publisher.publish_once()) == 0  # nothing new: nothing sent again


def test_a_decision_message_carries_its_record() -> None:
    flag = Flag.model_validate(
        {
            "flag_id": "f1",
            "doc_id": "d" * 64,
            "source": "x.pdf",
            "rule": "TOT001",
            "kind": "sum_mismatch",
            "severity": "error",
            "message": "m",
            "pages": [2],
            "evidence": [],
        }
    )
    d = decision(flag, "confirm", "confirmed", 7)
    m = decision_message("p.reviews", d)
    assert (m.topic, m.key) == ("p.reviews", b"f1")
    assert ReviewDecision.model_validate_json(m.value) == d
