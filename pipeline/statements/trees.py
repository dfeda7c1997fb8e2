"""Statements as calculation trees: the structure XBRL's calculation linkbase makes explicit, from the page.

A stage of its own, run once per document after the facts (:func:`build_statements`). For each table:

1. **Kind** (:func:`classify`): one of the five primary statements when its title (or the page heading
   above it) names one, or its lines are a statement's (total assets and total liabilities and equity; the
   three cash-flow activities); a summary when it says "highlights", "selected financial data"…; else a
   note.
2. **Columns** (:func:`statement_columns`): the additive value columns, each with its period, its basis
   (as reported, restated, pro forma, non-GAAP, condensed consolidating, constant currency) and the
   dimension its head names. Columns of changes, percentages, prices and averages do not add up and are
   left out.
3. **Tree** (:func:`build_tree`): the rows are walked top to bottom. A row may be a total when its label
   says so ("Total …", "Net cash …", "Balance at …", "… end of year"), when it is a total metric of the
   taxonomy ("Gross profit"), or — weakly — when it is unlabelled, "Net …" or outdented. Its candidate
   children are runs of the rows above it that are still visible (the rows a recognised total adds up are
   folded into it) starting at a natural boundary: the table start, a section heading, an opening balance
   or an earlier total. Three sign conventions are tried: as printed; the first less the others (costs
   printed positive); and by label (items named cost, expense, tax… subtracted when printed positive).
   A candidate is accepted when it holds in the other value columns: the tree is what the figures
   themselves prove, and a column where a proven node fails is where a figure is wrong. In roll-forwards
   (a closing balance as the total) blank cells are nil.
4. **Columns that add up** (:func:`column_sums`): a "Total" column that is the sum of the others row by
   row (statements of changes in equity, segment tables), or of its own group of columns where a table
   prints several periods side by side ("2022: Total | Level 1 | Level 2 — 2021: Total | …").

The result is one :class:`~schemas.models.Statement` per table with at least one value column; the checks
read it, and :func:`annotate_facts` gives every fact its statement, role, parent and basis.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.figures.facts import cell_fact, header_dimension, is_change_column
from pipeline.figures.grid import RowView, column_headers, table_rows
from pipeline.figures.periods import parse_period
from pipeline.figures.rounding import Comparison, compare_sum, within_rounding
from pipeline.figures.taxonomy import Taxonomy, normalise_label
from pipeline.ids import stable_id
from schemas.models import (
    Basis,
    Cell,
    ColumnSum,
    Fact,
    LineItem,
    LineRole,
    Period,
    Statement,
    StatementColumn,
    StatementKind,
    Table,
)

__all__ = [
    "Figure",
    "Grid",
    "Structure",
    "across_rows",
    "annotate_facts",
    "blanks_are_nil",
    "build_statements",
    "build_tree",
    "classify",
    "clean_label",
    "column_sums",
    "equity_statement_facts",
    "evaluate",
    "grid_of",
    "headings_over",
    "line_kinds",
    "numerator_label",
    "statement_columns",
    "statement_rows",
    "support_of",
]

# --- labels ---------------------------------------------------------------------------------------------

_DOT_LEADERS = re.compile(r"(?:\s*[.·…_]){3,}\s*")
_FOOTNOTE = re.compile(
    r"(?:\s*\((?:[a-z]|\d{1,2}|[ivx]{1,4})\)|\s*\*+|[\u00b9\u00b2\u00b3\u2070-\u2079]+)+\s*$"
)


def clean_label(label: str) -> str:
    """A label as printed, less dot leaders, footnote marks and a trailing colon.

    Args:
        label: The row label as printed ("Net revenue . . . . . (1)").

    Returns:
        "Net revenue".
    """
    text = _DOT_LEADERS.sub(" ", label)
    text = _FOOTNOTE.sub("", " ".join(text.split()))
    return text.strip().rstrip(":").strip()


# --- kind -----------------------------------------------------------------------------------------------

_STATEMENT_WORDS = re.compile(r"\bstatements?\b|\bbalance sheets?\b|\bfinancial position\b", re.IGNORECASE)
_KIND_PATTERNS: tuple[tuple[StatementKind, str], ...] = (
    ("comprehensive_income", r"\bcomprehensive (?:income|loss|earnings)\b"),
    ("cash_flow", r"\bcash flows?\b"),
    (
        "equity",
        r"\bchanges in (?:[\w’'-]+\s+){0,3}(?:equity|net assets|capital)\b|"
        r"\bstatements? of (?:[\w’'-]+\s+){0,2}equity\b",
    ),
    (
        "balance_sheet",
        r"\bbalance sheets?\b|\bfinancial position\b|\bfinancial condition\b|"
        r"\bstatements? of condition\b",
    ),
    (
        "income",
        r"\bstatements? of (?:consolidated )?(?:operations|income|earnings|profit|loss)|"
        r"\bincome statements?\b|\bprofit (?:and|or) loss\b",
    ),
)
_KIND_TITLES = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _KIND_PATTERNS]
_SUMMARY_TITLE = re.compile(
    r"\bhighlights\b|\bselected (?:consolidated |quarterly )?financial (?:data|information)\b|\bsummary\b|"
    r"\bkey figures\b|\bfive[- ]year\b|\bquarterly (?:financial )?(?:data|results|information)\b",
    re.IGNORECASE,
)


_SENTENCE_WORDS = re.compile(
    r"\b(?:is|are|was|were|as follows|following|recorded|included|presented|shown|consists?|related|"
    r"information|supplemental|see|refer)\b|:\s*$",
    re.IGNORECASE,
)


def _title_kind(text: str) -> StatementKind | None:
    """The statement a title line names, when it is a statement's title (not a sentence about cash flows)."""
    for line in text.splitlines():
        if len(line.split()) > 14 or not _STATEMENT_WORDS.search(line) or _SENTENCE_WORDS.search(line):
            continue
        for kind, pattern in _KIND_TITLES:
            if pattern.search(line):
                return kind
    return None


def classify(table: Table, heading: str, metrics: Sequence[str]) -> StatementKind:
    """What a table is: a primary statement, a summary, or a note.

    Args:
        table: The table.
        heading: The text printed above it on its page (its title lines and the page's first lines).
        metrics: The taxonomy metrics its row labels map to.

    Returns:
        The kind. The table's own title decides before the page heading; a summary title wins over the
        lines; otherwise the lines of a balance sheet or a cash-flow statement make it one.
    """
    title = table.title or ""
    if _SUMMARY_TITLE.search(title):
        return "summary"
    for text in (title, heading):
        kind = _title_kind(text)
        if kind is not None:
            return kind
    if _SUMMARY_TITLE.search(heading):
        return "summary"
    found = set(metrics)
    if "total_assets" in found and found & {
        "total_liabilities_and_equity",
        "total_equity",
        "total_liabilities",
    }:
        return "balance_sheet"
    if len(found & {"operating_cash_flow", "investing_cash_flow", "financing_cash_flow"}) >= 2:
        return "cash_flow"
    return "note"


# --- rows -----------------------------------------------------------------------------------------------


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
    """A table's body rows as the calculation tree sees them: split columns joined again."""
    rows = table_rows(table)
    merges = _split_columns(table, rows)
    if not merges:
        return rows
    return [replace(r, numbers={merges.get(c, c): cell for c, cell in r.numbers.items()}) for r in rows]


# --- entity ---------------------------------------------------------------------------------------------

_ENTITY_LINE = re.compile(
    r"^[A-Z][\w&.,'’ -]{1,80}?,?\s+(?:inc\.?|incorporated|corp\.?|corporation|company|co\.|l\.\s?p\.|lp|"
    r"limited partnership|llc|l\.l\.c\.|plc|p\.l\.c\.|ltd\.?|limited|n\.v\.|s\.a\.|ag|se)\s*$",
    re.IGNORECASE,
)


def entity_of(heading: str, title: str | None) -> str | None:
    """The reporting entity a table's title or heading names ("Boston Properties Limited Partnership").

    Filings of several registrants (a REIT and its operating partnership, a parent and its guarantor
    subsidiary) print the same statements once per entity; their figures differ by design.

    Returns:
        The entity's name, casefolded, from the title or the heading line nearest the table; None when no
        line is an entity's name alone.
    """
    for line in [title or "", *reversed(heading.splitlines())]:
        text = " ".join(line.split())
        if len(text.split()) <= 8 and _ENTITY_LINE.match(text):
            return text.casefold().rstrip(".")
    return None


