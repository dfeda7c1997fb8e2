"""The movements under an opening balance add up to the net change before the closing one (generated).

PayPal's changes in accumulated other comprehensive income print, per component column, "Beginning
balance", "Other comprehensive income before reclassifications", "Less: Amount reclassified from AOCI",
"Net current period other comprehensive income" under a rule, and "Ending balance". A run could begin at
the opening balance but not after it, so the net change could only take the opening balance in, added up
in no column, and no line of the table was proven: a balance keyed with the wrong sign raised nothing. A
run now also begins after an opening balance.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, titled_page, write_ruled_rows

_XS = (430.0, 520.0)
_RULED = ("Net current period other comprehensive income (loss)", "Ending balance")


@Keyed
def _aoci(opening: str = "111") -> DocumentResult:
    rows = page_rows(f"""
        Beginning balance                                          | {opening} | (591)
        Other comprehensive income (loss) before reclassifications | (24)      | 163
        Less: Amount of gain (loss) reclassified from AOCI         | 110       | (25)
        Net current period other comprehensive income (loss)       | (134)     | 188
        Ending balance                                             | (23)      | (403)
    """)
    doc = pymupdf.open()
    heads = ("Cash Flow Hedges", "Investments")
    page = titled_page(doc, "Changes in AOCI by component (In millions)", heads, _XS)
    write_ruled_rows(page, rows, _XS, lambda label: label in _RULED)
    return process_bytes(doc.tobytes(), source="aoci.pdf")


test_the_clean_table_raises_nothing = _aoci.quiet_test()


test_an_opening_balance_keyed_with_the_other_sign_is_flagged = _aoci.flagged_test(
    "TOT001", "Ending balance", opening="(111)"
)
