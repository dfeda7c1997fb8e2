"""Key figures ("facts"): table cells and narrative figures mapped to the metric taxonomy.

A fact is only useful for tie-out when it is unambiguous: which metric, which period, and whether it is
the whole entity's figure or a segment's. Everything here leans towards leaving a figure out (or giving
it a ``context``) rather than letting a segment's "Revenue" be compared with the group's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.figures.grid import RowView, column_headers, table_rows
from pipeline.figures.keying import keying_relation
from pipeline.figures.line_kinds import line_kinds
from pipeline.figures.rounding import compare_values
from pipeline.figures.taxonomy import MetricDef, Taxonomy, normalise_label
from pipeline.ids import stable_id
from schemas.models import Cell, Fact, Period, ScaleSource, StatementKind, Table, TypedNumber

__all__ = [
    "OTHER_FIGURES",
    "PRIMARY_STATEMENTS",
    "UNIT_NOTE_EXCEPTION",
    "RowView",
    "YearEnd",
    "cell_fact",
    "column_headers",
    "extract_facts",
    "is_change_column",
    "latest_fiscal_year",
    "other_figures",
    "table_fact",
    "table_rows",
    "year_end_day",
]

# --- context -----------------------------------------------------------------------------------

# Columns of changes or ratios are not the metric itself, whatever period their header names.
_CHANGE_COLUMN = re.compile(
    # "Growth" heads a change ("Organic growth %"), not a segment ("Emerging Growth Businesses").
    r"%|\bchange\b|\bchanges\b|\bvariance\b|\bvs\b|\bversus\b|\bincrease\b|\bdecrease\b|"
    r"\bgrowth\b(?!\s+(?:business(?:es)?|segments?|markets?|platforms?|companies|brands?|portfolio))|"
    r"\bcompared\b|\bdifference\b|\bmovement\b|\bbps\b|\bbasis points\b|\bfavou?rable\b|\bunfavou?rable\b",
    re.IGNORECASE,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MONTH_WORDS = _words(
    """
    january february march april may june july august september october november december jan feb mar apr
    jun jul aug sep sept oct nov dec
    """
)
# Words a column header may contain without naming a dimension: period, unit and audit vocabulary.
_PERIOD_HEADER_WORDS = _MONTH_WORDS | _words(
    """
    year years yr ended ending end as at of on fiscal fy quarter quarters q1 q2 q3 q4 h1 h2 first second third
    fourth half full three six nine twelve months month weeks week period periods to the for in and from
    millions million thousands thousand billions billion m bn mn k
    except per share data amounts amount unaudited audited note notes total consolidated group reported
    actual usd gbp eur us chf jpy cad aud ytd year-to-date to-date 52 53
    """
)

# Table titles naming something other than the consolidated entity.
_CONTEXT_TITLE = re.compile(
    r"\bsegment|\bdiscontinued\b|\bparent company\b|\bcompany (?:only|balance sheet|statement)|"
    r"\bpro forma\b|\bsubsidiar|\bguarantor|\bjoint venture|\bassociate|\bheld for sale\b|"
    r"\bacqui(?:red|sition)|\brestat|\bpreviously reported\b|\bnon-?gaap\b|\badjusted\b|\bunderlying\b|"
    r"\borganic\b|\bconstant currency\b|\bby (?:region|geograph|business|product|division)|"
    r"\bcross guarantee|\bclosed group\b|\bobligor|\bissuer\b|\bregistrant\b|\bcombined\b",
    re.IGNORECASE,
)

# Words a section heading may contain and still be part of the primary statements (not a segment).
_GENERIC_HEADING_WORDS = _words(
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
    m bn mn k 000 000s thousand million billion usd gbp eur jpy chf inr cny yen rs crore crores lakhs
    balance sheet sheets data selected summary highlights key results position condition operations
    commitments contingencies contingent see refer accounts payable receivable noncontrolling noninterest
    par value authorized issued stock treasury paid received during effect effects acquisitions acquired
    including required certain increase decrease included
    excluding includes noncash non-cash schedule provisions provision credit interests
    gaap major category categories
    """
)
"""Words of headings that are a statement's own structure: "Commitments and contingencies (Note 16)",
"Common stock, par value $0.01, authorized ...", "Cash paid during the year for", "Noninterest expense",
"Major GAAP cash flow categories" (a summary of the statement's own totals)."""
_STRUCTURE_WORDS = _GENERIC_HEADING_WORDS | _MONTH_WORDS
"""Those words and month names: a date ("Shares outstanding - December 31, 2021") names no segment."""

