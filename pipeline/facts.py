"""Key figures ("facts"): table cells and narrative figures mapped to the metric taxonomy.

A fact is only useful for tie-out when it is unambiguous: which metric, which period, and whether it is
the whole entity's figure or a segment's. Everything here leans towards leaving a figure out (or giving
it a ``context``) rather than letting a segment's "Revenue" be compared with the group's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

from pipeline.grid import RowView, column_headers, table_rows
from pipeline.ids import stable_id
from pipeline.numbers import find_numbers
from pipeline.taxonomy import MetricDef, Taxonomy, normalise_label
from schemas.models import Block, Cell, Fact, Period, Table, TypedNumber

__all__ = [
    "Amount",
    "NarrativeClaim",
    "PeriodRef",
    "RowView",
    "cell_fact",
    "column_headers",
    "extract_facts",
    "extract_text_facts",
    "is_change_column",
    "latest_fiscal_year",
    "parse_claims",
    "table_rows",
]

# --- context -----------------------------------------------------------------------------------

# Columns of changes or ratios are not the metric itself, whatever period their header names.
_CHANGE_COLUMN = re.compile(
    r"%|\bchange\b|\bchanges\b|\bvariance\b|\bvs\b|\bversus\b|\bincrease\b|\bdecrease\b|\bgrowth\b|"
    r"\bcompared\b|\bdifference\b|\bmovement\b|\bbps\b|\bbasis points\b|\bfavou?rable\b|\bunfavou?rable\b",
    re.IGNORECASE,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words a column header may contain without naming a dimension: period, unit and audit vocabulary.
_PERIOD_HEADER_WORDS = _words(
    """
    year years yr ended ending end as at of on fiscal fy quarter quarters q1 q2 q3 q4 h1 h2 first second third
    fourth half full three six nine twelve months month weeks week period periods to the for in and from
    january february march april may june july august september october november december jan feb mar apr
    jun jul aug sep sept oct nov dec millions million thousands thousand billions billion m bn mn k
    except per share data amounts amount unaudited audited note notes total consolidated group reported
    actual usd gbp eur us chf jpy cad aud ytd year-to-date to-date 52 53
    """
)

# Table titles naming something other than the consolidated entity.
_CONTEXT_TITLE = re.compile(
    r"\bsegment|\bdiscontinued\b|\bparent company\b|\bcompany (?:only|balance sheet|statement)|"
    r"\bpro forma\b|\bquarterly\b|\bsubsidiar|\bguarantor|\bjoint venture|\bassociate|\bheld for sale\b|"
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
    """
)


def is_change_column(header: str) -> bool:
    """True when a column header names a change, variance or ratio rather than a period's figure."""
    return bool(_CHANGE_COLUMN.search(header))


def _residual_words(text: str, allowed: frozenset[str]) -> list[str]:
    words = normalise_label(text).split()
    return [
        w for w in words if w not in allowed and not w.isdigit() and not re.fullmatch(r"\d+[a-z]{0,2}", w)
    ]


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


def _fact_number(metric: MetricDef, number: TypedNumber) -> tuple[float | None, int | None, int | None]:
    """Value, decimals and scale of a cell's figure for this metric (all None when the scale is unknown).

    Per-share amounts are never scaled: a table "in millions, except per share data" whose scale was
    applied to the EPS rows would otherwise turn $2.15 into 2,150,000.
    """
    if metric.unit == "per_share":
        return number.value, number.places, 0
    return number.base_value, number.decimals, number.scale


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
    year_ends: set[tuple[int, str]] = set()  # (date year − fiscal year, "-MM-DD")
    for f in facts:
        p = f.period
        if p is not None and p.kind == "instant" and p.fiscal_year is not None and p.end_date:
            instants.setdefault(p.fiscal_year, set()).add(p.key)
            year_ends.add((int(p.end_date[:4]) - p.fiscal_year, p.end_date[4:]))
    out: list[Fact] = []
    for f in facts:
        metric = taxonomy.get(f.metric)
        p = f.period
        if metric is not None and metric.period_type == "instant" and p is not None and p.kind == "duration":
            keys = instants.get(p.fiscal_year or -1, set())
            if not keys and len(year_ends) == 1 and p.fiscal_year is not None:
                # A year the balance sheet does not show (an opening balance): the document's one
                # year-end date, in that year.
                offset, month_day = next(iter(year_ends))
                keys = {f"{p.fiscal_year + offset}{month_day}"}
            if len(keys) == 1:
                key = next(iter(keys))
                moved = Period(kind="instant", key=key, label=key, fiscal_year=p.fiscal_year, end_date=key)
                f = f.model_copy(update={"period": moved})
        out.append(f)
    return out


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
    value, decimals, scale = _fact_number(metric, number)
    scale_source = "cell" if metric.unit == "per_share" else number.scale_source
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
        printed_value=number.value,
        decimals=decimals,
        scale=scale,
        scale_source=scale_source,
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
    heading_metric = title_metric(table.title, taxonomy)
    for row in rows:
        if row.is_heading:
            heading_metric = taxonomy.match(row.label)
            continue
        if not row.numbers:
            continue
        found = taxonomy.lookup(row.label)
        section_total = False
        if found is None and heading_metric is not None and normalise_label(row.label) in _SECTION_TOTALS:
            # "Net sales" / Machine Tools / Automotive / "Total": the total of a section named after a metric.
            found, section_total = (heading_metric, False), True
        if found is None:
            continue
        metric, opening = found
        for col, cell in sorted(row.numbers.items()):
            number = cell.number
            if number is None or number.period is None:
                continue
            if number.unit not in _UNIT_COMPATIBLE[metric.unit]:
                continue
            header = headers.get(col, "")
            if is_change_column(header):
                continue
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


