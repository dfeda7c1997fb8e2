"""A line that names a balance at a date closes the roll-forward above it, whatever words come first.

A restructuring note rolls a provision forward by kind of cost: the expense incurred, non-cash changes,
cash payments, adjustments, and "Accrued restructuring action balances as of December 31, 2018" (3M's 2020
10-K). The closing line does not start with "Balance", so it was no closing balance, and with a column of
the kind that holds nothing but a dash in most rows, nothing proved the lines add up: an expense of 125
re-keyed 125,000 went unflagged. A named balance at a date is the roll-forward's closing line (a label that
also names a beginning is an opening one). Here, on the generated layout variants with such a note, the
clean document raises nothing and a keying error in the expense is flagged.
"""

from __future__ import annotations

import pytest

from pipeline.statements.labels import CLOSING_LABEL
from tests.support.layouts import LayoutCases

CASES = LayoutCases("rb", restructuring_balances=True)


@pytest.mark.parametrize(
    ("label", "closing"),
    [
        ("accrued restructuring action balances as of december 31 2018", True),
        ("restructuring balances at 31 december 2025", True),
        ("balance at end of year", True),
        ("accrued restructuring balances as of beginning of year", False),
        ("restructuring charges", False),
    ],
)
def test_a_named_balance_at_a_date_is_a_closing_line(label: str, closing: bool) -> None:
    assert bool(CLOSING_LABEL.search(label)) is closing


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("kind", ["scale", "drop", "swap"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_expense_is_flagged(name: str, kind: str) -> None:
    # the employee-related expense: the first figure after the year in "Expense incurred in 2025"
    year = str(max(CASES.cases[name].years))
    CASES.caught(name, ["Expense", "incurred", "in", year], kind, "TOT001")
