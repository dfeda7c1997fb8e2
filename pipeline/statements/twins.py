"""A table printed again with the same lines: a total one printing proves is proven in the other.

A note prints its fair-value hierarchy, its plan assets or its segments once per balance-sheet date, each
date a table of its own with the same lines in the same order. A line whose label does not say it is a
total ("Fair value excluding investments measured at net asset value") counts as one only where two of its
table's columns prove it (:meth:`.totals._Walk.support`). A figure keyed wrongly in one of them leaves one
column of proof, the line is taken for an item, and the error goes unflagged — while the other printing,
where the same lines add up the same way, is the second proof the first one lost.

So a printing's tree takes the totals of its twin (step 3½ of :mod:`pipeline.statements`), on three proofs
together: the twin proves the total (its own columns, as any proven node); the printing's tree agrees with
the twin's wherever it recognised a total (it has no total the twin lacks, none with other lines); and the
total adds up to the unit in at least one column of the printing itself, with real figures. A total that
holds nowhere in its own printing is not adopted: the two tables may share labels but not a structure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import Grid, Structure, TreeNode, evaluate, exact, supports

__all__ = ["Printing", "Twinned", "with_twins"]

_MIN_LINES = 3
"""Lines two printings must share before they are one layout: two labels in common is no layout."""


@dataclass(frozen=True, slots=True)
class Printing:
    """One table's tree, as :func:`with_twins` compares it with the other tables of its document.

    Attributes:
        rows: The rows with figures, top to bottom.
        labels: Their normalised labels, in the same order.
        grid: The figures of its value columns.
        columns: The value columns.
        nodes: The totals its own figures proved (:func:`.totals.build_tree`).
        page: Its first page (named by the proof of a total it lends).
    """

    rows: tuple[int, ...]
    labels: tuple[str, ...]
    grid: Grid
    columns: tuple[int, ...]
    nodes: tuple[TreeNode, ...]
    page: int


@dataclass(frozen=True, slots=True)
class Twinned:
    """A printing's totals after its twin lent it the ones it lost.

    Attributes:
        nodes: Its own totals and the adopted ones.
        lent: Total row → the page of the twin that proved it, for each adopted (or newly proven) total.
    """

    nodes: tuple[TreeNode, ...]
    lent: dict[int, int]


_Shape = tuple[int, tuple[tuple[int, int], ...], str, bool, bool]
"""A total by positions in its printing: total, (component, sign)…, convention, roll-forward, below."""


def _shape(node: TreeNode, position: dict[int, int]) -> _Shape:
    s = node.structure
    return (
        position[s.total],
        tuple((position[r], sign) for r, sign in s.components),
        s.convention,
        s.rollforward,
        node.below,
    )


def _structure(shape: _Shape, rows: Sequence[int]) -> Structure:
    total, components, convention, rollforward, _ = shape
    return Structure(rows[total], tuple((rows[r], sign) for r, sign in components), convention, rollforward)


def _holds_here(structure: Structure, printing: Printing) -> bool:
    """Whether a total adds up to the unit, with real figures, in at least one column of the printing."""
    for col in printing.columns:
        result = evaluate(structure, printing.grid, col)
        if result is not None and exact(result) and supports(result, TREE_SETTINGS.min_signal_each):
            return True
    return False


def _shared(a: Printing, b: Printing) -> int:
    """How many lines two printings share from the top: all of the shorter one's, or none.

    (A table the reader did not join across a page break is the top of its twin.)
    """
    n = min(len(a.labels), len(b.labels))
    return n if n >= _MIN_LINES and a.labels[:n] == b.labels[:n] else 0


def _shapes(printing: Printing, n: int) -> dict[_Shape, TreeNode]:
    """The printing's totals among its first ``n`` lines, by position."""
    position = {r: k for k, r in enumerate(printing.rows[:n])}
    return {
        _shape(node, position): node
        for node in printing.nodes
        if all(r in position for r in (node.structure.total, *(r for r, _ in node.structure.components)))
    }


def _lend(printing: Printing, twin: Printing) -> Twinned | None:
    """The totals ``twin`` lends ``printing``; None when their trees disagree or it lends nothing."""
    n = _shared(printing, twin)
    own, theirs = _shapes(printing, n), _shapes(twin, n)
    if not n or not own.keys() <= theirs.keys():
        return None  # a total of its own the twin does not print the same way: not one layout
    nodes = list(printing.nodes)
    lent: dict[int, int] = {}
    for shape, node in theirs.items():
        mine = own.get(shape)
        if not node.proven or node.below or (mine is not None and mine.proven):
            continue
        structure = _structure(shape, printing.rows)
        if not _holds_here(structure, printing):
            continue
        if mine is not None:
            nodes.remove(mine)
        nodes.append(TreeNode(structure, True))
        lent[structure.total] = twin.page
    return Twinned(tuple(nodes), lent) if lent else None


def with_twins(printings: Sequence[Printing]) -> list[Twinned]:
    """Each printing's totals, with those its twins prove and its own figures prove only in part.

    Args:
        printings: The document's tables, in order.

    Returns:
        One :class:`Twinned` per printing, in the same order (its own nodes where no twin lends any).
    """
    by_top: dict[tuple[str, ...], list[int]] = {}
    for k, p in enumerate(printings):
        if len(p.labels) >= _MIN_LINES and all(p.labels):
            by_top.setdefault(p.labels[:_MIN_LINES], []).append(k)
    out = [Twinned(p.nodes, {}) for p in printings]
    for group in by_top.values():
        for k in group:
            # The twin that proves the most totals lends; the first printed among equals.
            for j in sorted((j for j in group if j != k), key=lambda j: -len(printings[j].nodes)):
                twinned = _lend(printings[k], printings[j])
                if twinned is not None:
                    out[k] = twinned
                    break
    return out