def latest_fiscal_year(facts: Sequence[Fact]) -> int | None:
    """The latest fiscal year any table fact is for: the document's current year."""
    years = [f.period.fiscal_year for f in facts if f.period is not None and f.period.fiscal_year is not None]
    return max(years) if years else None


# --- narrative claims --------------------------------------------------------------------------

PeriodKind = Literal["FY", "Q", "H1", "9M", "instant"]
_KIND_MONTHS: dict[str, int] = {"FY": 12, "Q": 3, "H1": 6, "9M": 9}


@dataclass(frozen=True, slots=True)
class PeriodRef:
    """A period as a narrative sentence states it.

    Attributes:
        kind: Fiscal year, quarter, first half, nine months, or an instant (balance at a year end).
        year: Fiscal year.
        quarter: Quarter number for ``kind == "Q"``.
        explicit: True when the sentence names the kind of period; False when it was assumed (a bare
            "Revenue increased 5%" is read as the document's current fiscal year).
    """

    kind: PeriodKind
    year: int
    quarter: int | None = None
    explicit: bool = False

    @property
    def key(self) -> str:
        """The ``Period.key`` a table column for this period would carry."""
        if self.kind == "FY":
            return f"FY{self.year}"
        if self.kind == "Q":
            return f"Q{self.quarter}-{self.year}"
        if self.kind in ("H1", "9M"):
            return f"{self.kind}-{self.year}"
        return str(self.year)

    @property
    def months(self) -> int | None:
        """Length of the duration in months, None for an instant."""
        return _KIND_MONTHS.get(self.kind)

    @property
    def label(self) -> str:
        """Human-readable period for messages."""
        if self.kind == "FY":
            return str(self.year)
        if self.kind == "Q":
            return f"Q{self.quarter} {self.year}"
        if self.kind == "instant":
            return f"end of {self.year}"
        return f"{self.kind} {self.year}"

    def shifted(self, years: int) -> PeriodRef:
        """The same kind of period ``years`` later (negative for earlier)."""
        return PeriodRef(self.kind, self.year + years, self.quarter, self.explicit)

    def with_year(self, year: int) -> PeriodRef:
        """The same kind of period in another year."""
        return PeriodRef(self.kind, year, self.quarter, self.explicit)


@dataclass(frozen=True, slots=True)
class Amount:
    """A figure found in a sentence; ``start``/``end`` index the sentence, values are in base units."""

    start: int
    end: int
    text: str
    value: float
    decimals: int
    scale: int
    currency: str | None
    percent: bool
    printed_value: float


