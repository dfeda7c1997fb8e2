"""Analysts' decisions folded into the rewards.

Two kinds of label come out of the review console (:class:`~schemas.reviews.ReviewDecision`):

* **The checks' labels** (:func:`check_records`): each judged flag is an example for the rule that raised
  it — reward 1.0 when the analyst confirmed the inconsistency (the check was right), 0.0 when they
  dismissed it as a false alarm, with the dismiss reason (wrong pairing, wrong scale, different basis,
  extraction error, other). A trainer of a flagging model, or of a reward model for checks, reads these.
* **The figures' consistency** (:func:`reviewed_flags`, used by
  :func:`~pipeline.rewards.records.build_reward_records`): a dismissed flag no longer counts against the
  figures it cites; a confirmed one counts as an error whatever its severity.

Only the standing decision of a flag counts (its latest confirm, dismiss or reopen); a reopened flag is
open again and labels nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from pipeline.ids import stable_id
from pipeline.rewards.regressions import standing
from schemas.models import Flag
from schemas.reviews import ReviewDecision
from schemas.rewards import RewardRecord

__all__ = ["CHECK_TASK", "check_records", "reviewed_flags"]

CHECK_TASK = "check_flag"
"""The reward records' task for a judged flag."""


def reviewed_flags(flags: Sequence[Flag], decisions: Mapping[str, ReviewDecision]) -> list[Flag]:
    """The flags as the analysts left them: dismissed ones dropped, confirmed ones counted as errors.

    Args:
        flags: A document's flags.
        decisions: Standing decisions by flag id (:func:`pipeline.rewards.regressions.standing`).

    Returns:
        The flags that still count against the figures they cite.
    """
    out: list[Flag] = []
    for flag in flags:
        decision = decisions.get(flag.flag_id)
        if decision is None:
            out.append(flag)
        elif decision.status == "confirmed":
            out.append(flag if flag.severity == "error" else flag.model_copy(update={"severity": "error"}))
    return out


def _context(decision: ReviewDecision, flag: Flag | None) -> str:
    if flag is None:
        # The flag left the results (a later run no longer raises it): the decision still says what it was.
        pages = ", ".join(str(p) for p in decision.pages)
        return f"[pages {pages}] {decision.rule} ({decision.kind}) on {decision.metric or 'a figure'}"
    return "\n".join(f"[page {e.page}] {e.role}: {e.text}" for e in flag.evidence)


def _completion(decision: ReviewDecision, flag: Flag | None) -> str:
    finding: dict[str, object] = {
        "rule": decision.rule,
        "kind": decision.kind,
        "metric": decision.metric,
        "period": decision.period,
        "pages": decision.pages,
    }
    if flag is not None:
        finding |= {"message": flag.message, "expected": flag.expected, "actual": flag.actual}
    return json.dumps(finding, ensure_ascii=False)


def check_records(
    decisions: Iterable[ReviewDecision],
    flags: Mapping[str, Flag] | None = None,
    *,
    created_at: datetime | None = None,
) -> list[RewardRecord]:
    """One labelled example per judged flag, for the rule that raised it.

    Args:
        decisions: Decisions in the order they were made; only each flag's standing one counts.
        flags: The flags by id, for their evidence and message (a decision without its flag still makes
            a record, from what the decision repeats).
        created_at: Timestamp for the records (now, UTC, by default).

    Returns:
        Records with task ``check_flag``, extractor ``rule:<id>``, reward 1.0 (confirmed) or 0.0
        (dismissed), the ``analyst`` component, and the dismiss reason in ``label_reason``.
    """
    stamp = created_at or datetime.now(UTC)
    found = flags or {}
    records = []
    for flag_id, decision in standing(decisions).items():
        flag = found.get(flag_id)
        label = 1.0 if decision.status == "confirmed" else 0.0
        records.append(
            RewardRecord(
                record_id=stable_id("review", decision.doc_id, flag_id, decision.review_id),
                doc_id=decision.doc_id,
                source=decision.source,
                task=CHECK_TASK,
                extractor=f"rule:{decision.rule}",
                context=_context(decision, flag),
                completion=_completion(decision, flag),
                reward=label,
                components={"analyst": label},
                label_reason=decision.reason,
                pages=list(decision.pages),
                created_at=stamp,
            )
        )
    return records
