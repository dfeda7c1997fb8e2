"""A line that is a total by its place alone adds its lines: no identity of the totals above (generated).

Kraft Heinz prints "Noncontrolling interest" a little left of "Total shareholders' equity" above it, then
"TOTAL EQUITY" and "TOTAL LIABILITIES AND EQUITY". Outdented, the line was a weak total, and total assets
less total liabilities less redeemable interest less shareholders' equity is exactly it, in every column:
taken as its structure, it folded those totals away, so neither total below it was found and a grand total
keyed wrong raised nothing. A line whose place alone makes it a total (outdented, or under a rule) now adds
its lines as printed or signed by their labels, never "the first less the rest".
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, Keyed, page_rows, right_aligned, titled_page

_XS = (440.0, 520.0)


@Keyed
def _balance_sheet(grand_total: str = "101,450") -> DocumentResult:
    rows = page_rows(f"""
        Current assets                     | 10,822 | 8,097
        Goodwill and other assets          | 88,000 | 93,353
        TOTAL ASSETS                       | 98,822 | 101,450
        Current liabilities                | 8,061  | 7,875
        Long-term debt                     | 40,000 | 41,000
        TOTAL LIABILITIES                  | 48,061 | 48,875
        Redeemable noncontrolling interest | 9      | 826
        Common stock                       | 12     | 12
        Retained earnings                  | 50,600 | 51,611
        Total shareholders' equity         | 50,612 | 51,623
        Noncontrolling interest            | 140    | 126
        TOTAL EQUITY                       | 50,752 | 51,749
        TOTAL LIABILITIES AND EQUITY       | 98,822 | {grand_total}
    """)
    doc = pymupdf.open()
    heads = ("December 26, 2020", "December 28, 2019")
    page = titled_page(doc, "Consolidated Balance Sheets (in millions)", heads, _XS, title_y=50, heads_y=74)
    y = 74.0
    for label, figures in rows:
        y += 14
        # Totals are indented further than their items, and "Noncontrolling interest" sits left of the
        # total above it: outdented, by its place a weak total.
        x_label = 70 if label.upper().startswith("TOTAL") else 60
        page.insert_text((x_label, y), label, fontsize=SIZE)
        for x, text in zip(_XS, figures, strict=True):
            right_aligned(page, x, y, text)
    return process_bytes(doc.tobytes(), source="balance.pdf")


test_the_clean_balance_sheet_raises_nothing = _balance_sheet.quiet_test()


test_a_grand_total_keyed_wrong_is_flagged = _balance_sheet.flagged_test(
    "TOT001", "TOTAL LIABILITIES AND EQUITY", grand_total="1,101,450"
)
