"""The tree's model: the figures, a candidate structure, and the columns that prove it.

:data:`Grid` holds the figures of the value columns (:func:`grid_of`); a :class:`Structure` is a candidate
``total = Σ sign·component``; :func:`evaluate` tests it in one column and :func:`support_of` counts the
columns that prove it. A :class:`Resolution` is the structure chosen for a total, a :class:`TreeNode` a
total the tree builder recognised. :mod:`pipeline.checks.sums` re-evaluates the same structures.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.figures.grid import RowView
from pipeline.figures.rounding import Comparison, compare_sum
from pipeline.statements.settings import TREE_SETTINGS
from schemas.models import Cell

__all__ = [
    "ColumnResult",
    "Convention",
    "Figure",
    "Grid",
    "Resolution",
    "Structure",
    "TreeNode",
    "blanks_are_nil",
    "evaluate",
    "exact",
    "grid_of",
    "lone_dashes",
    "one_kind",
    "prints_no_dash",
    "support_of",
    "supports",
]


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
"""A cell holding two figures ("1,234 (56)"): two columns read as one."""


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
    return prints_no_dash(grid) and all(
        f.cell.number is not None and f.cell.number.places >= 2 for f in figures
    )


def prints_no_dash(grid: Grid) -> bool:
    """Whether a table prints figures and not one dash: a nil line of it is left blank."""
    figures = [f for cols in grid.values() for f in cols.values()]
    return bool(figures) and not any(f.cell.number is not None and f.cell.number.is_dash for f in figures)


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


def one_kind(structure: Structure, kinds: Mapping[int, str]) -> bool:
    """Whether a structure's lines are all of one kind (:func:`pipeline.figures.line_kinds.line_kinds`).

    Amounts, per-share amounts and share counts never add up together, whatever the figures say.
    """
    rows = [structure.total, *(r for r, _ in structure.components)]
    return len({kinds.get(r, "amount") for r in rows}) == 1


def exact(result: ColumnResult) -> bool:
    """Whether a column adds up to the unit, no rounding spent (float noise aside)."""
    return abs(result.comparison.difference) <= 1e-9 * max(abs(result.comparison.actual), 1.0)


def supports(result: ColumnResult, signal: float = TREE_SETTINGS.min_signal) -> bool:
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


def support_of(results: Sequence[ColumnResult]) -> int:
    """How many columns prove a structure.

    Each column that holds with real figures counts when three or more do, or two with one of them large
    or with four items or more each (a dozen figures do not add up to a printed total twice by chance);
    otherwise only columns whose figures are large enough that agreement is no coincidence count.
    """
    several = [r for r in results if supports(r, TREE_SETTINGS.min_signal_each)]
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


@dataclass(frozen=True, slots=True)
class TreeNode:
    """A total the tree builder recognised: its structure and whether its failures are inconsistencies.

    ``below``: the components are printed under the total, splitting it (:func:`.breakdowns.breakdowns`).
    """

    structure: Structure
    proven: bool
    below: bool = False
