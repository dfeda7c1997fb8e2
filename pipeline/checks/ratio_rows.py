"""CHG001 in rows: a line's percentage of a base, and its percentage change, printed on the lines below it.

MD&A and segment tables print, under an amount line, ratios computed from it in each period's column:
"Operating income as a percentage of net sales", "(as a % of net sales)", "Percent of sales", "Percentage
of total revenue", "Adjusted EBIT / Sales %", "EBIT margin" in percent, and "Percent change" against the
prior period, and "$ Change", the change in the line's own amounts. That is
arithmetic the filing states once per column; a keying error in the line, in the base or in the ratio breaks
it in that column and nowhere else. :mod:`.changes` reads the same relations in columns ("% Change",
"% of revenue" beside the amounts); this module reads them in rows.

Which lines a ratio divides is read from the row's label and place, never from a header alone:

1. **The line**: the line the label names ("Adjusted EBIT as a percentage of net sales", "Net income margin"
   → the nearest line above labelled so), or, when the label names none ("Percent of sales", "(as a % of
   net sales)", "Percent change"), the amount line the ratio is printed under (only other ratio lines
   between). A label naming a line the table does not print is not checked.
2. **The base** of a percentage: the lines of the table whose label is the base the ratio's label names
   ("of net sales" → "Net sales", "Sales (millions)", "Total net sales"); a margin names none and divides
   by sales or revenue. When no line bears the name ("% of worldwide sales" under a line of sales by
   area), the line's own figure in the column where the ratio row prints 100 %.
3. **The prior period** of a change: the next column of the line, on the side where the changes hold.

A stock-performance table is ratios too, every series over its own first period: that column prints 100
in every row, and a row that prints another figure there, which re-keyed is 100, is flagged.

The label names the relation, so one column proves the pairing: a relation holds in at least one column
and fails in no more columns than it holds in; or every column divides by one printed total and one
re-keyed total mends them all. A column where it then fails is flagged only when the
failure is clear (more than twice the figures' rounding carried through the division) and one of the
three figures, re-keyed — two digits swapped, one digit wrong (not the last), a digit dropped or doubled,
the sign, a power of a thousand — makes it hold. A ratio off by a point because the filer computed it from
unrounded figures, or on another basis in one period, is no keying error and says nothing.

Each relation of a proven pairing is recorded for the localization (:mod:`.localize`), holding or not,
as the linear relation it is in the two amounts, the printed ratio taken as a coefficient:
``100 × line − ratio × base = 0`` and ``100 × current − (100 + change) × prior = 0``. A break the ratio
figure itself explains is flagged without one: the localization names amounts only.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from pipeline.checks.changes import RULE
from pipeline.checks.localize import Equation, RelationLog, Term, cell_term, connected
from pipeline.checks.rule import PrintedFigure
from pipeline.figures.grid import RowView, column_headers, row_labels, table_rows
from pipeline.figures.keying import keyed_variants
from pipeline.figures.taxonomy import normalise_label
from schemas.models import Cell, Flag, Table

__all__ = ["check_ratio_rows"]

# "Operating income as a % of total revenues", "(as a percentage of net sales)", "Percent of sales", "% of
# worldwide sales".
_SHARE_LABEL = re.compile(
    r"^(?P<line>.*?)\s*(?:\bas an? )?(?:%|\bpercent(?:age)?) of (?P<base>[a-z][a-z ]*)$"
)
# "Adjusted EBIT / Sales %", "EBITDA/Revenue (%)": read on the label as printed (normalising drops the "/").
_OVER_LABEL = re.compile(r"^(?P<line>[^/]*[a-z][^/]*?)\s*/\s*(?P<base>[a-z][a-z ]*?)\s*\(?%\)?\s*$")
# "EBIT margin", "Net income margin", "Operating margin %": a share of sales or revenue, when in percent.
_MARGIN_LABEL = re.compile(r"^(?P<line>[a-z][a-z ]*?)\s*\bmargin(?: %| percent(?:age)?)?$")
# "Percent change", "% change from prior quarter", "Percentage increase (decrease)".
_CHANGE_LABEL = re.compile(
    r"^(?:%|percent(?:age)?|pct) (?:change|increase|decrease|growth)\b"
    r"|^(?:change|increase|growth) (?:%|percent)$"
)
# "$ Change", "Dollar change", "Increase (decrease)": the change of the line above in its own amounts.
_AMOUNT_CHANGE_LABEL = re.compile(r"^(?:dollar |amount )?change$|^increase decrease$")
_QUALIFIERS = frozenset({"total", "net", "consolidated"})
_SALES = frozenset({"sales", "revenue"})
_MARGIN = 2.0
"""A failure must exceed the rounding carried through the division this many times: an off-by-one ratio
computed from unrounded figures is not a finding."""


@dataclass(frozen=True, slots=True)
class _Test:
    """One column of a relation: ``ratio`` against what ``line`` and ``base`` give."""

    col: int
    ratio: PrintedFigure
    line: PrintedFigure
    base: PrintedFigure
    change: bool
    magnitude: bool
    amount: bool = False  # an amount change, ``line − base``, not a percentage

    @property
    def expected(self) -> float:
        a, b = self.line.value, self.base.value
        if self.amount:
            return a - b
        if self.change:
            return (a - b) / abs(b) * 100.0
        return abs(a) / abs(b) * 100.0 if self.magnitude else a / b * 100.0

    @property
    def printed(self) -> float:
        return abs(self.ratio.value) if self.magnitude else self.ratio.value

    @property
    def tolerance(self) -> float:
        """The ratio's rounding and the two amounts' rounding carried through the division.

        Both ``a / b`` and ``(a − b) / b`` move by ``100 / |b|`` per unit of ``a`` and by ``100 |a| / b²``
        per unit of ``b``.
        """
        a, b = self.line, self.base
        if self.amount:
            return self.ratio.half + a.half + b.half
        return self.ratio.half + 100.0 / abs(b.value) * (a.half + abs(a.value) / abs(b.value) * b.half)

    @property
    def off(self) -> float:
        return abs(self.printed - self.expected)

    @property
    def holds(self) -> bool:
        return self.off <= self.tolerance * (1 + 1e-9) + 1e-12


def _is_percent(cell: Cell) -> bool:
    return (cell.number is not None and cell.number.unit == "percent") or "%" in cell.text


def _figures(row: RowView, amounts: bool = False) -> dict[int, PrintedFigure]:
    """Column → figure; dashes left out, and with ``amounts`` the percentages ("% Change" beside a line)."""
    out: dict[int, PrintedFigure] = {}
    for col, cell in row.numbers.items():
        if (f := PrintedFigure.of(cell)) is not None and not (amounts and _is_percent(cell)):
            out[col] = f
    return out


def _percent(row: RowView) -> bool:
    """A row of percentages: its first figure says so (typesetters print "%" on the first column only)."""
    return bool(row.numbers) and _is_percent(row.numbers[min(row.numbers)])


def _amounts(row: RowView) -> bool:
    return bool(row.numbers) and not _percent(row)


def _base_key(label: str) -> str:
    """``Total net revenues`` → ``revenue``: the words that name a base, without its qualifiers."""
    words = [w for w in label.split() if w not in _QUALIFIERS]
    if words and words[-1] == "revenues":
        words[-1] = "revenue"
    return " ".join(words)


@dataclass(frozen=True, slots=True)
class _Ratio:
    """A ratio row as its label reads: which line, which base, a change or a share."""

    row: RowView
    line: str
    bases: frozenset[str]
    change: bool
    amount: bool = False  # "$ Change": the change in the line's own amounts


def _ratio(row: RowView) -> _Ratio | None:
    if not row.numbers:
        return None
    if _amount_change(row.label) and _amounts(row):
        return _Ratio(row, "", frozenset(), True, True)
    read = _label_reading(row.label)
    if read is None:
        return None
    line, bases, change, margin = read
    if margin and not _percent(row):
        return None
    return _Ratio(row, line, bases, change)


@functools.lru_cache(maxsize=1 << 14)  # every ratio row asks of every line above it
def _amount_change(printed: str) -> bool:
    """Whether a line's label names the change in the line above's own amounts ("$ Change")."""
    return bool(_AMOUNT_CHANGE_LABEL.match(normalise_label(printed)))


@functools.lru_cache(maxsize=1 << 14)  # every table's every row asks; labels repeat across tables
def _label_reading(printed: str) -> tuple[str, frozenset[str], bool, bool] | None:
    """What a row's label says of a ratio: line, bases, change, margin; None when it names none.

    A margin's label names a ratio only on a row printed in percent, which the caller asks.
    """
    label = normalise_label(printed)
    if not label:
        return None
    if _CHANGE_LABEL.search(label):
        return "", frozenset(), True, False
    if m := _SHARE_LABEL.match(label):
        return m["line"].strip(), frozenset({_base_key(m["base"])}), False, False
    if m := _OVER_LABEL.match(" ".join(printed.lower().split())):
        return normalise_label(m["line"]), frozenset({_base_key(normalise_label(m["base"]))}), False, False
    if m := _MARGIN_LABEL.match(label):
        return m["line"].strip(), _SALES, False, True
    return None


def _line_of(ratio: _Ratio, above: Sequence[RowView]) -> tuple[RowView, bool] | None:
    """The amount line a ratio row divides (step 1), and whether only its place says so.

    A label naming a line the table does not print under that name ("EBIT margin" under "Earnings before
    interest and taxes (EBIT)") falls back on the place, which its columns must then prove twice.
    """
    if ratio.line:
        for row in reversed(above):
            label = normalise_label(row.label)
            if _amounts(row) and (label == ratio.line or label.startswith(f"{ratio.line} ")):
                return row, False
    for row in reversed(above):
        if _amount_change(row.label) and row.numbers:
            continue  # "% Change" under "$ Change": both are the line's above them
        if _amounts(row):
            return row, bool(ratio.line)
        if not (row.numbers and _percent(row)):
            return None  # a heading between: the ratio is not printed under this line
    return None


def _failures(fails: Sequence[_Test]) -> int:
    """Failing columns, those that print one figure counted once.

    A quarter keyed a thousand times too large breaks its own change and the next quarter's, which takes it
    for the prior: one misprint, not two columns of another relation.
    """
    cells = [{(f.cell.row, f.cell.col) for f in (t.line, t.base)} for t in fails]
    links = [(i, j) for i, j in itertools.combinations(range(len(cells)), 2) if cells[i] & cells[j]]
    return len(connected(len(cells), links))


def _share_tests(ratio: _Ratio, line: RowView, base: RowView) -> list[_Test]:
    figs, nums, dens = _figures(ratio.row), _figures(line, True), _figures(base, True)
    tests = [
        _Test(col, r, nums[col], dens[col], False, False)
        for col, r in figs.items()
        if col in nums and col in dens and dens[col].value != 0.0
    ]
    # Costs printed in parentheses beside a positive share: the share compares magnitudes.
    if not any(t.holds for t in tests):
        tests = [replace(t, magnitude=True) for t in tests]
    return tests


def _change_tests(ratio: _Ratio, line: RowView) -> list[_Test]:
    figs, amounts = _figures(ratio.row), _figures(line, True)
    order = sorted(amounts)
    best: list[_Test] = []
    for step in (1, -1):
        tests = []
        for col, r in figs.items():
            if col not in amounts:
                continue
            i = order.index(col) + step
            if not 0 <= i < len(order):
                continue
            a, b = amounts[col], amounts[order[i]]
            # No change, a change from or to nothing, or across zero: undefined or printed "NM".
            if not ratio.amount and (b.value <= 0.0 or a.value <= 0.0 or a.value == b.value):
                continue
            tests.append(_Test(col, r, a, b, True, False, ratio.amount))
        if sum(t.holds for t in tests) > sum(t.holds for t in best):
            best = tests
    return best


def _keyed(t: _Test) -> PrintedFigure | None:
    """The figure whose re-keying makes the failing column hold, when one does."""
    for fig in (t.line, t.base, t.ratio):
        for value, _ in keyed_variants(fig.value, fig.places):
            fixed = PrintedFigure(value, fig.places, fig.cell)
            swapped = replace(
                t,
                line=fixed if fig is t.line else t.line,
                base=fixed if fig is t.base else t.base,
                ratio=fixed if fig is t.ratio else t.ratio,
            )
            if (
                t.amount or (swapped.base.value and (not t.change or swapped.base.value > 0.0))
            ) and swapped.holds:
                return fig
    return None


def _keyed_base(tests: Sequence[_Test]) -> PrintedFigure | None:
    """The re-keyed base that makes every column hold, when all divide by one printed figure.

    Shares of a total column break together when the total is keyed wrong; no column then proves the
    pairing, but one figure explaining every break at once is the localization's own proof.
    """
    if len(tests) < 2 or len({(t.base.cell.row, t.base.cell.col) for t in tests}) != 1:
        return None
    base = tests[0].base
    for value, _ in keyed_variants(base.value, base.places):
        fixed = PrintedFigure(value, base.places, base.cell)
        if value and all(replace(t, base=fixed).holds for t in tests):
            return fixed
    return None


def _base_flag(
    table: Table,
    tests: Sequence[_Test],
    keyed: PrintedFigure,
    labels: Mapping[int, str],
    relations: RelationLog | None,
) -> Flag:
    """One flag for a base every column's share contradicts, with each column's relation recorded."""
    proof = (
        f"every column's share of the total column breaks, and the total printed {keyed.cell.text.strip()} "
        f"re-keyed {keyed.value:,.{max(keyed.places, 0)}f} makes all {len(tests)} hold"
    )
    flag = _flag(table, tests[0], 0, labels, column_headers(table), proof)
    if relations is not None:
        for t in tests:
            name = f"{RULE.id} {labels[t.ratio.cell.row]} (page {t.ratio.cell.page})"
            relations.add(_equation(t, labels, name, flag.flag_id))
    return flag


def _equation(t: _Test, labels: Mapping[int, str], name: str, flag_id: str | None = None) -> Equation:
    """``100 × line − ratio × base = 0``; a change, ``100 × current − (100 + change) × prior = 0``.

    An amount change is ``current − prior − change = 0``.
    """
    if t.amount:
        three = tuple(
            cell_term(f.cell, f.value, f.places, coef, labels[f.cell.row])
            for f, coef in ((t.line, 1.0), (t.base, -1.0), (t.ratio, -1.0))
        )
        return Equation(RULE.id, three, t.tolerance, t.holds, RULE.requires, name, flag_id)
    coef = -(100.0 + t.ratio.value) if t.change else -t.printed
    terms: tuple[Term, ...] = (
        cell_term(t.line.cell, t.line.value, t.line.places, 100.0, labels[t.line.cell.row]),
        cell_term(t.base.cell, t.base.value, t.base.places, coef, labels[t.base.cell.row]),
    )
    if t.magnitude:
        terms = tuple(replace(term, magnitude=True) for term in terms)
    # The ratio's rounding weighs by the base. A base keyed wrong (11,171 printed 1,117) would shrink it
    # tenfold and the corrected value would not fit: the base the line and the ratio give counts too.
    implied = 100.0 * abs(t.line.value) / abs(coef) if coef else 0.0
    tolerance = 100.0 * t.line.half + abs(coef) * t.base.half + max(abs(t.base.value), implied) * t.ratio.half
    return Equation(RULE.id, terms, tolerance, t.holds, RULE.requires, name, flag_id)


def _flag(
    table: Table,
    t: _Test,
    holds: int,
    labels: Mapping[int, str],
    headers: Mapping[int, str],
    proof: str | None = None,
) -> Flag:
    head = " ".join(headers.get(t.col, "").split()) or f"column {t.col}"
    line, base = f"{labels[t.line.cell.row]} {t.line.cell.text.strip()}", t.base.cell.text.strip()
    if t.change:
        prior = " ".join(headers.get(t.base.cell.col, "").split()) or f"column {t.base.cell.col}"
        claim = f"the change of {line} from {base} ({prior})"
    else:
        claim = f"{line} over {labels[t.base.cell.row]} {base}"
    message = (
        f"{labels[t.ratio.cell.row]} ({head}) printed {t.ratio.cell.text.strip()} but {claim} is "
        f"{t.expected:,.{t.ratio.places + (0 if t.amount else 1)}f}{'' if t.amount else '%'}."
    )

    return RULE.relation_flag(
        table,
        message=message,
        labels=labels,
        printed=t.ratio,
        inputs=(t.line, t.base),
        expected=t.expected,
        actual=t.printed,
        tolerance=t.tolerance,
        holds=holds,
        reasons=[
            proof or f"the row's label names the relation, and it holds in {holds} other column(s)",
            f"table on page {table.pages[0] if table.pages else t.ratio.cell.page}",
        ],
    )


def _relations(rows: Sequence[RowView]) -> Iterator[tuple[_Ratio, list[_Test], int]]:
    """Every ratio row with the columns of its best pairing (steps 1-3) and the columns that must hold."""
    for i, row in enumerate(rows):
        ratio = _ratio(row)
        if ratio is None:
            continue
        found = _line_of(ratio, rows[:i])
        if found is None:
            continue
        line, by_place = found
        need = 2 if by_place else 1
        if ratio.change:
            yield ratio, _change_tests(ratio, line), need
            continue
        bases = [
            r
            for r in rows
            if r is not line and _amounts(r) and _base_key(normalise_label(r.label)) in ratio.bases
        ]
        ranked = sorted(
            (_share_tests(ratio, line, b) for b in bases), key=lambda ts: -sum(t.holds for t in ts)
        )
        if ranked:
            yield ratio, ranked[0], need
        elif tests := _total_column_tests(ratio, line):
            yield ratio, tests, need


def _total_column_tests(ratio: _Ratio, line: RowView) -> list[_Test]:
    """Shares of the line's figure in the column where the ratio row prints 100 %.

    A geographic or segment table prints under its sales line "% of worldwide sales", each region's
    share of the total column, which prints "100.0 %": the base is the line's own figure there, and line
    and base, printed in one row, carry one sign.
    """
    figs, amounts = _figures(ratio.row), _figures(line, True)
    whole = [col for col, f in figs.items() if f.value == 100.0 and col in amounts]
    if len(whole) != 1 or not amounts[whole[0]].value:
        return []
    base = amounts[whole[0]]
    return [
        _Test(col, r, amounts[col], base, False, False)
        for col, r in figs.items()
        if col in amounts and col != whole[0]
    ]


_INDEX_RANGE = (10.0, 2000.0)
"""Where an index's other periods stay: a cumulative return from 100 that fell tenfold or rose twentyfold."""


def _index_base(rows: Sequence[RowView]) -> tuple[PrintedFigure, list[PrintedFigure]] | None:
    """The one figure of an index table's base column that does not print 100, with those that do.

    A stock-performance table indexes every series to 100 in its first period ("Base Period 12/31/2016",
    "June 11, 2019"): each row's first figure is 100 by construction. The column is read as a base when
    every row prints a figure in it and all but one print exactly 100 (two at least), the other columns
    stay within an index's range, and the odd figure, re-keyed, is 100.
    """
    figures = [_figures(r) for r in rows if r.numbers]
    columns = sorted({c for f in figures for c in f})
    if len(figures) < 3 or len(columns) < 3 or any(columns[0] not in f for f in figures):
        return None
    base = [f[columns[0]] for f in figures]
    odd = [f for f in base if f.value != 100.0]
    rest = [v.value for f in figures for c, v in f.items() if c != columns[0]]
    if len(odd) != 1 or not all(_INDEX_RANGE[0] <= v <= _INDEX_RANGE[1] for v in rest):
        return None
    if not any(abs(value - 100.0) < 1e-9 for value, _ in keyed_variants(odd[0].value, odd[0].places)):
        return None
    return odd[0], [f for f in base if f is not odd[0]]


def _index_flag(table: Table, rows: Sequence[RowView], labels: Mapping[int, str]) -> Flag | None:
    found = _index_base(rows)
    if found is None:
        return None
    odd, hundreds = found
    head = " ".join(column_headers(table).get(odd.cell.col, "").split()) or f"column {odd.cell.col}"
    return RULE.relation_flag(
        table,
        message=(
            f"{labels[odd.cell.row]} ({head}) printed {odd.cell.text.strip()} but every other series "
            f"prints 100 in this base period: an index starts at 100."
        ),
        labels=labels,
        printed=odd,
        inputs=hundreds,
        expected=100.0,
        actual=odd.value,
        tolerance=odd.half,
        holds=len(hundreds),
        reasons=[
            f"{len(hundreds)} other series print exactly 100 in the first column, and the others stay in an "
            "index's range",
            f"table on page {table.pages[0] if table.pages else odd.cell.page}",
        ],
    )


def check_ratio_rows(tables: Sequence[Table], relations: RelationLog | None = None) -> list[Flag]:
    """CHG001 over the ratio rows of every table.

    Args:
        tables: The document's tables.
        relations: Where every relation of a proven pairing is recorded, for the localization.

    Returns:
        One flag per ratio figure that its line and base contradict by a keying error.
    """
    flags: list[Flag] = []
    for table in tables:
        rows = table_rows(table)
        labels = row_labels(rows)
        headers: Mapping[int, str] | None = None
        if (index := _index_flag(table, rows, labels)) is not None:
            flags.append(index)
        for ratio, tests, need in _relations(rows):
            holds = sum(t.holds for t in tests)
            if holds == 0 and (keyed := _keyed_base(tests)) is not None:
                flags.append(_base_flag(table, tests, keyed, labels, relations))
                continue
            if holds < need or _failures([t for t in tests if not t.holds]) > holds:
                continue
            for t in tests:
                name = f"{RULE.id} {labels[ratio.row.index]} (page {t.ratio.cell.page})"
                if t.holds:
                    if relations is not None:
                        relations.add(_equation(t, labels, name))
                    continue
                culprit = _keyed(t) if t.off > _MARGIN * t.tolerance else None
                if culprit is None:
                    continue
                headers = headers if headers is not None else column_headers(table)
                flag = _flag(table, t, holds, labels, headers)
                flags.append(flag)
                if relations is not None and culprit is not t.ratio:
                    relations.add(_equation(t, labels, name, flag.flag_id))
    return flags
