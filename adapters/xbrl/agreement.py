"""Does Arelle's Calculations 1.1 check over a report say what TOT001 says? One-to-one, with the reasons.

A TOT001 flag and an Arelle inconsistency are the same finding when the flag's total is the figure
Arelle names as the summation's total (same page, same box). What is left on either side is sorted
into a class, so that a disagreement is a known, documented kind (README, "XBRL export") or a defect:

* ``not published: <reason>``: TOT001 flagged a total the report leaves out (a column without a period,
  a segment column, ...): XBRL cannot state that figure.
* ``not stated: <reason>``: the total is published, but its node could not be written as a summation.
* ``propagated``: Arelle reports a total whose break is a flagged subtotal's; TOT001 flags the subtotal
  once (its localization repairs both).
* ``structure question``: Arelle reports a total whose break TOT001 found too, but recorded as a
  structure question (no small correction explains it) rather than a flag in the analyst's queue.
* ``other``: none of these: a defect of the export or of the check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adapters.xbrl.check import XbrlCheck
from adapters.xbrl.figures import Figure, Selection, Sheet, cell_fact_id, sheets
from pipeline.checks import balance, sums
from pipeline.statements.structures import blanks_are_nil, evaluate
from schemas.models import BBox, DocumentResult, Evidence

__all__ = ["RULE", "Agreement", "agreement", "tot001_totals"]

RULE = sums.RULE.id
BALANCE_RULE = balance.RULE.id
_FOLD = "folded into this one"
"""Words of the reason a flag gets when the localization folds other flags into it."""
_COPY = "duplicate of "
"""Start of the reason a copy is left out of a report for the agreeing copy it keeps."""


@dataclass(frozen=True)
class Agreement:
    """One report's TOT001 flags beside Arelle's inconsistencies.

    Attributes:
        flags: The totals TOT001 finds broken (:func:`tot001_totals`).
        inconsistencies: Arelle's calculation inconsistencies of its report.
        matched: Totals that are an inconsistency's.
        flag_only: Each total Arelle does not report (page and text), with its class.
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


def _ids_at(total: Evidence, result: DocumentResult, read: Sequence[Sheet]) -> set[str]:
    """The ids the report gives the figure printed at a box: the engine's fact or the statement cell's."""
    ids = {f.fact_id for f in result.facts if f.page == total.page and _same_box(f.bbox, total.bbox)}
    ids |= {
        cell_fact_id(sheet.table.table_id, row, col)
        for sheet in read
        for row, cols in sheet.grid.items()
        for col, fig in cols.items()
        if fig.cell.page == total.page and _same_box(fig.cell.bbox, total.bbox)
    }
    return ids


def _flag_class(total: Evidence, result: DocumentResult, selection: Selection, read: Sequence[Sheet]) -> str:
    """Why the report does not state the sum of a TOT001 total."""
    if published := [f for f in selection.figures if _at(total, f)]:
        lines = {f.line for f in published}
        skipped = sorted({s.reason for s in selection.skipped if (s.statement_id, s.row) in lines})
        return f"not stated: {skipped[0]}" if skipped else "other"
    ids = _ids_at(total, result, read)
    reasons = sorted({e.reason.split(" (")[0] for e in selection.excluded if e.fact_id in ids})
    return f"not published: {reasons[0]}" if reasons else "not published"


