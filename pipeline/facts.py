"""Key figures ("facts"): table cells and narrative figures mapped to the metric taxonomy.

A fact is only useful for tie-out when it is unambiguous: which metric, which period, and whether it is
the whole entity's figure or a segment's. Everything here leans towards leaving a figure out (or giving
it a ``context``) rather than letting a segment's "Revenue" be compared with the group's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.ids import stable_id
from pipeline.numbers import find_numbers
from pipeline.taxonomy import MetricDef, Taxonomy, normalise_label
from schemas.models import BBox, Block, Cell, Fact, Period, Table, TypedNumber

__all__ = [
    "Amount",
    "NarrativeClaim",
    "PeriodRef",
    "RowView",
    "column_headers",
    "extract_facts",
    "extract_text_facts",
    "is_change_column",
    "latest_fiscal_year",
    "parse_claims",
    "table_rows",
]

# Cells that only carry a currency symbol ("$" printed in its own column) are not figures.
_CURRENCY_ONLY = re.compile(r"^\s*(?:US\$|A\$|C\$|HK\$|S\$|R\$|\$|£|€|¥|₹|CHF|USD|GBP|EUR)\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RowView:
    """A body row of a table, reduced to what the checks need.

    Attributes:
        index: Row index in the table grid.
        label: Row label as printed (text cells left of the first figure), '' when absent.
        label_bbox: Box of the label's first cell.
        indent: Left edge of the label (x0), a proxy for the indentation level.
        page: Page the row is printed on.
        numbers: Column → cell, for cells holding a typed figure.
    """

    index: int
    label: str
    label_bbox: BBox | None
    indent: float | None
    page: int
    numbers: Mapping[int, Cell]

    @property
    def is_heading(self) -> bool:
        """A label-only row: a section heading such as "Current assets" or "Segment A"."""
        return bool(self.label.strip()) and not self.numbers


def _header_row_indices(table: Table) -> set[int]:
    rows = {c.row for c in table.cells if c.is_header}
    rows.update(range(table.header_rows))
    return rows


def table_rows(table: Table) -> list[RowView]:
    """Body rows of a table in grid order (header rows left out).

    Args:
        table: A logical table.

    Returns:
        One view per body row that has at least one non-empty cell.
    """
    header_rows = _header_row_indices(table)
    by_row: dict[int, list[Cell]] = {}
    for cell in table.cells:
        if cell.row not in header_rows:
            by_row.setdefault(cell.row, []).append(cell)
    views: list[RowView] = []
    for r in sorted(by_row):
        cells = sorted(by_row[r], key=lambda c: c.col)
        numbers = {c.col: c for c in cells if c.number is not None}
        first_num = min(numbers) if numbers else None
        label_cells = [
            c
            for c in cells
            if c.number is None
            and c.text.strip()
            and not _CURRENCY_ONLY.match(c.text)
            and (first_num is None or c.col < first_num)
        ]
        label = " ".join(c.text.strip() for c in label_cells)
        bbox = label_cells[0].bbox if label_cells else None
        page = table.row_pages[r] if r < len(table.row_pages) else cells[0].page
        if not label and not numbers:
            continue
        views.append(RowView(r, label, bbox, bbox[0] if bbox else None, page, numbers))
    return views


def column_headers(table: Table) -> dict[int, str]:
    """Header text above each column (spanning header cells count for every column they cover).

    Args:
        table: A logical table.

    Returns:
        Column index → header text, rows joined top to bottom.
    """
    parts: dict[int, list[tuple[int, str]]] = {}
    header_rows = _header_row_indices(table)
    for cell in table.cells:
        if cell.row in header_rows and cell.text.strip():
            for col in range(cell.col, cell.col + cell.col_span):
                parts.setdefault(col, []).append((cell.row, cell.text.strip()))
    return {col: " ".join(t for _, t in sorted(items)) for col, items in parts.items()}


# --- context -----------------------------------------------------------------------------------

# Columns of changes or ratios are not the metric itself, whatever period their header names.
_CHANGE_COLUMN = re.compile(
    r"%|\bchange\b|\bchanges\b|\bvariance\b|\bvs\b|\bversus\b|\bincrease\b|\bdecrease\b|\bgrowth\b|"
    r"\bcompared\b|\bdifference\b|\bmovement\b|\bbps\b|\bbasis points\b|\bfavou?rable\b|\bunfavou?rable\b",
    re.IGNORECASE,
)

# Words a column header may contain without naming a dimension: period, unit and audit vocabulary.
_PERIOD_HEADER_WORDS = frozenset(
    """
    year years yr ended ending end as at of on fiscal fy quarter quarters q1 q2 q3 q4 h1 h2 first second third
    fourth half full three six nine twelve months month weeks week period periods to the for in and from
    january february march april may june july august september october november december jan feb mar apr
    jun jul aug sep sept oct nov dec millions million thousands thousand billions billion m bn mn k
    except per share data amounts amount unaudited audited note notes total consolidated group reported
    actual usd gbp eur us chf jpy cad aud ytd year-to-date to-date 52 53
    """.split()
)

# Table titles naming something other than the consolidated entity.
_CONTEXT_TITLE = re.compile(
    r"\bsegment|\bdiscontinued\b|\bparent company\b|\bcompany (?:only|balance sheet|statement)|"
    r"\bpro forma\b|\bquarterly\b|\bsubsidiar|\bguarantor|\bjoint venture|\bassociate|\bheld for sale\b|"
    r"\bacqui(?:red|sition)|\brestat|\bpreviously reported\b|\bnon-?gaap\b|\badjusted\b|\bunderlying\b|"
    r"\borganic\b|\bconstant currency\b|\bby (?:region|geograph|business|product|division)",
    re.IGNORECASE,
)

# Words a section heading may contain and still be part of the primary statements (not a segment).
_GENERIC_HEADING_WORDS = frozenset(
    """
    a an and the of for from in to by on at as with per less add other others total net gross
    current non noncurrent long short term assets asset liabilities liability equity shareholders
    stockholders shareowners share shares capital reserves funds owners parent holders
    operating operations operation investing financing activities activity cash flows flow
    provided used generated revenue revenues sales income expenses expense costs cost charges
    earnings loss losses profit comprehensive items item that will may be not subsequently reclassified
    continuing adjustments adjustment reconcile reconciliation changes change working balances
    attributable year years ended period periods months quarter statement statements consolidated
    group condensed interim supplemental supplementary information disclosures disclosure
    taxes tax income-tax before after finance financial interest deferred other
    note notes unaudited audited amounts millions thousands except data basic diluted
    common ordinary preferred dividends dividend weighted average number outstanding
    property plant equipment intangible goodwill receivables payables inventories
    """.split()
)


def is_change_column(header: str) -> bool:
    """True when a column header names a change, variance or ratio rather than a period's figure."""
    return bool(_CHANGE_COLUMN.search(header))


