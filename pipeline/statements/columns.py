"""A table's value columns (step 2 of :mod:`pipeline.statements`): the ones that add up down the page.

Each column kept gets its period, its basis (as reported, restated, pro forma, non-GAAP, condensed
consolidating, constant currency) and the dimension its head names. Columns of changes, percentages, prices,
averages and years are left out. The rows are read with the columns the table finder split in two joined
again (:func:`statement_rows`).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from pipeline.figures.facts import UNIT_NOTE_EXCEPTION, header_dimension, is_change_column
from pipeline.figures.grid import RowView, column_headers, table_key, table_rows
from pipeline.figures.periods import lead_in_period, period_lengths
from pipeline.figures.rounding import within_rounding
from pipeline.figures.taxonomy import normalise_label
from pipeline.memo import per_document
from pipeline.statements.labels import TOTAL_LABEL
from pipeline.statements.settings import TREE_SETTINGS
from schemas.models import Basis, StatementColumn, Table, TypedNumber

__all__ = ["NOT_ADDITIVE", "basis_of", "naming_lines", "statement_columns", "statement_rows"]


def _split_columns(table: Table, rows: Sequence[RowView]) -> dict[int, int]:
    """Columns the table finder split in two: a headless column beside a headed one, never both filled.

    Dashes are often centred where figures are right-aligned, so "—" and "265" of one column can land
    in two; the pair then never has a figure in the same row, and only one of them has a head.

    Returns:
        Headless column → the headed column it belongs to.
    """
    headers = column_headers(table)
    filled: dict[int, set[int]] = {}
    for row in rows:
        for col in row.numbers:
            filled.setdefault(col, set()).add(row.index)
    cols = sorted(filled)
    merges: dict[int, int] = {}
    for a, b in itertools.pairwise(cols):
        if filled[a] & filled[b] or a in merges or b in merges:
            continue
        head_a, head_b = bool(headers.get(a, "").strip()), bool(headers.get(b, "").strip())
        if head_a != head_b:
            merges[b if head_a else a] = a if head_a else b
    return merges


def statement_rows(table: Table) -> list[RowView]:
    """A table's body rows as the calculation tree sees them: split columns joined again.

    Built once per table in a document's run (:func:`pipeline.memo.per_document`); each caller gets its
    own list.
    """
    return list(_statement_rows(table))


@per_document(key=table_key)
def _statement_rows(table: Table) -> tuple[RowView, ...]:
    rows = table_rows(table)
    merges = _split_columns(table, rows)
    if not merges:
        return tuple(rows)
    return tuple(replace(r, numbers={merges.get(c, c): cell for c, cell in r.numbers.items()}) for r in rows)


_BASIS_PATTERNS: tuple[tuple[Basis, str], ...] = (
    (
        "condensed_consolidating",
        r"\bguarantor|\bnon-?guarantor|\bissuer\b|\beliminations?\b|\bconsolidating\b|\bparent\b|"
        # "3M Company and Subsidiaries", "Corning Incorporated and Subsidiary Companies" name the
        # consolidated group, not a column of subsidiaries.
        r"\bobligor|(?<!\band )(?<!\band its )(?<!& )\bsubsidiar",
    ),
    ("restated", r"\brestat|\bas adjusted\b|\brecast\b|\bas revised\b|\bpreviously reported\b|\boriginally"),
    ("pro_forma", r"\bpro[- ]?forma\b"),
    (
        "constant_currency",
        r"\bconstant (?:currency|exchange)|\bprior[- ]year rates\b|\bcurrency[- ]neutral\b|"
        r"\bfx[- ]neutral\b",
    ),
    ("non_gaap", r"\bnon-?gaap\b|\badjusted\b|\bunderlying\b|\bnon-?ifrs\b"),
)
"""Basis → the words of a column head or a title that name it; the first that matches wins."""
_BASIS = [(basis, re.compile(pattern, re.IGNORECASE)) for basis, pattern in _BASIS_PATTERNS]
"""The basis patterns, compiled once."""
# Column heads whose figures do not add up down the column. A rate's effect and results at last year's or
# constant rates are amounts ("As Reported | Exchange Rate Effect | At Prior Year Rates").
NOT_ADDITIVE = re.compile(
    rf"%|\bpercent|{UNIT_NOTE_EXCEPTION}\bper\s+(?:share|unit|cent)|(?<!quoted )\bprices?\b|\baverage\b|"
    r"(?<!year )(?<!constant )\brates?\b(?!\s+(?:effect|impact))|\bratio\b|"
    r"\byield|\bmargin|\bweighted|\bmultiple\b|\bdays\b|\bbps\b|\bbasis points\b|"
    r"\bremaining (?:life|term)\b|\byears?\)|"
    r"\bmay yet\b|\byet to be\b|\bremaining (?:available|authori[sz]ed)\b",
    re.IGNORECASE,
)


_LEAD_IN = re.compile(r"\b(?:following|below|table)\b|:\s*$", re.IGNORECASE)
"""A prose sentence introducing the table below it ("The following table presents pro forma results:")."""


def naming_lines(heading: str) -> str:
    """The lines of the text above a table that can name its basis: titles, and a prose lead-in.

    Explanatory prose above a statement ("... so that the underlying performance of the Group can be
    assessed") names no basis of the table below it; a title ("Unaudited pro forma information") or a
    lead-in sentence ("The following table presents pro forma results:") does.
    """
    titles: list[str] = []
    prose: list[str] = []
    for line in heading.splitlines():
        text = " ".join(line.split())
        if not text:
            continue
        is_title = len(text.split()) <= TREE_SETTINGS.title_words and not text.endswith(".")
        (titles if is_title else prose).append(text)
    sentences = re.split(r"(?<=[.:])\s+", " ".join(prose))
    return "\n".join([*titles, *(s for s in sentences if _LEAD_IN.search(s))])


def basis_of(*texts: str) -> Basis:
    """The basis named by a column head or a table title; "reported" when none is named."""
    for text in texts:
        for basis, pattern in _BASIS:
            if pattern.search(text):
                return basis
    return "reported"


# "Total debt to total capital 39 %": a ratio whose label begins like a total; its percentage says nothing
# of the column's other lines.
_RATIO_LABEL = re.compile(
    r"\b(?:debt|liabilities|assets|equity|capital|revenues?|sales|income|earnings)\s+to\s+(?:total\s+)?"
    r"(?:capital|capitalization|equity|assets|liabilities|revenues?|sales|ebitda|earnings)\b|\bratio\b|"
    # "30+ days past due as a % of total": a share of a total, which ends its label as a total's does.
    r"(?:%|\bpercent(?:age)?|\bshare|\bportion|\bproportion) of (?:the )?(?:\w+ )?total\b"
)


_RATE_LABEL = re.compile(r"\b(?:rates?|yields?)\b")
"""A line of rates: "Average fixed interest rate", "Weighted-average yield"."""


def _column_figures(rows: Sequence[RowView]) -> tuple[Counter[int], Counter[int], set[int]]:
    """Per column: the figures printed, the percentages among them, and whether it is marked as percentages.

    A "%" printed on the first and total rows only makes the whole column percentages (a line of rates
    prints its own, and is no first row), and a total of
    exactly 100 makes it shares of the total, unless the column prints amounts over 100 in several lines:
    shares of a total are at most 100, one line perhaps beyond it against an elimination ("Total finance
    lease liabilities" of 100 under leased property of 223 and its amortization of 117 is an amount). A
    "Percentage of total" line among amounts marks nothing.
    """
    counts: Counter[int] = Counter()
    percents: Counter[int] = Counter()
    marked: set[int] = set()  # columns whose first figure or total row says "%"
    hundred: set[int] = set()  # columns whose total row prints 100
    beyond: Counter[int] = Counter()  # figures over 100 in magnitude, per column
    lined: set[int] = set()  # columns with a figure on a line whose label names no rate
    for row in rows:
        label = normalise_label(row.label)
        total_row = bool(TOTAL_LABEL.search(label)) and not _RATIO_LABEL.search(label)
        own_rate = bool(_RATE_LABEL.search(label))
        for col, cell in row.numbers.items():
            n = cell.number
            if n is None:
                continue
            # A rate's line prints its own "%" ("Average fixed interest rate" over the obligations it
            # prices, in a maturity table): it says nothing of the lines under it.
            first = not own_rate and col not in lined
            if not own_rate:
                lined.add(col)
            counts[col] += 1
            percent = n.unit in ("percent", "ratio")
            if percent:
                percents[col] += 1
            if percent and (first or total_row):
                marked.add(col)
            if total_row and n.value == 100.0 and n.places <= 2:
                hundred.add(col)
            elif abs(n.value) > 100.0:
                beyond[col] += 1
    return counts, percents, marked | {col for col in hundred if beyond[col] < 2}


def statement_columns(table: Table, rows: Sequence[RowView], heading: str = "") -> list[StatementColumn]:
    """The additive value columns of a table with their period, basis and dimension.

    A column is kept when at least two rows print an amount in it, fewer than half its figures are
    percentages and neither its first figure nor a total is one (a "%" printed on the first and total rows
    only is every row's), its total rows do not print exactly 100 (shares of a total), and its head names
    no change, ratio, price, average or balance still available.

    Args:
        table: The table.
        rows: Its body rows.
        heading: The text above the table on its page; with the title, it names the basis of every
            column whose own head names none ("Supplemental Unaudited Pro Forma Information").

    Returns:
        The columns, left to right.
    """
    headers = column_headers(table)
    counts, percents, marked = _column_figures(rows)
    periods: dict[int, StatementColumn] = {}
    table_basis = basis_of(table.title or "", naming_lines(heading))
    kept = [
        col
        for col in sorted(counts)
        if counts[col] - percents.get(col, 0) >= 2
        and col not in marked
        and percents.get(col, 0) * 2 < counts[col]
        and not is_change_column(headers.get(col, ""))
        and not NOT_ADDITIVE.search(headers.get(col, ""))
        and not _years_column(rows, col)
    ]
    values = {c: {row.index: n.value for row in rows if (n := _number(row, c)) is not None} for c in kept}
    kept = [col for col in kept if not _derived_change(rows, col, values)]
    places = _column_places(rows, kept)
    usual = Counter(places.values()).most_common(1)[0][0] if places else 0
    # Whole numbers beside cents: a count and its average price (an option table), not two amounts.
    priced = sorted(places.values()) == [0, 2]
    usual = 0 if priced else usual
    out: list[StatementColumn] = []
    for col in kept:
        header = headers.get(col, "")
        if places.get(col, usual) != usual and (len(places) >= 3 or priced):
            # "17.8" years of remaining life beside whole millions, or "48.84" a share beside thousands of
            # options (whose head, read as the table's title, did not say "price"): another kind of figure.
            continue
        period = next(
            (
                c.number.period
                for r in rows
                if (c := r.numbers.get(col)) is not None and c.number and c.number.period
            ),
            None,
        )
        basis = basis_of(header)
        column = StatementColumn(
            col=col,
            header=header,
            period=period,
            basis=basis if basis != "reported" else table_basis,
            context=header_dimension(header),
        )
        out.append(column)
        if period is not None:
            periods[col] = column
    return _dated_by_lead_in(out, heading)


_LAST_YEAR = re.compile(r"(?:^|\s)((?:19|20)\d\d)$")
"""The year a column head ends with ("Three Months 2023", "2022")."""


def _lead_in(heading: str) -> str | None:
    """The sentence that introduces the table ("... were as follows:"), or None."""
    lines = [" ".join(line.split()) for line in heading.splitlines() if line.strip()]
    text = " ".join(lines[-3:])
    if not text.endswith(":"):
        return None
    return re.split(r"(?<=[.:])\s+(?=[A-Z])", text)[-1]


def _dated_by_lead_in(columns: list[StatementColumn], heading: str) -> list[StatementColumn]:
    """Columns that print a length and a year only, dated by the sentence introducing the table.

    "Three Months" over "2023  2022" under "... for the three and six months ended June 2, 2023 and June 3,
    2022 were as follows:": each column ends on the day the sentence prints in its year
    (:func:`~pipeline.figures.periods.lead_in_period`). A bare year takes the length printed over the
    first column of its span (the run of columns to its left whose years all differ).
    """
    lead = _lead_in(heading)
    if lead is None or all(c.period is not None for c in columns):
        return columns
    out: list[StatementColumn] = []
    length: int | None = None
    years: set[int] = set()
    for column in columns:
        head = " ".join(column.header.split())
        m = _LAST_YEAR.search(head)
        named = period_lengths(head)
        if m is None or len(named) > 1:
            length, years = None, set()
            out.append(column)
            continue
        year = int(m.group(1))
        if named:
            length, years = named[0], {year}
        elif year in years:
            length = None  # a year met again: another span, whose length is not printed
        else:
            years.add(year)
        period = None if column.period is not None or length is None else lead_in_period(lead, length, year)
        out.append(column if period is None else column.model_copy(update={"period": period}))
    return out


def _number(row: RowView, col: int) -> TypedNumber | None:
    cell = row.numbers.get(col)
    return cell.number if cell is not None else None


def _derived_change(rows: Sequence[RowView], col: int, values: Mapping[int, Mapping[int, float]]) -> bool:
    """A column of changes whose head the reader missed.

    In most rows (two in three, at least three) it prints another pair of columns' percentage change,
    (a - b) / |b| x 100, at its own printed precision. ``values``: each candidate column's figures by row.
    """
    changes = {  # a column of zeros is no change of anything
        row.index: (n.value, n.places)
        for row in rows
        if (n := _number(row, col)) is not None and not n.is_dash and n.value != 0.0
    }
    if len(changes) < 3:
        return False
    # Each other column's figures on the change's rows, read once, not again for every pair it enters.
    printed = list(changes.values())
    on_rows = {c: [v.get(r) for r in changes] for c, v in values.items() if c != col}
    # A column with figures on fewer than three of these rows is in no pair seen three times.
    others = {c: xs for c, xs in on_rows.items() if sum(x is not None for x in xs) >= 3}
    return any(
        _prints_change(printed, xs, ys) for a, xs in others.items() for b, ys in others.items() if a != b
    )


def _prints_change(
    printed: Sequence[tuple[float, int]], xs: Sequence[float | None], ys: Sequence[float | None]
) -> bool:
    """Whether ``printed`` is (x - y) / |y| x 100 in two rows of three it can be tested in, three at least."""
    hits = seen = 0
    left = len(printed)
    for x, y, (v, places) in zip(xs, ys, printed, strict=True):
        left -= 1
        if x is None or y is None or y == 0.0:
            continue
        seen += 1
        if within_rounding((x - y) / abs(y) * 100.0, v, places):
            hits += 1
        elif 3 * hits - 2 * seen + left < 0:
            return False  # most pairs are no pair: two in three would not hold if every row left did
    return seen >= 3 and hits * 3 >= seen * 2


_YEAR_FIGURE = re.compile(r"^(?:19|20)\d\d$")
"""A figure printed as a year, without separators: a column of them holds maturities or vintages."""


def _years_column(rows: Sequence[RowView], col: int) -> bool:
    """A column of years (maturities, vintages): figures without separators between 1900 and 2099."""
    texts = [cell.text.strip() for row in rows if (cell := row.numbers.get(col)) is not None]
    return bool(texts) and sum(1 for t in texts if _YEAR_FIGURE.match(t)) * 5 >= len(texts) * 4


def _column_places(rows: Sequence[RowView], cols: Sequence[int]) -> dict[int, int]:
    """The decimal places each of ``cols`` prints its figures with (the most common; dashes left out).

    Counted on the lines where every column prints a figure, where there are two: an EPS note's earnings,
    share counts and per-share lines print 0, 1 and 2 places in every year, and a year whose discontinued
    operations print a dash would otherwise count other lines most and read as another kind of figure.
    """
    figures: dict[int, dict[int, int]] = {}
    for row in rows:
        figures[row.index] = {
            col: n.places
            for col, cell in row.numbers.items()
            if col in cols
            and (n := cell.number) is not None
            and not n.is_dash
            and n.unit not in ("percent", "ratio")
        }
    complete = [f for f in figures.values() if len(f) == len(cols)]
    seen: dict[int, Counter[int]] = {}
    for line in complete if len(complete) >= 2 else figures.values():
        for col, places in line.items():
            seen.setdefault(col, Counter())[places] += 1
    return {col: c.most_common(1)[0][0] for col, c in seen.items()}
