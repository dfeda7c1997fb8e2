"""Which figures an XBRL report publishes, under which concepts, and the summations that bind them.

The report must say what tieout's own footing check says: Arelle's Calculations 1.1 check over the
report and TOT001 agree one-to-one (issue 26). So the figures and trees are read exactly as TOT001 reads
them, with its own helpers:

1. **Statement figures.** Every figure of every statement, each line in each value column, from the grid
   TOT001 evaluates (:func:`~pipeline.statements.columns.statement_rows`,
   :func:`~pipeline.statements.structures.grid_of`). A line whose metric labels it alone in its statement
   publishes under the metric's concept (``tieout:Revenue``); any other line under a concept of its own,
   named from its label (``tieout:OtherIncomeNet``), as a filer's extension concept would be.
2. **Other facts.** The document's remaining facts (narrative figures, tables without a tree) under their
   metrics' concepts.
3. **Summations.** Each proven node of :func:`pipeline.checks.sums.proven_structures` becomes a summation
   (total, items with weights ±1) in its statement's role; a breakdown ("of which" parts) in a second
   role, since Calculations 1.1 merges two summations of one total in one role.

A segment or non-reported column (a guarantor's, a restated one) is a member of one explicit
dimension, ``tieout:ColumnAxis``, whose default is the consolidated figure: a summation binds within a
column as TOT001 adds up one.

What is left out, with the reason (:class:`Excluded`): a figure whose scale, period or unit is not
established, a cell that holds two figures, a dash alone in its column (TOT001 reads it as *not
applicable*, not nil), a total whose lines are not all read in its column, a total outside its
statement's columns published beside some of its lines, and copies of one concept and context that
disagree (the statement lines among them keep their own concepts instead). A figure an open flag
touches is published, **marked** with the flag (``src:openFlags``): never as clean.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from pipeline.checks.sums import proven_structures
from pipeline.checks.tolerance import KnownFact, interval, known_facts
from pipeline.figures.facts import year_end_day
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy
from pipeline.rewards.records import touches
from pipeline.statements.build import with_tables
from pipeline.statements.columns import statement_rows
from pipeline.statements.structures import Figure as GridFigure
from pipeline.statements.structures import Grid, Structure, blanks_are_nil, evaluate, grid_of, lone_dashes
from schemas.models import (
    BBox,
    Cell,
    DocumentResult,
    Fact,
    Flag,
    LineItem,
    Period,
    Statement,
    StatementColumn,
    Table,
)

__all__ = [
    "PURE",
    "Concept",
    "Excluded",
    "Figure",
    "Selection",
    "Sheet",
    "SkippedSummation",
    "Summation",
    "cell_fact_id",
    "concept_name",
    "select",
    "sheets",
]

_ITEM_TYPE = {"currency": "monetaryItemType", "shares": "sharesItemType"}
"""XBRL item type by unit; the other units publish as ``decimalItemType``."""
_PURE_UNITS = frozenset({"ratio", "count", "number"})
PURE = "xbrli:pure"
"""The unit of a pure number (a count, a ratio)."""
_WORD = re.compile(r"[A-Za-z0-9]+")
_NAME_WORDS = 8
"""Words of a label kept in a line's concept name: enough to tell lines apart, short enough to read."""

_NIL = GridFigure(0.0, 0, Cell(row=0, col=0, text="", page=1))
"""A blank cell: nothing printed, nothing left out."""

LineKey = tuple[str, int]
"""A statement line: (statement id, row)."""


@dataclass(frozen=True)
class Sheet:
    """A statement as TOT001 reads it, read once per document: its table, grid and proven nodes."""

    statement: Statement
    table: Table
    grid: Grid
    nodes: tuple[tuple[LineItem, Structure], ...]

    @property
    def statement_id(self) -> str:
        """The statement's id."""
        return self.statement.statement_id


def sheets(result: DocumentResult) -> list[Sheet]:
    """Every statement with its table, its value columns' grid and its proven nodes (TOT001's inputs).

    Args:
        result: A processed document.

    Returns:
        One sheet per statement whose table the document holds, in the statements' order.
    """
    out: list[Sheet] = []
    for statement, table in with_tables(result.statements, result.tables):
        grid = grid_of(statement_rows(table), [c.col for c in statement.columns])
        lines = {line.row: line for line in statement.lines}
        out.append(Sheet(statement, table, grid, tuple(proven_structures(statement, lines))))
    return out


