"""A cost printed in parentheses beside its plain copy, where both tables print it alike (generated).

Costs are compared by magnitude, because tables print them with either sign: "(1,448)" in one and "1,448"
in another are one figure. But two tables whose same lines agree, signed, in another period print the cost
under one convention, and a copy in parentheses beside the other's plain figure is then a sign keyed wrong.
It is flagged (XREF001, "the sign flipped") only on that proof.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, titled_page, write_table

_STATEMENT = page_rows("""
    Net revenue                           | 23,601 | 16,434
    Cost of sales                         | 11,550 | 8,505
    Gross profit                          | 12,051 | 7,929
    Research and development              | 5,005  | 2,845
    Marketing, general and administrative | 2,336  | 1,448
    Operating income                      | 4,710  | 3,636
""")


@Keyed
def _filing(summary_cost: str = "2,845", statement_cost: str = "5,005") -> DocumentResult:
    doc = pymupdf.open()
    heads = ("2022", "2021")
    page = titled_page(doc, "Consolidated Statements of Operations (In millions)", (), ())
    page.insert_text((300, 72), "Years Ended December 31,", fontsize=9.0)
    write_table(page, 84.0, heads, _STATEMENT)
    page = titled_page(doc, "Selected Financial Data (In millions)", (), ())
    page.insert_text((300, 72), "Years Ended December 31,", fontsize=9.0)
    summary = page_rows(f"""
        Net revenue                           | 23,601           | 16,434
        Research and development              | {statement_cost} | {summary_cost}
        Marketing, general and administrative | 2,336            | 1,448
    """)
    write_table(page, 84.0, heads, summary)
    return process_bytes(doc.tobytes(), source="filing.pdf")


test_the_clean_filing_raises_nothing = _filing.quiet_test()


test_a_cost_keyed_with_the_other_sign_is_flagged = _filing.flagged_test(
    "XREF001", "sign", summary_cost="(2,845)"
)


def test_a_table_that_prints_costs_in_parentheses_raises_nothing() -> None:
    assert _filing(summary_cost="(2,845)", statement_cost="(5,005)").flags == []