_OWNERS_EQUITY = re.compile(
    r"\b(?:share|stock)holders['’]?\s*(?:equity|investment)\b|\bshareowners['’]?\s*equity\b", re.IGNORECASE
)
"""A heading over the owners' equity of the reporting entity, by whatever name it is called ("Amcor plc
shareholders' equity", "Stockholders' equity attributable to Boston Properties, Inc."): its lines are the
statement's own, not a segment's."""

_OTHER_MEASURE = re.compile(r"\bnon[- ]?(?:gaap|ifrs)\b", re.IGNORECASE)
"""A heading over a measure of the company's own ("Non-GAAP - Continuing Operations"): its lines are not the
statements' figures, though every word of it is a statement's."""

_MEASURE_NAMED = re.compile(
    r"^(?P<name>.+?)\s*\((?:an? )?non[- ]?(?:gaap|ifrs)(?: financial)?(?: measures?)?\)\W*$", re.IGNORECASE
)
"""A heading that names the measure its lines compute and says it is one of the company's own ("Free Cash
Flow (non-GAAP measure)" over operating cash flow, capital expenditure and the free cash flow they make):
the lines it adds up are the statements' figures, the measure is a metric of its own."""

_CAPTION = re.compile(
    r"[$€£]\s?\d|\bpar value\b|\(\s*(?:net of|includes|including|see|refer)\b", re.IGNORECASE
)
"""A line's caption printed as a heading, its figures on the line below: it prints an amount, a par value
or its details in parentheses ("Customers (net of allowance for doubtful accounts of $171 million ...)"),
which no segment's name does."""


def is_change_column(header: str) -> bool:
    """True when a column header names a change, variance or ratio rather than a period's figure."""
    return bool(_CHANGE_COLUMN.search(header))


def _residual(word: str, allowed: frozenset[str]) -> bool:
    return word not in allowed and not word.isdigit() and not re.fullmatch(r"\d+[a-z]{0,2}", word)


def _residual_words(text: str, allowed: frozenset[str]) -> list[str]:
    return [w for w in normalise_label(text).split() if _residual(w, allowed)]


_UNIT_PAREN = re.compile(
    r"\(\s*(?:(?:amounts|dollars|figures)\s+)?(?:in\s+)?(?:millions|thousands|billions)\b[^()]*\)?",
    re.IGNORECASE,
)

_CARRYING = re.compile(r"\bcarrying\s+(?:amounts?|values?)\b", re.IGNORECASE)
# "Corning Incorporated and Subsidiary Companies", "Acme Corp. and its subsidiaries": the consolidated group
# itself, not a subsidiary's statement.
_GROUP = re.compile(r"\band (?:its )?(?:consolidated )?subsidiar(?:y|ies)(?: companies)?\b", re.IGNORECASE)
_GROUP_NAME = re.compile(r"^.*?" + _GROUP.pattern, re.IGNORECASE)
"""The consolidated group's name as a head prints it, with the name before "and subsidiaries": the whole
entity, no dimension."""


def header_dimension(header: str) -> str | None:
    """The dimension a column header names besides its period ("Americas 2025" → "americas").

    A small number that numbers the name stays ("Level 3 2021" → "level 3"): Level 1, 2 and 3 are three
    columns, not one.

    Args:
        header: Column header text.

    Returns:
        The residual words, or None when the header only names a period, unit or total.
    """
    # The unit printed among the heads ("(In millions, except par value amounts)") names no dimension, nor
    # does the carrying amount: it is the figure the statements print ("Carrying Amount" beside "Fair Value"),
    # nor the consolidated group printed over the years ("Corning Incorporated and Subsidiary Companies").
    header = _GROUP_NAME.sub(" ", header)
    words = normalise_label(_CARRYING.sub(" ", _UNIT_PAREN.sub(" ", header))).split()
    # a small number that numbers a name ("Level 3", "Tier 1") is part of it; a day, a year or a note
    # number after a period word or note is not
    numbered = {
        i
        for i, w in enumerate(words)
        if i
        and w.isdigit()
        and len(w) <= 2
        and words[i - 1] not in _PERIOD_HEADER_WORDS
        and not words[i - 1].isdigit()
        # "Domestic plans 31 December 2025": a day before its month numbers no name
        and not (i + 1 < len(words) and words[i + 1] in _MONTH_WORDS)
    }
    rest = [w for i, w in enumerate(words) if i in numbered or _residual(w, _PERIOD_HEADER_WORDS)]
    return " ".join(rest) if rest else None


