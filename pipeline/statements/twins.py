"""A table printed again with the same lines: a total one printing proves is proven in the other.

A note prints its fair-value hierarchy, its plan assets or its segments once per balance-sheet date, each
date a table of its own with the same lines in the same order. A line whose label does not say it is a
total ("Fair value excluding investments measured at net asset value") counts as one only where two of its
table's columns prove it (:meth:`.totals._Walk.support`). A figure keyed wrongly in one of them leaves one
column of proof, the line is taken for an item, and the error goes unflagged — while the other printing,
where the same lines add up the same way, is the second proof the first one lost.

So a printing's tree takes the totals of its twin (the end of step 3 of :mod:`pipeline.statements`), on
three proofs together: the twin proves the total (its own columns, as any proven node); the printing's tree
agrees with the twin's wherever it recognised a total (it has no total the twin lacks, none with other
lines); and the total adds up to the unit in at least one column of the printing itself, with real figures.
A total that holds nowhere in its own printing is not adopted: the two tables may share labels but not a
structure.

Two dates' tables often differ by a line (a fund held one year only), and then they are no one layout; but a
section of them still is. PG&E prints its trusts' assets by level at each year end: "Short-term
investments" in level 1, "Assets measured at NAV" in the total column only, then "Total long-term
disability trust" — proven by its total column alone. So, second, a line whose label says it is a total
("Total …") takes the lines printed right above it as its own where another table proves that the lines of
those names, in that order, add up to a total of its name; the printing needs to break it in one column at
most (:func:`_lend_lines`). A line that does not say it is a total is never lent this way: lines of the
same names add up to it elsewhere by coincidence too often (Amcor's adjusted EBITDA beside its growth
percentages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.statements.labels import TOTAL_LABEL
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


_Lines = tuple[str, tuple[tuple[str, int], ...], str, bool]
"""A total by its lines' labels: total, (component, sign)…, convention, roll-forward."""


def _lines_of(node: TreeNode, label: dict[int, str]) -> _Lines | None:
    """A proven total by its labels, when its own label says it is a total ("Total …") over two lines or more.

    A line that does not say so adds up lines of the same names elsewhere by coincidence as often.
    """
    s = node.structure
    names = [label[r] for r, _ in s.components]
    if node.below or len(names) < 2 or not all(names) or not TOTAL_LABEL.search(label[s.total]):
        return None
    return (
        label[s.total],
        tuple(zip(names, (sign for _, sign in s.components), strict=True)),
        s.convention,
        s.rollforward,
    )


def _fails_once(structure: Structure, printing: Printing) -> bool:
    """Whether a total breaks in one column of the printing at most, and the others hold or cannot tell."""
    results = [r for c in printing.columns if (r := evaluate(structure, printing.grid, c)) is not None]
    return bool(results) and sum(1 for r in results if not r.comparison.ok) <= 1


def _lend_lines(
    printing: Printing, twinned: Twinned, proven: dict[str, dict[_Lines, list[Printing]]]
) -> Twinned:
    """The totals whose very lines another table proves: a section printed again for another date.

    A total of the printing's is found as the line of the total's label right under its components'
    lines, printed in the same order with nothing between them. It is adopted where it breaks in one
    column at most (the other date's table is its proof), unless one of its lines already adds into
    another total of the printing.
    """
    label = dict(zip(printing.rows, printing.labels, strict=True))
    nodes = list(twinned.nodes)
    lent = dict(twinned.lent)
    for k, total in enumerate(printing.rows):
        mine = next((n for n in nodes if n.structure.total == total), None)
        if mine is not None and mine.proven:
            continue
        for key, provers in proven.get(label[total], {}).items():
            parts = key[1]
            others = [p for p in provers if p is not printing]
            if k < len(parts) or not others:
                continue
            rows = printing.rows[k - len(parts) : k]
            if [label[r] for r in rows] != [name for name, _ in parts]:
                continue
            signs = (sign for _, sign in parts)
            structure = Structure(total, tuple(zip(rows, signs, strict=True)), key[2], key[3])
            folded = _folded(nodes, mine, structure)
            if folded is None or not _fails_once(structure, printing):
                continue
            nodes = [*folded, TreeNode(structure, True)]
            lent[total] = others[0].page
            break
    return Twinned(tuple(nodes), lent)


def _folded(nodes: Sequence[TreeNode], mine: TreeNode | None, structure: Structure) -> list[TreeNode] | None:
    """The other totals once ``structure`` is one of them; None when a line of it adds into another total.

    A total that took the lines in as its own, beside the line they add up to, keeps that line only: the
    tree builder, not seeing the subtotal, added its parts and it together ("Short-term investments",
    "Assets measured at NAV" and "Total long-term disability trust" in the total assets).
    """
    rows = {r for r, _ in structure.components}
    out: list[TreeNode] = []
    for node in nodes:
        if node is mine:
            continue
        inside = rows & {r for r, _ in node.structure.components}
        if not inside:
            out.append(node)
            continue
        if inside != rows or structure.total not in {r for r, _ in node.structure.components}:
            return None
        s = node.structure
        kept = tuple((r, sign) for r, sign in s.components if r not in rows)
        out.append(TreeNode(Structure(s.total, kept, s.convention, s.rollforward), node.proven, node.below))
    return out


def with_twins(printings: Sequence[Printing]) -> list[Twinned]:
    """Each printing's totals, with those its twins prove and its own figures prove only in part.

    First whole tables printed again with the same lines (:func:`_lend`), then single totals whose lines,
    by label, another table proves (:func:`_lend_lines`).

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
    proven: dict[str, dict[_Lines, list[Printing]]] = {}  # by the total's label
    for p in printings:
        label = dict(zip(p.rows, p.labels, strict=True))
        for node in p.nodes:
            if node.proven and (key := _lines_of(node, label)) is not None:
                proven.setdefault(key[0], {}).setdefault(key, []).append(p)
    return [_lend_lines(p, t, proven) for p, t in zip(printings, out, strict=True)]
