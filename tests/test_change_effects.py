"""A section total printed over only some of its lines is its section's total all the same.

3M's 2021 10-K shows the effect of a change in accounting principle on each statement, the years under the
prior method and as adjusted, and prints only the lines the change moved: the other comprehensive income
section shows its pension line and its total, which that line alone does not make up. The tree builder
left the total an item, so the pension line stayed in view and comprehensive income (net income plus the
section's total) was added up by no run: its 4,161 keyed (4,161) went unflagged. Now a "Total …" line
whose section heading bears its name, and whose lines add up to it in no column, is taken as that
section's total, unproven (``_Walk.excerpt`` in :mod:`pipeline.statements.totals`). Here, on the generated
layout variants with such a note (the trait ``change_effects``).
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("ce", change_effects=True)


@pytest.mark.parametrize("name", CASES.names())
def test_comprehensive_income_adds_up_net_income_and_the_section_total(name: str) -> None:
    CASES.proven_total(name, "Comprehensive income", 2)
    (section,) = CASES.lines(name, "Total other comprehensive income, net of tax")
    assert not section.proven and len(section.children) == 1, section  # an excerpt proves nothing


@pytest.mark.parametrize("kind", ["sign", "swap"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_comprehensive_income_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Comprehensive", "income"], kind, "TOT001", column=2)
