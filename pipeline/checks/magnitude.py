"""SCL001: a figure is printed on the scale of the figures of its row and of its column.

A figure keyed in units into a table in thousands (``9,030,000`` for ``9,030``) is the costliest keying
error and the one no sum sees when the figure enters none: an earlier year of a five-year record, a line of
selected data, a note's single line. Its size alone gives it away, and only where the table proves what
size its figures are; no scale is read from a head.

1. *Figures*: the body cells that print an amount, a number or a count of shares, other than nil (not a
   percentage, a ratio or an amount per share: those are on scales of their own).
2. *Columns on one scale*: two columns are on one scale when at least three other rows print both and, in
   three of every four of them, neither figure is more than ten times the other.
3. *Out of scale in its row*: a figure of a thousand or more whose row's other figures are all at most a
   hundredth of it (a thousandth, give or take the ten times two columns on one scale may differ), one of
   them at least ten, in a column on one scale with the figure's and no smaller than a three-thousandth of
   it: the figure over a thousand is what the table's rows say it should be near. Signs do not count: a
   line's years turn from profit to loss, a roll-forward's movements go either way, and the keyed figure
   keeps its own sign; a line's small figures (a maturity in its last year) only make it stand out more.
   The comparison the flag prints is the one nearest the thousandth.
4. *Out of scale in its column*: it is also ten times every other figure of its column (at least two). A
   line that really is a thousand times its neighbours in a row (a balance that grew from nothing) is
   seldom also the largest figure of its column by a factor of ten.
5. *Left to other rules*: a figure that a relation of another rule prints (a sum, a copy; recorded in the
   document's :class:`~pipeline.checks.localize.RelationLog`) is theirs: a relation that holds pins it,
   one that fails has its own flag and localization. The rule runs after them
   (:data:`pipeline.checks.CHECKS`), and :func:`left_to_others` drops its flag for a figure another flag
   prints (a change column's CHG001).

Each figure out of scale is one flag with its localization: the figure over a thousand, signature ``scale``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.checks.localize import RelationLog, figure_key, signed_as_printed
from pipeline.checks.rule import Rule
from pipeline.checks.tolerance import where_printed
from pipeline.figures.grid import RowView, table_rows
from schemas.models import Cell, Evidence, Flag, Localization, Table

__all__ = ["RULE", "check_magnitudes", "left_to_others"]

RULE = Rule(
    "SCL001",
    "scale_mismatch",
    "error",
    "A figure is printed on the scale of the figures of its row and of its column.",
    (
        "its row's other figures are about a thousandth of it, one in a column the table's other rows prove "
        "on one scale with its own; it is ten times every other figure of its column"
    ),
)

_UNITS = frozenset({"currency", "number", "shares", "count"})
"""The units whose figures share a table's scale (step 1)."""
_KEYED = 1000.0
"""The factor of a figure keyed at the wrong scale: units for thousands, thousands for millions."""
_SLACK = 3.0
"""How far below a thousandth of the figure its comparison may be (step 3)."""
_BAND = 10.0
"""Columns on one scale: neither figure more than this many times the other (step 2)."""
_MIN_ROWS = 3
"""Rows that must prove two columns on one scale (step 2)."""
_MIN_FIGURE = 1000.0
"""The least figure that can be a thousand times another figure of ten or more."""
_MIN_OTHER = 10.0
"""The least row figure a thousand-fold comparison means anything against: 1 and 1,000 are no keying error."""
_COLUMN_MARGIN = 10.0
"""How many times every other figure of its column the figure must be (step 4)."""
_CONFIDENCE = 0.9
"""The rule's own score (it is not among the calibrated rules until a planted run refits them)."""


@dataclass(frozen=True, slots=True)
class _Fig:
    """One figure of the grid: its cell, its size as printed and its sign."""

    cell: Cell
    size: float
    negative: bool


_Grid = Mapping[int, Mapping[int, _Fig]]


def _grid(rows: Sequence[RowView]) -> dict[int, dict[int, _Fig]]:
    """Row index → column → figure, for the figures of step 1."""
    out: dict[int, dict[int, _Fig]] = {}
    for row in rows:
        for col, cell in row.numbers.items():
            n = cell.number
            if n is None or n.is_dash or n.value == 0.0 or n.unit not in _UNITS:
                continue
            out.setdefault(row.index, {})[col] = _Fig(cell, abs(n.value), n.value < 0)
    return out


def _on_one_scale(grid: _Grid, a: int, b: int, skip: int) -> bool:
    """Whether the rows other than ``skip`` prove columns ``a`` and ``b`` on one scale (step 2)."""
    both = [(r[a].size, r[b].size) for i, r in grid.items() if i != skip and a in r and b in r]
    near = sum(1 for x, y in both if 1.0 / _BAND <= x / y <= _BAND)
    return near >= _MIN_ROWS and near * 4 >= len(both) * 3


