"""A heading that names a non-GAAP measure is no segment: the lines it adds up are the statements' (generated
filing).

3M's MD&A prints "Free Cash Flow (non-GAAP measure)" over operating cash flow, capital expenditure, the
free cash flow they make, the net income attributable to 3M and the conversion ratio. The heading was read
as a dimension of its own, as "Non-GAAP - Continuing Operations" is (a section of the company's own
measures), so the net income under it was compared with nothing, and keyed wrong it broke nothing
(development seeds 33-34). A heading that names a measure of the taxonomy and says it is non-GAAP, in
parentheses, is the measure's computation: its inputs are the reported figures.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, tables_result


@Keyed
def _filing(net_income: str = "4,570") -> DocumentResult:
    income = [
        ("Net sales", ("32,184", "32,136")),
        ("Operating expenses", ("25,000", "26,000")),
        ("Net income including noncontrolling interest", ("5,388", "4,582")),
        ("Net income attributable to noncontrolling interest", ("4", "12")),
        ("Net income attributable to 3M", ("5,384", "4,570")),
    ]
    cash = [
        ("Net cash provided by operating activities", ("8,113", "7,070")),
        ("Purchases of property, plant and equipment", ("(1,501)", "(1,699)")),
        ("Net cash used in investing activities", ("(580)", "(6,444)")),
    ]
    summary = [
        ("Free Cash Flow (non-GAAP measure)", ("", "")),
        ("Net cash provided by operating activities", ("8,113", "7,070")),
        ("Purchases of property, plant and equipment", ("(1,501)", "(1,699)")),
        ("Free cash flow", ("6,612", "5,371")),
        ("Net income attributable to 3M", ("5,384", net_income)),
        ("Free cash flow conversion", ("123 %", "118 %")),
    ]
    return tables_result(
        [
            ("CONSOLIDATED STATEMENT OF INCOME (Millions)", income),
            ("CONSOLIDATED STATEMENT OF CASH FLOWS (Millions)", cash),
            ("Cash flows (Millions)", summary),
        ],
        ("2020", "2019"),
    )


test_the_clean_filing_raises_nothing = _filing.quiet_test()
test_net_income_under_the_measure_s_heading_keyed_wrong_is_flagged = _filing.flagged_test(
    "XREF001", "4,750", net_income="4,750"
)
