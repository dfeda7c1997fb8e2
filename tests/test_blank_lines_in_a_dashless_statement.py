"""A statement that prints no dash leaves a nil line blank, and its totals are found all the same (generated).

Corning's cash-flow statements print no dash anywhere: "Severance charges" is blank in the year without
any, "Gain on sale of business" in the other. Every section had a blank line in some column, so no column
could test a run of its lines, no total was found, and a payment keyed with the wrong sign raised nothing.
In a table that prints no dash, a blank line is nil when the walk looks for its totals (the checks then
count a break in such a column only when a figure re-keyed explains it).
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result


@Keyed
def _cash_flows(redemption: str = "(507)") -> DocumentResult:
    rows = page_rows(f"""
        Net income                                | 494   | 1,187
        Depreciation                              | 622   | 687
        Severance charges                         | 73    |
        Gain on sale of business                  |       | (53)
        Changes in working capital                | (619) | (529)
        Net cash provided by operating activities | 570   | 1,292
        Repayments of short-term borrowings       | (73)  | (11)
        Proceeds from issuance of euro bonds      | 918   |
        Payment for redemption of preferred stock | (507) | {redemption}
        Purchases of common stock for treasury    |       | (201)
        Dividends paid                            | (495) | (462)
        Net cash used in financing activities     | (157) | (1,181)
    """)
    return table_result(
        "Consolidated Statements of Cash Flows (In millions)", ("2023", "2022"), rows, source="cash_flows.pdf"
    )


test_the_clean_statement_raises_nothing = _cash_flows.quiet_test()


test_a_payment_keyed_with_the_other_sign_is_flagged = _cash_flows.flagged_test(
    "TOT001", "Net cash used in financing activities", redemption="507"
)


def test_a_line_printed_in_one_year_only_is_not_taken_into_the_run_below_it() -> None:
    # Corning's reclassifications out of other comprehensive income: the investments' "net of tax" line,
    # printed in one year only, sits just above the hedges' lines. Blanks taken as nil, the run with it
    # holds in the other years, where it is blank, and breaks in its own year by exactly its figure.
    rows = page_rows("""
        Realized losses on investments, net of tax   | (14) |      |
        Realized (losses) gains on designated hedges | 1    | 4    | 20
        Cost of sales                                | (12) | (36) | 6
        Other expense (income), net                  | (2)  | (2)  | (3)
        Total before tax                             | (13) | (34) | 23
    """)
    result = table_result(
        "Reclassifications out of accumulated other comprehensive income",
        ("2017", "2016", "2015"),
        rows,
        (360.0, 430.0, 500.0),
        source="reclassifications.pdf",
    )
    assert result.flags == []
