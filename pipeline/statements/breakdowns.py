"""Totals printed above their parts, which the walk down the rows (totals under their items) misses.

"Profit for the year / Attributable to: / Owners of the parent / Non-controlling interests": a breakdown says
so in its first line or the heading over it (:func:`breakdowns`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pipeline.figures.grid import RowView
from pipeline.figures.taxonomy import normalise_label
from pipeline.statements.resolve import resolve_total
from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import Grid, Structure, TreeNode, one_kind

__all__ = ["breakdowns"]


# "Profit for the year / Attributable to: / Owners of the parent / Non-controlling interests";
# "二、营业总成本 / 其中：营业成本 / …"; "Total revenue / of which: …".
_BREAKDOWN = re.compile(r"^(?:of which|attributable to|其中|归属于|歸屬於)", re.IGNORECASE)


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
    figures prove it (:func:`.resolve.resolve_total`). The total may itself add up lines above it ("Profit
    for the year" = profit before tax less tax): its parts are recorded beside its children.

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
        after = figures[pos + 1 : pos + 1 + TREE_SETTINGS.breakdown_reach + TREE_SETTINGS.max_components]
        candidates: list[Structure] = []
        for start in range(min(TREE_SETTINGS.breakdown_reach, len(after))):
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
        candidates = [c for c in candidates if one_kind(c, kinds)]
        resolution = resolve_total(candidates, grid, columns, 1) if candidates else None
        if resolution is not None and resolution.proven:
            out.append(TreeNode(resolution.structure, True, below=True))
            taken.update(r for r, _ in resolution.structure.components)
            with_parts.add(row.index)
    return out
