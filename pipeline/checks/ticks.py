"""Ticks: the printed figures that a check compared and found to agree.

The checks report only what fails (flags). An auditor's tick-and-tie copy also shows what was confirmed,
so this module re-derives, from a :class:`~schemas.models.DocumentResult` alone and with the checks' own
functions, the comparisons that *held*:

* **footed** (``TOT001``): a proven node of a statement's calculation tree (a total or subtotal with its
  children, or a line with the parts printed under it) evaluated in a value column exactly as
  :func:`pipeline.checks.sums.check_tree` evaluates it, and found to add up within rounding. The total and
  every component printed in that column are confirmed.
* **cross-footed** (``TOT002``): a row where a statement's total column equals the sum of its component
  columns (:func:`pipeline.statements.column_sums.across_rows`, as :mod:`pipeline.checks.sums` compares
  them). The
  total and the components printed in that row are confirmed.
* **agreed** (``XREF001``): a group of copies of one figure (same metric or line label, period, unit,
  currency, basis and entity, printed in two tables or more) whose copies all agree within rounding, as
  :func:`pipeline.checks.crossref.check_crossref` groups and clusters them. Every copy is confirmed.

A **tick** is a printed figure confirmed by at least one such comparison *and cited by no flag*: a figure a
flag cites is a break, whatever else held around it (a component of a sum that fails is not known to be
right). Nothing is ticked from the other rules (balance identity, changes, ledgers, per-share, narrative):
they record no comparison that held, and a tick must never claim more than a check did.

The calculation trees are needed: results without them (``tieout run``'s JSONL) give no ties at all rather
than ties from trees rebuilt without the page headings the checks saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.checks.crossref import RULE as XREF_RULE
from pipeline.checks.crossref import cluster, collect_copies, group_copies, split_currencies
from pipeline.checks.sums import ACROSS_RULE, proven_structures
from pipeline.checks.sums import RULE as TREE_RULE
from pipeline.checks.tolerance import known_facts, period_text
from pipeline.figures.grid import RowView
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy
from pipeline.statements.column_sums import across_rows
from pipeline.statements.columns import statement_rows
from pipeline.statements.structures import Figure, blanks_are_nil, evaluate, grid_of
from schemas.models import BBox, DocumentResult, Flag, LineItem, Statement, Table

__all__ = ["Spot", "Tick", "Tie", "TieKind", "confirmed", "spot_key", "ticks", "ties"]

TieKind = Literal["footed", "cross_footed", "agreed"]
"""What kind of comparison held: a sum down a column, a sum across a row, copies that agree."""

SpotKey = tuple[int, tuple[float, ...]]
"""Page and box rounded to 0.1 pt: what identifies a printed figure (as ``tolerance.where_printed``)."""


@dataclass(frozen=True, slots=True)
class Spot:
    """One printed figure taking part in a comparison.

    Attributes:
        page: 1-based page it is printed on.
        bbox: Its box in PDF points (PyMuPDF page space), None when the reader kept no box.
        text: The figure as printed.
        role: ``total``, ``component`` or ``copy``.
        label: The line it is printed on, cleaned.
    """

    page: int
    bbox: BBox | None
    text: str
    role: str
    label: str


@dataclass(frozen=True, slots=True)
class Tie:
    """A comparison a check made and found to hold.

    Attributes:
        rule: The rule that makes this comparison (``TOT001``, ``TOT002``, ``XREF001``).
        kind: ``footed``, ``cross_footed`` or ``agreed``.
        figures: Every printed figure of the comparison, the total (or first copy) first.
        summary: One sentence saying what held, for notes.
    """

    rule: str
    kind: TieKind
    figures: tuple[Spot, ...]
    summary: str


@dataclass(frozen=True, slots=True)
class Tick:
    """A printed figure confirmed by at least one tie and cited by no flag.

    Attributes:
        page: 1-based page.
        bbox: Its box in PDF points.
        text: The figure as printed.
        kinds: The kinds of ties that confirm it, sorted.
        rules: The rules whose comparisons confirm it, sorted.
        notes: One line per confirming tie, naming the other figures (and their pages when elsewhere).
    """

    page: int
    bbox: BBox
    text: str
    kinds: tuple[TieKind, ...]
    rules: tuple[str, ...]
    notes: tuple[str, ...]


def spot_key(page: int, bbox: BBox | None) -> SpotKey:
    """Identify a printed figure by page and box, rounded as the flags' evidence is compared."""
    return page, tuple(round(x, 1) for x in bbox) if bbox else ()