_DEALS_LEFT_OUT = re.compile(
    r"\b(?:net of|excluding|exclusive of)\b[^:]*"
    r"\b(?:acqui\w*|divest\w*|dispos\w*|business combinations?)\b[^:]*",
    re.IGNORECASE,
)
"""The cash-flow statement's "Changes in operating assets and liabilities, excluding effect of acquisitions
and divestitures:": what the lines leave out names no segment of theirs."""


def heading_is_generic(heading: str, taxonomy: Taxonomy) -> bool:
    """True when a section heading is ordinary statement structure rather than a segment or dimension.

    Args:
        heading: A label-only row's text.
        taxonomy: To recognise headings that are themselves metric names ("Revenue").

    Returns:
        True for "Current assets", "Cash flows from operating activities", "Revenue"; False for
        "Americas", "Segment A", "Discontinued operations".
    """
    named = _MEASURE_NAMED.match(heading.strip())
    if named is not None:
        return taxonomy.match(named["name"]) is not None
    if _OTHER_MEASURE.search(heading):
        return False
    if taxonomy.match(heading) is not None or _OWNERS_EQUITY.search(heading) or _CAPTION.search(heading):
        return True
    return not _residual_words(_DEALS_LEFT_OUT.sub(" ", heading), _STRUCTURE_WORDS)


def table_context(table: Table) -> str | None:
    """Context named by a table's title (segment, parent company only, pro forma…), else None."""
    if table.title and _CONTEXT_TITLE.search(_GROUP.sub(" ", table.title)):
        return table.title.strip()
    return None


def row_contexts(rows: Sequence[RowView], taxonomy: Taxonomy) -> dict[int, str | None]:
    """Section context of each row: the nearest heading above when it names a segment or dimension.

    A generic heading ("Current liabilities") ends a segment section; so does a heading that is
    less indented than the segment heading was (a new top-level section), and the total that names the
    heading: "Total rental revenue" closes "Rental", and the "Total revenue" under it is the whole
    entity's (Boston Properties' income statement published its revenue as the "Rental" section's).

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
        if current is not None and _closes(row.label, current):
            current = None
    return contexts


def _closes(label: str, heading: str) -> bool:
    """Whether a line is the total of a section: "Total" and every word of the section's heading."""
    words = normalise_label(label).split()
    named = set(normalise_label(heading).split())
    return len(words) > 1 and words[0] == "total" and bool(named) and named <= set(words[1:])


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


def _fact_number(
    metric: MetricDef, number: TypedNumber
) -> tuple[float | None, int | None, int | None, ScaleSource | None]:
    """Value, decimals, scale and scale source of a cell's figure as a fact of ``metric``.

    Per-share amounts are never scaled: a table "in millions, except per share data" whose scale was
    applied to the EPS rows would otherwise turn $2.15 into 2,150,000. Value, decimals and scale are None
    when the scale is unknown.
    """
    if metric.unit == "per_share":
        return number.value, number.places, 0, "cell"
    return number.base_value, number.decimals, number.scale, number.scale_source


def instant_period(period: Period) -> Period:
    """A balance in a "Year ended 31 March 2024" column is at that year's end: the instant 2024-03-31.

    Args:
        period: The column's period.

    Returns:
        The instant at the period's end when the end date is printed; otherwise ``period`` unchanged.
    """
    if period.kind != "duration" or not period.end_date:
        return period
    return Period(
        kind="instant",
        key=period.end_date,
        label=period.end_date,
        fiscal_year=period.fiscal_year,
        end_date=period.end_date,
    )


