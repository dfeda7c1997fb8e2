"""Dates printed over three lines head their columns: "January / 28, / 2023" (generated page).

Ulta Beauty's earnings release heads its columns "13 Weeks Ended" and "52 Weeks Ended" over dates printed
a word a line: the month, the day with its comma, the year. The line of days ("28,  29,  30,") was read as
the table's first row of figures, so the heads above it were cut off from the years below it: every
column was read as a fiscal year, a quarter's net sales published as the year's, and the scale in the
stub head was lost. A line whose every word is a day and its comma is a line of the heads.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, right_aligned

_XS = (300.0, 360.0, 420.0, 480.0)


def _release() -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Results for the fourth quarter and the fiscal year", fontsize=SIZE)
    page.insert_text((282, 84), "13 Weeks Ended", fontsize=SIZE)
    page.insert_text((400, 84), "52 Weeks Ended", fontsize=SIZE)
    for y, heads in (
        (96.0, ("January", "January", "January", "January")),
        (108.0, ("28,", "29,", "28,", "29,")),
        (120.0, ("2023", "2022", "2023", "2022")),
    ):
        for x, head in zip(_XS, heads, strict=True):
            right_aligned(page, x, y, head)
    page.insert_text((50, 120), "(Dollars in millions, except per share data)", fontsize=SIZE)
    rows = [
        ("Net sales", ("3,226.8", "2,729.4", "10,208.6", "8,630.9")),
        ("Selling, general and administrative expenses", ("762.7", "650.0", "2,395.3", "2,061.5")),
        ("Operating income", ("448.5", "376.6", "1,646.2", "1,297.6")),
    ]
    y = 120.0
    for label, figures in rows:
        y += 14
        page.insert_text((50, y), label, fontsize=SIZE)
        for x, text in zip(_XS, figures, strict=True):
            right_aligned(page, x, y, text)
    return process_bytes(doc.tobytes(), source="release.pdf")


def test_the_weeks_and_the_dates_make_each_column_s_period() -> None:
    [table] = _release().tables
    sales = [c for c in table.cells if c.row > table.header_rows - 1 and c.col > 0 and c.number][:4]
    assert [c.number.period.key for c in sales if c.number and c.number.period] == [
        "3M-2023-01-28",
        "3M-2022-01-29",
        "FY2023",
        "FY2022",
    ]


def test_the_stub_head_gives_the_scale() -> None:
    [table] = _release().tables
    assert table.scale == 6
