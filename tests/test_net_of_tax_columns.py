"""An amount "net of tax" beside the amount before tax and the tax: each period's group adds up, row by row.

Kraft Heinz's note on other comprehensive income prints, for each of three years, "Before Tax Amount |
Tax | Net of Tax Amount" over a row per component. No head said "Total", so no column sum was read and a
component keyed a thousand times too large in the net column (324 printed 324,000) raised nothing
(development seeds 16-18). "Net of tax" and "after tax" now head their group's total column
(:mod:`pipeline.statements.column_sums`), which the rows must still prove. Generated page.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, Keyed, page_rows, right_aligned, write_table

_XS = (380.0, 460.0, 540.0, 640.0, 720.0, 800.0)
"""Right edges of the value columns on a landscape page: two years of three columns."""


@Keyed
def _note(translation: str = "324") -> DocumentResult:
    rows = page_rows(f"""
        Foreign currency translation adjustments      | 324   | —    | {translation} | 239   | —   | 239
        Net deferred gains on net investment hedges   | (426) | 105  | (321)         | (2)   | 3   | 1
        Net deferred gains on cash flow hedges        | 209   | (65) | 144           | (16)  | 6   | (10)
        Net actuarial gains arising during the period | (30)  | 3    | (27)          | (65)  | (5) | (70)
        Net postemployment benefit gains              | (158) | 40   | (118)         | (312) | 78  | (234)
    """)
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    page.insert_text(
        (50, 60), "Other comprehensive income components were as follows (in millions):", fontsize=SIZE
    )
    for x, year in ((500.0, "December 26, 2020"), (760.0, "December 28, 2019")):
        right_aligned(page, x, 84.0, year)
    heads = ("Before Tax", "Tax", "Net of Tax") * 2
    write_table(page, 98.0, heads, rows, _XS)
    return process_bytes(doc.tobytes(), source="oci.pdf")


test_the_clean_note_raises_nothing = _note.quiet_test()


test_a_net_amount_keyed_a_thousand_times_too_large_is_flagged = _note.flagged_test(
    "TOT002", "324,000", translation="324,000"
)
