"""Each year's opening balance is the year before's closing, in a roll-forward printed year beside year.

3M's restricted stock units note prints 2018, 2017 and 2016 side by side, each as "Number of Shares |
Weighted Average Grant Date Fair Value", from "Undistributed balance — As of January 1" to "As of December
31". One year's opening is the next older year's closing in both columns; no rule read that, and a weighted
average enters no sum, so 142.98 keyed 42.98 as a year's opening raised nothing (development seeds 19-21).
Groups of columns whose heads read alike without their dates, whose openings repeat the closings beside
them in two places at least, flag the one that does not when it differs as a keying error would
(:mod:`pipeline.checks.carried`).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, Keyed, page_rows, titled_page, write_table

_XS = (270.0, 330.0, 390.0, 450.0, 510.0, 570.0)


@Keyed
def _units(opening_2017: str = "142.98", closing_2016: str = "142.98") -> DocumentResult:
    rows = page_rows(f"""
        Balance as of January 1 | 686   | 171.90 | 656   | {opening_2017} | 871   | 120.89
        Granted                 | 166   | 229.13 | 201   | 191.28         | 219   | 160.17
        Distributed             | (206) | 159.82 | (314) | 124.88         | (367) | 99.06
        Performance change      | (56)  | 198.39 | 155   | 173.91         | (38)  | 155.98
        Forfeited               | (28)  | 204.09 | (12)  | 171.36         | (29)  | 149.08
        As of December 31       | 562   | 188.96 | 686   | 171.90         | 656   | {closing_2016}
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Restricted stock units (shares in thousands)", (), ())
    for year, first, last in (
        ("2018", _XS[0] - 40, _XS[1]),
        ("2017", _XS[2] - 40, _XS[3]),
        ("2016", _XS[4] - 40, _XS[5]),
    ):
        width = pymupdf.get_text_length(year, fontsize=SIZE)
        page.insert_text(((first + last - width) / 2, 84), year, fontsize=SIZE)
    write_table(page, 96, ("Shares", "Value") * 3, rows, _XS)
    return process_bytes(doc.tobytes(), source="units.pdf")


test_the_clean_roll_forward_raises_nothing = _units.quiet_test()


test_an_opening_keyed_wrong_is_flagged = _units.flagged_test("TOT003", "42.98", opening_2017="42.98")


test_a_closing_keyed_wrong_is_flagged = _units.flagged_test("TOT003", "124.98", closing_2016="124.98")
