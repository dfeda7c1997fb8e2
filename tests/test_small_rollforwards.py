"""A roll-forward of small figures in several columns is proven by its opening and closing lines.

Unrecognized tax benefits (a balance of about 170 and movements of tens, in millions) are rolled forward in
each year's column. When every column adds up, the roll-forward is proven; but after a keying error in one
column only the other holds, and a column of figures that small does not prove a run of eight lines on its
own (a sum of small figures lands on a small total by chance too often), so the roll-forward was left
unproven and the error unflagged (Adobe's 2020 10-K, its opening balance of 173 printed in parentheses by
the planted-errors bench, was the case found). The labels state the structure, as they do for a roll-forward
in one column: here, on the generated layout variants with such a note, the clean document raises nothing
and the closing line is proven, and a re-keyed movement or an opening balance printed with the wrong sign is
flagged on its page.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("utb", tax_benefits=True)


test_the_closing_balance_is_proven_and_nothing_is_flagged = CASES.proven_total_test("Ending balance", 6)


@pytest.mark.parametrize("name", CASES.names())
def test_an_opening_balance_printed_with_the_wrong_sign_is_flagged(name: str) -> None:
    CASES.caught(name, ["Beginning", "balance"], "sign", "TOT001")


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_movement_is_flagged(name: str) -> None:
    CASES.caught(name, ["Lapse", "of", "statute"], "swap", "TOT001")