# --- columns --------------------------------------------------------------------------------------------

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
_BASIS = [(basis, re.compile(pattern, re.IGNORECASE)) for basis, pattern in _BASIS_PATTERNS]
# Column heads whose figures do not add up down the column.
_NOT_ADDITIVE = re.compile(
    r"%|\bpercent|\bper\s+(?:share|unit|cent)|(?<!quoted )\bprices?\b|\baverage\b|\brates?\b|\bratio\b|"
    r"\byield|\bmargin|\bweighted|\bmultiple\b|\bdays\b|\bbps\b|\bbasis points\b|"
    r"\bremaining (?:life|term)\b|\byears?\)|"
    r"\bmay yet\b|\byet to be\b|\bremaining (?:available|authori[sz]ed)\b",
    re.IGNORECASE,
)


_TITLE_WORDS = 10
"""A heading line of at most this many words, not ending a sentence, is a title; longer lines are prose."""
_LEAD_IN = re.compile(r"\b(?:following|below|table)\b|:\s*$", re.IGNORECASE)


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
        is_title = len(text.split()) <= _TITLE_WORDS and not text.endswith(".")
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
    r"(?:capital|capitalization|equity|assets|liabilities|revenues?|sales|ebitda|earnings)\b|\bratio\b"
)


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
    counts: dict[int, int] = {}
    percents: dict[int, int] = {}
    marked: set[int] = set()  # columns whose first figure or total row says "%" or prints 100
    periods: dict[int, StatementColumn] = {}
    for row in rows:
        label = normalise_label(row.label)
        total_row = bool(_TOTAL_LABEL.search(label)) and not _RATIO_LABEL.search(label)
        for col, cell in row.numbers.items():
            n = cell.number
            if n is None:
                continue
            first = col not in counts
            counts[col] = counts.get(col, 0) + 1
            percent = n.unit in ("percent", "ratio")
            if percent:
                percents[col] = percents.get(col, 0) + 1
            # A "%" printed on the first and total rows only makes the whole column percentages, and a
            # total of exactly 100 makes it shares of the total; a "Percentage of total" line among
            # amounts does not.
            if (percent and (first or total_row)) or (total_row and n.value == 100.0 and n.places <= 2):
                marked.add(col)
    table_basis = basis_of(table.title or "", naming_lines(heading))
    kept = [
        col
        for col in sorted(counts)
        if counts[col] - percents.get(col, 0) >= 2
        and col not in marked
        and percents.get(col, 0) * 2 < counts[col]
        and not is_change_column(headers.get(col, ""))
        and not _NOT_ADDITIVE.search(headers.get(col, ""))
        and not _years_column(rows, col)
    ]
    kept = [col for col in kept if not _derived_change(rows, col, kept)]
    places = {col: p for col, p in _column_places(rows).items() if col in kept}
    usual = Counter(places.values()).most_common(1)[0][0] if places else 0
    out: list[StatementColumn] = []
    for col in kept:
        header = headers.get(col, "")
        if places.get(col, usual) != usual and len(places) >= 3:
            # "17.8" years of remaining life beside whole millions: another kind of figure.
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
    return out


def _derived_change(rows: Sequence[RowView], col: int, columns: Sequence[int]) -> bool:
    """A column of changes whose head the reader missed.

    In most rows (two in three, at least three) it prints another pair of columns' percentage change,
    (a - b) / |b| x 100, at its own printed precision.
    """
    others = [c for c in columns if c != col]
    for a in others:
        for b in others:
            if a == b:
                continue
            hits = seen = 0
            for row in rows:
                v, x, y = (row.numbers.get(k) for k in (col, a, b))
                if v is None or x is None or y is None or not (v.number and x.number and y.number):
                    continue
                if y.number.value == 0.0 or v.number.is_dash or v.number.value == 0.0:
                    continue  # a column of zeros is no change of anything
                seen += 1
                pct = (x.number.value - y.number.value) / abs(y.number.value) * 100.0
                if within_rounding(pct, v.number.value, v.number.places):
                    hits += 1
            if seen >= 3 and hits * 3 >= seen * 2:
                return True
    return False


_YEAR_FIGURE = re.compile(r"^(?:19|20)\d\d$")


def _years_column(rows: Sequence[RowView], col: int) -> bool:
    """A column of years (maturities, vintages): figures without separators between 1900 and 2099."""
    texts = [cell.text.strip() for row in rows if (cell := row.numbers.get(col)) is not None]
    return bool(texts) and sum(1 for t in texts if _YEAR_FIGURE.match(t)) * 5 >= len(texts) * 4


def _column_places(rows: Sequence[RowView]) -> dict[int, int]:
    """The decimal places each column prints its figures with (the most common; dashes left out)."""
    seen: dict[int, Counter[int]] = {}
    for row in rows:
        for col, cell in row.numbers.items():
            n = cell.number
            if n is not None and not n.is_dash and n.unit not in ("percent", "ratio"):
                seen.setdefault(col, Counter())[n.places] += 1
    return {col: c.most_common(1)[0][0] for col, c in seen.items()}


