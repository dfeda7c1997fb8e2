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

from tests.support.layouts import LayoutCases

CASES = LayoutCases("tax", tax_sections=True)
LAST = "Charge for taxation on profit"


@pytest.mark.parametrize("name", CASES.names())
def test_the_last_line_adds_up_both_sections_and_nothing_is_flagged(name: str) -> None:
    CASES.proven_total(name, LAST, 6)


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_section_line_is_flagged(name: str) -> None:
    CASES.caught(name, ["Domestic"], "swap", "TOT001")  # the first: current tax