@dataclass(frozen=True, slots=True)
class NarrativeClaim:
    """What one clause states about one metric.

    Attributes:
        metric: The metric its subject maps to.
        subject: The subject as printed ("Operating profit").
        block: The block the sentence is in.
        sentence: The sentence text (whitespace collapsed).
        offset: Start of the sentence in the block text (whitespace collapsed).
        current: The figure stated for the current period, if any.
        current_period: Period of ``current`` (and of the change's end point).
        prior: The comparative figure, if any.
        prior_period: Period of ``prior`` (and of the change's starting point).
        change: The stated percentage change (its ``value`` is unsigned as printed), if any.
        direction: +1 for an increase, -1 for a decrease, 0 when the sentence does not say.
        change_amount: The stated amount of change ("up $50 million"), unsigned as printed, if any.
        direction_word: The direction the clause's verb gives (+1 "increased", -1 "fell", 0 "was").
    """

    metric: MetricDef
    subject: str
    block: Block
    sentence: str
    offset: int
    current: Amount | None
    current_period: PeriodRef | None
    prior: Amount | None
    prior_period: PeriodRef | None
    change: Amount | None
    direction: int
    change_amount: Amount | None = None
    direction_word: int = 0

    @property
    def signed_change(self) -> float | None:
        """The stated change with the sign the wording gives it (None when no change is stated)."""
        if self.change is None:
            return None
        magnitude = abs(self.change.value)
        if self.direction:
            return self.direction * magnitude
        return self.change.value


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“‘$£€])")
_YEAR = r"(?:19|20)\d{2}"
_VERB = re.compile(
    r"\b(?P<verb>increased|decreased|rose|fell|grew|declined|dropped|climbed|improved|"
    r"(?:was|were)(?:\s+(?:up|down))?|totall?ed|amounted\s+to|reached|came\s+in\s+at|stood\s+at|up|down|of)\b",
    re.IGNORECASE,
)
_UP_WORDS = frozenset({"increased", "rose", "grew", "climbed", "improved", "up", "was up", "were up"})
_DOWN_WORDS = frozenset({"decreased", "fell", "declined", "dropped", "down", "was down", "were down"})
# "up"/"down"/"of" are only verbs when a figure follows ("Revenue of $1.3 billion", "Sales up 5%").
_FIGURE_AHEAD = re.compile(r"\s+(?:by\s+)?(?:[A-Z]{0,2}[$£€¥]|[A-Z]{3}\s)?\s?\d")
_CHANGE_NOUN_BEFORE = re.compile(
    r"(?:increase|decrease|decline|growth|rise|improvement|reduction|change|gain|drop)\s*$", re.IGNORECASE
)
_BOUNDARY = re.compile(r"[;:()]\s*|,\s+|\b(?:and|while|whereas|but|with)\s+", re.IGNORECASE)
# Forward-looking, hypothetical or non-GAAP wording: the figures are not the reported ones.
_SKIP_CLAUSE = re.compile(
    r"\b(?:expect\w*|anticipat\w*|guidance|outlook|forecast\w*|target\w*|project(?:ed|ion)s?|plan(?:s|ned)?|"
    r"will|would|could|should|might|estimat\w*|intend\w*|aim\w*|assum\w*|pro\s+forma|organic\w*|"
    r"constant\s+(?:currency|exchange)|currency[- ]neutral|adjust(?:ed|ing)|underlying|like[- ]for[- ]like|"
    r"non-?gaap|excluding|exclusive\s+of|before\s+(?:special|exceptional|non-?recurring)|"
    r"segment|division)\b",
    re.IGNORECASE,
)
_CUT = re.compile(
    r";|\b(?:driven|due|primarily|mainly|largely|partly|partially|reflecting|reflects|reflected|offset|"
    r"attributable|resulting|including|excluding|led|because|which|whereas|while|but|despite|thanks|following|"
    r"supported|benefit(?:ing|ed)|as\s+a\s+result|as\s+well\s+as|compared\s+with\s+an?\s|of\s+which)\b",
    re.IGNORECASE,
)
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER = re.compile(
    r"\b(first|second|third|fourth)[- ]quarter\b|\bQ([1-4])\b|(?<![\d.,])\b([1-4])Q\b", re.IGNORECASE
)
# "(?<![\d.,])" keeps "£1,368.9m" from reading as "9M" (nine months).
_HALF = re.compile(
    r"\b(?:first[- ]half|half[- ]year|six[- ]months|interim\s+period)\b|(?<![\d.,])\bH1\b", re.I
)
_NINE = re.compile(r"\bnine[- ]months\b|(?<![\d.,])\b9M\b", re.IGNORECASE)
_OTHER_SPAN = re.compile(
    r"\b(?:year[- ]to[- ]date|ytd|second[- ]half|H2|\d+\s+weeks|three[- ]months)\b", re.I
)
_QUARTER_WORD = re.compile(r"\bquarter(?:ly)?\b", re.IGNORECASE)
_FY_WORDS = re.compile(r"\b(?:full[- ]year|fiscal[- ]year|financial[- ]year|twelve[- ]months|annual)\b", re.I)
_SUBJECT_YEAR = re.compile(
    rf"\b(?:in|for|during)\s+(?:the\s+)?(?:(?:fiscal|financial)\s+(?:year\s+)?|fy\s*)?({_YEAR})\b"
    rf"|\b(?:fiscal|fy|financial\s+year)\s*({_YEAR})\b|^\s*({_YEAR})\b"
    rf"|\bquarter\s+of\s+(?:fiscal\s+)?({_YEAR})\b|\bended\s+[A-Za-z]+\s+\d{{1,2}},?\s+({_YEAR})\b"
    rf"|\bended\s+\d{{1,2}}\s+[A-Za-z]+\s+({_YEAR})\b",
    re.IGNORECASE,
)
_PERIOD_PHRASE = re.compile(
    rf"\b(?:in|for|during|over)\s+(?:the\s+)?(?:(?:fiscal|financial|full)[- ])?"
    rf"(?:(?:first|second|third|fourth)[- ]quarter|first[- ]half|half[- ]year|"
    rf"(?:three|six|nine|twelve)\s+months|year|quarter|period)(?:\s+ended\s+(?:[A-Za-z]+\s+\d{{1,2}},?|\d{{1,2}}\s+[A-Za-z]+)\s+{_YEAR})?"
    rf"(?:\s+(?:of\s+)?(?:fiscal\s+)?{_YEAR})?"
    rf"|\b(?:in|for|during)\s+(?:(?:fiscal|financial)\s+(?:year\s+)?|fy\s*)?{_YEAR}\b"
    rf"|^(?:(?:fiscal|fy)\s*)?{_YEAR}\s+"
    rf"|^(?:full[- ]year|fiscal[- ]year|annual|quarterly|(?:first|second|third|fourth)[- ]quarter|q[1-4]|"
    rf"h1|first[- ]half)\s+",
    re.IGNORECASE,
)
_SUBJECT_FILLER = re.compile(
    r"^(?:the|our|its|their|group|consolidated|total|reported|gaap|company's|company’s|the\s+company's)\s+",
    re.IGNORECASE,
)
_APPROX_BEFORE = re.compile(
    r"(?:approximately|approx\.?|about|around|roughly|nearly|almost|over|more\s+than|less\s+than|"
    r"in\s+excess\s+of|up\s+to|at\s+least|some|close\s+to|just\s+(?:over|under)|~)\s*$",
    re.IGNORECASE,
)
_CHANGE_AMOUNT_BEFORE = re.compile(
    r"(?:\bby|\bup|\bdown|(?:increase|decrease|decline|growth|rise|improvement|reduction|change|gain|drop)"
    r"\s+of)\s*$",
    re.IGNORECASE,
)
_PRIOR_BEFORE = re.compile(
    r"(?:\bfrom|compared\s+(?:with|to)|\bversus|\bvs\.?|\bagainst|relative\s+to)\s+"
    r"(?:the\s+)?(?:(?:prior|previous|last)[- ]year(?:'s)?\s+|last\s+year's\s+)?$",
    re.IGNORECASE,
)
# A clause introduced as the comparison: "…, compared with net income of $8.1 billion a year ago".
_COMPARED_BEFORE = re.compile(r"\b(?:compared\s+(?:with|to)|versus|vs\.?|against)\s+(?:the\s+)?[^,;]*$", re.I)
_CURRENT_BEFORE = re.compile(r"\bto\s*$", re.IGNORECASE)
_YEAR_BEFORE = re.compile(rf"\(\s*(?:fiscal\s+|fy\s*)?({_YEAR})\s*[:,-]?\s*$", re.IGNORECASE)
_YEAR_AFTER = re.compile(
    rf"^\s*(?:in|for|during|at)\s+(?:the\s+)?(?:fy\s*)?(?:[A-Za-z-]+,?\s+|\d{{1,2}},?\s+){{0,6}}?({_YEAR})\b",
    re.IGNORECASE,
)
_PRIOR_AFTER = re.compile(
    r"^\s*(?:(?:in|for|during)\s+(?:the\s+)?(?:prior|previous|preceding|comparable|last|same)[- ]"
    r"(?:fiscal[- ])?(?:year|period|quarter)|(?:a\s+)?year[- ]ago|last\s+year|"
    r"in\s+(?:fiscal\s+)?prior\s+year)",
    re.IGNORECASE,
)
_PER_SHARE_AFTER = re.compile(r"^\s*(?:per|a)\s+(?:\w+\s+)?(?:share|unit|ads)\b", re.IGNORECASE)
_CHANGE_PCT_AFTER = re.compile(
    r"^\s*(?:increase|decrease|decline|growth|rise|improvement|reduction|higher|lower|up|down|"
    r"year[- ]over[- ]year|yoy|from|compared|versus|vs\b|over\s+(?:the\s+)?(?:prior|previous|last))",
    re.IGNORECASE,
)
_RATIO_PCT_AFTER = re.compile(
    r"^\s*(?:of\b|margin|points|pts|percentage\s+points?|share|stake|interest|owned|rate)", re.IGNORECASE
)
# "an increase of 14.1 percent on a per diluted share basis": the change of the per-share figure.
_PER_SHARE_PCT_AFTER = re.compile(
    r"^\s*(?:percent\s+)?(?:on\s+(?:a\s+)?)?per\s+(?:diluted\s+|basic\s+)?share", re.I
)
_PCT_UP_AFTER = re.compile(r"^\s*(?:increase|growth|rise|improvement|higher|up)\b", re.IGNORECASE)
_PCT_DOWN_AFTER = re.compile(r"^\s*(?:decrease|decline|reduction|lower|down|drop)\b", re.IGNORECASE)
_PCT_UP_BEFORE = re.compile(r"(?:increase|growth|rise|improvement|\bup)\s*(?:of|by)?\s*$", re.IGNORECASE)
_PCT_DOWN_BEFORE = re.compile(r"(?:decrease|decline|reduction|\bdown|drop)\s*(?:of|by)?\s*$", re.IGNORECASE)


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    """Split collapsed text into sentences with their offsets (decimal points never split)."""
    start = 0
    for m in _SENTENCE_SPLIT.finditer(text):
        yield start, text[start : m.start()]
        start = m.end()
    if start < len(text):
        yield start, text[start:]