def cell_fact_id(table_id: str, row: int, col: int) -> str:
    """The id the report gives a statement figure the engine made no fact of: its table, row and column."""
    return f"{table_id}-r{row}c{col}"


@dataclass(frozen=True)
class Excluded:
    """A figure left out of the report, and why."""

    fact_id: str
    metric: str
    reason: str


@dataclass(frozen=True)
class Concept:
    """A concept of the extension taxonomy."""

    name: str
    item_type: str
    period_type: str
    label: str


@dataclass(frozen=True)
class Figure:
    """A published figure: its fact, concept, OIM period and unit, and the open flags that touch it."""

    fact: KnownFact
    concept: Concept
    period: str
    unit: str
    flags: tuple[Flag, ...] = ()
    line: LineKey | None = None
    col: int | None = None
    """The statement column, as TOT001's grid numbers it (split columns joined)."""
    member: str | None = None
    """The column's member of the column dimension (a segment, a guarantor column); None: consolidated."""


@dataclass(frozen=True)
class Summation:
    """``total = Σ weight · item`` in one role (a statement, or its breakdowns)."""

    role: str
    statement: Statement
    total: str
    items: tuple[tuple[str, int], ...]
    row: int


@dataclass(frozen=True)
class SkippedSummation:
    """A proven node of a statement that the report cannot state, and why (for the agreement study)."""

    statement_id: str
    row: int
    reason: str


@dataclass(frozen=True)
class Selection:
    """What one document's report holds."""

    figures: tuple[Figure, ...]
    summations: tuple[Summation, ...]
    excluded: tuple[Excluded, ...]
    skipped: tuple[SkippedSummation, ...] = field(default=())
    members: tuple[tuple[str, str], ...] = field(default=())
    """The column dimension's members used: (name, the column as printed)."""


def concept_name(metric: str) -> str:
    """The local name of a metric's concept: ``gross_profit`` -> ``GrossProfit``.

    Args:
        metric: A metric id of the taxonomy.

    Returns:
        An NCName, unique per metric id spelling of words.
    """
    name = "".join(w[:1].upper() + w[1:] for w in metric.replace("-", "_").split("_") if w)
    return name if name[:1].isalpha() else f"M{name}"


def _label_name(label: str) -> str:
    """A line's concept name from its label: ``Other income, net`` -> ``OtherIncomeNet``."""
    words = _WORD.findall(label)[:_NAME_WORDS]
    name = "".join(w[:1].upper() + w[1:].lower() for w in words) or "Line"
    return name if name[:1].isalpha() else f"L{name}"


# --- periods and units --------------------------------------------------------------------------


def period_ends(result: DocumentResult) -> dict[str, str]:
    """The end date of each period key: as printed by any figure or statement column, else the year end.

    A fiscal year printed as a bare "2025" ends on the document's year-end day when its instants show one
    only (:func:`pipeline.figures.facts.year_end_day`), the day ``align_instants`` gives balances under
    such a column.
    """
    ends: dict[str, str] = {}
    periods = [f.period for f in result.facts] + [c.period for s in result.statements for c in s.columns]
    for p in periods:
        if p is not None and (day := p.end_day()) is not None:
            ends.setdefault(p.key, day.isoformat())
    year_end = year_end_day(periods)
    if year_end is not None:
        for p in periods:
            if p is not None and p.key.startswith("FY") and p.fiscal_year is not None and not p.quarter:
                ends.setdefault(p.key, year_end.of(p.fiscal_year))
    return ends


def _oim_period(p: Period | None, ends: Mapping[str, str]) -> str | None:
    """The OIM period: ``start/end`` or an instant, both as midnights (the end is exclusive)."""
    if p is None or p.kind == "unknown" or p.key not in ends:
        return None
    end = date.fromisoformat(ends[p.key]) + timedelta(days=1)
    if p.kind == "instant":
        return f"{end.isoformat()}T00:00:00"
    months = p.months or (12 if p.key.startswith("FY") and not p.quarter else None)
    if months is None:
        return None
    year, month = divmod(end.year * 12 + end.month - 1 - months, 12)
    start = date(year, month + 1, min(end.day, 28))
    return f"{start.isoformat()}T00:00:00/{end.isoformat()}T00:00:00"


