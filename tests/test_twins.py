"""The totals one table lends another (:mod:`pipeline.statements.twins`), on small grids without a document.

The layout tests (``test_levels_per_date.py``, ``test_trusts_by_level.py``) show the two classes on rendered
pages; these pin the rules' edges: what a printing must show of its own before it takes a twin's total.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.statements.structures import Figure, Grid, Structure, TreeNode
from pipeline.statements.twins import Printing, with_twins
from schemas.models import Cell


def _grid(rows: Sequence[Sequence[float | None]]) -> Grid:
    """Rows 1, 2, … of figures in columns 1, 2, … (None: blank)."""
    return {
        r: {
            c: Figure(v, 0, Cell(row=r, col=c, text=str(v), page=1))
            for c, v in enumerate(values, 1)
            if v is not None
        }
        for r, values in enumerate(rows, 1)
    }


def _printing(
    labels: Sequence[str], rows: Sequence[Sequence[float | None]], nodes: Sequence[TreeNode], page: int
) -> Printing:
    grid = _grid(rows)
    columns = tuple(sorted({c for r in grid.values() for c in r}))
    return Printing(tuple(range(1, len(labels) + 1)), tuple(labels), grid, columns, tuple(nodes), page)


def _sum(total: int, *parts: int) -> Structure:
    return Structure(total, tuple((p, 1) for p in parts), "sum", False)


TRUST = ["short term investments", "assets measured at nav", "total disability trust"]


def test_a_total_line_takes_the_lines_another_table_proves() -> None:
    proving = _printing(TRUST, [[9, 9], [None, 158], [9, 167]], [TreeNode(_sum(3, 1, 2), True)], page=7)
    # keyed wrong in the total column: its own columns no longer prove it (level 1 holds with one line)
    keyed = _printing(TRUST, [[6, 6], [None, 132], [6, 1338]], [], page=6)
    lent = with_twins([keyed, proving])[0]
    assert lent.nodes == (TreeNode(_sum(3, 1, 2), True),)
    assert lent.lent == {3: 7}


def test_a_line_that_does_not_say_it_is_a_total_is_not_lent() -> None:
    labels = ["adjusted ebitda", "items affecting comparability", "comparable ebitda"]
    proving = _printing(labels, [[5, 6], [1, 1], [6, 7]], [TreeNode(_sum(3, 1, 2), True)], page=12)
    other = _printing(labels, [[5, 6], [1, 1], [6, 9]], [], page=11)
    assert with_twins([other, proving])[0].nodes == ()


def test_a_total_that_breaks_in_two_columns_is_not_lent() -> None:
    proving = _printing(
        TRUST, [[9, 9, 10], [None, 158, 20], [9, 167, 30]], [TreeNode(_sum(3, 1, 2), True)], page=7
    )
    # two columns break: these lines add up some other way here, not a keying error
    other = _printing(TRUST, [[6, 6, 10], [None, 132, 20], [6, 1338, 45]], [], page=6)
    assert with_twins([other, proving])[0].nodes == ()


def test_a_total_takes_its_lines_out_of_the_one_that_counted_them_twice() -> None:
    labels = [*TRUST, "total assets"]
    proving = _printing(
        labels,
        [[9, 167], [None, 158], [9, 167], [9, 167]],
        [TreeNode(_sum(3, 1, 2), True), TreeNode(_sum(4, 3), True)],
        page=7,
    )
    # the tree builder, missing the subtotal, added its lines and it into the total assets
    keyed = _printing(
        [*TRUST[:2], TRUST[2], "grand total"],
        [[6, 6], [None, 132], [6, 1338], [18, 1476]],
        [TreeNode(_sum(4, 1, 2, 3), False)],
        page=6,
    )
    nodes = with_twins([keyed, proving])[0].nodes
    assert TreeNode(_sum(4, 3), False) in nodes and TreeNode(_sum(3, 1, 2), True) in nodes
