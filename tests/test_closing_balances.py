"""TOT003: a quarter's total line of a column of balances repeats the balance after its last month.

A table of issuer purchases of equity securities prints, month by month, the shares bought and what may
yet be purchased under the programs; the quarter's total line adds up the shares but repeats the balance.
No check related the balance column to anything (it is not additive), so a keying error in it went
unflagged (found on 3M's 2018 and 2020 10-Ks, re-keyed by the planted-errors bench: the September balance
1,504 -> 15,504). Here, on the generated layout variants with such a table, the clean document raises
nothing, a re-keyed balance after a quarter's last month is flagged on its page, and a table whose balance
column adds up plans (not periods) is left alone.
"""

from __future__ import annotations

import pytest

from pipeline.checks.closing import check_closing_balances
from tests.support.layouts import LayoutCases
from tests.support.tables import make_table

CASES = LayoutCases("bb", buybacks=True)


test_the_buybacks_table_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_quarter_end_balance_is_flagged(name: str) -> None:
    # What may yet be purchased after September.
    CASES.caught(name, ["Sep"], "swap", "TOT003", column=-1)


def test_a_column_of_balances_by_plan_adds_up_and_is_left_alone() -> None:
    # Securities remaining available for future issuance, by plan: the total adds the plans up.
    rows = [
        ("Equity compensation plans approved by shareholders", ["21,340"]),
        ("Equity compensation plans not approved by shareholders", ["5,000"]),
        ("Total", ["26,340"]),
    ]
    table = make_table(rows, periods=(None,), headers=("Number of securities remaining available",))
    assert check_closing_balances([table]) == []
