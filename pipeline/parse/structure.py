"""Typed tables: a logical table's grid of strings becomes cells with typed numbers and periods.

Scale and currency come from the caption and header ("(in millions)", "£m", "$'000"); each value
column's period comes from the header text stacked above it, combined with the caption's period phrase
("Year ended 31 December" + "2025"). A figure's own suffix or sign overrides the table's.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.figures.facts import is_change_column
from pipeline.figures.numbers import parse_number
from pipeline.figures.periods import combine_periods, parse_period, period_lengths
from pipeline.figures.rounding import within_rounding
from pipeline.figures.scale_captions import unit_caption
from pipeline.figures.typed_numbers import to_typed
from pipeline.parse.scales import ScaleResolution, column_scales, label_scale
from pipeline.parse.stitch import TableGroup, section_headings
from pipeline.parse.table_types import RawCell, RawTable
from schemas.models import Cell, Period, Table, TypedNumber

__all__ = [
    "column_periods",
    "infer_missing_scales",
    "percent_columns",
    "raw_currency",
    "reference_columns",
    "type_group",
]

_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_PERIOD_HINT = re.compile(
    r"\b(?:ended|as at|as of|years?|months?|quarters?|periods?|fiscal|december|june)\b", re.IGNORECASE
)
"""Words of a caption line that says what the columns' periods are (whole words: "periodic" is none)."""


def _caption_period_phrase(caption: Sequence[str]) -> str | None:
    """The caption line that says what the columns' periods are ("Years ended December 31")."""
    for line in caption:
        # a line that prints a year itself ("Year Ended December 31, 2022 vs. 2021") names no period
        # for the years below it to complete: read with "2021", it would say 2022
        if _PERIOD_HINT.search(line) and not _YEAR.search(line) and parse_period(line) is None:
            return line
    return None


def column_periods(group: TableGroup) -> dict[int, Period]:
    """The period of each column, from its stacked header text and the caption."""
    first = group.first
    stacks: dict[int, list[str]] = {}
    for row in first.rows[: first.header_rows]:
        for c in row:
            if unit_caption(c.text):
                continue  # it names the unit of the columns it is set over, never their period
            for col in range(c.col, c.col + c.col_span):
                stacks.setdefault(col, []).append(c.text)
    phrase = _caption_period_phrase(first.caption)
    out: dict[int, Period] = {}
    for col, parts in stacks.items():
        if col == 0 and first.n_cols > 1:
            continue
        p = combine_periods(parts)
        if p is not None and phrase is not None and p.months is None and p.kind != "instant":
            # the caption says how long the year's period is: "Three months ended March 31" over
            # "2021", or over "Commercial Banking 2021" (the name is the column's dimension)
            year = [str(p.fiscal_year)] if p.fiscal_year is not None else []
            p = combine_periods([phrase, *parts]) or combine_periods([phrase, *year]) or p
        if p is not None and p.months is None and p.kind != "instant":
            p = _caption_date(first.caption, p) or p
        if p is not None:
            out[col] = p
    out = _share_period_context(out, stacks)
    out |= _stub_year_dates(first, stacks, out)
    out = _lone_spanning_head(first, stacks, out)
    out = _length_beside_days(stacks, out)
    return out or _caption_instant(group, stacks)


_LEAD = re.compile(r"^(?P<lead>.*?\b(?:ended|ending))\b", re.IGNORECASE)
"""The length part of a head: "Years Ended" of "Years Ended November 29, 2019"."""
_DAYS_PER_MONTH = 30.44
_SLACK_DAYS = 10
"""How far a 52/53-week year's ends stray from whole months (November 27, 2020 and November 29, 2019)."""


