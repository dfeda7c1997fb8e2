"""Month and day over each column, the years on the line below (generated page).

Retailers close their year on a Saturday and head a balance sheet "January 28,  January 29," over
"2023  2022". With narrow columns the two dates stood close, were read as one phrase reaching across the
value columns, and became the table's title: the columns were left with "2023" and "2022" and read as the
fiscal years' flows, so every balance was published for a year instead of at its date, and the balance
identity (assets against liabilities and equity, compared per date) never ran on a keyed total.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, page_rows, right_aligned, write_table

_XS = (490.0, 545.0)
"""Value columns close enough that only a few points separate "January 28," from "January 29,"."""


def _balance_sheet(total: str = "1,946,572") -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((180, 50), "Condensed Consolidated Balance Sheets", fontsize=SIZE)
    page.insert_text((220, 62), "(In thousands)", fontsize=SIZE)
    for x, day in zip(_XS, ("January 28,", "January 29,"), strict=True):
        right_aligned(page, x, 80, day)
    rows = page_rows(f"""
        Cash and cash equivalents                  | 737,877   | 431,560
        Receivables, net                           | 199,422   | 233,682
        Total current assets                       | 937,299   | 665,242
        Property and equipment, net                | 1,009,273 | 914,476
        Total assets                               | 1,946,572 | 1,579,718
        Accounts payable                           | 559,527   | 552,730
        Accrued liabilities                        | 444,278   | 364,797
        Total liabilities                          | 1,003,805 | 917,527
        Total stockholders' equity                 | 942,767   | 662,191
        Total liabilities and stockholders' equity | {total}   | 1,579,718
    """)
    write_table(page, 92.0, ("2023", "2022"), rows, _XS)
    return process_bytes(doc.tobytes(), source="balance.pdf")


def test_each_column_is_a_balance_at_its_own_date() -> None:
    result = _balance_sheet()
    assert result.flags == []
    [table] = result.tables
    assert table.title == "Condensed Consolidated Balance Sheets"
    assets = {f.period.key for f in result.facts if f.metric == "total_assets" and f.period is not None}
    assert assets == {"2023-01-28", "2022-01-29"}


def test_a_keyed_grand_total_breaks_the_balance_identity() -> None:
    flags = _balance_sheet(total="19,465,572").flags
    assert "BAL001" in {f.rule for f in flags}
