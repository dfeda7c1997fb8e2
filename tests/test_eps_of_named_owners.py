"""A per-share line that names whose earnings it divides pairs only with those earnings (generated filing).

"Basic earnings per share attributable to Acme Corp." divides the parent's net income. Where the table
prints only the consolidated net income (including the noncontrolling interests' share), EPS001 paired the
two: the interests' share, small in two years, let the pairing hold there, and the year it was not small
was flagged as an error (the fourth false-alarm class issue 23 lists: a numerator that is not the printed
figure). Such a line now pairs only with earnings lines that name owners too; where none is printed,
nothing is tested. Printed, it is checked as before.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, tables_result

_INCOME = [
    ("Revenue", ("10,000", "9,000", "8,000")),
    ("Operating expenses", ("8,600", "7,800", "7,000")),
    ("Net income", ("1,400", "1,200", "1,000")),
    ("Net income attributable to noncontrolling interests", ("(100)", "(20)", "(10)")),
    ("Net income attributable to Acme Corp.", ("1,300", "1,180", "990")),
]


@Keyed
def _filing(parent_printed: bool = False, basic: str = "2.60") -> DocumentResult:
    earnings = [("Net income", ("1,400", "1,200", "1,000"))]
    if parent_printed:
        earnings.append(("Net income attributable to Acme Corp.", ("1,300", "1,180", "990")))
    selected = [
        ("Revenue", ("10,000", "9,000", "8,000")),
        *earnings,
        ("Basic earnings per share attributable to Acme Corp.", (basic, "2.36", "1.98")),
        ("Diluted earnings per share attributable to Acme Corp.", ("2.55", "2.31", "1.94")),
        ("Weighted average shares outstanding — basic", ("500", "500", "500")),
        ("Weighted average shares outstanding — diluted", ("510", "510", "510")),
    ]
    return tables_result(
        [
            ("CONSOLIDATED STATEMENTS OF INCOME (in millions, except per share data)", _INCOME),
            ("SELECTED FINANCIAL DATA (in millions, except per share data)", selected),
        ],
        ("2023", "2022", "2021"),
        (340.0, 420.0, 500.0),
    )


test_the_consolidated_net_income_is_not_the_numerator = _filing.quiet_test()
test_the_named_numerator_printed_is_still_checked = _filing.flagged_test(
    "EPS001", "2.06", parent_printed=True, basic="2.06"
)
