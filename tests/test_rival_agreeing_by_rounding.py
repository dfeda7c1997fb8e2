"""A rival reading that agrees in a second column by rounding slack alone explains no break (generated page).

CVS's statement of shareholders' equity: with "Other comprehensive loss" keyed with the wrong sign in the
accumulated other comprehensive income column, the opening balance *less* the movements lands on the
closing balance there to the unit, and in the treasury shares' column within the rounding of six small
figures (424 for 422). That was taken for a second reading of the table, holding in two columns, so the
break of the roll-forward (which adds up to the unit in every other column) was not believed.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, titled_page, write_table

_XS = (300.0, 380.0, 460.0, 540.0)


@Keyed
def _equity(other_comprehensive: str = "(449)") -> DocumentResult:
    rows = page_rows(f"""
        Balance at December 31, 2020                  | (423) | 46,513 | 49,640  | 1,414
        Net income                                    | —     | —      | 7,910   | —
        Other comprehensive income (loss)             | —     | —      | —       | {other_comprehensive}
        Stock option activity, stock awards and other | —     | 864    | —       | —
        ESPP issuances                                | 1     | —      | —       | —
        Common stock dividends                        | —     | —      | (2,644) | —
        Balance at December 31, 2021                  | (422) | 47,377 | 54,906  | 965
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Statements of Shareholders' Equity (in millions)", (), ())
    heads = ("Treasury Shares", "Capital Surplus", "Retained Earnings", "AOCI")
    write_table(page, 84.0, heads, rows, _XS)
    return process_bytes(doc.tobytes(), source="equity.pdf")


test_the_clean_statement_raises_nothing = _equity.quiet_test()


test_a_movement_keyed_with_the_wrong_sign_breaks_the_roll_forward = _equity.flagged_test(
    "TOT001", "965", other_comprehensive="449"
)
