"""An option table's roll-forward is proven by its labels, and the average price beside it adds up nowhere.

A share option (or award) table rolls the number outstanding forward: "Options outstanding at the
beginning of the year" (or at the prior year end), granted, exercised, forfeited, "Options outstanding at
January 28, 2023". Its closing line calls itself neither a total nor a balance, so with one column of
options nothing proved it, and a keying error in it went unflagged (Foot Locker's 2022 10-K, 3,256 re-keyed
325 by the planted-errors bench). The closing line is named as the opening line at a later moment: that is
the roll-forward's label (:func:`pipeline.statements.labels.named_closing`).

The generated layouts with such a table showed a false flag with it: where the table's heads were read as
its title, the weighted average exercise price ("48.84" beside thousands of options) was taken for a column
of amounts and its "sum" flagged. Whole numbers beside figures in cents are a count and its price.
"""

from __future__ import annotations

import pytest

from bench.planted_errors import Candidate
from pipeline.statements.labels import named_closing, named_opening
from tests.support.layouts import LayoutCases, evidence_of, rekeyed

CASES = LayoutCases("op", option_rollforward=True)


@pytest.mark.parametrize(
    ("closing", "opening", "opens"),
    [
        ("options outstanding at january 28 2023", "options outstanding at the beginning of the year", True),
        ("outstanding at december 31 2022", "outstanding at december 31 2021", True),
        ("nonvested at end of year", "nonvested at beginning of year", True),
        ("outstanding at 30 june 2025", "outstanding at 30 june 2024", True),
        # an earlier moment below, another balance, or no moment at all: no roll-forward
        ("outstanding at december 31 2021", "outstanding at december 31 2022", False),
        ("options exercisable at january 28 2023", "options outstanding at the beginning of the year", False),
        ("options outstanding at fair value", "options outstanding at the beginning of the year", False),
    ],
)
def test_a_closing_line_is_named_as_its_opening_at_a_later_moment(
    closing: str, opening: str, opens: bool
) -> None:
    assert named_opening(closing, opening) is opens
    assert named_closing(closing, ["granted", opening, "exercised"]) is opens


test_the_option_table_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


def _proven(name: str) -> bool:
    lines = [
        ln
        for s in CASES.quiet(name).statements
        for ln in s.lines
        if ln.label.startswith("Options outstanding")
    ]
    return any(ln.proven and len(ln.children) == 4 for ln in lines)


def test_the_closing_line_adds_the_opening_and_the_movements() -> None:
    # Every layout but one: Kestrel's narrow label column wraps "Options outstanding at 31 December" over
    # "2025", and the reader does not join a wrapped label whose last line carries the figures.
    proven = [name for name in CASES.names() if _proven(name)]
    assert len(proven) == len(CASES.names()) - 1 and not any("kestrel" in n for n in proven), proven


def _closing_count(name: str) -> Candidate:
    """The closing line's number of options, as the clean document's statement read it."""
    (statement, line) = next(
        (s, ln)
        for s in CASES.quiet(name).statements
        for ln in s.lines
        if ln.label.startswith("Options outstanding") and ln.proven
    )
    table = next(t for t in CASES.clean(name).tables if t.table_id == statement.table_id)
    col = statement.columns[0].col
    cell = next(c for c in table.cells if (c.row, c.col) == (line.row, col))
    assert cell.bbox is not None
    return Candidate(cell.page, tuple(cell.bbox), cell.text.strip())  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["drop", "swap"])
@pytest.mark.parametrize("name", [n for n in CASES.names() if "kestrel" not in n])
def test_a_keying_error_in_the_closing_line_is_flagged(name: str, kind: str) -> None:
    target = _closing_count(name)
    new = rekeyed(target.text, kind)
    hits, flags = CASES.planted_flags(name, target, new, "TOT001")
    assert evidence_of(hits, new), [f.message for f in flags]