def _residual_words(text: str, allowed: frozenset[str]) -> list[str]:
    words = normalise_label(text).split()
    return [w for w in words if w not in allowed and not w.isdigit() and not re.fullmatch(r"\d+[a-z]{0,2}", w)]


def header_dimension(header: str) -> str | None:
    """The dimension a column header names besides its period ("Americas 2025" → "americas").

    Args:
        header: Column header text.

    Returns:
        The residual words, or None when the header only names a period, unit or total.
    """
    rest = _residual_words(header, _PERIOD_HEADER_WORDS)
    return " ".join(rest) if rest else None


def heading_is_generic(heading: str, taxonomy: Taxonomy) -> bool:
    """True when a section heading is ordinary statement structure rather than a segment or dimension.

    Args:
        heading: A label-only row's text.
        taxonomy: To recognise headings that are themselves metric names ("Revenue").

    Returns:
        True for "Current assets", "Cash flows from operating activities", "Revenue"; False for
        "Americas", "Segment A", "Discontinued operations".
    """
    if taxonomy.match(heading) is not None:
        return True
    return not _residual_words(heading, _GENERIC_HEADING_WORDS)


def table_context(table: Table) -> str | None:
    """Context named by a table's title (segment, parent company only, pro forma…), else None."""
    if table.title and _CONTEXT_TITLE.search(table.title):
        return table.title.strip()
    return None


def row_contexts(rows: Sequence[RowView], taxonomy: Taxonomy) -> dict[int, str | None]:
    """Section context of each row: the nearest heading above when it names a segment or dimension.

    A generic heading ("Current liabilities") ends a segment section; so does a heading that is
    less indented than the segment heading was (a new top-level section).

    Args:
        rows: Body rows of one table, in order.
        taxonomy: Used to recognise generic headings.

    Returns:
        Row index → context string or None.
    """
    contexts: dict[int, str | None] = {}
    current: str | None = None
    for row in rows:
        if row.is_heading:
            current = None if heading_is_generic(row.label, taxonomy) else row.label.strip().rstrip(":")
        contexts[row.index] = current
    return contexts


def _join_context(*parts: str | None) -> str | None:
    kept = [p for p in parts if p]
    return " / ".join(kept) if kept else None


# --- table facts -------------------------------------------------------------------------------

_UNIT_COMPATIBLE: dict[str, frozenset[str]] = {
    "currency": frozenset({"currency", "number"}),
    "per_share": frozenset({"currency", "number", "per_share"}),
    "shares": frozenset({"shares", "number", "count"}),
    "percent": frozenset({"percent"}),
}


def _fact_number(metric: MetricDef, number: TypedNumber) -> tuple[float, int, int]:
    """Value, decimals and scale of a cell's figure for this metric.

    Per-share amounts are never scaled: a table "in millions, except per share data" whose scale was
    applied to the EPS rows would otherwise turn $2.15 into 2,150,000.
    """
    if metric.unit == "per_share" and number.scale != 0:
        return number.value, number.decimals + number.scale, 0
    return number.base_value, number.decimals, number.scale


