"""Columns that add up (step 4 of :mod:`pipeline.statements`), row by row.

A "Total" column that is the sum of the others (statements of changes in equity, segment tables), of its
own group of columns where a table prints several periods side by side ("2022: Total | Level 1 | Level 2 —
2021: Total | …"), or of the columns next to it in a wide schedule (a real estate schedule's gross amounts,
and its initial cost before them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.figures.facts import is_change_column
from pipeline.figures.grid import RowView, column_headers
from pipeline.figures.rounding import Comparison, compare_sum
from pipeline.figures.taxonomy import normalise_label
from pipeline.statements.columns import NOT_ADDITIVE
from pipeline.statements.labels import TOTAL_LABEL
from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import Grid, grid_of, lone_dashes
from schemas.models import Table

__all__ = ["ColumnTotal", "across_rows", "column_sums"]


# "Consolidated" heads a total column; "Consolidated Statements of …" is a title printed over the heads. An
# amount "net of tax" (or "after tax") is the sum of its group's amount before tax and the tax on it (the
# components of other comprehensive income, each period a group of three columns).
_TOTAL_HEAD = re.compile(
    r"\btotal\b|\bconsolidated\b(?!\s+(?:statements?|balance sheets?|financial|schedules?)\b)"
    r"|\bnet[- ]of[- ]tax\b|\bafter[- ]tax\b",
    re.IGNORECASE,
)
_QUARTER_HEAD = re.compile(
    r"\b(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b|\bq[1-4]\b", re.IGNORECASE
)
_YEAR_HEAD = re.compile(r"^\W*(?:(?:full|fiscal|total)[- ])?year\b", re.IGNORECASE)
"""Beside three quarter columns or more, a column headed as the year ("Year 2018", "Full Year") is their
total: a quarterly data table prints the four quarters and the year."""
_OPENING_HEAD = re.compile(r"\bbeginning\b|\bopening\b|\bstart of\b", re.IGNORECASE)
_CLOSING_HEAD = re.compile(r"\bend of (?:the )?(?:period|year)\b|\bending\b|\bclosing\b", re.IGNORECASE)
"""Beside a column headed as the opening balance, the column headed as the closing one is the total of the
opening and the movements between them: a schedule of valuation accounts ("Balance at Beginning of
Period | Additions | Deductions | Balance at End of Period") rolls each allowance forward in its row."""
_LEVEL_HEAD = re.compile(r"\blevel\s*(?:[123]|i{1,3})\b", re.IGNORECASE)
"""A fair-value hierarchy prints the levels beside their total, headed as the total, the fair value or the
balance sheet's date ("December 31, 2020 | Level 1 | Level 2 | Level 3"): the column printed just before
or just after a run of level columns is their total."""
_SHARES_HEAD = re.compile(r"\bshares\s*$|\bnumber of shares\b|\bunits\s*$", re.IGNORECASE)
"""A column of share or unit counts printed beside the amounts (a statement of equity)."""


@dataclass(frozen=True, slots=True)
class ColumnTotal:
    """A column that is the sum of other columns, row by row."""

    total: int
    components: tuple[int, ...]
    rows: tuple[int, ...]


_NOT_ADDITIVE_ROW = re.compile(
    r"%|\bpercent|\bper (?:common |ordinary |basic |diluted )?(?:share|unit|ads)\b|\baverage\b|\byields?\b|"
    r"\brates?\b|\bratios?\b|\bmargins?\b|"
    r"\bprice\b(?!\s+(?:protection|concessions?|adjustments?|allocation))|"
    r"\bnumber of\b|\bheadcount\b|\bemployees\b",
    re.IGNORECASE,
)
"""Labels of rows whose figures do not add across the columns: rates, averages, per-share amounts, counts.
A price is no amount, but "price protection", "price concessions" and "price adjustments" are allowances
and "purchase price allocation" a sum: a schedule of valuation accounts rolls them forward like any other."""


def across_rows(
    rows: Sequence[RowView], grid: Grid, total: int, parts: Sequence[int]
) -> dict[int, Comparison]:
    """Row → how the total column compares with the sum of the part columns.

    Only rows where that means something: the total printed, a part non-blank and non-zero, and a label
    that names no rate, average or count. A total printed with every part blank is an amount the table
    does not split ("Uncertain tax positions" in a table of contractual obligations by period): a line
    below it that adds up with those amounts included is not compared, nor is a total line that adds up
    neither way (whether it includes them is unknown; the lines it totals check it).
    """
    labels = {r.index: r.label for r in rows}
    out: dict[int, Comparison] = {}
    unsplit: list[tuple[float, int]] = []
    for r in sorted(grid):
        values = grid[r]
        t = values.get(total)
        if t is None or _NOT_ADDITIVE_ROW.search(labels.get(r, "")):
            continue
        present = [(v.value, v.decimals) for c in parts if (v := values.get(c)) is not None]
        if not present:
            unsplit.append((t.value, t.decimals))
        if not any(v != 0.0 for v, _ in present):
            continue
        c = compare_sum(t.value, t.decimals, present)
        explained = bool(unsplit) and (
            compare_sum(t.value, t.decimals, [*present, *unsplit]).ok or _total_line(labels.get(r, ""))
        )
        if c.ok or not explained:
            out[r] = c
    return out


def _total_line(label: str) -> bool:
    return bool(TOTAL_LABEL.search(normalise_label(label)))


def column_sums(table: Table, rows: Sequence[RowView]) -> list[ColumnTotal]:
    """The "Total" columns that add up their groups of amount columns in every row but at most one.

    A total column is headed "Total" or "Consolidated" (or as the year, beside quarters); its components
    are the amount columns between it and the next total column (a total printed first in its group) or
    the previous one (printed last, with or without that previous total), blanks being nil, or, for the
    first or last column, all the others, or else the shorter runs of columns next to it
    (:func:`_nearest_runs`). The run just before a sum of the columns just before the total may be a
    second sum of it (a real estate schedule's initial cost beside its gross amount).
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
        and not NOT_ADDITIVE.search(headers.get(c, ""))
        # A statement of equity prints share counts beside the amounts; the total adds the amounts only.
        and not _SHARES_HEAD.search(headers.get(c, ""))
    ]
    if len(amount_cols) < 3:
        return []
    grid = grid_of(rows, amount_cols)
    lone = lone_dashes(grid)
    at = _total_heads(amount_cols, headers)
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
        groups.extend(_nearest_runs(tuple(before), tuple(after)))
        total = amount_cols[pos]
        proven = _first_proven(rows, grid, lone, total, groups, used, found)
        if proven is not None and before[-len(proven.components) :] == list(proven.components):
            # The columns before a run that adds up to the total may add up to it as well: a real estate
            # schedule's initial costs and the costs capitalized since are its gross amounts, another way.
            rest = tuple(before[: -len(proven.components)])
            _first_proven(rows, grid, lone, total, [rest, *_nearest_runs(rest, ())], used, found)
    return found if at else _unheaded_sums(rows, grid, lone, amount_cols)


def _first_proven(
    rows: Sequence[RowView],
    grid: Grid,
    lone: set[tuple[int, int]],
    total: int,
    groups: Sequence[tuple[int, ...]],
    used: set[int],
    found: list[ColumnTotal],
) -> ColumnTotal | None:
    """The first of ``groups`` that the rows prove adds up to the headed ``total``.

    It is added to ``found`` and its columns to ``used``: a column is a component of one sum only.
    """
    for parts in groups:
        if len(parts) < 2 or used.intersection(parts):
            continue
        proven = _column_sum(rows, grid, lone, total, parts, headed=True)
        if proven is not None:
            found.append(proven)
            used.update(parts)
            return proven
    return None


def _nearest_runs(before: tuple[int, ...], after: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The shorter runs of columns next to a total: just before it, then just after it, longest first.

    Each run has two columns at least. A wide schedule prints columns that are no part of a total between it
    and the previous one: a real estate schedule's encumbrances and initial costs stand before the gross
    amounts it adds up ("Land and Improvements | Building and Improvements | Construction in Progress |
    Total"), and its accumulated depreciation and years after it. The columns a total adds up are printed
    next to it.
    """
    return [before[-k:] for k in range(len(before) - 1, 1, -1)] + [
        after[:k] for k in range(len(after) - 1, 1, -1)
    ]


def _unheaded_sums(
    rows: Sequence[RowView], grid: Grid, lone: set[tuple[int, int]], amount_cols: Sequence[int]
) -> list[ColumnTotal]:
    """Column sums no head names: only the rows can prove them, so more of them must.

    The last (or first) column adds up all the others in row after row (a statement of accumulated other
    comprehensive income heads its total column with the balance's name); or the same place in every
    period's group of columns adds up the group's others (:func:`_period_group_sums`).
    """
    for total in (amount_cols[-1], amount_cols[0]):
        parts = tuple(c for c in amount_cols if c != total)
        proven = _column_sum(rows, grid, lone, total, parts, headed=False)
        if proven is not None:
            return [proven]
    return _period_group_sums(rows, grid, lone, _period_groups(rows, amount_cols))


def _period_groups(rows: Sequence[RowView], amount_cols: Sequence[int]) -> list[tuple[int, ...]]:
    """Runs of adjacent amount columns of one period each, when there are two or more of one width (3+)."""
    periods: dict[int, str | None] = {}
    for col in amount_cols:
        keys = {
            n.period.key if n.period is not None else None
            for row in rows
            if (cell := row.numbers.get(col)) is not None and (n := cell.number) is not None
        }
        periods[col] = keys.pop() if len(keys) == 1 else None
    groups: list[list[int]] = []
    for col in amount_cols:
        if groups and periods[col] is not None and periods[groups[-1][0]] == periods[col]:
            groups[-1].append(col)
        else:
            groups.append([col])
    widths = {len(g) for g in groups}
    if len(groups) < 2 or len(widths) != 1 or widths.pop() < 3 or periods[groups[0][0]] is None:
        return []
    return [tuple(g) for g in groups]


def _period_group_sums(
    rows: Sequence[RowView], grid: Grid, lone: set[tuple[int, int]], groups: Sequence[tuple[int, ...]]
) -> list[ColumnTotal]:
    """The column of the same place in each period's group that adds up the group's others.

    A table of results at prior-year rates prints, for each year, "As Reported | Exchange Rate Effect | At
    Prior Year Rates" (Amazon): no head says which is the sum, and three lines a year prove nothing alone;
    the same place holding in every year's group, in five rows at least adding two figures, does. It may
    then fail in one row of all the groups.
    """
    for place in range(len(groups[0]) if groups else 0):
        results = [
            (g[place], parts, across_rows(rows, grid, g[place], parts))
            for g in groups
            if (parts := tuple(c for c in g if c != g[place]))
        ]
        held = sum(
            1
            for _, parts, res in results
            for n in _held_rows(res, grid, parts, TREE_SETTINGS.min_signal_each)
            if n >= 2
        )
        fails = sum(_failing_rows(res, lone, total) for total, _, res in results)
        if held >= TREE_SETTINGS.min_sum_rows_unheaded and fails <= 1:
            return [ColumnTotal(total, parts, tuple(sorted(res))) for total, parts, res in results]
    return []


def _total_heads(amount_cols: Sequence[int], headers: Mapping[int, str]) -> list[int]:
    """Positions among the amount columns of those headed as a total (or as the year, beside quarters)."""
    quarters = sum(1 for c in amount_cols if _QUARTER_HEAD.search(headers.get(c, "")))
    opening = [i for i, c in enumerate(amount_cols) if _OPENING_HEAD.search(headers.get(c, ""))]
    levels = _beside_levels(amount_cols, headers)
    return [
        i
        for i, c in enumerate(amount_cols)
        if _TOTAL_HEAD.search(headers.get(c, ""))
        or (quarters >= 3 and _YEAR_HEAD.search(headers.get(c, "")))
        or (opening and opening[0] < i and _CLOSING_HEAD.search(headers.get(c, "")))
        or i in levels
    ]


def _beside_levels(amount_cols: Sequence[int], headers: Mapping[int, str]) -> set[int]:
    """Positions of the columns printed just before or after a run of two level columns or more."""
    levels = [bool(_LEVEL_HEAD.search(headers.get(c, ""))) for c in amount_cols]
    out: set[int] = set()
    start = 0
    while start < len(levels):
        end = start
        while end < len(levels) and levels[end]:
            end += 1
        if end - start >= 2:
            out.update(i for i in (start - 1, end) if 0 <= i < len(levels) and not levels[i])
        start = end + 1
    return out


def _held_rows(
    results: Mapping[int, Comparison], grid: Grid, parts: Sequence[int], signal: float
) -> list[int]:
    """The non-zero parts of each row that holds with a total ``signal`` tolerances from zero."""
    return [
        sum(1 for p in parts if grid[r].get(p) is not None and grid[r][p].value != 0.0)
        for r, c in results.items()
        if c.ok and abs(c.actual) >= signal * max(c.tolerance, 1e-12)
    ]


def _failing_rows(results: Mapping[int, Comparison], lone: set[tuple[int, int]], total: int) -> int:
    """Rows where the sum fails; a row whose total is its column's only dash is none ("not applicable")."""
    return sum(1 for r, c in results.items() if not c.ok and (r, total) not in lone)


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
    held = _held_rows(results, grid, parts, TREE_SETTINGS.min_signal)
    several = _held_rows(results, grid, parts, TREE_SETTINGS.min_signal_each)
    if sum(1 for n in several if n >= 2) >= TREE_SETTINGS.min_sum_rows_unheaded:
        # Row after row adding two figures or more is itself the evidence, as several columns are for a
        # total line (:func:`.structures.support_of`): a schedule of valuation accounts rolls allowances of
        # tens forward, beginning balance, charges and write-offs to the balance at the end, in every row.
        held = several
    strong = sum(1 for n in held if n >= 2)
    fails = _failing_rows(results, lone, total)
    if headed:
        # A fair-value table fills one level per row: the total equals that one figure in most rows, which
        # agrees with the sum without proving it; a few rows adding two figures prove it.
        enough = strong >= TREE_SETTINGS.min_sum_rows or (
            strong >= 1 and len(held) >= TREE_SETTINGS.min_sum_rows_with_copies
        )
    else:
        enough = strong >= TREE_SETTINGS.min_sum_rows_unheaded
    return ColumnTotal(total, parts, tuple(sorted(results))) if fails <= 1 and enough else None