def _length_beside_days(stacks: Mapping[int, Sequence[str]], periods: dict[int, Period]) -> dict[int, Period]:
    """Columns headed by a day alone beside the one column whose head names the length.

    "Years Ended" centred over three columns is read into the middle one's head only: Adobe's income
    statement heads "November 27, 2020  Years Ended November 29, 2019  November 30, 2018", and the outer
    columns' revenue was dated at an instant (a flow of unknown length, compared with nothing). When one
    column names a length and every other value column a day alone, and the days are one such length apart,
    each column is that length ending on its own day. A roll-forward's balances beside the year's movements
    ("December 31, 2019", "Year ended December 31, 2020", "December 31, 2020") share a day with the
    movements' end: no series, no change.
    """
    values = sorted(c for c in stacks if c > 0 and c in periods)
    lengths = [
        c for c in values if periods[c].kind == "duration" and periods[c].months and periods[c].end_date
    ]
    days = [c for c in values if periods[c].kind == "instant" and periods[c].end_date]
    if len(lengths) != 1 or not days or len(lengths) + len(days) != len(values):
        return periods
    source = periods[lengths[0]]
    lead = _LEAD.match(" ".join(" ".join(stacks[lengths[0]]).split()))
    months = source.months or 0
    ends = sorted(d for c in values if (d := periods[c].end_day()) is not None)
    apart = [(b - a).days for a, b in itertools.pairwise(ends)]
    if lead is None or not all(abs(d - months * _DAYS_PER_MONTH) <= _SLACK_DAYS for d in apart):
        return periods
    out = dict(periods)
    for c in days:
        p = combine_periods([lead.group("lead"), *stacks[c]])
        if (
            p is not None
            and p.kind == "duration"
            and p.months == months
            and p.end_date == periods[c].end_date
        ):
            out[c] = p
    return out


_AS_OF = re.compile(r"\bas (?:of|at) (?=[A-Z][a-z]+ \d)")
_DAY_YEAR = re.compile(r"(?:(?P<day>[A-Z][a-z]+ \d{1,2}),? )?(?P<year>(?:19|20)\d\d)\b")
"""A caption's dates after "as of": "December 31, 2022 and 2021", "November 27, 2020 and November 29,
2019"."""


def _caption_date(caption: Sequence[str], year: Period) -> Period | None:
    """The balance date a caption gives a column headed by its year alone.

    "Card Member and Other loans as of December 31, 2022 and 2021" over "2022  2021": each column is the
    balance at December 31 of its year, not the year's flow; "as of November 27, 2020 and November 29,
    2019", each at its own day. Only when the caption names no length (a caption of "the years ended ...
    and balances as of ..." says both) and dates the column's year.
    """
    for line in caption:
        text = " ".join(line.split())
        m = _AS_OF.search(text)
        if m is None or period_lengths(text):
            continue
        days: dict[str, str] = {}
        day: str | None = None
        for d in _DAY_YEAR.finditer(text, m.end()):
            day = d.group("day") or day
            if day is not None:
                days.setdefault(d.group("year"), day)
        if (on := days.get(str(year.fiscal_year))) is not None:
            p = parse_period(f"As of {on}, {year.fiscal_year}")
            if p is not None and p.kind == "instant":
                return p
    return None


_STUB_YEAR = re.compile(r"(?P<length>.*\b(?:ended|ending))\s*,?\s*(?P<year>(?:19|20)\d\d)", re.IGNORECASE)
"""A length and a year printed once for every column: "Quarter Ended 2021" over the row labels."""
_FISCAL = re.compile(r"\b(?:fiscal|FY)", re.IGNORECASE)


def _stub_year_dates(
    first: RawTable, stacks: Mapping[int, Sequence[str]], periods: Mapping[int, Period]
) -> dict[int, Period]:
    """Columns headed by a month and day alone, dated by the year printed over the row labels.

    A quarterly summary prints "Quarter Ended 2021" in its stub head (or as its caption) and "Mar 31",
    "Jun 30", ... over the columns: each column is the quarter ended that day of 2021. A fiscal year
    ("Fiscal Quarter Ended 2021") may begin in the calendar year before: which year a day falls in is not
    printed, so it dates nothing.
    """
    texts = [t for t in (*stacks.get(0, []), *first.caption) if t.strip()]
    phrases = [m for t in texts if (m := _STUB_YEAR.fullmatch(" ".join(t.split()))) is not None]
    if len(phrases) != 1 or _FISCAL.search(phrases[0].group(0)):
        return {}
    length, year = phrases[0].group("length"), phrases[0].group("year")
    out: dict[int, Period] = {}
    for col, parts in stacks.items():
        head = " ".join(" ".join(parts).split()).rstrip(" ,")
        if col == 0 or col in periods or not head or _YEAR.search(head):
            continue
        day = parse_period(f"As of {head}, {year}")
        if day is None or day.kind != "instant" or day.end_date is None or len(day.end_date) != 10:
            continue  # the head is no month and day ("Americas", "Note 3")
        p = combine_periods([f"{length} {head}, {year}"])
        if p is not None and p.kind == "duration" and p.end_date == day.end_date:
            out[col] = p
    return out


