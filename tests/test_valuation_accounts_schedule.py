"""A schedule of valuation and qualifying accounts whose allowance is for "price protection".

Schedule II of a 10-K rolls each allowance forward in a row: balance at the beginning of the period,
additions, deductions, balance at the end. No head said "Total", so only the rows could prove that the last
column adds up the others, and five of them, each far from nil, had to; and a row whose label names a price
was left out (a price is no amount), "Allowances for sales returns and price protection" among them. A
valuation allowance keyed 181 → 811 broke a sum nobody had proved (development seeds 19-21). A column headed
as the closing balance beside one headed as the opening is their total, as a "Total" head is; "price
protection", "price concessions" and "price adjustments" are amounts
(:mod:`pipeline.statements.column_sums`).
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("Beginning of Period", "Additions", "Deductions", "End of Period")
_XS = (330.0, 400.0, 470.0, 540.0)


@Keyed
def _schedule(returns_2020: str = "118", opening_2020: str = "181") -> DocumentResult:
    rows = page_rows(f"""
        At December 31, 2021                              |                |      |      |
        Allowances for sales returns and price protection | 63             | 3    | (49) | 17
        Valuation allowance for deferred tax assets       | 228            | 52   | (2)  | 278
        At December 31, 2020                              |                |      |      |
        Allowances for sales returns and price protection | {returns_2020} | (29) | (26) | 63
        Valuation allowance for deferred tax assets       | {opening_2020} | 49   | (2)  | 228
        At December 31, 2019                              |                |      |      |
        Allowances for sales returns and price protection | 186            | 11   | (79) | 118
        Valuation allowance for deferred tax assets       | 61             | 127  | (7)  | 181
    """)
    return table_result(
        "Schedule II - Valuation and Qualifying Accounts (Amounts in millions)",
        _HEADS,
        rows,
        _XS,
        source="schedule.pdf",
    )


test_the_clean_schedule_raises_nothing = _schedule.quiet_test()


test_an_opening_balance_keyed_wrong_is_flagged = _schedule.flagged_test("TOT002", "811", opening_2020="811")


test_a_price_protection_allowance_keyed_wrong_is_flagged = _schedule.flagged_test(
    "TOT002", "181", returns_2020="181"
)