def _amounts(sentence: str) -> list[Amount]:
    out: list[Amount] = []
    for tn in find_numbers(sentence):
        n = tn.number
        if n.is_dash:
            continue
        scale = 0 if n.percent else n.scale
        out.append(
            Amount(
                start=tn.start,
                end=tn.end,
                text=sentence[tn.start : tn.end],
                value=n.value * 10.0**scale,
                decimals=n.decimals_printed - scale,
                scale=scale,
                currency=n.currency,
                percent=n.percent,
                printed_value=n.value,
            )
        )
    return out


def _is_year(a: Amount) -> bool:
    return (
        not a.percent
        and a.currency is None
        and a.scale == 0
        and a.decimals == 0
        and 1900 <= a.value <= 2100
        and a.text.strip().isdigit()
    )


def _clean_subject(text: str) -> str:
    """Strip period phrases and fillers from a clause subject ("In 2025, total revenue" → "total revenue")."""
    subject = text.strip(" ,")
    for _ in range(3):
        stripped = _PERIOD_PHRASE.sub(" ", subject)
        stripped = " ".join(stripped.split()).strip(" ,")
        if stripped == subject:
            break
        subject = stripped
    return subject


def _match_subject(text: str, taxonomy: Taxonomy) -> tuple[str, MetricDef] | None:
    """Map a clause subject to a metric: exact synonym, possibly after leading fillers ("Our", "Group")."""
    subject = _clean_subject(text)
    while subject:
        metric = taxonomy.match(subject)
        if metric is not None:
            return subject, metric
        shorter = _SUBJECT_FILLER.sub("", subject, count=1)
        if shorter == subject:
            return None
        subject = shorter
    return None


