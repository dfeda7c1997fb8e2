"""A statement that prints no dash means nil by a blank line: a column with a blank line is checked too.

Corning's cash-flow statements are in millions and print no dash: a line without a figure in a year is
left blank ("Proceeds from sale of a business", "Customer deposits"). A blank may also be a figure the
reader lost, so a column with a blank line was never checked, and a keying error in it went unflagged
(Corning's 2016 10-K, customer deposits of 197 re-keyed 917 by the planted-errors bench, was the case
found). When a proven total adds up to the unit in a column where one of its lines is blank, the statement
itself says its blanks are nil; where no column shows it, a break in a column with a blank line counts when
one printed figure, re-keyed, explains it (a lost figure breaks it by an arbitrary amount). Here, on the
generated layout variants printing nil as a blank, the clean document raises nothing, and a re-keyed
capital expenditure or dividend in a year with a blank line in its section is flagged on its page. (A
section blank in every column is not proven by this: its total is taken only where some column prints all
its lines.)
"""

from __future__ import annotations

import pytest

from bench.planted_errors import Candidate
from tests.support.layouts import LayoutCases, Word, evidence_of, lines_starting, rekeyed

CASES = LayoutCases("blank", nil="")
SECTIONS = (
    # A line always printed, then the section's lines that a year may leave blank.
    (
        ["Purchases", "of", "property,"],
        (["Proceeds", "from", "disposal"], ["Acquisition", "of", "subsidiaries,"]),
    ),
    (["Dividends", "paid"], (["Purchase", "of", "own", "shares"], ["Proceeds", "from", "borrowings"])),
)


def blank_columns(name: str) -> list[Candidate]:
    """Figures of the cash-flow statement's always-printed lines in a column where a line of their section
    is blank while another column prints every line of it (and so proves the section's total)."""
    data = CASES.rendered(name)
    out: list[Candidate] = []
    for target, others in SECTIONS:
        for page, figures in lines_starting(data, target):
            # (the statement may run onto the next page)
            printed = [
                [f for p, line in lines_starting(data, first) if p in (page, page + 1) for f in line]
                for first in others
            ]
            if not any(printed):
                continue

            def complete(w: Word, printed: list[list[Word]] = printed) -> bool:
                return all(any(abs(f[2] - w[2]) < 8 for f in line) for line in printed)

            if any(complete(w) for w in figures):
                out += [Candidate(page, (w[0], w[1], w[2], w[3]), w[4]) for w in figures if not complete(w)]
    return out


def test_some_layouts_print_a_blank_line_in_one_year() -> None:
    assert sum(1 for name in CASES.names() if blank_columns(name)) >= 2


test_the_statements_raise_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_column_with_a_blank_line_is_flagged(name: str) -> None:
    for target in blank_columns(name):
        new = rekeyed(target.text, "swap")
        hits, flags = CASES.planted_flags(name, target, new, "TOT001")
        assert evidence_of(hits, new), [f.message for f in flags]
