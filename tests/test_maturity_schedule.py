"""A maturity schedule in one column: its labels state the sum no other column can prove.

A lease (or debt) note prints the payments due in each of the next five years, "Thereafter" and "Total", in
one column at the latest balance-sheet date. With no second column nothing proved the total, so a figure
re-keyed in it went unflagged (found on CVS Health's 2022 scheduled mortgage-loan maturities, re-keyed by the
planted-errors bench: 2027's 203 -> 203,000). The labels are the proof: consecutive years, then the later
years, then a total.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("mat", maturities=True)


def _schedule_total(name: str) -> list[tuple[str, bool, int]]:
    return [
        (line.label, line.proven, len(line.children))
        for s in CASES.clean(name).statements
        for line in s.lines
        if line.label == "Total" and len(s.columns) == 1
    ]


@pytest.mark.parametrize("name", CASES.names())
def test_the_schedule_is_proven_by_its_labels_and_nothing_is_flagged(name: str) -> None:
    CASES.quiet(name)
    assert _schedule_total(name) == [("Total", True, 6)]


@pytest.mark.parametrize("kind", ["drop", "scale"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_year_is_flagged(name: str, kind: str) -> None:
    # The third year of the schedule; the years of the statements' columns print no line of their own.
    year = str(max(CASES.cases[name].years) + 3)
    CASES.caught(name, [year], kind, "TOT001")


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_later_years_is_flagged(name: str) -> None:
    CASES.caught(name, ["Thereafter"], "double", "TOT001")