def _label(text: str) -> str:
    return " ".join(text.split()).rstrip(":") or "unlabelled line"


def _header(statement: Statement, col: int) -> str:
    column = next((c for c in statement.columns if c.col == col), None)
    if column is None:
        return f"column {col}"
    if column.period is not None:
        return period_text(column.period) or column.period.label
    return " ".join(column.header.split()) or f"column {col}"


def _spot(fig: Figure, role: str, label: str) -> Spot:
    return Spot(page=fig.cell.page, bbox=fig.cell.bbox, text=fig.cell.text.strip(), role=role, label=label)


def _line_label(row: int, lines: Mapping[int, LineItem], rows: Mapping[int, RowView]) -> str:
    if row in lines and lines[row].label.strip():
        return _label(lines[row].label)
    view = rows.get(row)
    return _label(view.label) if view is not None else f"row {row}"


def _footed(table: Table, statement: Statement) -> Iterator[Tie]:
    """TOT001's evaluations that held: the proven nodes, column by column, as ``check_tree`` makes them."""
    rows = statement_rows(table)
    by_row = {r.index: r for r in rows}
    columns = [c.col for c in statement.columns]
    grid = grid_of(rows, columns)
    lines = {line.row: line for line in statement.lines}
    nil = blanks_are_nil(grid)
    for line, structure in proven_structures(statement, lines):
        total_label = _line_label(line.row, lines, by_row)
        for col in columns:
            result = evaluate(structure, grid, col, nil_blanks=nil)
            if result is None or not result.comparison.ok:
                continue
            figures = [_spot(grid[structure.total][col], "total", total_label)]
            figures += [
                _spot(grid[r][col], "component", _line_label(r, lines, by_row))
                for r, _ in structure.components
                if col in grid.get(r, {})
            ]
            how = "its parts" if structure.convention == "breakdown" else "its lines"
            summary = (
                f"{total_label} ({_header(statement, col)}) = {how}: "
                f"{', '.join(s.label for s in figures[1:])}"
            )
            yield Tie(TREE_RULE.id, "footed", tuple(figures), summary)


def _cross_footed(table: Table, statement: Statement) -> Iterator[Tie]:
    """TOT002's rows that held: a total column equal to the sum of its component columns."""
    rows = statement_rows(table)
    by_row = {r.index: r for r in rows}
    for s in statement.column_sums:
        grid = grid_of(rows, [s.total, *s.components])
        for r, comparison in sorted(across_rows(rows, grid, s.total, s.components).items()):
            if not comparison.ok:
                continue
            label = _line_label(r, {}, by_row)
            figures = [_spot(grid[r][s.total], "total", label)]
            figures += [_spot(grid[r][c], "component", label) for c in s.components if c in grid[r]]
            heads = ", ".join(_header(statement, c) for c in s.components if c in grid[r])
            summary = f"{label}: {_header(statement, s.total)} = {heads}"
            yield Tie(ACROSS_RULE.id, "cross_footed", tuple(figures), summary)


