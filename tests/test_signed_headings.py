"""Lines under an "Add:" or "Less:" heading are added or subtracted as the heading says.

Reconciliations (net operating income to net income, EBITDA to profit) print their lines in sections headed
"Add:" and "Less:", each line a positive amount. The sign conventions the tree builder tries — as printed,
the first less the rest, each line by its own words — all fail where a subtracted line names no cost
("Preferred distributions", "Exceptional items") or an added one does: the reconciliation proved nothing,
and a keying error in it went unflagged (Boston Properties' 2015 10-K, gains on sales of real estate of
377,093 printed in parentheses by the planted-errors bench, was the case found). Here, on the generated
layout variants with such a reconciliation, the clean document raises nothing and its last line is proven,
and a re-keyed line under "Less:" is flagged on its page.
"""

from __future__ import annotations

import pytest

from pipeline.statements.labels import heading_sign
from tests.support.layouts import LayoutCases

CASES = LayoutCases("signed", signed_headings=True)


def test_the_headings_that_sign_their_lines() -> None:
    assert [heading_sign(h) for h in ("Add:", "Add back:", "Plus:", "Less:", "Deduct:", "LESS")] == [
        1,
        1,
        1,
        -1,
        -1,
        -1,
    ]
    assert [heading_sign(h) for h in ("Additions", "Less: current portion", "Adjustments:")] == [None] * 3


@pytest.mark.parametrize("name", CASES.names())
def test_the_reconciliation_is_proven_and_nothing_is_flagged(name: str) -> None:
    label = CASES.cases[name].labels.get("net", "Profit for the year")
    last = CASES.lines(name, label)[-1]
    assert last.proven and len(last.children) == 6, last


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_under_less_is_flagged(name: str) -> None:
    CASES.caught(name, ["Exceptional", "items"], "swap", "TOT001")


@pytest.mark.parametrize("name", CASES.names())
def test_a_sign_flipped_under_less_in_one_column_is_flagged_in_that_column(name: str) -> None:
    # The line then prints a figure in parentheses in one column of two: half its figures, which read as
    # the convention "as printed" and moved the break to the column keyed right (found on mixed layouts).
    caught = CASES.caught(name, ["Exceptional", "items"], "sign", "TOT001", column=1)
    messages = [f.message for f in caught.hits]
    assert any(f"were {caught.target.text}" in m for m in messages), messages
