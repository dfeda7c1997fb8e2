"""Does Arelle's Calculations 1.1 check over a report say what TOT001 says? One-to-one, with the reasons.

A TOT001 flag and an Arelle inconsistency are the same finding when the flag's total is the figure
Arelle names as the summation's total (same page, same box). What is left on either side is sorted
into a class, so that a disagreement is a known, documented kind (README, "XBRL export") or a defect:

* ``not published: <reason>``: TOT001 flagged a total the report leaves out (a column without a period,
  a segment column, ...): XBRL cannot state that figure.
* ``not stated: <reason>``: the total is published, but its node could not be written as a summation.
* ``propagated``: Arelle reports a total whose break is a flagged subtotal's; TOT001 flags the subtotal
  once (its localization repairs both).
* ``other``: none of these: a defect of the export or of the check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adapters.xbrl.check import XbrlCheck
from adapters.xbrl.figures import Figure, Selection
from schemas.models import BBox, DocumentResult, Evidence, Flag

__all__ = ["RULE", "Agreement", "agreement"]

RULE = "TOT001"


@dataclass(frozen=True)
class Agreement:
    """One report's TOT001 flags beside Arelle's inconsistencies.

    Attributes:
        flags: TOT001 flags of the document.
        inconsistencies: Arelle's calculation inconsistencies of its report.
        matched: Flags that are an inconsistency (and so the inconsistencies they are).
        flag_only: Each flag Arelle does not report, with its class.
        arelle_only: Each inconsistency no flag is, with its class.
    """

    flags: int
    inconsistencies: int
    matched: int
    flag_only: tuple[tuple[str, str], ...]
    arelle_only: tuple[tuple[str, str], ...]

    @property
    def one_to_one(self) -> bool:
        """Every flag is an inconsistency and every inconsistency a flag."""
        return not self.flag_only and not self.arelle_only


def _same_box(a: BBox | None, b: BBox | None) -> bool:
    return a is not None and b is not None and all(abs(x - y) < 1.0 for x, y in zip(a, b, strict=True))


def _at(evidence: Evidence, figure: Figure) -> bool:
    return evidence.page == figure.fact.page and _same_box(evidence.bbox, figure.fact.bbox)


def _total(flag: Flag) -> Evidence | None:
    return next((e for e in flag.evidence if e.role == "total"), None)


def _flag_class(flag: Flag, total: Evidence | None, result: DocumentResult, selection: Selection) -> str:
    """Why the report does not state a TOT001 flag's sum."""
    if total is None:
        return "other"
    if published := [f for f in selection.figures if _at(total, f)]:
        lines = {f.line for f in published}
        skipped = sorted({s.reason for s in selection.skipped if (s.statement_id, s.row) in lines})
        return f"not stated: {skipped[0]}" if skipped else "other"
    # the ids the report gives the figure: the engine's fact, or the statement cell's own
    ids = {f.fact_id for f in result.facts if f.page == total.page and _same_box(f.bbox, total.bbox)}
    ids |= {
        f"{t.table_id}-r{c.row}c{c.col}"
        for t in result.tables
        for c in t.cells
        if c.page == total.page and _same_box(c.bbox, total.bbox)
    }
    reasons = sorted({e.reason.split(" (")[0] for e in selection.excluded if e.fact_id in ids})
    return f"not published: {reasons[0]}" if reasons else "not published"


def agreement(result: DocumentResult, selection: Selection, check: XbrlCheck) -> Agreement:
    """Match a document's TOT001 flags with Arelle's inconsistencies over its report.

    Args:
        result: The processed document.
        selection: What its report holds (:func:`adapters.xbrl.figures.select`).
        check: Arelle's verdict on the report.

    Returns:
        The matches and each side's remainder, classified.
    """
    flags = [f for f in result.flags if f.rule == RULE]
    by_id = {f"f_{f.fact.fact_id}": f for f in selection.figures}
    totals: list[Figure | None] = [
        by_id.get(m.fact_ids[0]) if m.fact_ids else None for m in check.inconsistencies
    ]
    flagged = [(f, _total(f)) for f in flags]
    matched = [
        f for f, t in flagged if t is not None and any(fig is not None and _at(t, fig) for fig in totals)
    ]
    flag_only = tuple(
        (f.flag_id, _flag_class(f, t, result, selection)) for f, t in flagged if f not in matched
    )
    flag_totals = [t for _, t in flagged if t is not None]
    arelle_only: list[tuple[str, str]] = []
    for message, fig in zip(check.inconsistencies, totals, strict=True):
        if fig is not None and any(_at(t, fig) for t in flag_totals):
            continue
        arelle_only.append((message.text, _arelle_class(fig, selection, flag_totals)))
    return Agreement(len(flags), len(check.inconsistencies), len(matched), flag_only, tuple(arelle_only))


def _arelle_class(fig: Figure | None, selection: Selection, flag_totals: Sequence[Evidence]) -> str:
    """Why TOT001 has no flag for a sum Arelle finds broken."""
    if fig is None or fig.line is None:
        return "other"
    items = {
        name
        for s in selection.summations
        if (s.statement.statement_id, s.row) == fig.line
        for name, _ in s.items
    }
    feeding = [
        f
        for f in selection.figures
        if f.concept.name in items and f.period == fig.period and f.unit == fig.unit
    ]
    if any(_at(t, f) for t in flag_totals for f in feeding):
        return "propagated"
    return "other"
