"""A table printed once per date with the same lines: its twin proves the totals a keying error unproves.

Kraft Heinz's 2020 10-K prints its postretirement plan assets by level of the fair-value hierarchy at each
year end, one table a date with the same lines. "Fair value excluding investments measured at net asset
value" adds up the fixed income and the equities, though its label does not say it is a total: its own
table proves it in two columns (the total and level 1; level 2 has one figure, level 3 none). Level 1's
339 keyed 3,399 left one column of proof, the line became an item and the error went unflagged — while
the other date's table, with the same lines adding up the same way, proves it. Now a table takes the totals
its twin proves where they add up to the unit in one of its own columns (:mod:`pipeline.statements.twins`).
Here, on the generated layout variants with such a note (the trait ``levels_per_date``).
"""

from __future__ import annotations

import pytest

from bench.planted_errors import Candidate
from pipeline.figures.numbers import parse_number
from tests.support.layouts import LayoutCases, evidence_of, lines_starting, rekeyed

CASES = LayoutCases("lv", levels_per_date=True)
LABEL = "Investments in the hierarchy"


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_each_printing_proves_its_subtotal(name: str) -> None:
    lines = CASES.lines(name, LABEL)
    assert len(lines) == 2 and all(line.proven and len(line.children) == 2 for line in lines), lines
    assert all(line.twin_page is None for line in lines)  # each table proves it on its own


def _level_one(name: str, table: int) -> Candidate:
    """Level 1's figure on the subtotal of the first or the second table: the second of each table's two
    lines of three figures whose first is the sum of the other two (its label may wrap)."""
    found = []
    for page, figures in lines_starting(CASES.rendered(name), []):
        values = [parse_number(w[4]) for w in figures]
        if len(values) == 3 and None not in values:
            total, one, two = (v.value for v in values if v is not None)
            if total == one + two:
                found.append((page, figures))
    assert len(found) == 4, found
    page, figures = found[2 * table + 1]
    w = figures[1]
    return Candidate(page, (w[0], w[1], w[2], w[3]), w[4])


@pytest.mark.parametrize("kind", ["drop", "double", "sign"])
@pytest.mark.parametrize("table", [0, 1])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_either_printing_is_flagged(name: str, table: int, kind: str) -> None:
    target = _level_one(name, table)
    new = rekeyed(target.text, kind)
    hits, flags = CASES.planted_flags(name, target, new, "TOT001")
    assert evidence_of(hits, new), [f.message for f in flags]
    assert any("printed on page" in (f.proof or "") for f in hits), [f.proof for f in hits]