def _oim_unit(fact: Fact) -> str | None:
    if fact.unit == "shares":
        return "xbrli:shares"
    if fact.unit in _PURE_UNITS:
        return PURE
    if fact.currency is None:
        return None
    if fact.unit == "currency":
        return f"iso4217:{fact.currency}"
    if fact.unit == "per_share":
        return f"iso4217:{fact.currency}/xbrli:shares"
    return None  # percent: the base-unit convention of a percentage is not settled for export yet


# --- the candidates -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    fact: Fact
    line: LineKey | None
    label: str
    reason: str | None  # why it cannot be published, found where it was read
    col: int | None = None
    column: str | None = None  # the column as printed, when it is not the consolidated figure


def _cell_fact(
    result: DocumentResult,
    table: Table,
    column: StatementColumn,
    line: LineItem,
    fig: GridFigure,
    currency: str | None,
) -> Fact:
    """A statement cell no metric maps, as a fact (what the engine would make of it with a metric).

    ``currency``: the currency its tree gives a figure printed without one (:func:`_tree_currencies`).
    """
    n = fig.cell.number
    assert n is not None  # grid_of keeps typed figures only
    currency = n.currency or currency
    unit = "currency" if n.unit == "number" and currency is not None else n.unit
    return Fact.model_construct(
        fact_id=cell_fact_id(table.table_id, line.row, column.col),
        doc_id=result.doc_id,
        source=result.source,
        metric="",
        concept_us_gaap=None,
        concept_ifrs=None,
        label=line.label,
        period=column.period,
        value=n.base_value,
        printed=fig.cell.text,
        printed_value=n.value,
        decimals=n.decimals,
        scale=n.scale,
        scale_source=n.scale_source,
        currency=currency,
        unit=unit,
        page=fig.cell.page,
        bbox=fig.cell.bbox,
        origin="table_cell",
        table_id=table.table_id,
        row=line.row,
        col=column.col,
        context=column.context,
        basis=column.basis,
    )


def _unread_totals(sheet: Sheet) -> set[tuple[int, int]]:
    """Totals TOT001 cannot add up in a column because a line of theirs is blank there.

    Outside roll-forwards and tables that print nil as a blank, a blank line is a figure the reader may
    have lost (:func:`~pipeline.statements.structures.evaluate` gives None); Calculations 1.1 would add
    up the lines read and report a break the page does not have, so such a total is left out.
    """
    grid = sheet.grid
    nil = blanks_are_nil(grid)
    out: set[tuple[int, int]] = set()
    for _, s in sheet.nodes:
        for col in grid.get(s.total, {}):
            read = any(col in grid.get(r, {}) for r, _ in s.components)
            if read and evaluate(s, grid, col, nil_blanks=nil) is None:
                out.add((s.total, col))
    return out


def _tree_currencies(
    sheet: Sheet, by_cell: Mapping[tuple[str | None, int, BBox | None], Fact]
) -> dict[tuple[int, int], str]:
    """The currency of each figure the tree adds into or out of a figure printed in one currency.

    Statements print the currency sign on the first line and the totals only ("$4,979", "452"); a sum of
    money is money in the same currency, so the lines of a node share the currency of any of them, column
    by column. A figure outside every tree gets none: its unit is not known.
    """
    grid = sheet.grid
    nodes = [(s.total, *(r for r, _ in s.components)) for _, s in sheet.nodes]
    out: dict[tuple[int, int], str] = {}
    for row, cols in grid.items():
        for col, fig in cols.items():
            n, fact = fig.cell.number, by_cell.get((sheet.table.table_id, fig.cell.page, fig.cell.bbox))
            currency = (n.currency if n is not None else None) or (
                fact.currency if fact is not None else None
            )
            if currency is not None:
                out[(row, col)] = currency
    changed = True
    while changed:  # nested nodes pass their currency on, subtotal to total and back
        changed = False
        for rows in nodes:
            for col in {c for r in rows for c in grid.get(r, {})}:
                found = {out[(r, col)] for r in rows if (r, col) in out}
                if len(found) != 1:
                    continue  # none, or two currencies in one sum: leave it alone
                currency = next(iter(found))
                for r in rows:
                    if col in grid.get(r, {}) and (r, col) not in out:
                        out[(r, col)] = currency
                        changed = True
    return out


