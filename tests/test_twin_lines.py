"""Twin lines: one breakdown printed twice, under labels that also name the income statement's totals.

A share-based compensation table ("Cost of sales 41, Administrative expenses 63, …") printed in the
operating review and again in the notes shares each label with an income-statement line. Grouped by label
and period, the copies of "Cost of sales 2025" hold three values (the total, the review's and the note's
share-based part), so no two-sided disagreement stood out and a keying error in one printing of the
breakdown went unflagged (found on Salesforce's 2023 10-K, re-keyed by the planted-errors bench: "Cost of
revenues 897 -> 8,977" in the stock-based compensation table). The two tables' lines agree in the other
period and differ in none: they are one figure printed twice, and the one that disagrees is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases, figure, rekeyed

CASES = LayoutCases("sbc", sbc_twice=True)


test_the_twice_printed_breakdown_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_one_printing_is_flagged_and_localized(name: str) -> None:
    # The first line of the breakdown's last printing (the note's), labelled as the income statement's.
    cost_of_sales = CASES.cases[name].labels.get("cogs", "Cost of sales").split()
    target = figure(CASES.rendered(name), cost_of_sales, occurrence=-1)
    new = rekeyed(target.text, "double")
    _, flags = CASES.planted_flags(name, target, new, "XREF001")
    # The twin printings' relation is flagged, on its own or folded into the finding of the note's total
    # that the same figure breaks (one misprint, one finding).
    hits = [f for f in flags if f.rule == "XREF001" or any("XREF001" in r for r in f.reasons)]
    assert hits, (target, new, [f.message for f in flags])
    located = [f.localization.figures[0].text for f in hits if f.localization and f.localization.figures]
    assert any(text.endswith(f": {new}") for text in located), (new, located)