def _lone_spanning_head(
    first: RawTable, stacks: Mapping[int, Sequence[str]], periods: dict[int, Period]
) -> dict[int, Period]:
    """The period of a head printed alone over segment columns, for the columns beside its span too.

    "Year Ended December 31, 2019" centred over "Activision  Blizzard  King  ...  Total" is read over the
    middle columns only. When it is the only head of its line and it names a whole period (its end, and
    a length unless it is an instant), and the columns' own heads are distinct names that state no
    period (one span of segments, not two years of the same segments), every column is of that period.
    """
    values = sorted(c for c in stacks if c > 0)
    for row in first.rows[: first.header_rows]:
        cells = [c for c in row if c.text.strip()]
        if len(cells) != 1 or cells[0].col == 0:
            continue
        head = cells[0]
        p = combine_periods([head.text])
        if p is None or not p.end_date or (p.kind != "instant" and not p.months):
            continue
        names = [" ".join(stacks[c][-1].split()).casefold() for c in values if stacks[c]]
        if len(names) != len(values) or len(set(names)) != len(names):
            continue
        spanned = set(range(head.col, head.col + head.col_span))
        outside = [c for c in values if c not in spanned]
        if not outside or any(
            c in periods or combine_periods(stacks[c]) is not None or is_change_column(" ".join(stacks[c]))
            for c in outside
        ):
            continue  # a column of its own period, or of changes ("Increase (decrease)"): not one span
        if any(periods.get(c) is None or periods[c].key != p.key for c in spanned if c in stacks):
            continue
        out = dict(periods)
        for c in outside:
            shared = combine_periods([head.text, *stacks[c]])
            if shared is not None and shared.key == p.key:
                out[c] = shared
        return out
    return periods


def _caption_instant(group: TableGroup, stacks: Mapping[int, Sequence[str]]) -> dict[int, Period]:
    """Every column of a table whose heads state no period at the one date its lead-in names.

    "As of December 31, 2021, the Utility's outstanding derivative balances were as follows:" over
    "Gross Derivative Balance  Netting  Cash Collateral  Total": each column is a balance at that date.
    Only when the line nearest the table that prints a date prints that one date, after "as of", and no
    length (a year's or a quarter's figures are no balances at a date); and when no row of the table
    prints a date of its own (sections "December 31, 2020" stacked below) or is an opening or closing
    balance (a roll-forward's movements are flows), nor a page it continues on a caption of its own.
    """
    first = group.first
    if any(_YEAR.search(" ".join(f.caption)) for f in group.fragments[1:]):
        return {}
    dated = [line for line in first.caption if _YEAR.search(line)]
    if not dated:
        return {}
    line = " ".join(dated[-1].split())
    p = parse_period(line)
    if (
        p is None
        or p.kind != "instant"
        or p.end_date is None
        or len(p.end_date) != 10
        or len(_YEAR.findall(line)) != 1
        or period_lengths(line)
    ):
        return {}
    labels = [c.text for f in group.fragments for row in f.rows[f.header_rows :] for c in row if c.col == 0]
    if any(_YEAR.search(label) or _ROLL_LINE.search(label) for label in labels):
        return {}
    return {col: p for col in stacks if col > 0}


_ROLL_LINE = re.compile(
    r"^\W*(?:balances?|outstanding)\b|\b(?:beginning|opening|ending|closing)\b|"
    r"\bend of (?:the )?(?:fiscal )?(?:year|period|quarter)\b|\b(?:brought|carried) forward\b",
    re.IGNORECASE,
)
"""A line of a roll-forward (an opening or closing balance): its movements are flows, not balances at the
lead-in's date."""