def _flow_columns(sheet: Sheet, by_cell: Mapping[tuple[str | None, int, BBox | None], Fact]) -> set[int]:
    """Columns headed by a date whose figures the engine reads as flows of no known length.

    Under a date head ("December 25, 2021") the engine gives a balance its instant and a flow no period
    kind (``unknown``): a column where it gave some figure no kind and none an instant is a column of
    flows, whatever the statement's kind says (a balance sheet stitched to the statement above it).
    """
    out: set[int] = set()
    for column in sheet.statement.columns:
        if column.period is None or column.period.kind != "instant":
            continue
        kinds = {
            fact.period.kind
            for cols in sheet.grid.values()
            if (fig := cols.get(column.col)) is not None
            and (fact := by_cell.get((sheet.table.table_id, fig.cell.page, fig.cell.bbox))) is not None
            and fact.period is not None
        }
        if "unknown" in kinds and "instant" not in kinds:
            out.add(column.col)
    return out


def _metric_kind(taxonomy: Taxonomy, metric: str) -> str | None:
    """``instant`` for a balance metric, ``duration`` for a flow, None for no metric."""
    found = taxonomy.get(metric) if metric else None
    return None if found is None else found.period_type


def _candidates(result: DocumentResult, read: Sequence[Sheet]) -> tuple[list[_Candidate], set[LineKey]]:
    """Every statement figure as TOT001 reads it, then the document's other facts.

    A statement figure is published in its column's period: a summation binds figures of one context only,
    as TOT001 adds up one column. A line whose metric gives it another kind of period (a balance metric on
    a line of changes, "Inventories" in a cash flow statement) is not that metric: its lines are returned,
    to publish under concepts of their own.
    """
    by_cell = {(f.table_id, f.page, f.bbox): f for f in result.facts if f.origin == "table_cell"}
    out: list[_Candidate] = []
    used: set[str] = set()
    unlike: set[LineKey] = set()
    taxonomy = load_taxonomy()
    for sheet in read:
        statement, table, grid = sheet.statement, sheet.table, sheet.grid
        columns = {c.col: c for c in statement.columns}
        lone = lone_dashes(grid)
        currencies = _tree_currencies(sheet, by_cell)
        unread = _unread_totals(sheet)
        flows = _flow_columns(sheet, by_cell)
        for line in sorted(statement.lines, key=lambda x: x.row):
            for col, fig in sorted(grid.get(line.row, {}).items()):
                fact = by_cell.get((table.table_id, fig.cell.page, fig.cell.bbox))
                column = columns[col]
                if fact is None:
                    fact = _cell_fact(result, table, column, line, fig, currencies.get((line.row, col)))
                elif column.period is not None and fact.period != column.period:
                    fact = fact.model_copy(update={"period": column.period})
                kind = _metric_kind(taxonomy, fact.metric)
                if kind is not None and fact.period is not None and fact.period.kind != kind:
                    unlike.add((statement.statement_id, line.row))
                used.add(fact.fact_id)
                reason = None
                if not fig.readable:
                    reason = "two figures read as one cell"
                elif col in flows:
                    # a 52/53-week year headed by its last day ("December 25, 2021"): the engine reads
                    # the flows under it with no period kind; the report does not make them instants
                    reason = "a date head over flows (the period's length is not printed)"
                elif (line.row, col) in lone:
                    reason = "a dash alone in its column (not applicable, or nil)"
                elif (line.row, col) in unread:
                    reason = "a total whose lines are not all read in its column (TOT001 does not add it up)"
                elif fact.unit == "number" and not fact.metric:
                    reason = "no unit printed (no currency in its column of the tree)"
                key = (statement.statement_id, line.row)
                out.append(_Candidate(fact, key, line.label, reason, col, _column_text(column)))
    out += [
        _Candidate(f, None, f.label, None, column=None if _consolidated(f) else f.context or f.basis)
        for f in result.facts
        if f.fact_id not in used
    ]
    return out, unlike


def _consolidated(x: Fact | StatementColumn) -> bool:
    return x.basis == "reported" and x.context is None