def _has_period_words(text: str) -> bool:
    return any(
        p.search(text) for p in (_QUARTER, _QUARTER_WORD, _HALF, _NINE, _OTHER_SPAN, _FY_WORDS, _SUBJECT_YEAR)
    )


def _clause_period(
    kind_text: str, subject_zone: str, default_year: int | None, instant: bool
) -> PeriodRef | None:
    """The period a clause is about; None when it is ambiguous or unknown.

    Args:
        kind_text: Text that says which kind of period (quarter, half, year) the clause is about.
        subject_zone: Text before the clause's verb: only years stated there set the current year,
            because years after the verb belong to figures ("… compared with $2.1m in 2024").
        default_year: The document's current fiscal year.
        instant: The metric is a balance at a date.
    """
    if _OTHER_SPAN.search(kind_text):
        return None
    quarters = {
        _QUARTER_WORDS[m.group(1).lower()] if m.group(1) else int(m.group(2) or m.group(3))
        for m in _QUARTER.finditer(kind_text)
    }
    half, nine = bool(_HALF.search(kind_text)), bool(_NINE.search(kind_text))
    if len(quarters) > 1 or (quarters and (half or nine)) or (half and nine):
        return None
    if not quarters and _QUARTER_WORD.search(kind_text):
        return None  # "the quarter" without saying which one
    years = {int(next(g for g in m.groups() if g)) for m in _SUBJECT_YEAR.finditer(subject_zone)}
    if len(years) > 1:
        return None
    stated = bool(years)
    year = years.pop() if years else default_year
    if year is None:
        return None
    if instant:
        return PeriodRef("instant", year, explicit=stated)
    if quarters:
        return PeriodRef("Q", year, quarters.pop(), explicit=True)
    if half:
        return PeriodRef("H1", year, explicit=True)
    if nine:
        return PeriodRef("9M", year, explicit=True)
    return PeriodRef("FY", year, explicit=bool(_FY_WORDS.search(kind_text)))


