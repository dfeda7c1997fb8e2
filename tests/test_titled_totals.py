"""A note's last line that repeats the table's title is the table's total.

US 10-K notes print "Other Current Assets" over "Payment processor advances", "Prepaid expenses", "Other"
and a last line "Other current assets": the total, though its label does not say "Total". Such a line was
no total at all in a table of two columns (a label that says nothing needs three columns of proof), so a
keying error in any of its lines went unflagged (found on eBay's 2021 10-K, re-keyed by the planted-errors
bench: "Other 442 -> 424"). Here, on the generated layout variants with such a note, the clean document
raises nothing, and a swapped pair of digits in a component is flagged with it as evidence.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("recv", titled_note=True)


@pytest.mark.parametrize("name", CASES.names())
def test_the_titled_total_is_proven_and_nothing_is_flagged(name: str) -> None:
    totals = [line for line in CASES.lines(name, "Receivables") if len(line.children) == 3]
    assert len(totals) == 1 and totals[0].proven, [
        (s.title, [x.label for x in s.lines]) for s in CASES.clean(name).statements
    ]


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_component_is_flagged(name: str) -> None:
    CASES.caught(name, ["Trade", "receivables"], "swap", "TOT001")
