"""A table of two lines proves its change columns when it prints an amount and a percentage change.

MD&A tables often print a line or two with the years' figures, the change ("Increase/(decrease)") and the
percentage change ("% Change"): Activision Blizzard's 2021 results of operations, consolidated net revenues
and in-game net revenues. CHG001 asked each change column alone to hold in three rows before a failure in
another meant anything, so a two-line table proved nothing and a keying error in its changes went
unflagged. Two change columns of the same two figures test each row twice, and three tests of four holding
(each relation somewhere) is the same proof one column gives in three rows. Here, on the generated layout
variants with such a table, the clean document raises nothing and a re-keyed change is flagged.

A change printed with the other sign ("(717)" for 717) was read as a favourable/unfavourable convention
and left alone, although the percentage beside it, of the same two figures, holds with its sign as printed:
a convention turns every change of the row, so the two disagreeing on the direction is a misprint.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("tl", two_line_changes=True)


test_the_table_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize(
    ("column", "kind"), [(2, "swap"), (2, "drop"), (2, "double"), (2, "sign"), (3, "sign")]
)
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_change_is_flagged(name: str, column: int, kind: str) -> None:
    # column 2: the amount change of the subscriptions line, proven with its percentage change
    CASES.caught(name, ["Subscriptions"], kind, "CHG001", column=column)
