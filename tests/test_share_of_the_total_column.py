"""A row of each column's share of the total column: "% of worldwide sales" under a geographic sales line.

3M prints its sales by area, "Americas | Asia Pacific | Europe, Middle East & Africa | Other Unallocated |
Worldwide", and under "Net sales" each area's share of worldwide sales, "100.0 %" in the worldwide column.
The label names no line of the table as its base (no row is "worldwide sales"), so no ratio was read: an
area's sales keyed 3,183 → 31,833 and worldwide sales printed with the other sign raised nothing
(development seeds 19-21). The base is the line's own figure in the column where the row prints 100 %; a
total keyed wrong breaks every share at once, and one re-keyed figure mending them all is the proof
(:mod:`pipeline.checks.ratio_rows`).
"""

from __future__ import annotations

from sample_docs.generate import winansi
from schemas.models import DocumentResult
from tests.support.pages import Keyed, only_flag, table_result

_XS = (300.0, 360.0, 420.0, 480.0, 545.0)
_HEADS = ("Americas", "Asia", "Europe", "Other", "Worldwide")


@Keyed
def _areas(americas: str = "16,525", worldwide: str = "32,184") -> DocumentResult:
    rows = [
        ("Net sales (millions)", (americas, "9,569", "6,109", "(19)", worldwide)),
        ("% of worldwide sales", ("51.3 %", "29.7 %", "19.0 %", winansi("—"), "100.0 %")),
        ("Components of net sales change:", ("", "", "", "", "")),
        ("Volume - organic", ("(1.2)%", "(2.9)%", "(4.0)%", winansi("—"), "(2.3)%")),
        ("Price", ("1.0", "(0.5)", "1.2", winansi("—"), "0.6")),
    ]
    return table_result("Sales by geographic area, 2020", _HEADS, rows, _XS, source="areas.pdf")


test_the_clean_table_raises_nothing = _areas.quiet_test()


def test_an_areas_sales_keyed_wrong_breaks_its_share() -> None:
    flag = only_flag(_areas(americas="165,525"), "CHG001")
    assert "51.3" in flag.message


def test_the_total_keyed_with_the_other_sign_breaks_every_share_and_is_named() -> None:
    flag = only_flag(_areas(worldwide="(32,184)"), "CHG001")
    assert flag.localization is not None and flag.localization.corrected == ["32,184"]
