"""A line printing nil where a total holds is no rival component (generated page).

Kraft Heinz prints "Redeemable noncontrolling interest" (4 and "—") just above "Equity:". A component of
shareholders' equity keyed wrong in the first column leaves the equity lines adding up in the second
column only, and there the run with the redeemable line holds exactly as the run without it, because it
prints nil. The two runs expect different figures in the failing column, so the failure was taken for a
misread structure and nothing was flagged. A longer run whose extra lines print nil wherever it holds is
no rival reading (:func:`pipeline.statements.resolve._padded`).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, titled_page, write_table


@Keyed
def _equity(paid_in: str = "53,379") -> DocumentResult:
    rows = page_rows(f"""
        Total liabilities                               | 43,942    | 49,587
        Redeemable noncontrolling interest              | 4         | —
        Equity:
        Common stock                                    | 12        | 12
        Additional paid-in capital                      | {paid_in} | 55,096
        Retained earnings/(deficit)                     | (1,682)   | (2,694)
        Accumulated other comprehensive income/(losses) | (1,824)   | (1,967)
        Treasury stock, at cost                         | (587)     | (344)
        Total shareholders' equity                      | 49,298    | 50,103
        Noncontrolling interest                         | 150       | 140
        Total equity                                    | 49,448    | 50,243
        Total liabilities and equity                    | 93,394    | 99,830
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Balance Sheets (In millions)", ("2021", "2020"), (420.0, 500.0))
    y = 84.0
    for label, figures in rows:
        if figures:
            y = write_table(page, y, ("", ""), [(label, figures)])
        else:
            y += 14
            page.insert_text((50, y), label, fontsize=9.0)
    return process_bytes(doc.tobytes(), source="equity.pdf")


test_the_clean_balance_sheet_raises_nothing = _equity.quiet_test()


test_a_component_keyed_with_the_other_sign_is_flagged = _equity.flagged_test(
    "TOT001", "Total shareholders' equity", paid_in="(53,379)"
)