@dataclass(frozen=True, slots=True)
class _Verb:
    start: int
    end: int
    direction: int


def _verbs(sentence: str) -> list[_Verb]:
    out: list[_Verb] = []
    for m in _VERB.finditer(sentence):
        word = " ".join(m.group("verb").lower().split())
        if word in ("up", "down", "of") and not _FIGURE_AHEAD.match(sentence, m.end()):
            continue
        if word == "of" and _CHANGE_NOUN_BEFORE.search(sentence, 0, m.start()):
            continue  # "an increase of 8.4%" qualifies a figure; it does not start a clause
        direction = 1 if word in _UP_WORDS else -1 if word in _DOWN_WORDS else 0
        out.append(_Verb(m.start(), m.end(), direction))
    return out


def _without_amounts(text: str, offset: int, amounts: Sequence[Amount]) -> str:
    chars = list(text)
    for a in amounts:
        for i in range(max(a.start - offset, 0), min(a.end - offset, len(chars))):
            chars[i] = " "
    return "".join(chars)


def _region_end(sentence: str, verb: _Verb, later: Sequence[_Verb], amounts: Sequence[Amount]) -> int:
    """Where the figures of a clause end: a cue word, or the start of the next clause with a subject."""
    end = len(sentence)
    cut = _CUT.search(sentence, verb.end)
    if cut is not None:
        end = cut.start()
    for nxt in later:
        if nxt.start >= end:
            break
        bounds = [m.end() for m in _BOUNDARY.finditer(sentence, verb.end, nxt.start)]
        start = bounds[-1] if bounds else verb.end
        subject = _without_amounts(sentence[start : nxt.start], start, amounts)
        if re.search(r"[A-Za-z]{2,}", subject):
            return min(end, start)
    return end


def _pct_role(sentence: str, a: Amount, region_start: int, verb_direction: int) -> int | None:
    """Direction hint of a percentage that states a change (0 = no hint), or None when it is a level.

    After a neutral verb ("Gross margin was 38.5%") a bare percentage is a level, not a change; only a
    change word ("up 5%", "an increase of 5%", "5% higher") makes it one.
    """
    after = sentence[a.end : a.end + 40]
    before = sentence[max(region_start, a.start - 40) : a.start]
    if _RATIO_PCT_AFTER.match(after) or _PER_SHARE_PCT_AFTER.match(after):
        return None
    if _PCT_UP_AFTER.match(after) or _PCT_UP_BEFORE.search(before):
        return 1
    if _PCT_DOWN_AFTER.match(after) or _PCT_DOWN_BEFORE.search(before):
        return -1
    if _CHANGE_PCT_AFTER.match(after):
        return 0
    if verb_direction and (not before.strip() or re.fullmatch(r"\s*by\s*", before)):
        return 0
    return None


@dataclass(slots=True)
class _Roles:
    current: list[tuple[Amount, int | None]]
    prior: list[tuple[Amount, int | None]]
    loose: list[tuple[Amount, int | None]]
    changes: list[Amount] = field(default_factory=list)


