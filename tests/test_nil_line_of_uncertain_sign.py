"""A line printing nil where the run holds shows no sign (generated page).

Foot Locker's equity section ends with "Noncontrolling interest", "—" this year and 4 the year before. Its
label reads as a deduction, so a second run subtracting it was a candidate too. This year both runs add up
(the line is nil), so nothing shows its sign. Last year, with "Common stock and paid-in capital" keyed
wrong, the two runs expected different totals, and the break was taken for a misread table, not an error.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result


@Keyed
def _equity(common_stock: str = "770") -> DocumentResult:
    rows = page_rows(f"""
        Common stock and paid-in capital     | 760   | {common_stock}
        Retained earnings                    | 2,925 | 2,900
        Accumulated other comprehensive loss | (392) | (343)
        Less: Treasury stock at cost         | —     | (88)
        Noncontrolling interest              | —     | 4
        Total shareholders' equity           | 3,293 | 3,243
    """)
    return table_result(
        "Shareholders' equity (in millions)",
        ("January 28, 2023", "January 29, 2022"),
        rows,
        source="equity.pdf",
    )


test_the_clean_section_raises_nothing = _equity.quiet_test()


test_a_keyed_line_in_the_year_the_nil_line_prints_is_flagged = _equity.flagged_test(
    "TOT001", "3,243", common_stock="707"
)


def _costs(total_2020: str = "55,406") -> DocumentResult:
    rows = page_rows(f"""
        Health care costs payable, beginning of period | 8,800  | 7,926  | 6,874
        Acquisitions, net                              | —      | —      | 414
        Current year                                   | 71,541 | 64,761 | 55,835
        Prior years                                    | (654)  | (788)  | (429)
        Total incurred health care costs               | 70,887 | 63,973 | {total_2020}
    """)
    return table_result(
        "Health care costs payable (in millions)",
        ("2022", "2021", "2020"),
        rows,
        (400.0, 470.0, 540.0),
        source="costs.pdf",
    )


def test_a_nil_line_whose_figure_the_break_is_belongs_to_no_run() -> None:
    """CVS's "Acquisitions, net" above the incurred costs: nil but in 2020, where the costs' total is
    short of it by exactly its figure. It is no line of that total, and the total no finding."""
    assert _costs().flags == []


def test_the_run_without_that_line_still_checks_its_total() -> None:
    flags = _costs(total_2020="55,046").flags
    assert [f.rule for f in flags] == ["TOT001"]
