"""The four quarters of a year add up to the year printed on the statements (generated pages).

An annual report prints its unaudited quarterly results, "First Quarter | Second Quarter | Third Quarter |
Fourth Quarter" under "Year Ended December 31, 2017", and the year only on the income statement. Each
quarter's lines add up in their own column with the signs their labels give, so a provision for income
taxes keyed (229) → 229 broke nothing, and a figure keyed wrong in any quarter was compared with nothing
(Amazon's 2017 10-K, development seed 27). QTR001 adds each line's four quarters and compares them with the
year's figure printed elsewhere, once two other lines of the table add up to theirs.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, Keyed, page_rows, right_aligned, titled_page, write_table

_QUARTERS = ("First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter")
_XS = (300.0, 380.0, 460.0, 540.0)


@Keyed
def _report(first_quarter_tax: str = "(229)") -> DocumentResult:
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Statements of Operations (in millions)", (), ())
    write_table(page, 84.0, ("2017", "2016"), page_rows("""
        Net sales                  | 177,866 | 135,987
        Operating expenses         | 173,760 | 131,801
        Operating income           | 4,106   | 4,186
        Income before income taxes | 3,806   | 3,892
        Provision for income taxes | (769)   | (1,425)
        Net income                 | 3,033   | 2,371
    """), (470.0, 540.0))  # fmt: skip
    page = titled_page(doc, "Quarterly Results (unaudited, in millions)", (), ())
    year = "Year Ended December 31, 2017"  # centred over the four quarters
    middle = (_XS[0] - pymupdf.get_text_length(_QUARTERS[0], fontsize=SIZE) + _XS[-1]) / 2
    page.insert_text((middle - pymupdf.get_text_length(year, fontsize=SIZE) / 2, 84.0), year, fontsize=SIZE)
    for x, head in zip(_XS, _QUARTERS, strict=True):
        right_aligned(page, x, 97.0, head)
    write_table(page, 97.0, ("", "", "", ""), page_rows(f"""
        Net sales                  | 35,714 | 37,955 | 43,744 | 60,453
        Operating income           | 1,005  | 628    | 347    | 2,127
        Income before income taxes | 953    | 666    | 316    | 1,872
        Provision for income taxes | {first_quarter_tax} | (467) | (58) | (16)
        Net income                 | 724    | 197    | 256    | 1,856
    """), _XS)  # fmt: skip
    return process_bytes(doc.tobytes(), source="quarters.pdf")


test_the_clean_report_raises_nothing = _report.quiet_test()
test_a_quarter_keyed_with_the_other_sign_is_flagged = _report.flagged_test(
    "QTR001", "Provision for income taxes", first_quarter_tax="229"
)
test_a_quarter_keyed_with_a_digit_dropped_is_flagged = _report.flagged_test(
    "QTR001", "Provision for income taxes", first_quarter_tax="(29)"
)
