"""Column heads of a ruled grid are split at its cell walls, however close their texts sit.

In a fully ruled table a right-aligned head ("Price") and the left-aligned head of the next cell ("May yet
be purchased ($m)") can be closer than a column gap. The line's segments were split by gaps alone, so the
two heads read as one cell over the last column; the price column lost its head ("Price" is what keeps
prices out of the sums) and its quarter averages were flagged as broken totals. Found on a mixed layout
(``sample_docs.mixed``: a fully ruled grid with a serif face and a table of issuer purchases); here, the
seven layout variants drawn as grids.
"""

from __future__ import annotations

import pytest

from pipeline.parse.layout import Line, split_at_walls, split_segments
from tests.support.layouts import LayoutCases

CASES = LayoutCases("gh", buybacks=True, style="grid")


@pytest.mark.parametrize("name", CASES.names())
def test_grid_heads_keep_their_cells_and_raise_nothing(name: str) -> None:
    result = CASES.quiet(name)
    table = next(t for t in result.tables if any(c.text.startswith("Total Q4") for c in t.cells))
    heads = sorted((c.col, c.text) for c in table.cells if c.is_header)
    assert [text for _, text in heads] == ["Shares", "Price", "May yet be purchased ($m)"], heads


def _line(*words: tuple[float, float, str]) -> Line:
    line = Line(0.0, 9.0, [(x0, 0.0, x1, 9.0, text, 0, 0, i) for i, (x0, x1, text) in enumerate(words)])
    line.segments = split_segments(line)
    return line


def test_a_wall_between_two_words_splits_their_segment() -> None:
    line = _line((100.0, 120.0, "Price"), (124.0, 140.0, "May"), (142.0, 155.0, "yet"))
    assert [s.text for s in line.segments] == ["Price May yet"]
    split = split_at_walls(line, line.segments, [122.0])
    assert [(s.text, s.x0, s.x1) for s in split] == [("Price", 100.0, 120.0), ("May yet", 124.0, 155.0)]


def test_a_wall_through_a_word_or_outside_the_segment_splits_nothing() -> None:
    line = _line((100.0, 120.0, "Price"), (124.0, 140.0, "May"))
    assert split_at_walls(line, line.segments, [110.0, 60.0, 200.0]) == line.segments