def _money_roles(
    sentence: str, money: Sequence[Amount], verb: _Verb, metric: MetricDef, comparative: bool
) -> _Roles:
    """Sort a clause's amounts into current, prior and unlabelled figures.

    Amounts of change are left out: "increased by $50 million", and also "increased $50 million" (an
    amount right after a verb of change is how much it changed; the level is stated with "to").
    In a comparative clause ("…, compared with net income of $8.1 billion, a year ago") every figure is
    the prior period's.
    """
    roles = _Roles([], [], [])
    previous_end = verb.end
    for i, a in enumerate(money):
        before = sentence[previous_end : a.start]
        after = sentence[a.end : a.end + 60]
        previous_end = a.end
        if _APPROX_BEFORE.search(before):
            continue
        if _CHANGE_AMOUNT_BEFORE.search(before) or (i == 0 and verb.direction and not before.strip()):
            roles.changes.append(a)  # "up $50 million", "increased $1.7 billion": how much it changed
            continue
        if metric.unit != "per_share" and _PER_SHARE_AFTER.match(after):
            continue
        if comparative:
            roles.prior.append((a, None))
            continue
        year_m = _YEAR_AFTER.match(after) or _YEAR_BEFORE.search(before)
        year = int(year_m.group(1)) if year_m else None
        if _PRIOR_AFTER.match(after) or _PRIOR_BEFORE.search(before):
            roles.prior.append((a, year))
        elif year is not None and _YEAR_BEFORE.search(before):
            roles.prior.append((a, year))  # "(2024: £219.3m)" is the comparative
        elif _CURRENT_BEFORE.search(before):
            roles.current.append((a, year))
        else:
            roles.loose.append((a, year))
    return roles


def _single(items: Sequence[tuple[Amount, int | None]]) -> tuple[Amount, int | None] | None:
    return items[0] if len(items) == 1 else None


def _build_claim(
    block: Block,
    sentence: str,
    offset: int,
    subject: str,
    metric: MetricDef,
    verb: _Verb,
    context: tuple[str, str],
    region: tuple[int, int],
    amounts: Sequence[Amount],
    default_year: int | None,
    comparative: bool = False,
) -> NarrativeClaim | None:
    base = _clause_period(context[0], context[1], default_year, metric.period_type == "instant")
    if base is None:
        return None
    inside = [a for a in amounts if region[0] <= a.start and a.end <= region[1] and not _is_year(a)]
    changes: list[tuple[Amount, int]] = []
    for a in inside:
        if a.percent:
            hint = _pct_role(sentence, a, region[0], verb.direction)
            if hint is not None:
                changes.append((a, hint or verb.direction))
    money = [a for a in inside if not a.percent and (a.currency is not None or a.scale != 0)]
    if metric.unit == "percent":
        return None
    roles = _money_roles(sentence, money, verb, metric, comparative)
    # An explicitly current figure ("to $X") wins; otherwise a single unlabelled figure is the current one.
    current = _single(roles.current) if roles.current else _single(roles.loose)
    prior = _single(roles.prior)
    cur_period = base.with_year(current[1]) if current and current[1] else base
    if prior is not None and prior[1] is not None:
        prior_period = base.with_year(prior[1])
    else:
        prior_period = cur_period.shifted(-1)
    if prior_period.year >= cur_period.year:
        return None  # the comparative must precede the current figure; otherwise the reading is wrong
    change, direction = changes[0] if len(changes) == 1 else (None, 0)
    change_amount = roles.changes[0] if len(roles.changes) == 1 else None
    if current is None and prior is None and change is None and change_amount is None:
        return None
    return NarrativeClaim(
        metric=metric,
        subject=subject,
        block=block,
        sentence=sentence,
        offset=offset,
        current=current[0] if current else None,
        current_period=cur_period,
        prior=prior[0] if prior else None,
        prior_period=prior_period,
        change=change,
        direction=direction,
        change_amount=change_amount,
        direction_word=verb.direction,
    )


_DIGIT = re.compile(r"\d")


