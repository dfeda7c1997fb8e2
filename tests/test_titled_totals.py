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

from tests.support.layouts import LayoutCases, evidence_of, figure, rekeyed

CASES = LayoutCases("recv", titled_note=True)


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES.names()) >= 5


@pytest.mark.parametrize("name", CASES.names())
def test_the_titled_total_is_proven_and_nothing_is_flagged(name: str) -> None:
    result = CASES.clean(name)
    assert not result.flags, [f.message for f in result.flags]
    totals = [
        line
        for s in result.statements
        for line in s.lines
        if line.label == "Receivables" and len(line.children) == 3
    ]
    assert len(totals) == 1 and totals[0].proven, [
        (s.title, [x.label for x in s.lines]) for s in result.statements
    ]


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_component_is_flagged(name: str) -> None:
    target = figure(CASES.rendered(name), ["Trade", "receivables"])
    new = rekeyed(target.text, "swap")
    hits, flags = CASES.planted_flags(name, target, new, "TOT001")
    assert evidence_of(hits, new), [f.message for f in flags]
