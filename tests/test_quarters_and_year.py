"""A year column beside four quarter columns is their total (generated page).

Quarterly data tables print the four quarters and the year: "First Quarter | Second Quarter | Third Quarter
| Fourth Quarter | Year 2018" (3M's Note 20). The year column adds up the quarters in every line of
amounts, but its head does not say "Total", and four lines (the per-share lines do not add) are too few to
prove an unheaded sum: a year's net income keyed with a digit dropped raised nothing. A column headed as
the year, beside three quarter columns or more, is now headed as their total.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import titled_page, write_table

_XS = (300.0, 360.0, 420.0, 480.0, 540.0)


def _quarters(year_income: str = "5,363") -> DocumentResult:
    rows = [
        ("Net sales", ("8,278", "8,390", "8,152", "7,945", "32,765")),
        ("Cost of sales", ("4,236", "4,227", "4,159", "4,060", "16,682")),
        ("Net income including noncontrolling interest", ("606", "1,862", "1,546", "1,349", year_income)),
        ("Net income attributable to the Company", ("602", "1,857", "1,543", "1,347", "5,349")),
        ("Earnings per share - basic", ("1.01", "3.14", "2.64", "2.31", "9.09")),
    ]
    doc = pymupdf.open()
    page = titled_page(doc, "Quarterly Data (Unaudited) (Millions, except per-share amounts)", (), ())
    for x, head in zip(_XS, ("First", "Second", "Third", "Fourth", "Year"), strict=True):
        page.insert_text((x - 30, 80), head, fontsize=9.0)
    write_table(page, 92.0, ("Quarter", "Quarter", "Quarter", "Quarter", "2018"), rows, _XS)
    return process_bytes(doc.tobytes(), source="quarters.pdf")


def test_the_clean_table_raises_nothing() -> None:
    assert _quarters().flags == []


def test_a_year_keyed_with_a_digit_dropped_is_flagged() -> None:
    flags = _quarters(year_income="363").flags
    assert [f.rule for f in flags] == ["TOT002"]
