"""A column that rolls each row forward, proven by many rows of small figures.

A schedule of valuation and qualifying accounts prints, for each allowance and year, the balance at the
beginning, the charges, the deductions and the balance at the end, a column each. The last column adds up
the others in every row, but with allowances of tens no single row is large enough to prove a column sum on
its own (a sum of small figures lands on a small total by chance too often), and no head says "Total": the
schedule proved nothing, and a keying error in it went unflagged (eBay's 2021 10-K, a charge of 153 re-keyed
135 by the planted-errors bench, was the case found). Row after row adding up is itself the evidence, as
several columns are for a total line. Here, on the generated layout variants with such a schedule, the
clean document raises nothing and a re-keyed charge is flagged on its page.
"""

from __future__ import annotations

import pytest

from bench.planted_errors import Candidate
from tests.support.layouts import LayoutCases, evidence_of, lines_starting, rekeyed

CASES = LayoutCases("va", valuation_accounts=True)


test_the_schedule_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


def a_charge(name: str) -> Candidate:
    """The latest year's charge to the first allowance whose digits can be swapped: the second figure of a
    line that starts with that year and prints the schedule's four figures."""
    year = str(max(CASES.cases[name].years))
    page, w = next(
        (page, figures[1])
        for page, figures in lines_starting(CASES.rendered(name), [year])
        if len(figures) == 4 and len(set(figures[1][4].strip("()"))) > 1
    )
    return Candidate(page, (w[0], w[1], w[2], w[3]), w[4])


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_charge_is_flagged(name: str) -> None:
    target = a_charge(name)
    new = rekeyed(target.text, "swap")
    hits, flags = CASES.planted_flags(name, target, new, "TOT002")
    assert evidence_of(hits, new), [f.message for f in flags]