# --- figures --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure in the grid: base units when the table's scale is known, else as printed.

    One table shares one scale, so sums within it hold either way.
    """

    value: float
    decimals: int
    cell: Cell
    readable: bool = True
    """False for a cell that holds two figures (two columns read as one): a structure touching it cannot
    be evaluated in its column, not even taking it as a blank (nil) roll-forward movement."""


Grid = dict[int, dict[int, Figure]]
"""Row index → column → figure."""

_TWO_FIGURES = re.compile(r"[\d)]\s+[($-]?\d")


def grid_of(rows: Sequence[RowView], columns: Sequence[int]) -> Grid:
    """The figures of the given columns, row by row (dashes are nil)."""
    cells = [(row.index, col, cell) for row in rows for col, cell in row.numbers.items() if col in columns]
    printed = any(
        c.number is not None and (c.number.base_value is None or c.number.decimals is None) for *_, c in cells
    )
    grid: Grid = {}
    for r, col, cell in cells:
        n = cell.number
        if n is None or n.unit in ("percent", "ratio"):
            continue  # a "Percentage of total revenue" line among amounts adds into nothing
        if _TWO_FIGURES.search(cell.text):
            grid.setdefault(r, {})[col] = Figure(0.0, 0, cell, readable=False)
            continue
        if printed or n.base_value is None or n.decimals is None:
            value, decimals = (0.0 if n.is_dash else n.value), n.places
        else:
            value, decimals = (0.0 if n.is_dash else n.base_value), n.decimals
        grid.setdefault(r, {})[col] = Figure(value, decimals, cell)
    return grid


def lone_dashes(grid: Grid) -> set[tuple[int, int]]:
    """``(row, column)`` of each dash that is the only dash its column prints.

    A dash is nil where the table prints dashes for nil; the only dash of a column more often means *not
    applicable* (a consolidated column that has no figure for a segment's line): a *total* read as zero
    there breaks a sum that the filing never stated, so a relation whose total is such a dash is not
    proven in that column. (A component is nil either way: a line that does not apply adds nothing.)
    """
    dashes: dict[int, list[int]] = {}
    for r, cols in grid.items():
        for col, f in cols.items():
            if f.cell.number is not None and f.cell.number.is_dash:
                dashes.setdefault(col, []).append(r)
    return {(rows[0], col) for col, rows in dashes.items() if len(rows) == 1}


def blanks_are_nil(grid: Grid) -> bool:
    """Whether a table prints nil as a blank: no dash anywhere, and lines with figures in some columns only.

    Statements from jurisdictions that print every figure to the cent (Chinese and Japanese filings) leave a
    nil cell blank; a US statement prints "—".
    """
    figures = [f for cols in grid.values() for f in cols.values()]
    if not figures or any(f.cell.number is not None and f.cell.number.is_dash for f in figures):
        return False
    return all(f.cell.number is not None and f.cell.number.places >= 2 for f in figures)


# --- structures -----------------------------------------------------------------------------------------

Convention = str  # "sum" | "first_less_rest" | "by_label"


@dataclass(frozen=True, slots=True)
class Structure:
    """A candidate arithmetic structure: ``total = Σ sign·component``.

    Attributes:
        total: Row index of the total.
        components: ``(row index, sign)`` pairs, top to bottom.
        convention: How the signs were chosen: ``sum``, ``first_less_rest`` or ``by_label``.
        rollforward: The total is a closing balance: a blank component cell is nil.
    """

    total: int
    components: tuple[tuple[int, int], ...]
    convention: Convention
    rollforward: bool = False


@dataclass(frozen=True, slots=True)
class ColumnResult:
    """How a structure fares in one column."""

    col: int
    comparison: Comparison
    nonzero_components: int
    largest: float = 0.0
    """The largest component's magnitude: a coincidence must land within rounding of figures this big."""
    as_printed: bool = False
    """The structure adds its lines as printed (the "sum" convention)."""


def evaluate(
    structure: Structure, grid: Mapping[int, Mapping[int, Figure]], col: int, *, nil_blanks: bool = False
) -> ColumnResult | None:
    """Test a structure in one column; None when its total or, outside roll-forwards, a component is blank.

    ``nil_blanks``: the table prints nil as a blank (it prints no dash anywhere), so a blank component is nil.
    """
    total = grid.get(structure.total, {}).get(col)
    if total is None:
        return None
    parts: list[tuple[float, int]] = []
    for r in (structure.total, *(r for r, _ in structure.components)):
        v = grid.get(r, {}).get(col)
        if v is not None and not v.readable:
            return None
    for r, sign in structure.components:
        v = grid.get(r, {}).get(col)
        if v is None:
            if not (structure.rollforward or nil_blanks):
                return None
            continue  # a movement column left blank in a roll-forward is nil
        parts.append((sign * v.value, v.decimals))
    if not parts:
        return None
    comparison = compare_sum(total.value, total.decimals, parts)
    nonzero = sum(1 for v, _ in parts if v != 0.0)
    largest = max(abs(v) for v, _ in parts)
    return ColumnResult(col, comparison, nonzero, largest, structure.convention == "sum")


_MAX_COMPONENTS = 80
"""Longest run of rows tried as components (a schedule of debt lists fifty notes and more)."""
_MAX_UNLABELLED = 6
"""Longest run tried under a line whose label does not say it is a total."""
_MIN_SIGNAL = 50.0
"""A supporting column's total must be at least this many tolerances away from zero: with figures of
two or three digits, a sum holding by coincidence is too likely to prove a structure."""
_OUTDENT_POINTS = 2.0
"""A label this many points left of the previous row's label is outdented (a total under items)."""

_TOTAL_LABEL = re.compile(
    r"^(?:total|subtotal|sub total|net (?:increase|decrease|change)|net cash)\b|\btotal$|"
    r"\bend of (?:the )?(?:fiscal )?(?:year|period|quarter|month)\b|"
    # Chinese statements: "…合计" (total), "…总计" (grand total), "…小计" (subtotal), "…净额" (net amount).
    r"(?:合计|合計|总计|總計|小计|小計|净额|淨額)$"
)
# The income statement's subtotals, whatever the filer calls them exactly.
_SUBTOTAL_LABEL = re.compile(
    r"^(?:net |comprehensive )?(?:income|earnings|profit|loss|result)s?\b.*\bbefore\b|"
    r"^(?:net |total )?(?:comprehensive )?(?:income|earnings|profit|loss)(?: \w+){0,2} attributable to\b|"
    r"^(?:adjusted |consolidated |total |segment )?(?:ebitda|ebitdar|ebita|ebit|noi|ffo|affo)\b|"
    r"^(?:adjusted )?free cash flow\b|"
    r"^(?:income|earnings|profit|loss) from (?:continuing )?operations\b|^operating (?:income|profit|loss)\b|"
    r"^gross (?:profit|margin)\b|"
    # A non-GAAP reconciliation's result: the GAAP figure plus the adjustments printed above it.
    r"^adjusted\b|\(non-gaap(?: measures?)?\)|^non-gaap\b"
)
_CLOSING_LABEL = re.compile(
    r"^(?:balances?|ending balance|closing balance|balance end)\b(?!.*\b(?:beginning|begin|opening)\b)|"
    r"\bend of (?:the )?(?:fiscal )?(?:year|period|quarter|month)\b|^(?:ending|closing)\b|期末"
)
_OPENING_LABEL = re.compile(
    r"\b(?:beginning|opening|begin)\b.*\b(?:balance|year|period|quarter)\b|^(?:beginning|opening) balance\b|"
    r"^balances?,? (?:at )?(?:beginning|begin|opening)\b|期初|年初"
)
_COST_WORDS = re.compile(
    r"\b(?:costs?|expenses?|losses|loss|tax|taxes|provision|depreciation|amortization|impairments?|less|"
    r"deduct\w*|charges?|write-?downs?|dividends?|repurchases?|purchases?|payments?|repayments?|"
    r"withdrawals?|minority interests?|non-?controlling interests?)\b|^减 "
)
_DEDUCTION_LINE = re.compile(
    r"^\W*less\b|^\W*accumulated (?:depreciation|amortization|depletion)\b", re.IGNORECASE
)
_GAIN_WORDS = re.compile(r"\b(?:income|gains?|revenues?|sales|proceeds|profit|benefit)\b(?! tax)")


def total_strength(
    row: RowView, previous: RowView | None, taxonomy: Taxonomy, section: Collection[str] = ()
) -> int:
    """How strongly a row looks like a total of the rows above it.

    Args:
        row: The row.
        previous: The data row just above it, if any.
        taxonomy: To recognise total metrics ("Gross profit", "Operating income").
        section: The normalised labels of the lines above it in its section.

    Returns:
        2 for "Total …"/"Subtotal"/"Net increase in cash …", closing balances and total metrics; 1 (weak)
        for unlabelled rows, "Net …" rows and rows outdented relative to the row above; 0 otherwise.
    """
    label = normalise_label(row.label)
    if (
        label
        and (_TOTAL_LABEL.search(label) or _CLOSING_LABEL.search(label))
        and not _OPENING_LABEL.search(label)
    ):
        return 2
    if label and _SUBTOTAL_LABEL.search(label):
        return 2
    metric = taxonomy.match(row.label) if label else None
    if metric is not None and metric.is_total:
        return 2
    if not label or label.startswith("net "):
        # "Net unrealized gains" is often a subtotal, but "Net sales" or "Net interest" are not.
        return 1
    if label.endswith(" net") and (
        (previous is not None and _DEDUCTION_LINE.search(previous.label)) or label[: -len(" net")] in section
    ):
        # "Property, plant and equipment" / "Less: accumulated depreciation" / "Property, plant and
        # equipment, net": the line after a deduction that calls itself net is the difference of the two;
        # "Deferred card and other fees" … "Deferred card and other fees, net": the line it is net of is
        # printed above, in its section, and the lines between are what it is net of.
        return 1
    outdented = (
        previous is not None
        and row.indent is not None
        and previous.indent is not None
        and row.indent < previous.indent - _OUTDENT_POINTS
    )
    return 1 if outdented else 0


def _label_sign(row: RowView, grid: Mapping[int, Mapping[int, Figure]], label: str | None = None) -> int:
    """−1 for a cost printed positive (it is subtracted), +1 otherwise; by ``label`` when given."""
    label = normalise_label(row.label) if label is None else label
    if not _COST_WORDS.search(label) or _GAIN_WORDS.search(label.replace("income tax", "tax")):
        return 1
    values = [v.value for v in grid.get(row.index, {}).values() if v.value != 0.0]
    return -1 if values and sum(1 for v in values if v > 0) * 2 > len(values) else 1


# A line of per-share amounts or of share counts, by how such lines begin; a balance sheet's "Common
# stock, $0.01 par value per share; 900 shares authorized" is an amount.
_PER_SHARE_LINE = re.compile(
    r"^(?:basic|diluted|net (?:income|earnings|loss)|(?:income|earnings|loss)(?: from \w+(?: \w+)?)?|"
    r"(?:cash )?dividends?(?: declared| paid)?|book value|eps)\b.{0,40}\bper (?:common |ordinary |basic |"
    r"diluted )?(?:share|unit|ads)\b|^(?:basic |diluted )?(?:earnings|loss|income) per\b|^eps\b"
)
_SHARES_LINE = re.compile(
    r"^(?:(?:adjusted|non-gaap|gaap) )?(?:basic |diluted )?"
    r"(?:weighted[- ]average(?: number of)?(?: common| ordinary)? shares|"
    r"number of (?:common |ordinary )?shares|(?:common |ordinary )?shares used in|"
    r"(?:common |ordinary )?shares outstanding(?: basic| diluted)?$|units outstanding)"
)


# The numerator line of the calculation names what it is used for: "Net income attributable to X used in
# basic earnings per common share calculation", "Net income for diluted earnings per share". The clause says
# where the amount goes, not what it is: the line is earnings, not a per-share figure.
_USED_IN = re.compile(
    r"\b(?:used in|for|used for) (?:the )?(?:computing |computation of |calculation of |calculating )?"
    r"(?:basic |diluted )?(?:and diluted )?(?:net )?(?:earnings|income|loss) per "
    r"(?:common |ordinary )?share\b.*$"
)


def numerator_label(label: str) -> str:
    """A line's normalised label without a clause naming the per-share calculation it is used for."""
    return _USED_IN.sub("", normalise_label(label)).strip()


def _line_kind(label: str) -> str:
    """Amounts, per-share amounts or share counts: lines of different kinds never add up together."""
    text = numerator_label(label)
    if "par value" in text or re.search(r"\d", text):
        return "amount"  # "Dividends declared ($5.88 per share)": an amount, described
    if _PER_SHARE_LINE.search(text):
        return "per_share"
    if _SHARES_LINE.search(text):
        return "shares"
    return "amount"


def headings_over(rows: Sequence[RowView]) -> dict[int, RowView | None]:
    """Each line's section heading: the nearest label-only row above it (None above the first one)."""
    out: dict[int, RowView | None] = {}
    heading: RowView | None = None
    for row in rows:
        if row.is_heading:
            heading = row
            continue
        out[row.index] = heading
    return out


def line_kinds(rows: Sequence[RowView]) -> dict[int, str]:
    """Each row's kind; a row whose label says none ("Basic") takes its section heading's."""
    own = {row.index: _line_kind(row.label) for row in rows}
    return {
        r: own[r] if own[r] != "amount" or heading is None else own[heading.index]
        for r, heading in headings_over(rows).items()
    }


def _one_kind(structure: Structure, kinds: Mapping[int, str]) -> bool:
    rows = [structure.total, *(r for r, _ in structure.components)]
    return len({kinds.get(r, "amount") for r in rows}) == 1


def candidate_structures(
    total: int,
    visible: Sequence[int],
    starts: Sequence[int],
    signs: Mapping[int, int],
    rollforward: bool,
) -> list[Structure]:
    """Runs of visible rows from each natural start to just above the total, under each sign convention.

    Args:
        total: Row index of the candidate total.
        visible: Row indices above it still visible (not folded into a total), top to bottom.
        starts: Positions in ``visible`` where a run may start (boundaries).
        signs: Row → sign under the by-label convention.
        rollforward: The total is a closing balance.

    Returns:
        Structures from the shortest run to the longest.
    """
    out: list[Structure] = []
    n = len(visible)
    for i in sorted(set(starts), reverse=True):
        run = visible[i:]
        if not 2 <= len(run) <= _MAX_COMPONENTS or i >= n:
            continue
        conventions: dict[tuple[tuple[int, int], ...], Convention] = {}
        conventions.setdefault(tuple((r, 1) for r in run), "sum")
        conventions.setdefault(((run[0], 1), *((r, -1) for r in run[1:])), "first_less_rest")
        conventions.setdefault(tuple((r, signs.get(r, 1)) for r in run), "by_label")
        out.extend(Structure(total, comps, conv, rollforward) for comps, conv in conventions.items())
    return out


def supports(result: ColumnResult, signal: float = _MIN_SIGNAL) -> bool:
    """A column proves a structure: it holds, with a real total and real components."""
    c = result.comparison
    # Six lines of hundreds netting to a printed 3 prove as much as lines adding up to 300: the chance that
    # four figures or more, added as printed, land on the printed total within rounding shrinks with their
    # size, not with the total's. Two or three that nearly cancel are often related figures, and "the first
    # less the rest" nets a large figure down by its own parts (total loans less fixed-rate loans beside the
    # variable-rate line): there the total's size decides.
    by_lines = result.as_printed and result.nonzero_components >= 4
    magnitude = max(abs(c.actual), result.largest if by_lines else 0.0)
    return (
        c.ok
        and result.nonzero_components >= 2
        and c.actual != 0.0
        and magnitude >= signal * max(c.tolerance, 1e-12)
    )


_MIN_SIGNAL_EACH = 10.0
"""When two columns or more hold, each needs less: agreement in several at once is itself the evidence."""


def support_of(results: Sequence[ColumnResult]) -> int:
    """How many columns prove a structure.

    Each column that holds with real figures counts when three or more do, or two with one of them large
    or with four items or more each (a dozen figures do not add up to a printed total twice by chance);
    otherwise only columns whose figures are large enough that agreement is no coincidence count.
    """
    several = [r for r in results if supports(r, _MIN_SIGNAL_EACH)]
    strong = sum(1 for r in results if supports(r))
    many_items = bool(several) and min(r.nonzero_components for r in several) >= 4
    # Lines added as printed that hold in two columns at ten times their rounding are evidence enough;
    # "the first less the rest" and by-label signs hold by chance more often (a nil first line).
    as_printed = bool(several) and all(r.as_printed for r in several)
    if len(several) >= 3 or (len(several) == 2 and (strong >= 1 or many_items or as_printed)):
        return len(several)
    return strong


@dataclass(frozen=True, slots=True)
class Resolution:
    """The structure chosen for a total, and whether a column where it fails is an inconsistency."""

    structure: Structure
    proven: bool


def resolve_total(
    candidates: Sequence[Structure],
    grid: Mapping[int, Mapping[int, Figure]],
    columns: Sequence[int],
    min_support: int,
    *,
    strict: bool = False,
) -> Resolution | None:
    """Pick the structure of one total.

    A candidate that holds in every column it can be evaluated in (at least two) is taken at once. Else
    the best supported one is taken; it is *proven* when its support reaches ``min_support``, it fails in
    one column only, no other candidate holds in that column, and the equally supported candidates agree
    on what that column should print.

    Args:
        candidates: The candidate structures, shortest run first.
        grid: The table's figures.
        columns: Its value columns.
        min_support: Columns that must prove a structure before a failing column is believed.
        strict: The line does not say it is a total: a structure must hold with real figures in two
            columns even where it fails nowhere.

    Returns:
        The resolution, or None when no candidate is supported at all.
    """
    explained: set[int] = set()  # columns a candidate holds in that also holds in another column
    scored: list[tuple[int, int, Structure, list[ColumnResult], float]] = []
    exact: Structure | None = None  # a labelled total that adds up wherever it is printed, figures small
    for order, structure in enumerate(candidates):
        results = [r for c in columns if (r := evaluate(structure, grid, c)) is not None]
        holds = [r for r in results if r.comparison.ok]
        if len(holds) >= 2:
            # An alternative that holds in a column explains it only if it holds elsewhere too: one
            # column alone agrees with some run of lines by chance.
            explained.update(r.col for r in holds)
        fails = [r for r in results if not r.comparison.ok]
        support = support_of(holds)
        if not fails and len(holds) >= 2 and any(r.nonzero_components >= 2 for r in holds):
            # Agreement in several columns at once is no coincidence, whatever the figures' size; for a
            # line whose label does not say it is a total (strict), it takes real figures in two.
            if not strict or support >= 2:
                return Resolution(structure, True)
            continue
        if (
            not fails
            and holds
            and exact is None
            and min_support == 1
            and any(r.nonzero_components >= 2 for r in holds)
        ):
            exact = structure
        if support == 0:
            continue
        if not fails:
            if not strict or support >= 2:
                return Resolution(structure, True)
            continue
        slack = sum(abs(r.comparison.difference) for r in holds)
        scored.append((support, order, structure, fails, slack))
    if not scored:
        # "Total other comprehensive income" printed in one column, small: it still folds its items, so
        # that the closing balance below does not count them twice; but it proves nothing.
        return Resolution(exact, False) if exact is not None else None
    return _best_supported(scored, explained, min_support, strict=strict)


def _best_supported(
    scored: Sequence[tuple[int, int, Structure, list[ColumnResult], float]],
    explained: set[int],
    min_support: int,
    *,
    strict: bool,
) -> Resolution | None:
    """The best supported of the candidates that fail somewhere, proven only when its failure is believed.

    ``scored`` holds ``(support, order, structure, failing columns, slack)``, the slack being how far from
    exact the columns that hold are; ``explained`` the columns another candidate holds in (and in some other
    column too).
    """
    best_support = max(item[0] for item in scored)
    best = [item for item in scored if item[0] == best_support]
    # Of runs equally supported, those that hold exactly beat those that hold only within rounding: the line
    # above a section heading ("Balance, end of year 2" of common stock) fits into the next section's
    # roll-forward by rounding alone.
    least = min(item[4] for item in best)
    best = [item for item in best if item[4] <= least + 1e-9 * max(abs(least), 1.0)]
    _, _, chosen, fails, _ = min(best, key=lambda item: item[1])
    if strict and (best_support < min_support or len(fails) > 1):
        return None  # no line is folded into one that does not say it is a total, on weak evidence
    if best_support < min_support or len(fails) > 1:
        # One misprint breaks one column. A structure failing in two is more likely wrong (or the table
        # misread) than two figures misprinted.
        return Resolution(chosen, False)
    for fail in fails:
        if fail.col in explained:
            return Resolution(chosen, False)
        expectations = {
            round(f.comparison.expected, 6) for item in best for f in item[3] if f.col == fail.col
        }
        if len(expectations) != 1:
            return Resolution(chosen, False)
    return Resolution(chosen, True)


def _inner_runs(
    total: int, visible: Sequence[int], starts: Sequence[int], signs: Mapping[int, int]
) -> list[Structure]:
    """Runs that start inside the last section: "Total cost of sales" under "Net revenue" with no heading.

    Tried only for a line that says it is a total, when no run from a natural start adds up to it.
    """
    first = max(max(starts) if starts else 0, len(visible) - _MAX_COMPONENTS)
    out: list[Structure] = []
    for i in range(len(visible) - 2, first, -1):
        run = visible[i:]
        out.append(Structure(total, tuple((r, 1) for r in run), "sum"))
        by_label = tuple((r, signs.get(r, 1)) for r in run)
        if any(sign < 0 for _, sign in by_label):
            out.append(Structure(total, by_label, "by_label"))
    return out


def _labelled_rollforward(
    total: int,
    visible: Sequence[int],
    by_index: Mapping[int, RowView],
    grid: Grid,
    columns: Sequence[int],
    signs: Mapping[int, int],
) -> Resolution | None:
    """A closing balance printed in a single column under its opening balance and the movements between.

    With one column there is no other column to prove the structure, but the labels state it: "Balance
    as of June 30, 2022", movements, "Balance as of June 30, 2023". It is taken when every movement is
    printed (a blank may be a figure the reader lost) and all add as printed (no line that by its label
    might be subtracted), whether or not it holds.
    """
    start = next(
        (
            p
            for p in range(len(visible) - 2, -1, -1)
            if _OPENING_LABEL.search(label := normalise_label(by_index[visible[p]].label))
            or _CLOSING_LABEL.search(label)
        ),
        None,
    )
    if start is None or not 3 <= len(visible) - start <= _MAX_COMPONENTS:
        return None
    run = visible[start:]
    if any(signs.get(r, 1) < 0 for r in run) or any(columns[0] not in grid.get(r, {}) for r in run):
        return None
    structure = Structure(total, tuple((r, 1) for r in run), "sum", rollforward=True)
    result = evaluate(structure, grid, columns[0])
    return Resolution(structure, True) if result is not None and result.nonzero_components >= 2 else None


_SCHEDULE_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_SCHEDULE_LATER = re.compile(r"\b(?:thereafter|after|later|beyond|more than|over)\b")
_MIN_SCHEDULE_YEARS = 3


def _labelled_schedule(
    total: int, visible: Sequence[int], by_index: Mapping[int, RowView], grid: Grid, columns: Sequence[int]
) -> Resolution | None:
    """A "Total" printed in a single column under a schedule of years ("2023 … 2027, Thereafter, Total").

    A maturity schedule (debt, leases, purchase obligations) states its structure in its labels: each line
    names the next year, a last one the years after them, and the total adds them all. With one column no
    other column proves that, but the labels do, as a roll-forward's opening and closing lines do. It is
    taken when at least three consecutive years, each printed, run up to the total (a line for the later
    years may end them), whether or not it holds.
    """
    run: list[int] = []
    years_in_run = 0
    next_year: int | None = None  # the year of the line below, walking up
    for r in reversed(visible):
        label = normalise_label(by_index[r].label)
        years = _SCHEDULE_YEAR.findall(label)
        if not run and _SCHEDULE_LATER.search(label):
            pass  # the later years' line, last of the schedule ("Thereafter", "2028 and after")
        elif len(years) == 1 and (next_year is None or int(years[0]) == next_year - 1):
            next_year = int(years[0])
            years_in_run += 1
        else:
            break
        run.insert(0, r)
    if years_in_run < _MIN_SCHEDULE_YEARS or any(columns[0] not in grid.get(r, {}) for r in run):
        return None
    structure = Structure(total, tuple((r, 1) for r in run), "sum")
    result = evaluate(structure, grid, columns[0])
    return Resolution(structure, True) if result is not None and result.nonzero_components >= 2 else None


def _single_item(
    row: RowView, visible: Sequence[int], starts: Sequence[int], grid: Grid, columns: Sequence[int]
) -> Resolution | None:
    """A "Total …" line over the one line of its section ("Derivatives" / "Total liabilities").

    It repeats that line, so it proves nothing by adding up; it is taken as its total when the two agree,
    with real figures, in at least two columns and differ in at most one (the misprint).
    """
    run = visible[max(starts) :] if starts else []
    if len(run) != 1 or not _TOTAL_LABEL.search(normalise_label(row.label)):
        return None
    structure = Structure(row.index, ((run[0], 1),), "sum")
    results = [r for c in columns if (r := evaluate(structure, grid, c)) is not None]
    holds = sum(1 for r in results if r.comparison.ok and r.comparison.actual != 0.0)
    fails = sum(1 for r in results if not r.comparison.ok)
    if holds >= 2 and fails <= 1 and holds > fails:
        return Resolution(structure, True)
    # Agreeing where printed but nil elsewhere ("Investment in subsidiaries" / "Net cash used in investing
    # activities", a dash in two years of three): it still folds its line, so the total below does not add
    # it twice, but it proves nothing.
    return Resolution(structure, False) if holds >= 1 and not fails else None


def _fold(visible: list[int], starts: list[int], structure: Structure) -> tuple[list[int], list[int]]:
    """Remove a recognised total's components from the visible rows, keeping the run starts aligned."""
    folded = {r for r, _ in structure.components}
    kept = [r for r in visible if r not in folded]
    new_starts = {0}
    for pos in starts:
        following = [r for r in visible[pos:] if r not in folded]
        new_starts.add(kept.index(following[0]) if following else len(kept))
    return kept, sorted(new_starts)


@dataclass(frozen=True, slots=True)
class TreeNode:
    """A total the tree builder recognised: its structure and whether its failures are inconsistencies.

    ``below``: the components are printed under the total, splitting it (:func:`breakdowns`).
    """

    structure: Structure
    proven: bool
    below: bool = False


@dataclass(slots=True)
class _Walk:
    """The state of the walk down a table's rows: the lines still visible and where runs may start."""

    grid: Grid
    columns: Sequence[int]
    signs: dict[int, int]
    kinds: dict[int, str]
    by_index: dict[int, RowView]
    visible: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=lambda: [0])
    section_row: int = -1  # row of the last section heading
    totals: set[int] = field(default_factory=set)
    by_label: dict[str, list[int]] = field(init=False)  # normalised label → its rows, top to bottom

    def __post_init__(self) -> None:
        self.by_label = {}
        for r, row in self.by_index.items():
            self.by_label.setdefault(normalise_label(row.label), []).append(r)

    def contradicted_by_peers(self, structure: Structure) -> bool:
        """Lines of the same labels in another section of the table do not add up the same way.

        "Current: Federal, State, International" above "Deferred: Federal, State, International": the
        deferred "International" may equal federal plus state in two columns by chance, but the current
        section's lines of the same names, which do not add up so, show that the three are peers. The k-th
        printing of each label is paired with the k-th of the others; a structure is contradicted when a
        parallel one fails in at least half of the columns it can be evaluated in.
        """
        rows = [structure.total, *(r for r, _ in structure.components)]
        labels = [normalise_label(self.by_index[r].label) for r in rows]
        if not all(labels):
            return False
        printed = {text: self.by_label[text] for text in labels}
        counts = {len(printed[text]) for text in labels}
        if len(counts) != 1 or (n := counts.pop()) < 2:
            return False
        own = printed[labels[0]].index(structure.total)
        for k in range(n):
            if k == own:
                continue
            peer = Structure(
                printed[labels[0]][k],
                tuple(
                    (printed[text][k], sign)
                    for text, (_, sign) in zip(labels[1:], structure.components, strict=True)
                ),
                structure.convention,
                structure.rollforward,
            )
            results = [r for c in self.columns if (r := evaluate(peer, self.grid, c)) is not None]
            fails = sum(1 for r in results if not r.comparison.ok)
            if results and fails * 2 >= len(results):
                return True
        return False

    def candidates(self, row: RowView, label: str, strength: int, rollforward: bool) -> list[Structure]:
        """The runs the line may add up, by what its label says it is."""
        found = candidate_structures(row.index, self.visible, self.starts, self.signs, rollforward)
        if strength < 2:
            # A line that does not say it is a total adds up its own section only (never lines above a
            # heading printed between them and it), or the totals of sections ("Other comprehensive
            # income" under its three sections' totals).
            # A run of everything above it is the exception: the last line of a table of sections without
            # totals ("Current:" and "Deferred:" federal, state and foreign, then the provision).
            whole = self.visible[0] if self.visible else None
            found = [
                c
                for c in found
                if all(r > self.section_row or r in self.totals for r, _ in c.components)
                or c.components[0][0] == whole
            ]
        if not label:
            # A line with no label at all adds its lines as printed or signed by their labels ("Less current
            # portion"); "the first less the rest" of a column of notes agrees by chance.
            found = [c for c in found if c.convention != "first_less_rest"]
        if not strength:
            # A line whose label says nothing ("Free cash flow") is a total only when the figures prove it,
            # in two columns with real figures, adding a short run as printed.
            found = [c for c in found if len(c.components) <= _MAX_UNLABELLED and c.convention == "sum"]
        return [c for c in found if _one_kind(c, self.kinds)]

    def support(self, strength: int) -> int:
        """Columns that must hold before a total counts as proven.

        A line that says it is a total needs one. A weak one ("Net debt", an unlabelled line) needs two,
        or, in a table of two columns, the other one: there a keying error in either column would otherwise
        leave the total unproven and the error unflagged.
        """
        if strength == 2:
            return 1
        return 1 if strength == 1 and len(self.columns) == 2 else 2

    def needs_exact_proof(self, structure: Structure, strength: int) -> bool:
        """Whether a structure that one column alone proves lacks the exact agreement it then needs.

        One column is the whole proof of a line that does not say it is a total, in a table of two columns,
        or of a structure that subtracts lines: it must add up to the unit there, not merely within rounding
        (three lines of cash paid 3,207 + 15 + 94 = 3,316 beside a right-of-use figure of 3,317; capital
        expenditure obligations of 378 less purchase obligations of 127 beside total debt of 250 due within
        a year are coincidences).
        """
        held = [
            r
            for c in self.columns
            if (r := evaluate(structure, self.grid, c)) is not None and r.comparison.ok and supports(r, 0.0)
        ]
        if len(held) != 1 or (strength == 2 and structure.convention == "sum"):
            return False
        c = held[0].comparison
        return abs(c.difference) > 1e-9 * max(abs(c.actual), 1.0)

    def resolve(self, row: RowView, label: str, strength: int) -> Resolution | None:
        """The structure of a candidate total: a natural run, then the fallbacks its label allows."""
        rollforward = bool(_CLOSING_LABEL.search(label))
        candidates = self.candidates(row, label, strength, rollforward)
        need = self.support(strength)
        resolution = resolve_total(candidates, self.grid, self.columns, need, strict=not strength)
        if (
            resolution is not None
            and resolution.proven
            and self.needs_exact_proof(resolution.structure, strength)
        ):
            resolution = Resolution(resolution.structure, False)
        if resolution is not None and strength < 2 and self.contradicted_by_peers(resolution.structure):
            return None
        if resolution is None and strength == 2 and _TOTAL_LABEL.search(label):
            inner = [
                c
                for c in _inner_runs(row.index, self.visible, self.starts, self.signs)
                if _one_kind(c, self.kinds)
            ]
            resolution = resolve_total(inner, self.grid, self.columns, 1) if inner else None
        if strength == 2 and (resolution is None or not resolution.proven):
            resolution = _single_item(row, self.visible, self.starts, self.grid, self.columns) or resolution
        if resolution is None and rollforward and len(self.columns) == 1:
            resolution = _labelled_rollforward(
                row.index, self.visible, self.by_index, self.grid, self.columns, self.signs
            )
        if (
            (resolution is None or not resolution.proven)
            and strength == 2
            and _TOTAL_LABEL.search(label)
            and len(self.columns) == 1
        ):
            resolution = (
                _labelled_schedule(row.index, self.visible, self.by_index, self.grid, self.columns)
                or resolution
            )
        return resolution


