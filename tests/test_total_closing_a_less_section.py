"""A total that closes a "Less:" section and the line it adjusts is not deducted itself.

Boston Properties reconciles net income to funds from operations over five years: net income, "Add:" and
"Less:" adjustments, "Income from continuing operations", then "Add:" depreciation, "Less:" gains and
noncontrolling interests, and FFO. The lines under "Less:" are deducted; the walk gave the same sign to
the total under them, which adds them to the net income above the heading, so FFO (that total, plus
depreciation, less the rest) matched no structure and a year's FFO keyed 839,369 → 389,369 raised nothing
(development seeds 19-21). A total whose components reach above the heading closes the section
(:func:`pipeline.statements.totals.build_tree`).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from sample_docs.generate import winansi
from schemas.models import DocumentResult
from tests.support.pages import Keyed, titled_page, write_ruled_rows

_XS = (330.0, 400.0, 470.0, 540.0)
_NIL = winansi("—")


@Keyed
def _ffo(ffo_2013: str = "1,295,778") -> DocumentResult:
    rows = [
        ("Net income attributable to the Company", ("648,748", "499,129", "841,516", "334,601")),
        ("Add:", ("", "", "", "")),
        ("Preferred distributions", ("10,500", "10,500", "8,057", _NIL)),
        ("Noncontrolling interests in property partnerships", ("149,855", "30,561", "1,347", "3,792")),
        ("Less:", ("", "", "", "")),
        ("Gains on sales of real estate from discontinued operations", (_NIL, _NIL, "115,459", "38,445")),
        ("Gains on sales of real estate", ("377,093", "174,686", _NIL, _NIL)),
        ("Income from continuing operations", ("432,010", "365,504", "735,461", "299,948")),
        ("Add:", ("", "", "", "")),
        ("Real estate depreciation and amortization", ("636,602", "637,954", "602,304", "534,570")),
        ("Less:", ("", "", "", "")),
        ("Partners' share of property partnerships", ("139,569", "93,864", "33,930", "5,684")),
        ("Preferred distributions", ("10,500", "10,500", "8,057", _NIL)),
        ("Funds from operations attributable to the Company", ("918,543", "899,094", ffo_2013, "828,834")),
    ]
    doc = pymupdf.open()
    page = titled_page(doc, "Funds from operations (in thousands)", ("2015", "2014", "2013", "2012"), _XS)
    # the figures of each total underlined, as US filings print them
    write_ruled_rows(page, rows, _XS, lambda label: label.startswith(("Income from", "Funds from")))
    return process_bytes(doc.tobytes(), source="ffo.pdf")


test_the_clean_reconciliation_raises_nothing = _ffo.quiet_test()


test_a_years_ffo_keyed_wrong_is_flagged = _ffo.flagged_test(
    "TOT001", "Funds from operations", ffo_2013="1,259,778"
)
