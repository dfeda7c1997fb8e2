"""A "Gross …" line adds the classes above it at their indent, and the net line below it is their difference.

A property note prints land, buildings, machinery and construction in progress, then "Gross property, plant
and equipment", "Accumulated depreciation" in parentheses and "Property, plant and equipment - net", every
line at the same indent and in two columns. The gross line does not say "total" and is not outdented, so
the tree builder never tried it as a total; the net line, the difference of two lines one of which was not
a total, was unproven too. Nothing related the note's figures, and a keying error in any of them went
unflagged (3M's 2022 10-K, accumulated depreciation with its parentheses dropped by the planted-errors bench,
was the case found). Here, on the generated layout variants with such a note, the clean document raises
nothing and both lines are proven; a swapped pair of digits in a class of property, and the sign of the
accumulated depreciation flipped, are flagged on their page.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("gross", ppe_note=True)


@pytest.mark.parametrize("name", CASES.names())
def test_the_gross_and_net_lines_are_proven_and_nothing_is_flagged(name: str) -> None:
    CASES.proven_total(name, "Gross property, plant and equipment", 4)
    CASES.proven_total(name, "Property, plant and equipment - net", 2)


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_class_of_property_is_flagged(name: str) -> None:
    CASES.caught(name, ["Machinery", "and", "equipment"], "swap", "TOT001")


@pytest.mark.parametrize("name", CASES.names())
def test_accumulated_depreciation_printed_without_its_sign_is_flagged(name: str) -> None:
    CASES.caught(name, ["Accumulated", "depreciation"], "sign", "TOT001")