_UNIT_NOTE = re.compile(r"\s*\([^()]*\)\s*:?\s*$|\s*:\s*$")


def table_names(*lines: str | None) -> set[str]:
    """What a table's title lines call it, normalised, without a trailing unit note ("(€ million)")."""
    return {name for line in lines if line and (name := normalise_label(_UNIT_NOTE.sub("", line)))}


def build_tree(
    rows: Sequence[RowView],
    grid: Grid,
    columns: Sequence[int],
    taxonomy: Taxonomy,
    kind: StatementKind = "note",
    titles: Sequence[str | None] = (),
) -> list[TreeNode]:
    """Walk a table's rows top to bottom and recognise its totals (step 3 of the module docstring).

    Args:
        rows: Body rows of the table.
        grid: Their figures in the value columns.
        columns: The value columns.
        taxonomy: To recognise total metrics.
        kind: The statement's kind: a balance sheet's last line, unlabelled, is its grand total.
        titles: The table's title and the lines just above it: a last line that repeats one ("Other
            Current Assets" over payment processor advances, prepaid expenses, other and "Other current
            assets") is its total.

    Returns:
        The recognised totals in reading order, each with the rows it adds up and how.
    """
    if not columns:
        return []
    signs = {row.index: _label_sign(row, grid) for row in rows if row.index in grid}
    walk = _Walk(grid, columns, signs, line_kinds(rows), {row.index: row for row in rows})
    previous: RowView | None = None
    nodes: list[TreeNode] = []
    last_row = max(grid) if grid else -1
    named = table_names(*titles)
    section_labels: set[str] = set()
    for row in rows:
        if row.is_heading:
            walk.starts.append(len(walk.visible))
            walk.section_row = row.index
            section_labels.clear()
            continue
        if row.index not in grid:
            continue
        label = normalise_label(row.label)
        if _OPENING_LABEL.search(label):
            walk.starts.append(len(walk.visible))  # an opening balance begins a roll-forward
        strength = total_strength(row, previous, taxonomy, section_labels)
        if kind == "balance_sheet" and not label and row.index == last_row:
            strength = 2  # "$ 7,907  $ 8,135" under total equity: total liabilities and equity
        if label and row.index == last_row and label in named:
            strength = 2
        if walk.visible and (len(walk.visible) >= 2 or strength == 2) and (strength or len(columns) >= 3):
            resolution = walk.resolve(row, label, strength)
            if resolution is not None:
                if not label and walk.section_row in walk.by_index:
                    # An unlabelled total is named by its section's heading: under "Expenses", a cost that a
                    # line below subtracts ("Operating income" = revenues − expenses + affiliates' income).
                    heading = normalise_label(walk.by_index[walk.section_row].label)
                    walk.signs[row.index] = _label_sign(row, grid, heading)
                nodes.append(TreeNode(resolution.structure, resolution.proven))
                walk.totals.add(row.index)
                walk.visible, walk.starts = _fold(walk.visible, walk.starts, resolution.structure)
                strength = 2  # a recognised total starts the next run
        if strength:
            walk.starts.append(
                len(walk.visible)
            )  # a total starts the next run (it may itself be a component)
        walk.visible.append(row.index)
        if strength == 2:
            # ... or the next run starts after it: a second block of the same lines for another period
            # ("December 31, 2020" under the 2021 block's total) adds up to its own total, and the
            # movements under "Balance at January 1" add up to "Net change" before the closing balance.
            walk.starts.append(len(walk.visible))
        previous = row
        section_labels.add(label)
    return nodes + breakdowns(rows, grid, columns, nodes, walk.kinds)


