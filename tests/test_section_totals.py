"""The last line of a table of sections without totals adds up every section above it.

A tax note prints "Current:" federal, state and foreign, "Deferred:" the same three, then the provision,
outdented, with no "Total" in its label. A line that does not say it is a total was only allowed to add up
its own section (the deferred lines), so the provision was no total and a keying error in any of the six
lines went unflagged (found on Corning's 2016 10-K, re-keyed by the planted-errors bench). Here, on the
generated layout variants with such a note, the clean document raises nothing and the last line is a proven
total of all six, and a swapped pair of digits in a current line is flagged with it as evidence.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases, evidence_of, figure, rekeyed

CASES = LayoutCases("tax", tax_sections=True)
LAST = "Charge for taxation on profit"


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES.names()) >= 5


@pytest.mark.parametrize("name", CASES.names())
def test_the_last_line_adds_up_both_sections_and_nothing_is_flagged(name: str) -> None:
    result = CASES.clean(name)
    assert not result.flags, [f.message for f in result.flags]
    totals = [line for s in result.statements for line in s.lines if line.label == LAST]
    assert len(totals) == 1 and totals[0].proven and len(totals[0].children) == 6, totals


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_section_line_is_flagged(name: str) -> None:
    target = figure(CASES.rendered(name), ["Domestic"])  # the first: current tax
    new = rekeyed(target.text, "swap")
    hits, flags = CASES.planted_flags(name, target, new, "TOT001")
    assert evidence_of(hits, new), [f.message for f in flags]
