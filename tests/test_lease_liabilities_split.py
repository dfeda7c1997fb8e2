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

from tests.support.layouts import LayoutCases

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