def opening_period(period: Period) -> Period | None:
    """The instant an opening balance is at: the end of the period before the column's fiscal year.

    Args:
        period: The column's period (a fiscal year).

    Returns:
        The previous year-end instant when the end date is printed; otherwise the previous fiscal year
        (a duration that :func:`align_instants` turns into the document's year-end instant); None for
        quarters and other durations, whose opening date is not the previous year end.
    """
    if period.kind != "duration" or not period.key.startswith("FY") or period.fiscal_year is None:
        return None
    year = period.fiscal_year - 1
    if period.end_date and (period.months in (None, 12)):
        end = f"{int(period.end_date[:4]) - 1}{period.end_date[4:]}"
        end = end.replace("-02-29", "-02-28")
        return Period(kind="instant", key=end, label=end, fiscal_year=year, end_date=end)
    return Period(kind="duration", key=f"FY{year}", label=str(year), fiscal_year=year, months=12)


@dataclass(frozen=True)
class YearEnd:
    """A document's one year-end day: its date's year less the fiscal year, and ``-MM-DD``."""

    offset: int
    month_day: str

    def of(self, fiscal_year: int) -> str:
        """The year-end date of ``fiscal_year`` (ISO)."""
        return f"{fiscal_year + self.offset}{self.month_day}"


def year_end_day(periods: Iterable[Period | None]) -> YearEnd | None:
    """The year-end day every dated instant among ``periods`` falls on; None for none or several.

    31.12.2024 and 31.12.2025 in fiscal years 2024 and 2025: every fiscal year ends on 31 December of its
    own year. A fiscal year printed as a bare "2025" then ends on that day.
    """
    days = {
        (int(p.end_date[:4]) - p.fiscal_year, p.end_date[4:])
        for p in periods
        if p is not None and p.kind == "instant" and p.fiscal_year is not None and p.end_date
    }
    if len(days) != 1:
        return None
    offset, month_day = next(iter(days))
    return YearEnd(offset, month_day)


def align_instants(facts: Sequence[Fact], taxonomy: Taxonomy) -> list[Fact]:
    """Give balances printed under a bare fiscal-year column ("2025") the document's year-end instant.

    A key-figures table headed "2025" states total assets at the 2025 year end; when the balance sheet
    of the same document has exactly one instant in fiscal year 2025, that is the instant meant. For a
    year it does not show (the opening balance of the earliest year), the document's single year-end
    day is used.

    Args:
        facts: Table facts of one document.
        taxonomy: To tell balances (instant metrics) from flows.

    Returns:
        The facts, with those periods replaced; any ambiguity leaves a fact unchanged.
    """
    instants: dict[int, set[str]] = {}
    for f in facts:
        p = f.period
        if p is not None and p.kind == "instant" and p.fiscal_year is not None and p.end_date:
            instants.setdefault(p.fiscal_year, set()).add(p.key)
    year_end = year_end_day(f.period for f in facts)
    out: list[Fact] = []
    for f in facts:
        metric = taxonomy.get(f.metric)
        p = f.period
        if metric is not None and metric.period_type == "instant" and p is not None and p.kind == "duration":
            keys = instants.get(p.fiscal_year or -1, set())
            if not keys and year_end is not None and p.fiscal_year is not None:
                # A year the balance sheet does not show (an opening balance): the document's one
                # year-end date, in that year.
                keys = {year_end.of(p.fiscal_year)}
            if len(keys) == 1:
                key = next(iter(keys))
                moved = Period(kind="instant", key=key, label=key, fiscal_year=p.fiscal_year, end_date=key)
                f = f.model_copy(update={"period": moved})
        out.append(f)
    return out