def _column_text(column: StatementColumn) -> str | None:
    """What names a statement column that is not the consolidated figure: its segment, else its header."""
    if _consolidated(column):
        return None
    return column.context or f"{column.header} ({column.basis.replace('_', ' ')})"


def _unclean(fact: Fact) -> str | None:
    """Why a figure cannot be published at all, or None."""
    if not known_facts([fact]) or fact.scale_source is None:
        return "scale not established"
    return None


# --- concepts -----------------------------------------------------------------------------------


def _metric_lines(result: DocumentResult) -> set[LineKey]:
    """The statement lines whose metric labels no other line of their statement."""
    out: set[LineKey] = set()
    for s in result.statements:
        count: dict[str, int] = {}
        for line in s.lines:
            if line.metric:
                count[line.metric] = count.get(line.metric, 0) + 1
        out |= {(s.statement_id, line.row) for line in s.lines if line.metric and count[line.metric] == 1}
    return out


def _unique(base: str, taken: Container[str]) -> str:
    """``base``, or ``base_2``, ``base_3``, ... the first not ``taken``."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    return name


class _Members:
    """Members of the column dimension, one per segment or basis printed, named from it."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def of(self, text: str | None) -> str | None:
        """The member of a column as printed; None for the consolidated figures (the default)."""
        if text is None:
            return None
        if text not in self.names:
            self.names[text] = _unique(f"{_label_name(text)}Member", self.names.values())
        return self.names[text]


class _Names:
    """Concept names: one per metric, one per statement line without one, never two meanings per name."""

    def __init__(self, metrics: Iterable[str]) -> None:
        self.taken = {concept_name(m) for m in metrics}
        self.lines: dict[LineKey, str] = {}

    def of_line(self, line: LineKey, label: str) -> str:
        if line not in self.lines:
            self.lines[line] = name = _unique(_label_name(label), self.taken)
            self.taken.add(name)
        return self.lines[line]


def _figures(
    candidates: Sequence[_Candidate], result: DocumentResult, demoted: set[LineKey], members: _Members
) -> tuple[list[Figure], list[Excluded], list[LineKey]]:
    """The publishable figures under their concepts; the others; the lines to demote to own concepts."""
    flags = [*result.flags, *result.structure_questions]
    ends = period_ends(result)
    metric_lines = _metric_lines(result) - demoted
    names = _Names(c.fact.metric for c in candidates if c.fact.metric)
    concepts: dict[str, Concept] = {}
    figures: list[Figure] = []
    excluded: list[Excluded] = []
    demote: list[LineKey] = []
    for cand in candidates:
        fact = cand.fact
        period = _oim_period(fact.period, ends)
        unit = _oim_unit(fact)
        reason = cand.reason or _unclean(fact)
        if reason is None and period is None:
            reason = "period end or length not printed"
        if reason is None and unit is None:
            reason = f"unit {fact.unit} without a currency or not exported"
        if reason is not None or period is None or unit is None:
            excluded.append(Excluded(fact.fact_id, fact.metric, reason or ""))
            continue
        by_metric = bool(fact.metric) and (cand.line is None or cand.line in metric_lines)
        if by_metric:
            name, label = concept_name(fact.metric), fact.metric
        else:
            assert cand.line is not None  # a fact outside statements always has a metric
            name, label = names.of_line(cand.line, cand.label), cand.label
        period_type = "instant" if "/" not in period else "duration"
        wanted = Concept(name, _ITEM_TYPE.get(fact.unit, "decimalItemType"), period_type, label)
        concept = concepts.setdefault(name, wanted)
        if (concept.item_type, concept.period_type) != (wanted.item_type, wanted.period_type):
            if by_metric and cand.line is not None:
                demote.append(cand.line)
            reason = f"concept {name} is {concept.period_type} {concept.item_type} elsewhere"
            excluded.append(Excluded(fact.fact_id, fact.metric, reason))
            continue
        known = known_facts([fact])[0]
        touching = tuple(f for f in flags if touches(f, known))
        member = members.of(cand.column)
        figures.append(Figure(known, concept, period, unit, touching, cand.line, cand.col, member))
    return figures, excluded, demote


