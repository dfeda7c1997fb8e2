"""The review stores' logic without a server: import, queue paging and filters, decisions, audit trail."""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import pytest

from adapters.review.decision_rules import DecisionRequest, ReviewError, StaleDecision, apply_decision
from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import SEVERITY_RANK, SORT_KEYS, FlagQuery, decode_cursor
from schemas.models import Evidence, Flag, FlagKind, Period
from schemas.reviews import FlagReview, ReviewDecision
from tests.support.review import check_cursors, race
from tests.support.sessions import T0, check_logins, check_sessions

RULES = ("TOT001", "XREF001", "BAL001", "NAR002")
SEVERITIES: tuple[Literal["error", "warning", "info"], ...] = ("error", "warning", "info")
KINDS: dict[str, FlagKind] = {
    "TOT001": "sum_mismatch",
    "XREF001": "cross_reference_mismatch",
    "BAL001": "balance_identity",
    "NAR002": "narrative_mismatch",
}


def make_flag(i: int, rng: random.Random | None = None, doc: int | None = None) -> Flag:
    rng = rng or random.Random(i)
    rule = RULES[i % len(RULES)]
    d = doc if doc is not None else i % 7
    page = 1 + rng.randrange(40)
    return Flag(
        flag_id=f"f{i:07d}",
        doc_id=f"{d:064x}",
        source=f"doc-{d}.pdf",
        rule=rule,
        kind=KINDS[rule],
        severity=rng.choice(SEVERITIES),
        metric="revenue",
        period=Period(kind="duration", key="FY2025", label="2025"),
        message=f"flag {i}",
        pages=[page, page + rng.randrange(3)],
        evidence=[
            Evidence(page=page, bbox=(10.0, 20.0, 30.0, 40.0), text="Revenue: 1", role="total", value=1.0)
        ],
        # few distinct confidences, so that ties (broken by flag_id) are the common case
        confidence=rng.choice([0.5, 0.7, 0.7999999999999999, 0.9]),
    )


def write_flags(out: Path, flags: list[Flag]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / "flags.jsonl").write_text("".join(f.model_dump_json() + "\n" for f in flags), encoding="utf-8")
    (out / "facts.jsonl").write_text("", encoding="utf-8")
    return out


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteReviewStore]:
    rng = random.Random(7)
    flags = [make_flag(i, rng) for i in range(1234)]
    s = SqliteReviewStore.for_run(write_flags(tmp_path / "run", flags))
    yield s
    s.close()


def expected_order(flags: list[Flag], q: FlagQuery, status: dict[str, str] | None = None) -> list[str]:
    def key(f: Flag) -> tuple[object, ...]:
        rank = SEVERITY_RANK[f.severity]
        return {
            "severity": (rank, -f.confidence, f.flag_id),
            "confidence": (f.confidence, f.flag_id),
            "rule": (f.rule, rank, -f.confidence, f.flag_id),
            "document": (f.source, min(f.pages), f.flag_id),
            "updated": ("", f.flag_id),
        }[q.sort]

    status = status or {}
    chosen = [
        f
        for f in flags
        if (q.rule is None or f.rule == q.rule)
        and (q.severity is None or f.severity == q.severity)
        and (q.doc_id is None or f.doc_id == q.doc_id)
        and (q.min_confidence is None or f.confidence >= q.min_confidence)
        and (q.max_confidence is None or f.confidence <= q.max_confidence)
        and (q.status is None or status.get(f.flag_id, "open") == q.status)
    ]
    return [f.flag_id for f in sorted(chosen, key=key, reverse=q.descending)]


def walk(store: SqliteReviewStore, q: FlagQuery, limit: int) -> tuple[list[str], list[str | None]]:
    """Every flag id, following next cursors; and the cursors of each page (to walk back)."""
    ids: list[str] = []
    cursors: list[str | None] = []
    after = None
    while True:
        page = store.queue(q, after=after, limit=limit)
        ids.extend(r.flag.flag_id for r in page.rows)
        cursors.append(page.next_cursor)
        if page.next_cursor is None:
            return ids, cursors
        after = page.next_cursor


