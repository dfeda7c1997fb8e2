"""Roll-forwards in sections: a run that holds only within rounding is no rival to one that holds exactly.

A statement of changes in equity prints share capital (a balance of 2, nothing issued) above the share
premium's opening balance, awards, issues and closing balance. With the premium's opening balance re-keyed
in one year, the other year must prove the roll-forward; it did, but runs reaching up into the share
capital section held there too, within rounding (the 2 is smaller than the rounding of seven figures), and
they expected another figure in the broken year, so no break was believed and the error went unflagged
(found on eBay's 2021 statement of stockholders' equity, re-keyed by the planted-errors bench: additional
paid-in capital at the beginning of 2021 16,497 -> 6,497). The run that holds exactly now wins.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("eq", equity_sections=True)


@pytest.mark.parametrize("name", CASES.names())
def test_the_roll_forwards_are_proven_and_nothing_is_flagged(name: str) -> None:
    CASES.proven_total(name, "Balance, end of year", 4, count=2)


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_an_opening_balance_is_flagged(name: str) -> None:
    # The share premium's opening balance (the second one) of the latest year: the other year's closing one.
    column = -1 if CASES.cases[name].prior_first else 0
    CASES.caught(name, ["Balance,", "beginning"], "drop", "TOT001", column=column, occurrence=1)