def _dedupe(
    figures: Sequence[Figure], demoted: set[LineKey], tree_lines: Container[LineKey]
) -> tuple[list[Figure], list[Excluded], list[LineKey]]:
    """One fact per concept, period and unit (Calculations 1.1 binds no duplicates).

    Agreeing copies (their rounding intervals meet) keep a statement's, else the most precise one; of
    copies that disagree none is published under the shared concept: which one is right is the analyst's
    call. Their statement lines are returned, to publish under concepts of their own. So is a line of a
    calculation tree whose copy kept prints other digits ("1,235" in a summary beside the statement's
    "1,234", or "1,234.6"): its summation must bind the digits TOT001 adds, not the copy's.
    """
    groups: dict[tuple[str, str, str, str], list[Figure]] = {}
    for f in figures:
        groups.setdefault(_key(f), []).append(f)
    kept: list[Figure] = []
    excluded: list[Excluded] = []
    demote: list[LineKey] = []
    for group in groups.values():
        bounds = [interval(f.fact.value, f.fact.decimals) for f in group]
        if max(lo for lo, _ in bounds) > min(hi for _, hi in bounds):
            # (a line already under its own concept that conflicts prints two figures for one period)
            demote += [f.line for f in group if f.line is not None and f.line not in demoted]
            printed = ", ".join(sorted({f.fact.printed for f in group}))
            excluded += [
                Excluded(f.fact.fact_id, f.fact.metric, f"conflicting duplicates ({printed})")
                for f in group
                if f.line is None or f.line in demoted
            ]
            continue
        # the figure TOT001 adds up first (a statement line's), so that Calculations 1.1 bounds the same
        # printed digits: a more precise copy from a note agrees with it yet may not with its lines' sum
        best = max(group, key=lambda f: (f.line is not None, f.fact.decimals, f.fact.origin == "table_cell"))
        kept.append(best)
        digits = (best.fact.value, best.fact.decimals)
        demote += [
            f.line
            for f in group
            if f.line is not None
            and f.line in tree_lines
            and f.line not in demoted
            and (f.fact.value, f.fact.decimals) != digits
        ]
        reason = f"duplicate of {best.fact.fact_id}"
        excluded += [Excluded(f.fact.fact_id, f.fact.metric, reason) for f in group if f is not best]
    return kept, excluded, demote


# --- summations ---------------------------------------------------------------------------------


def _summations(
    read: Sequence[Sheet], figures: Sequence[Figure], kept: Sequence[Figure]
) -> tuple[list[Summation], list[SkippedSummation], dict[_Key, str]]:
    """Each proven node of each statement as a summation, unless the report cannot state it as TOT001 does.

    Calculations 1.1 adds up the items present in a context, a missing one as nil. So where a line of a
    node that prints a figure in a column is left out of the report, the node's total in that column is
    returned, to be left out too (it would read as a break the page does not have); the node is stated
    in its other columns. A node with no such column left is not stated.

    Returns:
        The summations, the nodes not stated, and the totals to leave out (by concept and context) with
        the reason.
    """
    in_report = {_key(f) for f in kept}
    line_concepts = {f.line: f.concept.name for f in figures if f.line is not None and _key(f) in in_report}
    # a statement figure is in the report when it, or an agreeing copy of it, is published
    published = {(f.line, f.col) for f in figures if f.line is not None and _key(f) in in_report}
    at = {(f.line, f.col): _key(f) for f in figures if f.line is not None}
    out: list[Summation] = []
    skipped: list[SkippedSummation] = []
    orphans: dict[_Key, str] = {}
    for sheet in read:
        statement, grid, sid = sheet.statement, sheet.grid, sheet.statement_id
        columns = [c.col for c in statement.columns]
        totals: set[tuple[str, str]] = set()
        for line, structure in sheet.nodes:
            role = sid if structure.convention != "breakdown" else f"{sid}-parts"
            total = line_concepts.get((sid, line.row))
            if total is None:
                continue  # no figure of the total is published: nothing to check
            items = [
                (line_concepts[(sid, r)], sign)
                for r, sign in structure.components
                if (sid, r) in line_concepts
            ]
            names = [total, *(n for n, _ in items)]
            reason = None
            if not items:
                reason = "no line of it is published"
            elif len(set(names)) != len(names):
                reason = "one concept twice in the summation"
            elif (role, total) in totals:
                reason = "a second summation of the same total in one role"
            else:
                stated = [col for col in columns if ((sid, line.row), col) in published]
                lost: dict[int, int] = {}
                for col in stated:
                    printed = [r for r, _ in structure.components if grid.get(r, {}).get(col, _NIL).value]
                    if missing := [r for r in printed if ((sid, r), col) not in published]:
                        lost[col] = missing[0]
                if lost and len(lost) == len(stated):
                    col, row = next(iter(lost.items()))
                    reason = f"line {row} is left out of the report in column {col}"
                elif lost:
                    for col, row in lost.items():
                        orphans[at[((sid, line.row), col)]] = (
                            f"a total whose line {row} is left out of the report"
                        )
                    continue  # stated once those totals are out
            if reason is not None:
                skipped.append(SkippedSummation(sid, line.row, reason))
                continue
            totals.add((role, total))
            out.append(Summation(role, statement, total, tuple(items), line.row))
    return out, skipped, orphans