def _agreed(result: DocumentResult, taxonomy: Taxonomy) -> Iterator[Tie]:
    """XREF001's groups whose copies all agree: one figure printed alike in two tables or more."""
    copies = collect_copies(known_facts(result.facts), result.tables, result.statements, taxonomy)
    for (key, period_key, *_), group in sorted(group_copies(copies).items(), key=lambda kv: kv[0][:2]):
        for part in split_currencies(group):
            clusters = cluster(part)
            if clusters is None or len(clusters) != 1 or len({c.table_id for c in part}) < 2:
                continue
            ordered = sorted(part, key=lambda c: (c.page, c.row, c.col))
            figures = tuple(
                Spot(page=c.page, bbox=c.bbox, text=c.printed, role="copy", label=c.label) for c in ordered
            )
            name = ordered[0].label or key
            summary = f"{name} {period_text(ordered[0].period) or period_key}: {len(ordered)} copies agree"
            yield Tie(XREF_RULE.id, "agreed", figures, summary)


def ties(result: DocumentResult, taxonomy: Taxonomy | None = None) -> list[Tie]:
    """Every comparison of TOT001, TOT002 and XREF001 that held in a document.

    Pure: computed from the result's tables, facts and statements with the checks' own functions, so the
    checks and their flags are untouched.

    Args:
        result: A parsed and verified document; its ``statements`` must be present (the embedded run's
            JSONL output does not carry them, and then no tie is reported).
        taxonomy: The metric taxonomy; the packaged one by default.

    Returns:
        The ties: footings and cross-footings statement by statement, then agreements by metric and period.
    """
    if result.failed or not result.statements:
        return []
    tax = taxonomy or load_taxonomy()
    by_id = {t.table_id: t for t in result.tables}
    out: list[Tie] = []
    for statement in result.statements:
        table = by_id.get(statement.table_id)
        if table is not None:
            out.extend(_footed(table, statement))
            out.extend(_cross_footed(table, statement))
    out.extend(_agreed(result, tax))
    return out


def cited(flags: Iterable[Flag]) -> set[SpotKey]:
    """The figures (page and box) that some flag cites as evidence."""
    return {spot_key(e.page, e.bbox) for f in flags for e in f.evidence if e.bbox is not None}


def _note(tie: Tie, spot: Spot) -> str:
    """What confirms ``spot``: the tie's sentence, and for copies the other copies with their pages."""
    if tie.kind != "agreed":
        return f"{tie.rule} {tie.kind.replace('_', '-')}: {tie.summary}"
    others = [s for s in tie.figures if spot_key(s.page, s.bbox) != spot_key(spot.page, spot.bbox)]
    where = "; ".join(f"{s.text} on p.{s.page} ({s.label})" for s in others)
    return f"{tie.rule} agreed: {spot.label} also printed {where}"


def confirmed(all_ties: Sequence[Tie]) -> dict[SpotKey, list[tuple[Tie, Spot]]]:
    """Every placed figure of the ties (those with a box), with the ties that confirm it."""
    out: dict[SpotKey, list[tuple[Tie, Spot]]] = {}
    for tie in all_ties:
        for spot in tie.figures:
            if spot.bbox is not None:
                out.setdefault(spot_key(spot.page, spot.bbox), []).append((tie, spot))
    return out


def ticks(result: DocumentResult, all_ties: Sequence[Tie] | None = None) -> list[Tick]:
    """The figures to tick: confirmed by a tie, cited by no flag, printed with a box.

    Args:
        result: A parsed and verified document.
        all_ties: Its ties, when already computed (:func:`ties`).

    Returns:
        One tick per printed figure, in page and reading order.
    """
    found = ties(result) if all_ties is None else all_ties
    breaks = cited(result.flags)
    out: list[Tick] = []
    for key, items in confirmed(found).items():
        if key in breaks:
            continue
        spot = items[0][1]
        assert spot.bbox is not None  # confirmed() keeps boxed figures only
        notes = tuple(dict.fromkeys(_note(tie, s) for tie, s in items))
        out.append(
            Tick(
                page=spot.page,
                bbox=spot.bbox,
                text=spot.text,
                kinds=tuple(sorted({tie.kind for tie, _ in items})),
                rules=tuple(sorted({tie.rule for tie, _ in items})),
                notes=notes,
            )
        )
    return sorted(out, key=lambda t: (t.page, round(t.bbox[1], 1), t.bbox[0]))