@pytest.mark.parametrize("sort", SORT_KEYS)
@pytest.mark.parametrize("descending", [False, True])
def test_keyset_paging_visits_every_flag_once_in_order(
    store: SqliteReviewStore, sort: str, descending: bool
) -> None:
    all_flags = [store.get(f"f{i:07d}") for i in range(1234)]
    q = FlagQuery(sort=sort, descending=descending)  # type: ignore[arg-type]
    ids, _ = walk(store, q, 97)
    assert len(ids) == 1234
    assert ids == expected_order([r.flag for r in all_flags if r], q)


def test_paging_backwards_returns_the_same_pages(store: SqliteReviewStore) -> None:
    q = FlagQuery(sort="confidence", descending=True)
    pages = []
    after = None
    for _ in range(4):
        page = store.queue(q, after=after, limit=50)
        pages.append(page)
        after = page.next_cursor
    assert pages[0].prev_cursor is None
    for earlier, later in itertools.pairwise(pages):
        assert later.prev_cursor is not None
        back = store.queue(q, before=later.prev_cursor, limit=50)
        assert [r.flag.flag_id for r in back.rows] == [r.flag.flag_id for r in earlier.rows]


def test_filters_and_counts(store: SqliteReviewStore) -> None:
    all_flags = [r.flag for r in (store.get(f"f{i:07d}") for i in range(1234)) if r]
    # judge some flags, so the status filter and the counts have something to count
    status = {}
    for f in all_flags[:30]:
        store.decide(DecisionRequest(f.flag_id, "confirm", "alice", 0))
        status[f.flag_id] = "confirmed"
    for f in all_flags[30:45]:
        store.decide(DecisionRequest(f.flag_id, "dismiss", "bob", 0, reason="wrong_scale"))
        status[f.flag_id] = "dismissed"
    for f in all_flags[45:50]:
        store.decide(DecisionRequest(f.flag_id, "reassign", "alice", 0, assignee="bob"))
    doc = all_flags[3].doc_id
    for q in [
        FlagQuery(rule="XREF001"),
        FlagQuery(severity="error", sort="rule"),
        FlagQuery(doc_id=doc, sort="document"),
        FlagQuery(min_confidence=0.75, max_confidence=0.85),
        FlagQuery(status="confirmed"),
        FlagQuery(status="dismissed", rule="TOT001"),
        FlagQuery(status="open", severity="info", descending=True),
    ]:
        ids, _ = walk(store, q, 200)
        assert ids == expected_order(all_flags, q, status), q
        page = store.queue(q, limit=10)
        assert page.total == len(ids)
        unfiltered = expected_order(all_flags, q.without_status(), status)
        assert page.counts == {
            s: sum(1 for i in unfiltered if status.get(i, "open") == s)
            for s in ("open", "confirmed", "dismissed")
        }
    assigned = store.queue(FlagQuery(assignee="bob"), limit=500)
    assert {r.flag.flag_id for r in assigned.rows} == {f.flag_id for f in all_flags[45:50]}
    unassigned = store.queue(FlagQuery(assignee=""), limit=10)
    assert unassigned.total == 1234 - 5


def test_a_bad_cursor_is_refused(store: SqliteReviewStore) -> None:
    with pytest.raises(ReviewError):
        store.queue(FlagQuery(), after="not-a-cursor!")
    with pytest.raises(ReviewError):
        store.queue(FlagQuery(sort="rule"), after=store.queue(FlagQuery(sort="confidence")).next_cursor)
    assert decode_cursor(None) is None


def test_neighbours_follow_the_queue_order(store: SqliteReviewStore) -> None:
    q = FlagQuery(rule="BAL001", sort="confidence", descending=True)
    ids = walk(store, q, 500)[0]
    assert store.neighbours(q, ids[0]) == (None, ids[1])
    assert store.neighbours(q, ids[10]) == (ids[9], ids[11])
    assert store.neighbours(q, ids[-1]) == (ids[-2], None)


