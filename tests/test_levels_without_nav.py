"""A line blank in the columns it does not belong to, in a table that prints dashes for nil.

A pension note lays plan assets out by level of the fair-value hierarchy, each level over both years, and
a total column per year (3M's 2021 10-K). Funds measured at net asset value sit in no level: their line is
printed in the total columns only, blank under "Level 1" and "Level 2", while a level with nothing in it
prints a dash. "Total equities" adds up its lines with that blank left out in every level column, but a
blank is nil only in a table that prints no dash, so no level column was checked: 1,465 re-keyed 1,645 in
the first level column went unflagged. A column is now checked with its blank lines left out when another
column with the same lines blank adds up without them, to the unit. Here, on the generated layout variants
with such a note, the clean document raises nothing and a keying error in a level column is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("pal", plan_asset_levels=True)


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize(("column", "kind"), [(0, "swap"), (0, "drop"), (1, "scale"), (1, "double")])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_level_column_is_flagged(name: str, column: int, kind: str) -> None:
    # "International": level 1 of the current year (column 0) and of the year before (column 1)
    CASES.caught(name, ["International"], kind, "TOT001", column=column)