def table_fact(
    table: Table,
    cell: Cell,
    number: TypedNumber,
    metric: MetricDef,
    period: Period,
    *,
    fact_id: str,
    label: str,
    page: int,
    row: int,
    printed: str,
    context: str | None = None,
) -> Fact:
    """The fact a table cell states for a metric and period, whoever mapped its row to the metric.

    The one builder of facts from table cells: the taxonomy's rows (:func:`cell_fact`) and the rows the
    model maps (:func:`pipeline.model.grounding.verify_mapping`) differ only in the id, label, page and
    printed text they give; the number (per-share amounts never scaled), unit and currency are read here.
    """
    value, decimals, scale, scale_source = _fact_number(metric, number)
    return Fact(
        fact_id=fact_id,
        doc_id=table.doc_id,
        source=table.source,
        **metric.of_fact(),
        label=label,
        period=period,
        value=value,
        printed=printed,
        printed_value=number.value,
        decimals=decimals,
        scale=scale,
        scale_source=scale_source,
        currency=number.currency or table.currency,
        page=page,
        bbox=cell.bbox,
        origin="table_cell",
        table_id=table.table_id,
        row=row,
        col=cell.col,
        context=context,
    )


def cell_fact(
    table: Table,
    row: RowView,
    cell: Cell,
    number: TypedNumber,
    metric: MetricDef,
    context: str | None,
    period: Period,
) -> Fact:
    """The fact a table cell states for a metric and period (per-share amounts are never scaled)."""
    key = period.key if period else None
    return table_fact(
        table,
        cell,
        number,
        metric,
        period,
        fact_id=stable_id(table.doc_id, metric.id, key, row.page, table.table_id, row.index, cell.col),
        label=row.label,
        page=row.page,
        row=row.index,
        printed=number.text or cell.text,
        context=context,
    )


def table_facts(table: Table, taxonomy: Taxonomy) -> list[Fact]:
    """Facts of one table (see :func:`extract_facts`)."""
    rows = table_rows(table)
    headers = column_headers(table)
    contexts = row_contexts(rows, taxonomy)
    title_ctx = table_context(table)
    facts: list[Fact] = []
    heading_metric = title_metric(table.title, taxonomy)
    heading = ""
    kinds = line_kinds(rows)
    for row in rows:
        if row.is_heading:
            heading_metric = taxonomy.match(row.label)
            heading = row.label.strip()
            continue
        if not row.numbers:
            continue
        found = taxonomy.lookup(row.label)
        if found is None and heading.endswith(":") and row.label.strip():
            # A heading that begins the name: "Cash provided by (used in):" over "Investing activities".
            # An unlabelled line under "Shareholders' equity:" is no equity: it is the balance sheet's total.
            found = taxonomy.lookup(f"{heading[:-1]} {row.label.strip()}")
        section_total = False
        if found is None and heading_metric is not None and normalise_label(row.label) in _SECTION_TOTALS:
            # "Net sales" / Machine Tools / Automotive / "Total": the total of a section named after a metric.
            found, section_total = (heading_metric, False), True
        if found is None:
            continue
        metric, opening = found
        per_share_line = metric.unit == "currency" and kinds.get(row.index) == "per_share"
        for col, cell in sorted(row.numbers.items()):
            number = cell.number
            if number is None or number.period is None:
                continue
            if per_share_line and number.places >= 2:
                # "Net income attributable to X" under "Basic earnings per share:" printing 0.22 a share;
                # the numerator printed in whole millions under the same heading is the amount it says.
                continue
            if number.unit not in _UNIT_COMPATIBLE[metric.unit]:
                continue
            header = headers.get(col, "")
            if is_change_column(header) or (metric.unit == "currency" and _PER_SHARE_HEAD.search(header)):
                continue  # a change, or "EPS (Diluted US cents)" beside the same line's "$ million"
            period = _fact_period(number.period, metric, opening)
            if period is None:
                continue
            if section_total:
                # The total over all segments is the whole entity's figure, whatever the title says.
                context = header_dimension(header)
            else:
                context = _join_context(title_ctx, contexts.get(row.index), header_dimension(header))
            facts.append(cell_fact(table, row, cell, number, metric, context, period))
    return facts


UNIT_NOTE_EXCEPTION = r"(?<!except )(?<!share and )"
"""Lookbehind for "per share" that is no column's: a unit note ("in millions, except per share data", "except
share and per share amounts") read into every column head says only which lines are not in millions."""

_PER_SHARE_HEAD = re.compile(
    rf"\beps\b|{UNIT_NOTE_EXCEPTION}\bper (?:common |ordinary )?share\b", re.IGNORECASE
)
"""A column head of per-share figures ("EPS (Diluted US cents)"), not a unit note's "per share"."""

