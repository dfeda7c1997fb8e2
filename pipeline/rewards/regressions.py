"""Analysts' decisions read back: each flag's standing decision, and dismissed flags as regression cases.

An analyst's dismissal names a place where a rule should have stayed silent. ``tieout export reviews``
writes each as a :class:`~schemas.reviews.RegressionCase`: the document and pages to cut the smallest
fixture from (as the project's regression tests do), the rule, the reason and the figures compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from schemas.models import Flag
from schemas.reviews import RegressionCase, ReviewDecision

__all__ = ["regression_cases", "standing"]


def standing(decisions: Iterable[ReviewDecision]) -> dict[str, ReviewDecision]:
    """Flag id → the decision that decides its status now (reopened and merely commented flags: none).

    Args:
        decisions: Decisions in the order they were made (a store's audit trail, or its latest ones).

    Returns:
        The confirmed or dismissed flags' latest status-changing decision.
    """
    latest: dict[str, ReviewDecision] = {}
    for d in decisions:
        if d.action in ("confirm", "dismiss", "reopen"):
            latest[d.flag_id] = d
    return {k: d for k, d in latest.items() if d.status != "open"}


def regression_cases(
    decisions: Iterable[ReviewDecision], flags: Mapping[str, Flag] | None = None
) -> list[RegressionCase]:
    """One case per flag whose standing decision is a dismissal.

    Args:
        decisions: Decisions in the order they were made (each flag's latest confirm, dismiss or reopen
            decides; a dismissal later reopened or confirmed is no case).
        flags: The flags by id, for their message and evidence.

    Returns:
        The cases, ordered by document and first page.
    """
    found = flags or {}
    cases = []
    for flag_id, d in standing(decisions).items():
        if d.status != "dismissed" or d.reason is None:
            continue
        flag = found.get(flag_id)
        cases.append(
            RegressionCase(
                case_id=d.review_id,
                doc_id=d.doc_id,
                source=d.source,
                pages=list(d.pages),
                rule=d.rule,
                kind=d.kind,
                metric=d.metric,
                period=d.period,
                reason=d.reason,
                note=d.note,
                flag_id=flag_id,
                message=flag.message if flag else None,
                evidence=list(flag.evidence) if flag else [],
                reviewer=d.reviewer,
                decided_at=d.decided_at,
            )
        )
    return sorted(cases, key=lambda c: (c.source, c.pages[0] if c.pages else 0, c.rule, c.case_id))