def tot001_totals(
    result: DocumentResult, read: Sequence[Sheet] | None = None, *, questions: bool = False
) -> list[Evidence]:
    """The totals TOT001 finds broken: of its flags, and of the flags that folded one in or stand for one.

    One misprint breaks several relations; the localization folds their flags into the first by rule
    precedence (``pipeline.checks.localize``), whose evidence then holds the folded TOT001's total. And
    where BAL001 compares the very figures of a node (a balance sheet that prints "Net assets" as total
    assets less total liabilities), the checks keep its flag for TOT001's (``pipeline.checks``).

    Args:
        result: The processed document.
        read: Its statements as TOT001 reads them (:func:`adapters.xbrl.figures.sheets`), when at hand.
        questions: The totals of its structure questions instead of its flags.
    """
    nodes: dict[frozenset[tuple[int, BBox | None]], tuple[int, BBox | None]] = {}
    broken: set[tuple[int, BBox | None]] = set()  # node totals whose lines do not add up to them
    for sheet in sheets(result) if read is None else read:
        nil = blanks_are_nil(sheet.grid)
        for _, structure in sheet.nodes:
            for col, total in sheet.grid.get(structure.total, {}).items():
                rows = [structure.total, *(r for r, _ in structure.components)]
                cells = [sheet.grid[r][col].cell for r in rows if col in sheet.grid.get(r, {})]
                nodes[frozenset((c.page, c.bbox) for c in cells)] = (total.cell.page, total.cell.bbox)
                found = evaluate(structure, sheet.grid, col, nil_blanks=nil)
                if found is not None and not found.comparison.ok:
                    broken.add((total.cell.page, total.cell.bbox))
    totals = set(nodes.values())
    out: dict[tuple[int, BBox | None], Evidence] = {}
    for flag in result.structure_questions if questions else result.flags:
        folds = any(_FOLD in r and f"{RULE} " in r.split(_FOLD, 1)[1] for r in flag.reasons)
        if flag.rule == RULE or folds:
            # a host of another rule prints its own totals too (a TOT002 row's total column, also the
            # total of a node down that column that adds up): of those, the folded TOT001's are broken
            among = totals if flag.rule == RULE else broken
            for e in flag.evidence:
                if e.role == "total" and any(e.page == p and _same_box(e.bbox, b) for p, b in among):
                    out.setdefault((e.page, e.bbox), e)
        elif flag.rule == BALANCE_RULE and (
            at := nodes.get(frozenset((e.page, e.bbox) for e in flag.evidence))
        ):
            out.setdefault(at, next(e for e in flag.evidence if (e.page, e.bbox) == at))
    return list(out.values())


def agreement(result: DocumentResult, selection: Selection, check: XbrlCheck) -> Agreement:
    """Match the totals TOT001 finds broken with Arelle's inconsistencies over the document's report.

    A total and an inconsistency match when the inconsistency's total fact is printed at the total's box,
    or is the copy the report kept of the figure printed there (an agreeing duplicate elsewhere).

    Args:
        result: The processed document.
        selection: What its report holds (:func:`adapters.xbrl.figures.select`).
        check: Arelle's verdict on the report.

    Returns:
        The matches and each side's remainder, classified.
    """
    by_id = {f"f_{f.fact.fact_id}": f for f in selection.figures}
    # Arelle names a summation's total first among its facts
    found = [by_id.get(m.fact_ids[0]) if m.fact_ids else None for m in check.inconsistencies]
    kept_for = {
        e.fact_id: e.reason.removeprefix(_COPY) for e in selection.excluded if e.reason.startswith(_COPY)
    }
    read = sheets(result)
    totals = tot001_totals(result, read)
    # the fact ids the report kept for each total's figure, where its copy elsewhere was kept instead
    copies = [{kept_for[i] for i in _ids_at(t, result, read) if i in kept_for} for t in totals]

    def same(k: int, fig: Figure | None) -> bool:
        return fig is not None and (_at(totals[k], fig) or fig.fact.fact_id in copies[k])

    questioned = tot001_totals(result, read, questions=True)
    matched = [k for k in range(len(totals)) if any(same(k, fig) for fig in found)]
    flag_only = tuple(
        (f"page {t.page}: {t.text}", _flag_class(t, result, selection, read))
        for k, t in enumerate(totals)
        if k not in matched
    )
    arelle_only = tuple(
        (message.text, _arelle_class(fig, selection, totals, questioned))
        for message, fig in zip(check.inconsistencies, found, strict=True)
        if not any(same(k, fig) for k in range(len(totals)))
    )
    return Agreement(len(totals), len(check.inconsistencies), len(matched), flag_only, arelle_only)


def _arelle_class(
    fig: Figure | None,
    selection: Selection,
    flag_totals: Sequence[Evidence],
    questioned: Sequence[Evidence],
) -> str:
    """Why TOT001 has no flag for a sum Arelle finds broken."""
    if fig is None:
        return "other: total not among the report's figures"
    if fig.line is None:
        return "other: total published outside its statement"
    if any(_at(t, fig) for t in questioned):
        return "structure question"
    # the summations of its concept (one per role): Arelle's may be another statement's than the kept copy's
    items = {name for s in selection.summations if s.total == fig.concept.name for name, _ in s.items}
    feeding = [
        f
        for f in selection.figures
        if f.concept.name in items
        and f.period == fig.period
        and f.unit == fig.unit
        and f.member == fig.member
    ]
    if any(_at(t, f) for t in flag_totals for f in feeding):
        return "propagated"
    if any(f.line is None or f.line[0] != fig.line[0] for f in feeding):
        return "other: an item bound from another table"
    return "other"