# Row labels that, under a heading naming a metric, are that metric's total.
_SECTION_TOTALS = frozenset(
    {
        "total",
        "group",
        "group total",
        "total group",
        "consolidated",
        "total consolidated",
        "consolidated total",
    }
)


def title_metric(title: str | None, taxonomy: Taxonomy) -> MetricDef | None:
    """The metric a breakdown table is about, from a title like "Net sales by business area".

    Args:
        title: Table title.
        taxonomy: The metric taxonomy.

    Returns:
        The metric named before " by " / " per ", when the title has that shape; else None.
    """
    if not title:
        return None
    m = re.match(r"^(.*?)\s+(?:by|per)\s+\S", " ".join(title.split()), re.IGNORECASE)
    return taxonomy.match(m.group(1)) if m else None


def _fact_period(period: Period, metric: MetricDef, opening: bool) -> Period | None:
    if opening:
        return opening_period(period)
    if metric.period_type == "instant":
        return instant_period(period)
    if period.kind == "instant":
        # Revenue under "December 31, 2022": a period ending that day, of a length the head does not say
        # (a year, a quarter, six months); it is compared with nothing until that is known.
        return period.model_copy(update={"kind": "unknown"})
    return period


def extract_facts(tables: Sequence[Table], taxonomy: Taxonomy) -> list[Fact]:
    """Map table rows to metrics and emit one fact per figure with a period.

    A figure becomes a fact when its row label is a taxonomy synonym, its cell carries a typed number
    whose column header is a period (not a change or % column), and its unit fits the metric. Facts
    under a segment/geography heading, in a column naming a dimension ("Americas"), or in a table whose
    title names one (segment note, parent company only, pro forma) carry a ``context`` so that
    cross-reference checks leave them alone. Balances (instant metrics) printed under a fiscal-year
    column take the year-end instant, so they compare with the balance sheet's figures.

    Args:
        tables: Logical tables of one document.
        taxonomy: The metric taxonomy.

    Returns:
        Facts in table, row, column order.
    """
    facts: list[Fact] = []
    for table in tables:
        facts.extend(table_facts(table, taxonomy))
    return align_instants(facts, taxonomy)


PRIMARY_STATEMENTS: frozenset[StatementKind] = frozenset(
    {"income", "comprehensive_income", "balance_sheet", "cash_flow", "equity"}
)
"""The five primary statements among the kinds of table (the checks' ``crossref.PRIMARY``)."""
OTHER_FIGURES = "not the primary statements' figures"
"""The context of a table's facts that :func:`other_figures` finds are some other measure's."""

_FactKey = tuple[str, str, str, str, str | None]


def _key(f: Fact) -> _FactKey | None:
    if f.period is None or f.value is None or f.decimals is None or f.context is not None:
        return None
    return (f.metric, f.period.key, f.basis, f.unit, f.currency)


def _agree(a: Fact, b: Fact) -> bool:
    # Magnitudes: a cost is printed with either sign, and the same figure under two conventions agrees.
    assert a.value is not None and b.value is not None and a.decimals is not None and b.decimals is not None
    return compare_values(abs(a.value), a.decimals, abs(b.value), b.decimals).ok


def _copy_of(a: Fact, b: Fact) -> bool:
    """The same figure, or one keying error from it (a copy of the statements with a misprint)."""
    if _agree(a, b):
        return True
    assert a.value is not None and b.value is not None and a.decimals is not None and b.decimals is not None
    return keying_relation(abs(a.value), a.decimals, abs(b.value), b.decimals) not in (None, "near_miss")


