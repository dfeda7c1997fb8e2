"""A maturity schedule in one column: its labels state the sum no other column can prove.

A lease (or debt) note prints the payments due in each of the next five years, "Thereafter" and "Total", in
one column at the latest balance-sheet date. With no second column nothing proved the total, so a figure
re-keyed in it went unflagged (found on CVS Health's 2022 scheduled mortgage-loan maturities, re-keyed by the
planted-errors bench: 2027's 203 -> 203,000). The labels are the proof: consecutive years, then the later
years, then a total.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pipeline.figures.taxonomy import load_taxonomy
from pipeline.statements.build import build_statements
from tests.support.layouts import LayoutCases
from tests.support.printed import printed_rows
from tests.support.tables import make_table

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


def _one_column_total(rows: Sequence[tuple[str, Sequence[str | None]]]) -> tuple[bool, int]:
    table = make_table(rows, periods=("2025-12-31",), headers=("As at 31 December 2025",), scale=3)
    statement = build_statements([table], {}, load_taxonomy())[0]
    line = next(line for line in statement.lines if line.label == "Total")
    return line.proven, len(line.children)


def test_a_schedule_cut_by_a_figure_line_that_names_no_year_is_no_schedule() -> None:
    # A schedule that ran over a page break, with the page's foot read as a row between its parts
    # (found on a mixed layout: "Aurelia Logistik SE | Prospectus" over the page number 8): the years
    # below the foot are a part of the schedule and do not add up to its total.
    years = printed_rows("""
        2028       | 63,890
        2029       | 56,800
        2030       | 49,711
        Thereafter | 212,909
    """)
    head: list[tuple[str, Sequence[str | None]]] = [("2026", ["78,069"]), ("2027", ["70,980"])]
    cut = [*head, ("Aurelia Logistik SE | Prospectus", ["8"]), *years, ("Total", ["532,359"])]
    assert not _one_column_total(cut)[0]
    # The whole schedule, and one under a heading line without figures, are proven by their labels.
    assert _one_column_total([*head, *years, ("Total", ["532,359"])]) == (True, 6)
    under_heading: list[tuple[str, Sequence[str | None]]] = [
        ("Operating leases", [None]),
        *head,
        *years,
        ("Total", ["532,359"]),
    ]
    assert _one_column_total(under_heading) == (True, 6)
