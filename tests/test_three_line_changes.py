"""A percentage change under its own head is proven by two rows of three.

An MD&A table often prints a few lines with two years and the percentage change ("% Change"): Kraft
Heinz's 2021 segment results, net sales, organic net sales and segment adjusted EBITDA. CHG001 asked a
column to hold in three rows and three of every four before a failure in another meant anything, so a keying
error in one of three lines left two that hold, and nothing was flagged (5,299 re-keyed 52,999). The head
names the relation, and a percentage printed to its tenth lands on the computed one by chance about once in
a thousand rows: two rows of three prove it. Here, on the generated layout variants with such a table, the
clean document raises nothing and a re-keyed figure of one line is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("pc", three_line_changes=True)


test_the_table_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize(("column", "kind"), [(0, "swap"), (1, "drop"), (1, "double")])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_one_line_of_three_is_flagged(name: str, column: int, kind: str) -> None:
    # the last occurrence of "Gross profit" with figures: this table's (the income statement's comes first)
    CASES.caught(name, ["Gross", "profit"], kind, "CHG001", column=column, occurrence=-1)