def _other_statements(by_key: dict[_FactKey, list[Fact]], entities: Mapping[str, str | None]) -> set[str]:
    """The primary tables that print a statement's lines at another reporting group's figures.

    A 10-K prints the company's statements and, after them, the same statements of a part of it: the
    parent company alone, the closed group of a deed of cross guarantee, a guarantor. Their titles are the
    statements' ("Consolidated Statements of Income") and their figures some other entity's. A primary
    table whose figures differ, on two lines or more, from every earlier printing of the same line in the
    primary tables (reading order) and agree with none is such a part's. Two registrants' statements (a
    REIT and its operating partnership, each named above its statements: ``entities``) are no part of each
    other and are not compared.
    """
    order: dict[str, tuple[int, float]] = {}
    for copies in by_key.values():
        for f in copies:
            if f.statement in PRIMARY_STATEMENTS and f.table_id is not None:
                order[f.table_id] = min(order.get(f.table_id, _reading(f)), _reading(f))
    agreeing: dict[str, int] = {}
    differing: dict[str, set[int | None]] = {}
    for copies in by_key.values():
        printed = sorted((f for f in copies if f.table_id in order), key=lambda f: order[f.table_id or ""])
        for i, f in enumerate(printed):
            table, entity = f.table_id or "", entities.get(f.table_id or "")
            earlier = [
                r
                for r in printed[:i]
                if r.table_id != table
                and (entity is None or entities.get(r.table_id or "") in (None, entity))
            ]
            if not earlier:
                continue
            # A statement may print a line twice ("Total shareholders' equity", "Total equity"): a figure
            # that is any earlier printing's agrees.
            if any(_copy_of(f, r) for r in earlier):
                agreeing[table] = agreeing.get(table, 0) + 1
            else:
                differing.setdefault(table, set()).add(f.row)
    return {t for t, rows in differing.items() if len(rows) >= 2 and not agreeing.get(t)}


def _reading(f: Fact) -> tuple[int, float]:
    """Where a figure stands in reading order: its page, then how far down it (tables share pages)."""
    return f.page, f.bbox[1] if f.bbox is not None else 0.0


def other_figures(facts: Sequence[Fact], entities: Mapping[str, str | None]) -> list[Fact]:
    """Give a context to the facts of a table that prints the statements' lines at other figures.

    Stock-based compensation "by line item" prints "Cost of sales 47, Selling, general and administrative
    185, Research and development 43" beside an income statement whose cost of sales is 18,795; a
    division's summary prints "Revenue, Operating income" without naming the division in a title. Their
    labels are the statements' metrics, their figures some other measure's. A table outside the primary
    statements whose facts disagree, on two lines or more, with the primary statements' one figure for
    the same metric, period and basis, and agree on none, is such a table: its facts keep their figures
    under the context :data:`OTHER_FIGURES` instead of being published as the company's cost of sales.
    A figure one keying error away from the statements' (:func:`pipeline.figures.keying.keying_relation`)
    counts as agreeing: a copy of the statements with a misprint keeps its facts, for the checks to find
    the misprint, even where its other lines differ for reasons of their own. A primary statement of a
    part of the company (:func:`_other_statements`) is such a table too, and no reference for the others.

    It reads the statement kind and column basis :func:`pipeline.statements.build.annotate_facts` gives
    each fact, so it runs after it.

    Args:
        facts: A document's facts, annotated.
        entities: The reporting entity each statement's title or heading names, by table id.

    Returns:
        The facts, those of such tables with the context set.
    """
    by_key: dict[_FactKey, list[Fact]] = {}
    for f in facts:
        if (k := _key(f)) is not None:
            by_key.setdefault(k, []).append(f)
    other = _other_statements(by_key, entities)
    agreeing: dict[str, int] = {}
    differing: dict[str, set[int | None]] = {}
    for copies in by_key.values():
        reference = [f for f in copies if f.statement in PRIMARY_STATEMENTS and f.table_id not in other]
        # The statements' one figure: copies that disagree among themselves are no reference.
        if not reference or not all(_agree(reference[0], x) for x in reference[1:]):
            continue
        for f in copies:
            if f.statement in PRIMARY_STATEMENTS or f.table_id is None:
                continue
            if _copy_of(f, reference[0]):
                agreeing[f.table_id] = agreeing.get(f.table_id, 0) + 1
            else:
                differing.setdefault(f.table_id, set()).add(f.row)
    other |= {t for t, rows in differing.items() if len(rows) >= 2 and not agreeing.get(t)}
    return [
        f.model_copy(update={"context": OTHER_FIGURES}) if f.table_id in other and f.context is None else f
        for f in facts
    ]


def latest_fiscal_year(facts: Sequence[Fact]) -> int | None:
    """The latest fiscal year any table fact is for: the document's current year."""
    years = [f.period.fiscal_year for f in facts if f.period is not None and f.period.fiscal_year is not None]
    return max(years) if years else None