def _out_of_scale(grid: _Grid, row: int, col: int) -> _Fig | None:
    """The row figure that shows the figure at ``(row, col)`` out of scale (steps 3 and 4), or None."""
    fig = grid[row][col]
    others = [(k, f) for k, f in grid[row].items() if k != col]
    if fig.size < _MIN_FIGURE or not others:
        return None
    if any(fig.size * _BAND < f.size * _KEYED for _, f in others):
        return None
    column = [r[col].size for i, r in grid.items() if i != row and col in r]
    if len(column) < 2 or fig.size < _COLUMN_MARGIN * max(column):
        return None
    near = [
        f
        for k, f in others
        if f.size >= _MIN_OTHER and fig.size <= f.size * _KEYED * _SLACK and _on_one_scale(grid, col, k, row)
    ]
    # The comparison the flag prints is the figure nearest the thousandth, whichever column comes first.
    return min(near, key=lambda f: abs(math.log(f.size * _KEYED / fig.size)), default=None)


def _thousandth(cell: Cell) -> str:
    """The figure over a thousand as the document would print it (its parentheses or minus kept).

    The digits a thousand shifts below the point are kept (``747,730`` keyed for ``747.73``).
    """
    n = cell.number
    assert n is not None
    body = f"{abs(n.value) / _KEYED:,.{n.places + 3}f}"
    if "." in body:
        body = body.rstrip("0").rstrip(".")
    return signed_as_printed(body, n.negative, cell.text)


def _flag(table: Table, row: RowView, fig: _Fig, other: _Fig) -> Flag:
    label = " ".join(row.label.split()) or "A line"
    text, near = fig.cell.text.strip(), other.cell.text.strip()
    corrected = _thousandth(fig.cell)
    n = fig.cell.number
    assert n is not None
    note = (
        f"If page {fig.cell.page}'s {text} were {corrected}, it would be on its row's and its column's scale."
    )
    message = (
        f"{label}: {text} is about a thousand times the row's {near}, in a column the table's rows prove on "
        f"one scale with it, and ten times every other figure of its column. {note}"
    )

    def ev(f: _Fig, role: str) -> Evidence:
        return Evidence(page=f.cell.page, bbox=f.cell.bbox, text=f"{label}: {f.cell.text.strip()}", role=role,
                        value=f.cell.number.value if f.cell.number else None)  # fmt: skip

    flag = RULE.flag(
        table,
        message=message,
        evidence=[ev(fig, "figure"), ev(other, "comparison")],
        period=n.period,
        confidence=_CONFIDENCE,
        reasons=[
            "out of scale in its row: its other figures are about a thousandth of it",
            "out of scale in its column: ten times every other figure",
        ],
    )
    localization = Localization(
        figures=[ev(fig, "localized figure")],
        corrected=[corrected],
        signatures=["scale"],
        repairs=[f"{RULE.id} {label} (page {fig.cell.page})"],
        holding=0,
        alternatives=0,
        note=note,
    )
    return flag.model_copy(update={"localization": localization})


def check_magnitudes(tables: Sequence[Table], relations: RelationLog | None = None) -> list[Flag]:
    """SCL001 over every table.

    Args:
        tables: The document's tables.
        relations: The relations the other rules recorded; a figure any of them prints is left to them.

    Returns:
        One flag per figure out of scale in its row and in its column.
    """
    related = {t.key for eq in relations.equations for t in eq.terms} if relations is not None else set()
    flags: list[Flag] = []
    for table in tables:
        rows = table_rows(table)
        grid = _grid(rows)
        for row in rows:
            for col, fig in sorted(grid.get(row.index, {}).items()):
                if figure_key(fig.cell.page, fig.cell.bbox, fig.cell.text) in related:
                    continue
                other = _out_of_scale(grid, row.index, col)
                if other is not None:
                    flags.append(_flag(table, row, fig, other))
    return flags


def left_to_others(flags: Sequence[Flag]) -> list[Flag]:
    """The flags without those of this rule whose figure another rule's flag prints (one misprint, one flag).

    Args:
        flags: Every rule's flags.

    Returns:
        ``flags`` in order, less the SCL001 flags for a figure that a flag of another rule has as evidence.
    """
    elsewhere = {where_printed(e) for f in flags if f.rule != RULE.id for e in f.evidence}
    return [f for f in flags if f.rule != RULE.id or where_printed(f.evidence[0]) not in elsewhere]
