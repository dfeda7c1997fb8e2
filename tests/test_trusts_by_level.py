"""A section printed again in another date's table: its lines there prove the total a keying error unproves.

PG&E's 2021 10-K prints its trusts' assets by level of the fair-value hierarchy at each year end, one table a
date, a section a trust. The long-term disability trust's short-term investments sit in level 1, its funds
measured at net asset value in no level (printed in the total column only), so its "Total long-term
disability trust" is proven by the total column alone: 138 keyed 1,338 there left it unproven, and the tree
builder added the trust's lines and its total into the total assets instead. The two tables are not one
layout (a line of one is missing from the other), but the other date's section prints the same lines under
the same total, adding up. Now a line that says it is a total takes the lines right above it as its own
where another table proves the same lines add up to a total of the same name, and the two dates' tables
check each other (:func:`pipeline.statements.twins.with_twins`). Here, on the generated layout variants with
such a note (the trait ``trusts_by_level``).
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("tb", trusts_by_level=True)


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("kind", ["drop", "double", "sign"])
@pytest.mark.parametrize("table", [0, 1])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_either_date_is_flagged(name: str, table: int, kind: str) -> None:
    # the total column's figure on the disability trust's total line of the first or the second table
    CASES.caught(name, ["Total", "disability", "trust"], kind, "TOT001", column=-1, occurrence=table)
