"""A caption sentence that states two units establishes neither (generated pages).

A segment's results in a 10-K's MD&A are often introduced by one sentence that names a unit for each kind
of line: "The following table compares revenue, operating expenses, operating income (dollars in millions),
operating margin, selected package statistics (in thousands, except yield amounts) …". The caption reader
took the unit nearest the table, thousands, so the segment's revenue of 33,507 (millions) was published as
33.5 million. Such a table's figures now keep no scale (a ``scale_unknown`` error item says so) unless a
head of their own, or agreement with a table of known scale, establishes it; a scale stated higher up the
page does not stand in for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf
import pytest

from pipeline.engine import process_bytes
from pipeline.figures.scale_captions import sentence_scales
from schemas.models import DocumentResult
from tests.support.pages import SIZE, write_table

_ROWS = [
    ("Revenue", ["$ 33,507", "$ 33,232"]),
    ("Operating expenses", ["30,367", "30,590"]),
    ("Operating income", ["$ 3,140", "$ 2,642"]),
    ("Average daily package volume", ["9,163", "9,902"]),
]
_TWO_UNITS = (
    "The following table compares revenue, operating expenses, operating income (dollars in millions),",
    "selected package statistics (in thousands) and operating margin for the years ended May 31:",
)


def _page(caption: Sequence[str], *, above: Sequence[str] = ()) -> bytes:
    """A page: optional lines and a small table above, then the caption lines and the table."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 80.0
    for text in above:
        page.insert_text((50, y), text, fontsize=SIZE)
        y += 14
    for text in caption:
        y += 14
        page.insert_text((50, y), text, fontsize=SIZE)
    write_table(page, y + 20, ("2023", "2022"), _ROWS, (400.0, 480.0))
    data: bytes = doc.tobytes()
    return data


def _revenue(result: DocumentResult) -> list[tuple[str, float | None, int | None]]:
    return [(f.printed, f.value, f.scale) for f in result.facts if f.metric == "revenue"]


def test_a_caption_sentence_with_two_units_establishes_neither() -> None:
    result = process_bytes(_page(_TWO_UNITS), source="two-units.pdf")
    assert _revenue(result) == [("33,507", None, None), ("33,232", None, None)]
    assert [e.category for e in result.errors] == ["scale_unknown"]


def test_a_caption_with_one_unit_still_establishes_it() -> None:
    one = (_TWO_UNITS[0], "operating margin and revenue for the years ended May 31:")
    result = process_bytes(_page(one), source="one-unit.pdf")
    assert _revenue(result) == [("33,507", 33_507e6, 6), ("33,232", 33_232e6, 6)]


def test_a_scale_stated_higher_up_the_page_does_not_stand_in() -> None:
    above = ("Selected data (in millions)", "")
    result = process_bytes(_page(_TWO_UNITS, above=above), source="header.pdf")
    assert all(value is None for _, value, _ in _revenue(result))


@pytest.mark.parametrize(
    ("text", "scales"),
    [
        (" ".join(_TWO_UNITS), [[6, 3]]),
        # one parenthesis naming two units is one statement: its first unit is the table's, as before
        ("Results were as follows (in millions, except shares in thousands):", [[6]]),
        ("Revenue (in millions). Headcount (in thousands).", [[6], [3]]),
        ("In millions of U.S. dollars, except per share data", [[6]]),
    ],
)
def test_sentence_scales(text: str, scales: list[list[int]]) -> None:
    assert [[h.scale for h in hints] for hints in sentence_scales(text)] == scales