def _share_period_context(
    periods: dict[int, Period], stacks: Mapping[int, Sequence[str]]
) -> dict[int, Period]:
    """Give a column headed by a year alone the period printed over a neighbour, for that year.

    A head such as "December 31," or "Three Months Ended June 30," is often printed over the first of the
    columns it spans only (with a rule under it); the others then read "2024" alone. Such a column takes
    the period its span's dated column prints (:func:`_span_source`), in its own year: "Three Months Ended
    June 30, 2023" beside "2022" makes "Three Months Ended June 30, 2022", not the fiscal year 2022. A
    year beside a head that names a length under a year the reader could not date ("Three Months 2023"
    beside "2022") is no fiscal year either: it gets no period (unknown, not wrong).
    """
    out = dict(periods)
    heads = {col: [t for t in parts if t.strip()] for col, parts in stacks.items()}
    for col in sorted(heads):
        year = _bare_year(heads[col])
        p = periods.get(col)
        if year is None or (p is not None and (p.end_date or p.quarter is not None or p.months)):
            continue
        source = _span_source(col, heads, periods)
        if source is not None:
            shared = combine_periods([source.label.replace(str(source.fiscal_year), str(year))])
            if shared is not None and shared.fiscal_year == year:
                out[col] = shared
                continue
        left = periods.get(col - 1)
        if (
            p is not None
            and (left is None or not left.end_date)
            and any(months < 12 for months in period_lengths(" ".join(heads.get(col - 1, []))))
        ):
            del out[col]
    return out


def _span_source(
    col: int, heads: Mapping[int, Sequence[str]], periods: Mapping[int, Period]
) -> Period | None:
    """The dated period of the span a year column belongs to, or None.

    Under two-line heads ("Three Months Ended" over "June 30, 2023  2022"), the span is the columns under
    the same upper head. Under one line, it is the run of neighbours toward the dated column whose years
    all differ ("June 30, 2023  2022  2021"); a year met again starts another span ("Q4 2023  2022" then
    "2023  2022": the full years are not quarters). Left first, then right (prior year first).
    """
    upper = list(heads[col][:-1])
    own = _bare_year(heads[col])
    for side in (range(col - 1, -1, -1), range(col + 1, max(heads) + 1)):
        years = {own}
        for c in side:
            other = heads.get(c, [])
            if not other or list(other[:-1]) != upper:
                if upper:
                    continue  # another span's upper head: look further along
                break
            p = periods.get(c)
            if p is not None and p.end_date and p.fiscal_year is not None and str(p.fiscal_year) in p.label:
                return p if p.fiscal_year not in years else None
            year = _bare_year(other)
            if year is None or year in years:
                break
            years.add(year)
        if upper:
            break  # under an upper head, its own span only
    return None


def _bare_year(head: Sequence[str]) -> int | None:
    """The year a column's bottom head prints alone (footnote marks aside), or None."""
    m = _YEAR.fullmatch(_MARKS_AFTER.sub("", head[-1]).strip()) if head else None
    return int(m.group(0)) if m else None


_MARKS_AFTER = re.compile(r"\s*(?:\(\w{1,2}\)|[*†‡§⁰¹²³⁴⁵⁶⁷⁸⁹])+\s*$")
"""Footnote marks after a head ("2022 (1)")."""


_YEAR_HEAD = re.compile(r"^(?:FY\s?|fiscal\s+)?((?:19|20)\d\d)$", re.IGNORECASE)


def _year_heads(row: Sequence[RawCell]) -> dict[int, str] | None:
    """Column → year, for a body row that is nothing but year heads (beside an optional label).

    Summary tables stack sections, each under its own "2022  2021  2020" line.
    """
    values = [c for c in row if c.col > 0]
    if len(values) < 2 or not all(_YEAR_HEAD.match(c.text.strip()) for c in values):
        return None
    return {c.col: c.text.strip() for c in values}


_REF_HEAD = re.compile(r"^(?:notes?|note ref\.?|ref\.?|schedule|page)$", re.IGNORECASE)


def _columns_headed(group: TableGroup, says: Callable[[str], bool]) -> set[int]:
    """Columns with a head of their own (one column wide) in the first table's header rows that ``says``."""
    first = group.first
    return {c.col for row in first.rows[: first.header_rows] for c in row if c.col_span == 1 and says(c.text)}


def reference_columns(group: TableGroup) -> set[int]:
    """Columns of note or page references ("Note", "Notes"): their small integers are not amounts."""
    return _columns_headed(group, lambda head: _REF_HEAD.match(head.strip()) is not None)


def percent_columns(group: TableGroup) -> set[int]:
    """Columns whose head says they hold percentages ("Change %", "% of total", "Margin (%)")."""
    return _columns_headed(group, lambda head: "%" in head or "percent" in head.casefold())