# "Profit for the year / Attributable to: / Owners of the parent / Non-controlling interests";
# "二、营业总成本 / 其中：营业成本 / …"; "Total revenue / of which: …".
_BREAKDOWN = re.compile(r"^(?:of which|attributable to|其中|归属于|歸屬於)", re.IGNORECASE)
_BREAKDOWN_REACH = 3
"""Lines between a total and the first line of its breakdown (another breakdown of the same total)."""


def breakdowns(
    rows: Sequence[RowView],
    grid: Grid,
    columns: Sequence[int],
    nodes: Sequence[TreeNode],
    kinds: Mapping[int, str],
) -> list[TreeNode]:
    """Totals printed above their parts, which the walk down the rows (totals under their items) misses.

    A breakdown says so: its first line, or the heading over it, reads "of which", "attributable to"
    (其中, 归属于). The parts are a run of the lines after the total, starting within a few lines of it
    (a statement may break a total down twice: by continuing and discontinued operations, then by owner),
    none of them already part of another total. As for a labelled total, the run is taken when the
    figures prove it (:func:`resolve_total`). The total may itself add up lines above it ("Profit for the
    year" = profit before tax less tax): its parts are recorded beside its children.

    Args:
        rows: Body rows of the table.
        grid: Their figures in the value columns.
        columns: The value columns.
        nodes: The totals already recognised (their lines keep their place in the tree).
        kinds: Each row's kind of line (amounts, per-share amounts, share counts).

    Returns:
        The totals found above their breakdowns.
    """
    taken = {r for n in nodes for r, _ in n.structure.components}
    with_parts: set[int] = set()
    figures = [row for row in rows if row.index in grid]
    heading_before: dict[int, str] = {}
    heading = ""
    for row in rows:
        if row.is_heading:
            heading = normalise_label(row.label)
        elif row.index in grid:
            heading_before[row.index], heading = heading, ""
    out: list[TreeNode] = []
    for pos, row in enumerate(figures):
        if row.index in with_parts:
            continue
        after = figures[pos + 1 : pos + 1 + _BREAKDOWN_REACH + _MAX_COMPONENTS]
        candidates: list[Structure] = []
        for start in range(min(_BREAKDOWN_REACH, len(after))):
            first = after[start]
            if not (
                _BREAKDOWN.search(normalise_label(first.label))
                or _BREAKDOWN.search(heading_before[first.index])
            ):
                continue
            run: list[int] = []
            for part in after[start:]:
                if part.index in taken:
                    break
                run.append(part.index)
                if len(run) >= 2:
                    candidates.append(Structure(row.index, tuple((r, 1) for r in run), "sum", False))
        candidates = [c for c in candidates if _one_kind(c, kinds)]
        resolution = resolve_total(candidates, grid, columns, 1) if candidates else None
        if resolution is not None and resolution.proven:
            out.append(TreeNode(resolution.structure, True, below=True))
            taken.update(r for r, _ in resolution.structure.components)
            with_parts.add(row.index)
    return out


