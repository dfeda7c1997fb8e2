"""A balance carried unchanged through a roll-forward whose movements are blank in its column.

A count of shares by class rolls each year forward: "Balance at January 1", "Issued", "Acquired", the
balance at the year's end, three years in a row; the common stock issued never changes, so its column
prints the balance and nothing beside it. A blank movement may be a figure the reader lost, so a
roll-forward failing in a column with a blank line was taken for a misread one and not flagged, and the
last balance keyed 1,012,261,159 → 101,261,159 raised nothing (Boeing's 2022 10-K, development seed 26).
Two other years holding in the same column with their blanks show the blanks are nil
(:func:`pipeline.checks.sums.check_tree`).
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("Common Stock", "Treasury Stock")
_XS = (440.0, 540.0)


@Keyed
def _shares(common_2022: str = "1,012,261,159", opening: str = "1,012,261,159") -> DocumentResult:
    rows = page_rows(f"""
        Balance at January 1, 2020   | {opening}      | 449,352,405
        Issued                       |                | (19,986,868)
        Acquired                     |                | 575,484
        Balance at December 31, 2020 | 1,012,261,159  | 429,941,021
        Issued                       |                | (6,904,556)
        Acquired                     |                | 307,242
        Balance at December 31, 2021 | 1,012,261,159  | 423,343,707
        Issued                       |                | (8,877,047)
        Acquired                     |                | 204,723
        Balance at December 31, 2022 | {common_2022}  | 414,671,383
    """)
    return table_result("Changes in each class of shares", _HEADS, rows, _XS, source="shares.pdf")


test_the_clean_roll_forward_raises_nothing = _shares.quiet_test()

test_the_last_balance_keyed_wrong_is_flagged = _shares.flagged_test(
    "TOT001", "101,261,159", common_2022="101,261,159"
)

test_the_first_balance_keyed_wrong_is_flagged = _shares.flagged_test(
    "TOT001", "1,012,621,159", opening="1,012,621,159"
)