def _cell_fact(
    table: Table, row: RowView, cell: Cell, number: TypedNumber, metric: MetricDef, context: str | None
) -> Fact:
    period = number.period
    value, decimals, scale = _fact_number(metric, number)
    key = period.key if period else None
    return Fact(
        fact_id=stable_id(table.doc_id, metric.id, key, row.page, table.table_id, row.index, cell.col),
        doc_id=table.doc_id,
        source=table.source,
        metric=metric.id,
        concept_us_gaap=metric.us_gaap,
        concept_ifrs=metric.ifrs,
        label=row.label,
        period=period,
        value=value,
        printed=number.text or cell.text,
        decimals=decimals,
        scale=scale,
        currency=number.currency or table.currency,
        unit=metric.fact_unit,
        page=row.page,
        bbox=cell.bbox,
        origin="table_cell",
        table_id=table.table_id,
        row=row.index,
        col=cell.col,
        context=context,
    )


def table_facts(table: Table, taxonomy: Taxonomy) -> list[Fact]:
    """Facts of one table (see :func:`extract_facts`)."""
    rows = table_rows(table)
    headers = column_headers(table)
    contexts = row_contexts(rows, taxonomy)
    title_ctx = table_context(table)
    facts: list[Fact] = []
    for row in rows:
        if not row.numbers:
            continue
        metric = taxonomy.match(row.label)
        if metric is None:
            continue
        for col, cell in sorted(row.numbers.items()):
            number = cell.number
            if number is None or number.period is None:
                continue
            if number.unit not in _UNIT_COMPATIBLE[metric.unit]:
                continue
            header = headers.get(col, "")
            if is_change_column(header):
                continue
            context = _join_context(title_ctx, contexts.get(row.index), header_dimension(header))
            facts.append(_cell_fact(table, row, cell, number, metric, context))
    return facts


def extract_facts(tables: Sequence[Table], taxonomy: Taxonomy) -> list[Fact]:
    """Map table rows to metrics and emit one fact per figure with a period.

    A figure becomes a fact when its row label is a taxonomy synonym, its cell carries a typed number
    whose column header is a period (not a change or % column), and its unit fits the metric. Facts
    under a segment/geography heading, in a column naming a dimension ("Americas"), or in a table whose
    title names one (segment note, parent company only, pro forma) carry a ``context`` so that
    cross-reference checks leave them alone.

    Args:
        tables: Logical tables of one document.
        taxonomy: The metric taxonomy.

    Returns:
        Facts in table, row, column order.
    """
    facts: list[Fact] = []
    for table in tables:
        facts.extend(table_facts(table, taxonomy))
    return facts


def latest_fiscal_year(facts: Sequence[Fact]) -> int | None:
    """The latest fiscal year any table fact is for: the document's current year."""
    years = [f.period.fiscal_year for f in facts if f.period is not None and f.period.fiscal_year is not None]
    return max(years) if years else None


# --- narrative facts ---------------------------------------------------------------------------


def _text_fact(
    claim: NarrativeClaim, which: str, doc_id: str, source: str
) -> Fact | None:
    amount = claim.current if which == "current" else claim.prior
    ref = claim.current_period if which == "current" else claim.prior_period
    if amount is None or ref is None or ref.kind == "instant":
        # An instant stated only by its year ("at the end of 2025") has no comparable period key.
        return None
    period = Period(
        kind="duration", key=ref.key, label=ref.label, fiscal_year=ref.year, quarter=ref.quarter, months=ref.months
    )
    block = claim.block
    start = claim.offset + amount.start
    return Fact(
        fact_id=stable_id(doc_id, claim.metric.id, ref.key, block.page, "text", block.bbox, start),
        doc_id=doc_id,
        source=source,
        metric=claim.metric.id,
        concept_us_gaap=claim.metric.us_gaap,
        concept_ifrs=claim.metric.ifrs,
        label=claim.subject,
        period=period,
        value=amount.value,
        printed=amount.text,
        decimals=amount.decimals,
        scale=amount.scale,
        currency=amount.currency,
        unit=claim.metric.fact_unit,
        page=block.page,
        bbox=block.bbox,
        origin="text_span",
    )


def extract_text_facts(
    blocks: Sequence[Block], taxonomy: Taxonomy, *, doc_id: str, source: str, default_year: int | None
) -> list[Fact]:
    """Facts stated in narrative sentences ("Revenue increased 8.4% to $1,338.2 million in 2025").

    Only sentences whose subject is exactly a taxonomy synonym and whose period can be resolved give
    facts; qualified subjects ("Adjusted revenue", "Revenue in Europe") are left out.

    Args:
        blocks: Text blocks of the document.
        taxonomy: The metric taxonomy.
        doc_id: Document id for the facts.
        source: Source path for the facts.
        default_year: The document's current fiscal year, used when a sentence names no year.

    Returns:
        Facts with origin ``text_span``.
    """
    facts: list[Fact] = []
    for block in blocks:
        if block.kind == "table":
            continue
        for claim in parse_claims(block, taxonomy, default_year=default_year):
            for which in ("current", "prior"):
                fact = _text_fact(claim, which, doc_id, source)
                if fact is not None:
                    facts.append(fact)
    return facts
