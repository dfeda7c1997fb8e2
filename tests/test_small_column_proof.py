"""A labelled total proven by one column of small figures that add up exactly: the other column is checked.

A lease note prints the undiscounted payments by year for operating leases (hundreds) and finance leases
(units) beside each other, and "Total lease payments" under them (Amcor's 2023 10-K). A keying error in
the operating column left the finance column as the only proof; its figures (11 + 11 + 6 + 2 + 2 + 26 =
58) were too small to prove the total by their size, so the total was no total and a re-keyed payment
(115 printed (115)) went unflagged. Four printed lines or more that add up to the unit under a line that
says it is their total now prove it. Here, on the generated layout variants with such a note, the clean
document raises nothing and a keying error in the operating column is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("lk", lease_kinds=True)


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("kind", ["sign", "swap", "scale"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_operating_column_is_flagged(name: str, kind: str) -> None:
    year = str(max(CASES.cases[name].years) + 1)
    CASES.caught(name, ["Fiscal", "year", year], kind, "TOT001")
