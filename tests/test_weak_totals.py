"""A line that does not say it is a total, in a table of two columns, is proven by the other column.

"Net debt" under cash, short- and long-term borrowings does not call itself a total, so the tree builder
asked two columns to prove the sum before a failing one counted. A table of two columns (two balance-sheet
dates) then never proved it when either column was re-keyed, and the error went unflagged (found on Amcor's
fourth-quarter 2023 release, re-keyed by the planted-errors bench: long-term debt 6,653 -> 66,533 in its
reconciliation of net debt). The other column now proves it, if it adds up to the unit: a coincidence
within rounding (3,207 + 15 + 94 = 3,316 beside a right-of-use figure of 3,317, FedEx 2023) does not.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases, figure, rekeyed

CASES = LayoutCases("nd", net_debt=True)


test_net_debt_is_proven_and_nothing_is_flagged = CASES.proven_total_test("Net debt", 3)


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_net_debt_is_flagged_and_localized(name: str) -> None:
    target = figure(CASES.rendered(name), ["Net", "debt"])
    new = rekeyed(target.text, "swap")
    hits, flags = CASES.planted_flags(name, target, new, "TOT001")
    assert hits, [f.message for f in flags]
    located = [f.localization.figures[0].text for f in hits if f.localization and f.localization.figures]
    assert any(text.endswith(f": {new}") for text in located), (new, located)
