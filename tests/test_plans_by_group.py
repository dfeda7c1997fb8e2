"""Two tables of plans by group, each column's group over its balance-sheet date, that print the same figures.

Kraft Heinz's 2021 10-K prints the obligations and assets of its U.S. and non-U.S. plans twice, for the
plans underfunded on the accumulated and on the projected obligation, "U.S. Plans" over "December 25,
2021  December 26, 2020". Two readings stood between the two copies: a date under a name was no period
(a year under one was), and lines in a plan's or a segment's column had no copies at all. Now each column
has its group and its date, each line is compared with the same line of the same group and date in the
other table, and a re-keyed figure in either is flagged. Here, on the generated layout variants with such
a note (the trait ``plans_by_group``).
"""

from __future__ import annotations

import re

import pytest

from bench.planted_errors import Candidate
from tests.support.layouts import LayoutCases, evidence_of, lines_starting, rekeyed

CASES = LayoutCases("pg", plans_by_group=True)


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_each_column_has_its_group_and_its_date(name: str) -> None:
    statements = [s for s in CASES.quiet(name).statements if any(x.label == "Plan assets" for x in s.lines)]
    assert len(statements) == 2
    for statement in statements:
        # (a title read into the heads stays before the group: "plans underfunded ... domestic")
        groups = ["domestic"] * 2 + ["foreign"] * 2
        assert all((c.context or "").endswith(g) for c, g in zip(statement.columns, groups, strict=True))
        periods = [c.period.key if c.period else "" for c in statement.columns]
        assert "" not in periods and periods[:2] == periods[2:] and periods[0] > periods[1]


def _obligation(name: str, table: int, column: int) -> Candidate:
    """The accumulated obligation of a column in the first or the second table (its label may wrap: the
    line is found as the second of the table's three lines of four figures)."""
    found = [
        (page, figs)
        for page, figs in lines_starting(CASES.rendered(name), [])
        if len(figs) == 4 and all(re.fullmatch(r"\(?\d{1,3}(?:,\d{3})*(?:\.\d+)?\)?", w[4]) for w in figs)
    ]
    assert len(found) == 6, found
    page, figures = found[3 * table + 1]
    w = figures[column]
    return Candidate(page, (w[0], w[1], w[2], w[3]), w[4])


@pytest.mark.parametrize("kind", ["sign", "swap"])
@pytest.mark.parametrize(("table", "column"), [(0, 1), (1, 3)])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_either_copy_is_flagged(name: str, table: int, column: int, kind: str) -> None:
    target = _obligation(name, table, column)
    new = rekeyed(target.text, kind)
    hits, flags = CASES.planted_flags(name, target, new, "XREF001")
    assert evidence_of(hits, new), [f.message for f in flags]
