"""A lease note's liabilities split under "Less:" lines printed positive.

3M's 10-Ks print, under the undiscounted payments and their "Total", "Less: Amounts representing interest",
"Present value of future minimum lease payments" under a rule, "Less: Current obligations" and
"Long-term obligations". The normalised labels lose the "Less:", and neither "amounts representing
interest" nor "current obligations" names a cost, so both lines were signed as added; "payments" made the
present value a cost, and "the first less the rest" was refused to a line its place alone makes a total.
The present value and the long-term part were no totals, and a current portion keyed with a digit dropped
(261 printed 21) raised nothing (development seed 16-18). Now a line that begins "Less:" is subtracted
when printed positive whatever its other words, and "the first less the rest" asks its label's sign of
every line but the first, which is what the rest are deducted from; and the line under a deduction is a
(weak) total whatever it calls itself, which its figures must prove. Here on the generated layout variants
with such a note: the clean document raises nothing, both lines are proven totals, and a keying error in
the current portion is flagged. A sign keyed wrong there is not: in two columns "Less: Current obligations"
added as printed holds in the planted column as well as subtracted in the other, and the tree cannot tell
which column is wrong (a limit of two-column tables, not of this layout).
"""

from __future__ import annotations

import pytest

from pipeline.figures.taxonomy import load_taxonomy
from pipeline.statements.build import build_statements
from tests.support.layouts import LayoutCases
from tests.support.printed import printed_rows
from tests.support.tables import make_table

CASES = LayoutCases("ls", lease_kinds=True, lease_split=True)


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_the_present_value_and_the_long_term_part_are_totals(name: str) -> None:
    CASES.proven_total(name, "Present value of future minimum lease payments", 2)
    CASES.proven_total(name, "Long-term obligations", 2)


@pytest.mark.parametrize("kind", ["swap", "scale"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_current_portion_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Less:", "Current", "obligations"], kind, "TOT001")


def test_the_next_line_of_a_list_under_a_deduction_is_no_total() -> None:
    # Foot Locker's balance sheet: "Noncontrolling interest" under "Less: Treasury stock" is the next line of
    # the equity section, though total assets less everything above it lands on it by the balance sheet's
    # identity. The line under a deduction is what is left of the two lines above it, or no total.
    rows = printed_rows("""
        Total assets                         | 8,135 | 7,907
        Total liabilities                    | 4,892 | 4,614
        Common stock and paid-in capital     | 770   | 760
        Retained earnings                    | 2,900 | 2,925
        Accumulated other comprehensive loss | (343) | (392)
        Less: Treasury stock at cost         | (88)  | —
        Noncontrolling interest              | 4     | —
    """)
    table = make_table(rows, periods=("2022-01-29", "2023-01-28"))
    (statement,) = build_statements([table], {}, load_taxonomy())
    roles = {line.label: line.role for line in statement.lines}
    assert roles["Noncontrolling interest"] == "item"