# --- columns that add up --------------------------------------------------------------------------------

# "Consolidated" heads a total column; "Consolidated Statements of …" is a title printed over the heads.
_TOTAL_HEAD = re.compile(
    r"\btotal\b|\bconsolidated\b(?!\s+(?:statements?|balance sheets?|financial|schedules?)\b)", re.IGNORECASE
)
_SHARES_HEAD = re.compile(r"\bshares\s*$|\bnumber of shares\b|\bunits\s*$", re.IGNORECASE)
_MIN_ROWS = 3
_MIN_ROWS_WITH_COPIES = 5
"""Rows a column sum must hold in when only one of them adds two figures or more."""
_MIN_ROWS_UNHEADED = 5
"""Rows, each adding two figures or more, that prove a sum column whose head does not say it is a total."""


@dataclass(frozen=True, slots=True)
class ColumnTotal:
    """A column that is the sum of other columns, row by row."""

    total: int
    components: tuple[int, ...]
    rows: tuple[int, ...]


_NOT_ADDITIVE_ROW = re.compile(
    r"%|\bpercent|\bper (?:common |ordinary |basic |diluted )?(?:share|unit|ads)\b|\baverage\b|\byields?\b|"
    r"\brates?\b|\bratios?\b|\bmargins?\b|"
    r"\bprice\b|\bnumber of\b|\bheadcount\b|\bemployees\b",
    re.IGNORECASE,
)


