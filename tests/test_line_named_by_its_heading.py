"""A line whose name its heading begins: "Cash provided by (used in):" over "Investing activities".

An MD&A summarises the cash-flow statement in three lines under a heading that ends with a colon, the
start of each line's name: "Cash provided by (used in):" over "Operating activities", "Investing
activities", "Financing activities"; a selected-data table prints "Earnings per share:" over "Basic" and
"Diluted". The labels alone name no metric, so the summary's figures were never compared with the
statement's: Amazon's 2017 investing cash flow keyed (27,819) → (2,781) in the summary raised nothing
(development seed 27). A line the taxonomy does not know is looked up again with its heading before it;
an unlabelled line is not (under "Shareholders' equity:" it is the balance sheet's total).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, tables_result, titled_page, write_table

_XS = (470.0, 540.0)
_YEARS = ("2017", "2016")


@Keyed
def _report(investing: str = "(27,819)") -> DocumentResult:
    summary = page_rows(f"""
        Cash provided by (used in):   |              |
        Operating activities          | 18,434       | 17,272
        Investing activities          | {investing}  | (9,876)
        Financing activities          | 9,860        | (3,740)
    """)
    statement = page_rows("""
        Net income                                          | 3,033    | 2,371
        Depreciation and amortization                       | 11,478   | 8,116
        Other operating activities                          | 3,923    | 6,785
        Net cash provided by (used in) operating activities | 18,434   | 17,272
        Purchases of property and equipment                 | (11,955) | (7,804)
        Acquisitions, net of cash acquired                  | (13,972) | (116)
        Other investing activities                          | (1,892)  | (1,956)
        Net cash provided by (used in) investing activities | (27,819) | (9,876)
        Net cash provided by (used in) financing activities | 9,860    | (3,740)
    """)
    return tables_result(
        [
            ("Cash flow information is as follows (in millions):", summary),
            ("Consolidated Statements of Cash Flows (in millions)", statement),
        ],
        _YEARS,
        _XS,
        source="summary.pdf",
    )


test_the_clean_report_raises_nothing = _report.quiet_test()
test_a_summary_line_keyed_wrong_is_flagged = _report.flagged_test("XREF001", "(2,781)", investing="(2,781)")


def test_the_summary_lines_are_the_statements_metrics() -> None:
    metrics = {(f.page, f.metric) for f in _report().facts if f.page == 1}
    assert {m for _, m in metrics} >= {"operating_cash_flow", "investing_cash_flow", "financing_cash_flow"}


def test_an_unlabelled_line_under_the_heading_is_not_named_by_it() -> None:
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Balance Sheets (in millions)", (), ())
    write_table(page, 84.0, _YEARS, page_rows("""
        Total liabilities              | 4,614 | 4,892
        Shareholders' equity:          |       |
        Common stock and paid-in capital | 760 | 770
        Retained earnings              | 2,925 | 2,900
        Accumulated other comprehensive loss | (392) | (427)
        Total shareholders' equity     | 3,293 | 3,243
                                       | 7,907 | 8,135
    """), _XS)  # fmt: skip
    facts = process_bytes(doc.tobytes(), source="balance.pdf").facts
    assert 7_907e6 not in {f.value for f in facts if f.metric == "total_equity"}