def _table_scale_and_currency(
    group: TableGroup, scale: ScaleResolution | None, by_column: dict[int, ScaleResolution]
) -> tuple[ScaleResolution | None, str | None]:
    """The table's scale (a unit head over every value column counts) and its currency."""
    if scale is None and by_column and len({r.scale for r in by_column.values()}) == 1:
        # "£m" over every value column: the table's scale, said column by column.
        scale = next(iter(by_column.values()))
    currency = scale.currency if scale is not None else None
    if currency is None:
        # 10-K tables print "$" only on the first and total rows: it names the whole table's currency.
        signs = Counter(
            raw_currency(c.currency) for f in group.fragments for row in f.rows for c in row if c.currency
        )
        signs.pop(None, None)
        currency = signs.most_common(1)[0][0] if signs else None
    return scale, currency


def _fragment_body(frag: RawTable, i: int) -> tuple[int, list[list[RawCell]]]:
    """A fragment's rows after its repeated header, with the row index they start at.

    A repeated header on a continuation page is dropped (its rows are the first fragment's);
    "Current liabilities" atop a continuation page is a heading of the body, not a caption.
    """
    start = 0 if i == 0 else frag.header_rows
    body = list(frag.rows[start:])
    if i > 0 and not frag.header_rows and section_headings(frag.caption):
        heads = [[RawCell(0, 0, t, box)] for t, box in zip(frag.caption, frag.caption_boxes, strict=False)]
        body = heads + body
    return start, body


@dataclass
class _Typer:
    """Types the cells of one logical table, row by row."""

    scale: ScaleResolution | None
    currency: str | None
    by_column: dict[int, ScaleResolution]
    periods: dict[int, Period]
    ref_cols: set[int]
    pct_cols: set[int]
    cells: list[Cell] = field(default_factory=list)

    def number(self, raw: RawCell, row_scale: ScaleResolution | None) -> TypedNumber | None:
        """The cell's typed number, or None for labels, reference columns and text."""
        if raw.col == 0 or raw.col in self.ref_cols:
            return None
        parsed = parse_number(raw.text)
        if parsed is None:
            return None
        if raw.col in self.pct_cols and not parsed.percent:
            parsed = replace(parsed, percent=True)
        stated = row_scale or self.by_column.get(raw.col, self.scale)
        return to_typed(
            parsed,
            scale=stated.scale if stated is not None else None,
            source=stated.source if stated is not None else None,
            currency=raw_currency(raw.currency) or self.currency,
            period=self.periods.get(raw.col),
        )

    def emit(
        self, raw: RawCell, row: int, page: int, header: bool, row_scale: ScaleResolution | None
    ) -> None:
        """Append the cell."""
        # model_construct: every field comes from the finder's own typed values (non-negative grid
        # indices, 1-based pages, a validated TypedNumber), and validating each of the thousands of
        # cells of a filing costs more than finding them. tests/test_sample_structure.py re-validates
        # every cell of the sample documents to keep this honest.
        self.cells.append(
            Cell.model_construct(
                row=row,
                col=raw.col,
                col_span=raw.col_span,
                row_span=1,
                text=raw.text,
                bbox=raw.bbox,
                page=page,
                is_header=header,
                number=None if header else self.number(raw, row_scale),
            )
        )


