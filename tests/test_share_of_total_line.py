"""A line of shares of a total is no total line (generated layout).

American Express's card statistics print "30+ days past due as a % of total" among amounts. Its label ends
with "total", so its percentage was read as the total line's: a "%" printed on a total line makes the
whole column percentages, and no column of the table was additive. The net interest income reconciliation
inside it (net interest income, the interest it excludes, the adjusted net interest income) was then never
summed, and a keyed error in it went unflagged (development seeds 33-34). "% of total", "percent of total",
"share of total" name a ratio, not the column's kind.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, table_result


@Keyed
def _statistics(net_interest_income: str = "799") -> DocumentResult:
    rows = [
        ("Billed business (billions)", ("281.6", "228.2", "187.5")),
        ("Total loans (billions)", ("13.8", "11.6", "9.2")),
        ("Net write-off rate", ("1.4 %", "2.1 %", "3.7 %")),
        ("30+ days past due as a % of total", ("1.2 %", "0.8 %", "1.7 %")),
        ("Net interest income", (net_interest_income, "674", "865")),
        ("Interest expense not attributable to our loan portfolio", ("270", "211", "205")),
        ("Interest income not attributable to our loan portfolio", ("(28)", "(11)", "(17)")),
        ("Adjusted net interest income", ("1,041", "874", "1,053")),
    ]
    return table_result(
        "SELECTED STATISTICAL INFORMATION (Millions, except percentages and where indicated)",
        ("2022", "2021", "2020"),
        rows,
        (340.0, 420.0, 500.0),
    )


test_the_clean_table_raises_nothing = _statistics.quiet_test()
test_the_reconciliation_keyed_wrong_is_flagged = _statistics.flagged_test(
    "TOT001", "Adjusted net interest income", net_interest_income="979"
)
