"""A unit caption that goes on in the table's stub head (generated page).

JPMorgan's "Selected metrics" print "(in millions, except" above the column heads and "headcount)" on the
line of the years, in the stub head. Read as a whole page the caption happened to be joined to the next
column's words; read a column at a time, its scale was unknown. A caption line whose parenthesis is still
open goes on in the table's stub head (``scales.scan_page_scales``); a closed one does not.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from tests.support.pages import write_table


def test_the_caption_closes_in_the_stub_head() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Selected metrics", fontsize=9)
    page.insert_text((50, 76), "(in millions, except", fontsize=9)
    page.insert_text((55, 88), "headcount)", fontsize=9)
    rows = [("Total assets", ("487,978", "513,352")), ("Deposits", ("330,000", "320,000"))]
    write_table(page, 88, ("2021", "2020"), rows)
    [table] = process_bytes(doc.tobytes(), source="metrics.pdf").tables
    assert table.scale == 6
