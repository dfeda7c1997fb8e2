"""A column whose head does not say "Total" is a total column when its rows prove it.

A table of securities prints cost, unrealized gains and losses and "Fair value"; a statement of accumulated
other comprehensive income heads its last column with the balance's name. Either column adds up the others in
every row, but only a column headed "Total" or "Consolidated" was tried as a sum, so a figure re-keyed in a
row that no other relation prints went unflagged (found on Corning's 2016 and 2017 statements of
accumulated other comprehensive income, re-keyed by the planted-errors bench: (175) -> (1,755) in the last
column). With no head to say so, five rows adding two figures or more must prove the sum.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("fv", fair_value_columns=True)


@pytest.mark.parametrize("name", CASES.names())
def test_the_fair_value_column_is_proven_and_nothing_is_flagged(name: str) -> None:
    statements = CASES.quiet(name).statements
    table = next(s for s in statements if any(line.label == "Commercial paper" for line in s.lines))
    assert [(c.total, c.components) for c in table.column_sums] == [(4, [1, 2, 3])]


@pytest.mark.parametrize("column", [0, -1])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_row_is_flagged(name: str, column: int) -> None:
    # A row in the middle, at cost or at fair value: the across sum is the only relation that prints it.
    CASES.caught(name, ["Asset-backed", "securities"], "double", "TOT002", column=column)