def test_import_is_idempotent_and_keeps_decisions(tmp_path: Path) -> None:
    flags = [make_flag(i) for i in range(20)]
    run = write_flags(tmp_path / "run", flags)
    store = SqliteReviewStore.for_run(run)
    store.decide(DecisionRequest("f0000001", "confirm", "alice", 0))
    store.decide(DecisionRequest("f0000002", "comment", "alice", 0, note="looks odd"))
    assert store.import_run(run) == {"flags": 0, "facts": 0}  # unchanged files are not read again
    store.close()
    # a later run: flag 1 (judged) and flag 2 (only commented) are gone, flag 99 is new
    write_flags(run, [f for f in flags if f.flag_id not in ("f0000001", "f0000002")] + [make_flag(99)])
    store = SqliteReviewStore.for_run(run)
    assert store.queue(FlagQuery(), limit=100).total == 20  # 18 kept + 1 new + the judged one
    assert store.get("f0000001") is not None and store.get("f0000001").review.status == "confirmed"  # type: ignore[union-attr]
    assert store.get("f0000002") is None
    assert [d.action for d in store.history("f0000002")] == ["comment"]  # the audit trail outlives it
    # the same file again: nothing changes
    store.import_flags(iter([make_flag(i) for i in range(20)]))
    store.import_flags(iter([make_flag(i) for i in range(20)]))
    assert store.queue(FlagQuery(), limit=100).total == 20
    store.close()