def _sentence_claims(
    block: Block, sentence: str, offset: int, taxonomy: Taxonomy, default_year: int | None
) -> list[NarrativeClaim]:
    # Most sentences state no figure at all; skip them before the costlier number scan.
    if _DIGIT.search(sentence) is None:
        return []
    amounts = _amounts(sentence)
    if not any(not _is_year(a) for a in amounts):
        return []
    verbs = _verbs(sentence)
    claims: list[NarrativeClaim] = []
    floor = 0
    lead: str | None = None
    for i, verb in enumerate(verbs):
        if verb.start < floor:
            continue
        starts = [floor] + [m.end() for m in _BOUNDARY.finditer(sentence, floor, verb.start)]
        found: tuple[str, MetricDef] | None = None
        for s in starts:  # longest subject first
            found = _match_subject(sentence[s : verb.start], taxonomy)
            if found is not None:
                break
        if found is None:
            continue
        end = _region_end(sentence, verb, verbs[i + 1 :], amounts)
        clause = sentence[floor:end]
        zone = sentence[floor : verb.start]
        comparative = bool(_COMPARED_BEFORE.search(zone))
        if lead is None:
            lead = zone
        elif not _SUBJECT_YEAR.search(zone):
            zone = lead  # "In 2025, revenue … and operating income …": the lead phrase covers both
        if not _SUBJECT_YEAR.search(zone):
            # "Net cash used … in the six months ended June 30, 2022 was due to …, and purchases of
            # property of $366 million": a later clause is about the period an earlier one named.
            earlier = {
                int(next(g for g in m.groups() if g)) for m in _SUBJECT_YEAR.finditer(sentence, 0, floor)
            }
            if len(earlier) > 1:
                floor = end
                continue
            if earlier:
                zone = f"in {earlier.pop()} {zone}"
        floor = end
        if _SKIP_CLAUSE.search(clause):
            continue
        # A clause that names no period inherits the sentence's ("In the fourth quarter, …, while …").
        kind_text = clause if _has_period_words(clause) else sentence[:end]
        claim = _build_claim(
            block,
            sentence,
            offset,
            found[0],
            found[1],
            verb,
            (kind_text, zone),
            (verb.end, end),
            amounts,
            default_year,
            comparative,
        )
        if claim is not None:
            claims.append(claim)
    return claims


def parse_claims(block: Block, taxonomy: Taxonomy, *, default_year: int | None) -> list[NarrativeClaim]:
    """Read what the sentences of a text block state about metrics.

    A clause yields a claim only when its subject is exactly a taxonomy synonym (after period phrases
    and fillers such as "In 2025," or "Our" are removed), its period can be resolved, and it is not
    forward-looking, hypothetical or non-GAAP. Figures are assigned to the current or prior period by
    their wording ("from … to …", "(2024: …)", "compared with … in the prior year", "in 2024");
    approximate figures ("about $1.3 billion") and amounts of change ("up $50 million") are ignored.

    Args:
        block: A narrative text block.
        taxonomy: The metric taxonomy.
        default_year: The document's current fiscal year, for sentences that name none.

    Returns:
        Claims in reading order.
    """
    # Facts and the narrative check both read the same blocks: within one document's run (see
    # claims_cache) each block is parsed once.
    if _DIGIT.search(block.text) is None:
        return []
    cache = _CLAIMS_CACHE.get()
    key = (block, default_year, id(taxonomy))
    if cache is not None and key in cache:
        return list(cache[key])
    text = " ".join(block.text.split())
    claims: list[NarrativeClaim] = []
    for offset, sentence in _sentences(text):
        claims.extend(_sentence_claims(block, sentence, offset, taxonomy, default_year))
    if cache is not None:
        cache[key] = tuple(claims)
    return claims


_ClaimsKey = tuple[Block, int | None, int]
_CLAIMS_CACHE: ContextVar[dict[_ClaimsKey, tuple[NarrativeClaim, ...]] | None] = ContextVar(
    "tieout_claims_cache", default=None
)


@contextmanager
def claims_cache() -> Iterator[None]:
    """Share parsed narrative claims between the stages of one document's run (nested scopes share one)."""
    if _CLAIMS_CACHE.get() is not None:
        yield
        return
    token = _CLAIMS_CACHE.set({})
    try:
        yield
    finally:
        _CLAIMS_CACHE.reset(token)


# --- narrative facts ---------------------------------------------------------------------------


def _text_fact(claim: NarrativeClaim, which: str, doc_id: str, source: str) -> Fact | None:
    amount = claim.current if which == "current" else claim.prior
    ref = claim.current_period if which == "current" else claim.prior_period
    if amount is None or ref is None or ref.kind == "instant":
        # An instant stated only by its year ("at the end of 2025") has no comparable period key.
        return None
    period = Period(
        kind="duration",
        key=ref.key,
        label=ref.label,
        fiscal_year=ref.year,
        quarter=ref.quarter,
        months=ref.months,
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
        printed_value=amount.printed_value,
        decimals=amount.decimals,
        scale=amount.scale,
        scale_source="cell",
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
