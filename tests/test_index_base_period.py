"""A stock-performance table's base period: every series is indexed to 100 there.

Item 5 of a 10-K compares the cumulative total return of the company's stock with indices, each "assuming
$100 invested" on the first date: the first column prints 100 in every row (AMD's "Base Period
12/31/2016", Amcor's "June 11, 2019"). No rule read it, so a base keyed (100) or 10 raised nothing
(development seeds 19-21). A first column that prints exactly 100 in every row but one, beside columns in
an index's range, flags the one whose re-keyed figure is 100 (:mod:`pipeline.checks.ratio_rows`).
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.models import DocumentResult
from tests.support.pages import Keyed, table_result

_XS = (250.0, 310.0, 370.0, 430.0, 490.0, 545.0)
_HEADS = ("Base 2016", "2017", "2018", "2019", "2020", "2021")


@Keyed
def _returns(index_base: str = "100", rows: Sequence[tuple[str, Sequence[str]]] = ()) -> DocumentResult:
    lines = rows or [
        ("Advanced Micro Devices, Inc.", ("100", "91", "157", "407", "810", "1,289")),
        ("S&P 500 Index", (index_base, "122", "115", "154", "179", "231")),
        ("S&P 500 Semiconductors Index", ("100", "136", "127", "188", "264", "403")),
    ]
    return table_result(
        "Comparison of five-year cumulative total return", _HEADS, lines, _XS, source="tsr.pdf"
    )


test_the_clean_table_raises_nothing = _returns.quiet_test()


test_a_base_keyed_with_the_other_sign_is_flagged = _returns.flagged_test(
    "CHG001", "S&P 500 Index", index_base="(100)"
)


test_a_base_with_a_digit_dropped_is_flagged = _returns.flagged_test(
    "CHG001", "S&P 500 Index", index_base="10"
)


def test_a_first_column_of_amounts_is_no_index() -> None:
    # two lines of 100 beside figures in the thousands: a schedule, not an index
    rows = [
        ("Term loan", ("100", "1,500", "2,000", "2,500", "3,000", "3,500")),
        ("Revolver", ("100", "900", "800", "700", "600", "500")),
        ("Notes", ("10", "4,000", "4,000", "4,000", "4,000", "4,000")),
    ]
    assert _returns(rows=rows).flags == []
