"""A single-step income statement: an unlabelled total under "Costs and expenses" is subtracted.

US hospitality and real-estate filers print "Revenues" and "Costs and expenses" as sections, each closed by a
total without a label, costs positive, then the operating line: revenues less costs plus the share of
affiliates' profit. The costs' total had no label to say it is a cost, so no sign convention fitted, the
operating line was no total, and a figure only it adds went unflagged (found on MGM Resorts' fourth-quarter
2022 statement of operations, re-keyed by the planted-errors bench: income from unconsolidated affiliates
(40,325) -> 40,325). An unlabelled total now takes its sign from its section's heading.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("single", single_step=True)


@pytest.mark.parametrize("name", CASES.names())
def test_the_operating_line_is_proven_and_nothing_is_flagged(name: str) -> None:
    income = next(s for s in CASES.quiet(name).statements if s.kind == "income")
    operating = next(line for line in income.lines if line.metric == "operating_income")
    assert operating.proven and len(operating.children) == 3, operating


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_affiliates_line_is_flagged(name: str) -> None:
    CASES.caught(name, ["Share", "of", "profit", "of", "associates"], "double", "TOT001", occurrence=-1)