def across_rows(
    rows: Sequence[RowView], grid: Grid, total: int, parts: Sequence[int]
) -> dict[int, Comparison]:
    """Row → how the total column compares with the sum of the part columns.

    Only rows where that means something: the total printed, a part non-blank and non-zero, and a label
    that names no rate, average or count.
    """
    labels = {r.index: r.label for r in rows}
    out: dict[int, Comparison] = {}
    for r, values in grid.items():
        t = values.get(total)
        present = [values[c] for c in parts if c in values]
        if (
            t is None
            or not any(v.value != 0.0 for v in present)
            or _NOT_ADDITIVE_ROW.search(labels.get(r, ""))
        ):
            continue
        out[r] = compare_sum(t.value, t.decimals, [(v.value, v.decimals) for v in present])
    return out


def column_sums(table: Table, rows: Sequence[RowView]) -> list[ColumnTotal]:
    """The "Total" columns that add up their groups of amount columns in every row but at most one.

    A total column is headed "Total" or "Consolidated"; its components are the amount columns between it
    and the next total column (a total printed first in its group) or the previous one (printed last, with
    or without that previous total), blanks being nil, or, for the first or last column, all the others.
    Each sum must hold, with real figures, in at least three rows; a row where it then fails is an
    inconsistency only when it is the only one.

    Args:
        table: The table.
        rows: Its body rows.

    Returns:
        The column sums, with the rows each was evaluated in, left to right.
    """
    headers = column_headers(table)
    counts: dict[int, int] = {}
    percent_cols: set[int] = set()
    for row in rows:
        for col, cell in row.numbers.items():
            n = cell.number
            if n is None:
                continue
            counts[col] = counts.get(col, 0) + 1
            if n.unit in ("percent", "ratio"):
                percent_cols.add(col)
    amount_cols = [
        c
        for c in sorted(counts)
        if counts[c] >= 2
        and c not in percent_cols
        and not is_change_column(headers.get(c, ""))
        and not _NOT_ADDITIVE.search(headers.get(c, ""))
        # A statement of equity prints share counts beside the amounts; the total adds the amounts only.
        and not _SHARES_HEAD.search(headers.get(c, ""))
    ]
    if len(amount_cols) < 3:
        return []
    grid = grid_of(rows, amount_cols)
    lone = lone_dashes(grid)
    at = [i for i, c in enumerate(amount_cols) if _TOTAL_HEAD.search(headers.get(c, ""))]
    found: list[ColumnTotal] = []
    used: set[int] = set()
    for k, pos in enumerate(at):
        after = amount_cols[pos + 1 : at[k + 1] if k + 1 < len(at) else len(amount_cols)]
        before = amount_cols[(at[k - 1] + 1 if k else 0) : pos]
        groups = (
            [tuple(before), tuple(after)] if pos == len(amount_cols) - 1 else [tuple(after), tuple(before)]
        )
        if k:
            # A grand total adds the total before it to the columns between them ("Total shareholders'
            # equity | Noncontrolling interests | Total equity").
            groups.append((amount_cols[at[k - 1]], *before))
        if pos in (0, len(amount_cols) - 1):
            # A first or last total column may add up all the others, "Total" heads among them ("Total
            # stores at the start of the quarter | opened | closed | Total stores at its end").
            groups.append(tuple(c for c in amount_cols if c != amount_cols[pos]))
        for parts in groups:
            if len(parts) < 2 or used.intersection(parts):
                continue  # a column is a component of one sum only
            total = amount_cols[pos]
            proven = _column_sum(rows, grid, lone, total, parts, headed=True)
            if proven is not None:
                found.append(proven)
                used.update(parts)
                break
    if not at:
        # No column says it is the total, but the last (or first) adds up all the others in row after row:
        # a statement of accumulated other comprehensive income heads its total column with the balance's
        # name. Only the rows can prove it, so more of them must.
        for total in (amount_cols[-1], amount_cols[0]):
            parts = tuple(c for c in amount_cols if c != total)
            proven = _column_sum(rows, grid, lone, total, parts, headed=False)
            if proven is not None:
                found.append(proven)
                break
    return found


def _column_sum(
    rows: Sequence[RowView],
    grid: Grid,
    lone: set[tuple[int, int]],
    total: int,
    parts: tuple[int, ...],
    *,
    headed: bool,
) -> ColumnTotal | None:
    """The column sum ``total = sum(parts)`` when its rows prove it.

    It must hold, adding two figures or more, in enough rows (more when the column's head does not say it is
    a total), and fail in at most one.
    """
    results = across_rows(rows, grid, total, parts)
    held = [
        sum(1 for p in parts if grid[r].get(p) is not None and grid[r][p].value != 0.0)
        for r, c in results.items()
        if c.ok and abs(c.actual) >= _MIN_SIGNAL * max(c.tolerance, 1e-12)
    ]
    strong = sum(1 for n in held if n >= 2)
    # (a row whose total is its column's only dash is no failure: "not applicable")
    fails = sum(1 for r, c in results.items() if not c.ok and (r, total) not in lone)
    if headed:
        # A fair-value table fills one level per row: the total equals that one figure in most rows, which
        # agrees with the sum without proving it; a few rows adding two figures prove it.
        enough = strong >= _MIN_ROWS or (strong >= 1 and len(held) >= _MIN_ROWS_WITH_COPIES)
    else:
        enough = strong >= _MIN_ROWS_UNHEADED
    return ColumnTotal(total, parts, tuple(sorted(results))) if fails <= 1 and enough else None