def test_decisions_and_the_audit_trail(store: SqliteReviewStore) -> None:
    fid = "f0000010"
    d1 = store.decide(DecisionRequest(fid, "confirm", "alice", 0))
    assert (d1.status_before, d1.status, d1.version) == ("open", "confirmed", 1)
    with pytest.raises(StaleDecision) as stale:
        store.decide(DecisionRequest(fid, "dismiss", "bob", 0, reason="wrong_pairing"))
    assert stale.value.current.status == "confirmed"
    assert stale.value.latest is not None and stale.value.latest.reviewer == "alice"
    assert "alice" in str(stale.value) and "not saved" in str(stale.value)
    row = store.get(fid)
    assert row is not None and (row.review.status, row.review.version) == ("confirmed", 1)
    store.decide(DecisionRequest(fid, "comment", "bob", 0, note="I disagree"))  # comments never conflict
    d3 = store.decide(DecisionRequest(fid, "dismiss", "bob", 1, reason="different_basis", note="restated"))
    d4 = store.decide(DecisionRequest(fid, "reassign", "bob", 2, assignee="alice"))
    assert d4.assignee == "alice" and d4.assignee_before is None
    history = store.history(fid)
    assert [d.action for d in history] == ["confirm", "comment", "dismiss", "reassign"]
    assert [d.reviewer for d in history] == ["alice", "bob", "bob", "bob"]
    assert history[2] == d3 and d3.reason == "different_basis" and d3.note == "restated"
    assert [d.flag_id for _, d in store.decisions_since(0)] == [fid] * 4
    seqs = [s for s, _ in store.decisions_since(0)]
    assert store.decisions_since(seqs[1]) == store.decisions_since(0)[2:]
    assert [d.review_id for d in store.latest_decisions()] == [d3.review_id]
    assert store.latest_decisions("confirmed") == []
    store.decide(DecisionRequest(fid, "reopen", "alice", 3))
    assert store.latest_decisions() == []
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("UPDATE decisions SET flag_id = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        store._db.execute("DELETE FROM decisions")


@pytest.mark.parametrize(
    ("req", "message"),
    [
        (DecisionRequest("f0000001", "dismiss", "a", 0), "dismiss reason"),
        (DecisionRequest("f0000001", "dismiss", "a", 0, reason="other"), "note"),
        (DecisionRequest("f0000001", "confirm", "a", 0, reason="wrong_scale"), "dismissal only"),
        (DecisionRequest("f0000001", "comment", "a", 0, note="  "), "text"),
        (DecisionRequest("f0000001", "reassign", "a", 0, assignee="mallory"), "no user"),
        (DecisionRequest("f0000001", "comment", "a", 0, note="x" * 5000), "at most"),
        (DecisionRequest("nope", "confirm", "a", 0), "no flag"),
    ],
)
def test_incomplete_decisions_are_refused(
    store: SqliteReviewStore, req: DecisionRequest, message: str
) -> None:
    with pytest.raises(ReviewError, match=message):
        store.decide(req, users=["a", "b"])
    assert store.history(req.flag_id) == []


def test_two_analysts_on_one_flag_one_wins(store: SqliteReviewStore, tmp_path: Path) -> None:
    other = SqliteReviewStore(store.path)  # a second process's connection to the same file
    outcomes = race([(store, "alice"), (other, "bob")], "f0000005")
    other.close()
    assert outcomes == ["stale", "won"]
    assert len(store.history("f0000005")) == 1


def test_cursors_keep_how_far_each_reader_got(store: SqliteReviewStore) -> None:
    other = SqliteReviewStore(store.path)  # a second process's connection to the same file
    try:
        check_cursors(store, other, "f0000003")
    finally:
        other.close()
    # the cursors outlive the store (a publisher restarted carries on where it stopped)
    seq = store.cursor("reviews-topic")
    store.close()
    again = SqliteReviewStore(store.path)
    assert seq > 0 and again.cursor("reviews-topic") == seq
    again.close()


def test_a_database_from_before_cursors_gets_them_on_open(tmp_path: Path) -> None:
    store = SqliteReviewStore.for_run(write_flags(tmp_path / "run", [make_flag(i) for i in range(3)]))
    store.decide(DecisionRequest("f0000001", "confirm", "alice", 0))
    seq = store.decisions_since(0)[-1][0]
    store._db.execute("DROP TABLE review_cursors")
    store.close()
    store = SqliteReviewStore(tmp_path / "run" / "reviews.sqlite")
    assert store.cursor("reviews-topic") == 0
    store.advance_cursor("reviews-topic", seq)
    assert store.cursor("reviews-topic") == seq
    store.close()


def test_apply_decision_is_pure() -> None:
    flag = make_flag(3)
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    new, decision = apply_decision(
        flag, FlagReview(flag_id=flag.flag_id), DecisionRequest(flag.flag_id, "confirm", "al", 0), now=at
    )
    assert new == FlagReview(
        flag_id=flag.flag_id, status="confirmed", version=1, updated_at=at, updated_by="al"
    )
    assert isinstance(decision, ReviewDecision)
    assert (decision.rule, decision.pages, decision.period, decision.decided_at) == (
        flag.rule,
        flag.pages,
        "FY2025",
        at,
    )


def test_sessions_and_login_attempts_are_shared_by_connections(store: SqliteReviewStore) -> None:
    other = SqliteReviewStore(store.path)  # a second process's connection to the same file
    try:
        check_sessions(store, other)
        check_logins(store, other)
    finally:
        other.close()
    # the failures and the audit trail outlive the store (a restarted console still slows a guesser)
    store.close()
    again = SqliteReviewStore(store.path)
    assert again.login_failures("alice", "10.0.0.3") == (1, T0 + 4000)
    assert len(again.logins()) == 8
    # the login audit trail is append-only
    db = sqlite3.connect(store.path)
    for sql in ("UPDATE review_logins SET outcome = 'ok'", "DELETE FROM review_logins"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)
    db.close()
    again.close()


def _tables_read(store: SqliteReviewStore, q: FlagQuery) -> set[str]:
    """The tables (not indexes) whose rows the count of queue ``q`` reads, from its compiled program.

    A table's cursor may be opened with a deferred seek and never moved; what reads its rows is a
    ``Column`` instruction on that cursor.
    """
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    try:
        store._counts(q)
    finally:
        store._db.set_trace_callback(None)
    roots = dict(store._db.execute("SELECT rootpage, name FROM sqlite_master WHERE type = 'table'"))
    (count,) = [sql for sql in statements if "count(*)" in sql]
    program = store._db.execute(f"EXPLAIN {count}").fetchall()  # rows: (addr, opcode, p1, p2, ...)
    cursors = {row[2]: roots[row[3]] for row in program if row[1] == "OpenRead" and row[3] in roots}
    return {cursors[row[2]] for row in program if row[1] == "Column" and row[2] in cursors}


def test_a_confidence_range_is_counted_from_an_index_alone(store: SqliteReviewStore) -> None:
    # Regression: `confidence >= ?` on the bare column made the default queue's count (the calibrated
    # threshold) read every flag's row from the table: 470 ms a render at 100,000 flags
    # (bench/review_queue.py). On the expression the indexes hold, the count reads an index only.
    assert _tables_read(store, FlagQuery()) == set()
    for q in (FlagQuery(min_confidence=0.75), FlagQuery(min_confidence=0.6, max_confidence=0.85)):
        assert _tables_read(store, q) == set(), q
