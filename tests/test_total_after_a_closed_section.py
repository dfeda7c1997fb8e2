"""A line under a section closed by its subtotal belongs to the enclosing section again.

A purchase price allocation prints the price paid and its total, then "Allocation": goodwill, "Intangible
assets:" with their lines and an unlabelled subtotal, the other assets and liabilities, and an unlabelled
last line equal to the price. That line adds up goodwill, the intangibles' subtotal and the lines after it;
but a line that does not say it is a total adds up only its own section, and the walk kept "Intangible
assets:" as the section after its subtotal had closed it, so goodwill, printed above that heading, was out
of reach and no structure held. A goodwill keyed wrong raised nothing (Amazon's 2017 acquisitions,
development seeds 25-26; the allocation table is in every 10-K that reports a business combination). A
total that adds up every line left in view under its heading closes the section
(:func:`pipeline.statements.totals.build_tree`).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, only_flag, page_rows, titled_page, write_ruled_rows

_XS = (400.0, 470.0, 540.0)


@Keyed
def _allocation(goodwill: str = "9,501", debt: str = "(1,165)") -> DocumentResult:
    rows = page_rows(f"""
        Purchase price                  |         |      |
        Cash paid, net of cash acquired | 13,859  | 81   | 599
        Stock options assumed           | —       | —    | 5
        Indemnification holdback        | 104     | 22   | 86
                                        | 13,963  | 103  | 690
        Allocation                      |         |      |
        Goodwill                        | {goodwill} | 60   | 482
        Intangible assets:              |         |      |
        Marketing-related               | 1,987   | 2    | 3
        Contract-based                  | 440     | 1    | 1
        Technology-based                | 166     | 53   | 208
        Customer-related                | 54      | 1    | 18
                                        | 2,647   | 57   | 230
        Property and equipment          | 3,810   | 3    | 4
        Deferred tax assets             | 117     | 17   | 55
        Other assets acquired           | 1,858   | 10   | 53
        Long-term debt                  | {debt}  | (5)  | (3)
        Deferred tax liabilities        | (961)   | (18) | (85)
        Other liabilities assumed       | (1,844) | (21) | (46)
                                        | 13,963  | 103  | 690
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Acquisition activity (in millions)", ("2017", "2016", "2015"), _XS)
    write_ruled_rows(page, rows, _XS, lambda label: label == "")  # each total under its rule
    return process_bytes(doc.tobytes(), source="allocation.pdf")


test_the_clean_allocation_raises_nothing = _allocation.quiet_test()


def test_a_goodwill_keyed_wrong_is_flagged_and_localized() -> None:
    flag = only_flag(_allocation(goodwill="9,051"), "TOT001")
    assert flag.localization is not None and flag.localization.corrected == ["9,501"]


test_a_liability_keyed_wrong_is_flagged = _allocation.flagged_test("TOT001", "(1,615)", debt="(1,615)")
