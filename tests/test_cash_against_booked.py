"""A line of the cash-flow statement and the same line of the statement of changes in equity are two figures.

Adobe's 2023 10-Q prints "Repurchases of common stock" as (2,404) in the statement of changes in equity and
(2,400) in the cash-flow statement: the equity statement books the buy-back when traded, with the excise tax
on it; the cash-flow statement counts the cash paid. Once the equity statement's period was read over its
components (``tests/test_spanning_heads.py``), the two lines were compared as one figure printed twice, and
their agreeing in the year before "proved" it: a false XST001. Between these two statements only net income
is one figure (:func:`pipeline.checks.crossref.one_measure`). Here on the generated layout variants with a
statement of changes in equity a year (the trait ``equity_statement``): dividends and buy-backs labelled
as the cash-flow statement labels them, the latest year's buy-back a round amount short of settled.
"""

from __future__ import annotations

import pytest

from sample_docs.generate import _label
from tests.support.layouts import LayoutCases

CASES = LayoutCases("cb", equity_statement=True)

test_a_buy_back_booked_and_not_yet_paid_raises_no_flag = CASES.quiet_test()


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_equity_statement_is_still_caught(name: str) -> None:
    first = _label(CASES.cases[name], "net", "Net income").split()
    # the latest year's statement of changes in equity (the year before's is printed last): retained
    # earnings, which its column's roll-forward to the closing balance adds up
    CASES.caught(name, first, "swap", "TOT001", occurrence=-2)