def type_group(
    group: TableGroup, *, doc_id: str, source: str, table_id: str, scale: ScaleResolution | None
) -> Table:
    """Build the typed :class:`Table` of a logical table.

    Args:
        group: The logical table's fragments.
        doc_id: Document id.
        source: Source name.
        table_id: The table's id.
        scale: The table's scale as resolved by :func:`pipeline.parse.scales.resolve_group_scales`; a head
        over
            a single column overrides it for that column. None when nothing establishes it.
    """
    first = group.first
    by_column = column_scales(first)
    scale, currency = _table_scale_and_currency(group, scale, by_column)
    typer = _Typer(
        scale, currency, by_column, column_periods(group), reference_columns(group), percent_columns(group)
    )
    row_pages: list[int] = []
    ruled_rows: list[int] = []
    section_scale: ScaleResolution | None = None  # "Revenues (in millions):" over a section's rows
    for i, frag in enumerate(group.fragments):
        start, body = _fragment_body(frag, i)
        for r, row in enumerate(body, start=start):
            header = i == 0 and r < first.header_rows
            years = None if header else _year_heads(row)
            if years is not None:
                # "(in millions)  2022  2021  2020" inside the body: the heads of the rows below it.
                phrase = _caption_period_phrase(first.caption)
                for col, text in years.items():
                    p = combine_periods([phrase, text] if phrase else [text])
                    if p is not None:
                        typer.periods[col] = p
                header = True
            row_scale = None if header else label_scale(row)
            if not header and all(c.col == 0 for c in row):
                section_scale = row_scale  # a section heading: its scale, or none, holds until the next
            row_scale = row_scale or section_scale
            for raw in row:
                typer.emit(raw, len(row_pages), frag.page, header, row_scale)
            if not header and any(raw.ruled for raw in row):
                ruled_rows.append(len(row_pages))
            row_pages.append(frag.page)
    return Table(
        table_id=table_id,
        doc_id=doc_id,
        source=source,
        page=first.page,
        pages=sorted({f.page for f in group.fragments}),
        bbox=first.bbox,
        title=first.title,
        n_rows=len(row_pages),
        n_cols=first.n_cols,
        header_rows=first.header_rows,
        row_pages=row_pages,
        ruled_rows=ruled_rows,
        cells=typer.cells,
        method="ruled" if first.method == "ruled" else "whitespace",
        continued=len(group.fragments) > 1,
        scale=scale.scale if scale is not None else None,
        scale_source=scale.source if scale is not None else None,
        currency=currency,
    )


_SIGN_TO_ISO = {
    "$": "USD",
    "US$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "Rs": "INR",
    "Rs.": "INR",
}


def raw_currency(sign: str | None) -> str | None:
    """ISO code of a currency sign printed in its own column."""
    if sign is None:
        return None
    return _SIGN_TO_ISO.get(sign)


def _row_labels(table: Table) -> dict[int, str]:
    return {c.row: c.text for c in table.cells if c.col == 0 and not c.is_header}


def infer_missing_scales(tables: Sequence[Table], normalise: Callable[[str], str]) -> list[Table]:
    """Give tables that print no scale the scale of the tables they repeat.

    A summary table often prints "1,368.9" with no "£m" anywhere near it, while the statements it
    summarises say "£m". When a figure of the unscaled table, scaled by 10^s, equals the figure with the
    same label and period in a scaled table, and no figure contradicts that, the table takes scale s and
    that table's currency (source ``agreement``). Tables that match nothing keep no scale.
    """
    known: dict[tuple[str, str], list[tuple[float, int, str | None]]] = {}
    for t in tables:
        if t.scale is None:
            continue
        labels = _row_labels(t)
        for c in t.cells:
            if c.number is None or c.number.base_value is None or c.number.scale is None:
                continue
            if c.number.period is not None and c.row in labels and c.number.unit != "percent":
                key = (normalise(labels[c.row]), c.number.period.key)
                known.setdefault(key, []).append((c.number.base_value, c.number.scale, t.currency))
    out: list[Table] = []
    for t in tables:
        if t.scale is not None or not known:
            out.append(t)
            continue
        labels = _row_labels(t)
        votes: Counter[tuple[int, str | None]] = Counter()
        against = 0
        for c in t.cells:
            n = c.number
            if n is None or n.period is None or n.unit == "percent" or c.row not in labels:
                continue
            for base, scale, currency in known.get((normalise(labels[c.row]), n.period.key), []):
                if within_rounding(base, n.value * 10**scale, n.places - scale):
                    votes[(scale, currency)] += 1
                else:
                    against += 1
        if not votes or against > sum(votes.values()):
            out.append(t)
            continue
        (scale, currency), _ = votes.most_common(1)[0]
        out.append(_rescale(t, scale, currency))
    return out


def _rescale(t: Table, scale: int, currency: str | None) -> Table:
    cells = []
    for c in t.cells:
        n = c.number
        if n is not None and n.scale is None:
            parsed = parse_number(c.text)
            if parsed is not None:
                n = to_typed(
                    parsed, scale=scale, source="agreement", currency=n.currency or currency, period=n.period
                )
            c = c.model_copy(update={"number": n})
        cells.append(c)
    update = {"cells": cells, "scale": scale, "scale_source": "agreement", "currency": t.currency or currency}
    return t.model_copy(update=update)