_Key = tuple[str, str, str, str]


def _key(f: Figure) -> _Key:
    """Concept and context: a fact is one per key (Calculations 1.1 binds within a context and unit)."""
    return f.concept.name, f.period, f.unit, f.member or ""


def select(result: DocumentResult) -> Selection:
    """The figures, concepts and summations of one document's report, and what is left out.

    Args:
        result: A processed document.

    Returns:
        The selection (see the module's docstring for the rules).
    """
    read = sheets(result)
    candidates, demoted = _candidates(result, read)
    members = _Members()
    tree_lines = {
        (sheet.statement_id, row)
        for sheet in read
        for _, node in sheet.nodes
        for row in (node.total, *(r for r, _ in node.components))
    }
    while True:
        figures, excluded, demote = _figures(candidates, result, demoted, members)
        kept, duplicates, conflicting = _dedupe(figures, demoted, tree_lines)
        more = (set(demote) | set(conflicting)) - demoted
        if not more:
            break
        demoted |= more  # a line that lost its metric concept publishes under its own: look again
    summations, skipped, orphans = _summations(read, figures, kept)
    # Totals a summation would bind where TOT001 adds up nothing: one whose line is left out in its column
    # (Calculations 1.1 would add up the others alone), or one published outside its statement's columns
    # beside some of its lines. Leave them out and state the summations again (each figure at most once,
    # so this ends).
    for _ in range(len(kept) + 1):
        outside = _bound_outside(summations, kept)
        reason_of = {f.fact.fact_id: orphans[_key(f)] for f in kept if _key(f) in orphans}
        reason_of |= dict.fromkeys(
            outside, "a total outside its statement's columns whose lines are published there"
        )
        if not reason_of:
            break
        excluded += [
            Excluded(f.fact.fact_id, f.fact.metric, reason_of[f.fact.fact_id])
            for f in kept
            if f.fact.fact_id in reason_of
        ]
        kept = [f for f in kept if f.fact.fact_id not in reason_of]
        summations, skipped, orphans = _summations(read, figures, kept)
    used = {f.member for f in kept}
    named = tuple((name, text) for text, name in members.names.items() if name in used)
    return Selection(tuple(kept), tuple(summations), tuple(excluded + duplicates), tuple(skipped), named)


def _bound_outside(summations: Sequence[Summation], kept: Sequence[Figure]) -> set[str]:
    """Published totals that a summation binds in a context its own statement does not print.

    A summation from one statement binds every context its total is published in. TOT001 adds up the
    statement's own columns only: outside them (a five-year summary, a narrative figure) the lines beside
    a total may be another breakdown, or published in part; their sum is no finding of TOT001's, nor of
    the page's, whether it holds or not.
    """
    by_key = {_key(f): f for f in kept}
    contexts: dict[str, set[tuple[str, str, str]]] = {}
    for f in kept:
        contexts.setdefault(f.concept.name, set()).add(_key(f)[1:])
    bound: set[str] = set()
    for s in summations:
        sid = s.statement.statement_id
        own = {_key(f)[1:] for f in kept if f.line is not None and f.line[0] == sid}
        for context in contexts.get(s.total, set()) - own:
            if any((n, *context) in by_key for n, _ in s.items):
                bound.add(by_key[(s.total, *context)].fact.fact_id)
    return bound