# --- the stage ------------------------------------------------------------------------------------------


def _lines(
    rows: Sequence[RowView], nodes: Sequence[TreeNode], grid: Grid, taxonomy: Taxonomy
) -> list[LineItem]:
    parents: dict[int, tuple[int, int]] = {}
    totals: dict[int, TreeNode] = {}
    split: dict[int, TreeNode] = {}
    for node in nodes:
        (split if node.below else totals)[node.structure.total] = node
        for r, sign in node.structure.components:
            parents[r] = (node.structure.total, sign)
    out: list[LineItem] = []
    for row in rows:
        if row.index not in grid:
            continue
        parent = parents.get(row.index)
        role: LineRole = "item"
        if row.index in totals or row.index in split:
            role = "subtotal" if parent is not None else "total"
        metric = taxonomy.match(row.label) if row.label.strip() else None
        own = totals.get(row.index)
        parts = split.get(row.index)
        # model_construct: every field is the builder's own typed value (tests/test_statements.py validates
        # every line of the sample documents), and validating thousands of lines costs more than building.
        out.append(
            LineItem.model_construct(
                row=row.index,
                label=clean_label(row.label),
                page=row.page,
                role=role,
                parent=parent[0] if parent else None,
                sign=1 if parent is None or parent[1] > 0 else -1,
                metric=metric.id if metric else None,
                children=[r for r, _ in own.structure.components] if own else [],
                proven=own.proven if own else False,
                rollforward=own.structure.rollforward if own else False,
                parts=[r for r, _ in parts.structure.components] if parts else [],
            )
        )
    return out


def build_statement(table: Table, heading: str, taxonomy: Taxonomy) -> Statement | None:
    """The calculation tree of one table (None when it has no value columns)."""
    rows = statement_rows(table)
    candidates = statement_columns(table, rows, heading)
    if not candidates:
        return None
    columns = candidates
    cols = [c.col for c in columns]
    grid = grid_of(rows, cols)
    metrics = [m.id for row in rows if row.label.strip() and (m := taxonomy.match(row.label)) is not None]
    kind = classify(table, heading, metrics)
    above = [line for line in heading.splitlines() if line.strip()][-2:]
    nodes = build_tree(rows, grid, cols, taxonomy, kind, (table.title, *above))
    sums = column_sums(table, rows)
    return Statement(
        statement_id=stable_id(table.doc_id, "statement", table.table_id),
        doc_id=table.doc_id,
        source=table.source,
        table_id=table.table_id,
        kind=kind,
        title=table.title,
        entity=entity_of(heading, table.title),
        pages=table.pages,
        columns=columns,
        lines=_lines(rows, nodes, grid, taxonomy),
        column_sums=[ColumnSum(total=c.total, components=list(c.components)) for c in sums],
    )


def build_statements(
    tables: Sequence[Table], headings: Mapping[str, str], taxonomy: Taxonomy
) -> list[Statement]:
    """Stage: the calculation tree of every table of a document.

    Args:
        tables: Typed tables.
        headings: Table id → the text above the table on its page (title lines, page heading).
        taxonomy: The metric taxonomy.

    Returns:
        One statement per table that has value columns, in table order.
    """
    out: list[Statement] = []
    for table in tables:
        statement = build_statement(table, headings.get(table.table_id, ""), taxonomy)
        if statement is not None:
            out.append(statement)
    return out


def annotate_facts(facts: Sequence[Fact], statements: Sequence[Statement]) -> list[Fact]:
    """Give each table fact its statement kind, line role, parent and column basis.

    Args:
        facts: The document's facts.
        statements: Its statements.

    Returns:
        The facts, annotated where their table has a statement.
    """
    by_table = {s.table_id: s for s in statements}
    out: list[Fact] = []
    for fact in facts:
        statement = by_table.get(fact.table_id or "")
        if statement is None or fact.row is None:
            out.append(fact)
            continue
        lines = {line.row: line for line in statement.lines}
        line = lines.get(fact.row)
        column = next((c for c in statement.columns if c.col == fact.col), None)
        parent = lines.get(line.parent) if line is not None and line.parent is not None else None
        update: dict[str, object] = {"statement": statement.kind}
        if line is not None:
            update["role"] = line.role
            update["parent"] = parent.label if parent is not None else None
        if column is not None:
            update["basis"] = column.basis
        out.append(fact.model_copy(update=update))
    return out


# --- facts a statement of changes in equity states ------------------------------------------------------

_BALANCE_LINE = re.compile(r"^balances?\b", re.IGNORECASE)
_TOTAL_COLUMN = re.compile(r"\btotal\b", re.IGNORECASE)


def _balance_period(label: str) -> Period | None:
    """The date a balance line is at ("Balance at December 31, 2022", "Balances, January 1, 2021")."""
    text = re.sub(r"^(balances?)\s*,\s*", r"\1 at ", label.strip(), flags=re.IGNORECASE)
    period = parse_period(text)
    return period if period is not None and period.kind == "instant" and period.end_date else None


def _months_between(start: str, end: str) -> int:
    (y0, m0), (y1, m1) = (int(start[:4]), int(start[5:7])), (int(end[:4]), int(end[5:7]))
    return (y1 - y0) * 12 + (m1 - m0)


def with_tables(
    statements: Sequence[Statement], tables: Sequence[Table]
) -> Iterator[tuple[Statement, Table]]:
    """Each statement with its table, in the statements' order (a statement without its table is skipped)."""
    by_id = {t.table_id: t for t in tables}
    for statement in statements:
        table = by_id.get(statement.table_id)
        if table is not None:
            yield statement, table


def equity_statement_facts(
    tables: Sequence[Table], statements: Sequence[Statement], taxonomy: Taxonomy
) -> list[Fact]:
    """Total equity and net income as a statement of changes in equity prints them.

    The statement is transposed: its rows are periods ("Balance at December 31, 2022", then the year's
    movements) and its columns components. Its total column gives total equity at each balance date, and
    its net income line the year's net income (between two balances a year apart), so that both can be
    tied to the balance sheet and the income statement (XST001).

    Args:
        tables: The document's tables.
        statements: Their statements.
        taxonomy: The metric taxonomy.

    Returns:
        Facts of ``total_equity`` (instants) and ``net_income`` (fiscal years), with ``statement`` equity.
    """
    equity, income = taxonomy.get("total_equity"), taxonomy.get("net_income")
    if equity is None or income is None:
        return []
    out: list[Fact] = []
    for statement, table in with_tables(statements, tables):
        if statement.kind != "equity":
            continue
        headers = column_headers(table)
        totals = [c.col for c in statement.columns if _TOTAL_COLUMN.search(headers.get(c.col, ""))]
        if not totals:
            continue
        col = totals[-1]
        rows = statement_rows(table)
        balances = [
            (row, p)
            for row in rows
            if _BALANCE_LINE.match(clean_label(row.label)) and col in row.numbers
            if (p := _balance_period(clean_label(row.label))) is not None
        ]
        for row, period in balances:
            number = row.numbers[col].number
            if number is not None and number.base_value is not None:
                out.append(cell_fact(table, row, row.numbers[col], number, equity, None, period))
        for before, after in itertools.pairwise(balances):
            start, end = before[1].end_date, after[1].end_date
            if start is None or end is None or not 11 <= _months_between(start, end) <= 13:
                continue
            for row in rows:
                if not before[0].index < row.index < after[0].index or col not in row.numbers:
                    continue
                metric = taxonomy.match(row.label)
                number = row.numbers[col].number
                if metric is None or metric.id != "net_income" or number is None or number.base_value is None:
                    continue
                year = int(end[:4])
                period = Period(
                    kind="duration",
                    key=f"FY{year}",
                    label=f"Year ended {end}",
                    fiscal_year=year,
                    months=12,
                    end_date=end,
                )
                out.append(cell_fact(table, row, row.numbers[col], number, income, None, period))
    return out
