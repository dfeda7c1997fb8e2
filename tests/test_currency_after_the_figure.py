"""A figure wider than its column's dollar slot is still read (generated page).

10-K tables print "$" at a fixed place left of each column's figures, on the first and the total lines. A
figure keyed a thousand times too large grows left over that sign, and the words read back in order of
position: "2,188,000 $". Such a cell was no figure at all: the column lost a line, the sum under it was
never checked, and the expense raised nothing. A cell ending in "$" keeps its figure (French-Canadian
filings print "2 188 $" too).
"""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.engine import process_bytes
from pipeline.figures.numbers import find_numbers, parse_number
from schemas.models import DocumentResult
from tests.support.pages import SIZE, only_flag, right_aligned, titled_page

_XS = (380.0, 460.0, 540.0)
_DOLLAR_SLOT = 36.0
"""How far left of a column's right edge its "$" is printed: room for "2,188", not for "2,188,000"."""


def _expenses(research: str) -> DocumentResult:
    rows = [
        ("Research and development", ("2,540", research, "1,930")),
        ("Sales and marketing", ("4,321", "3,591", "3,244")),
        ("General and administrative", ("1,085", "968", "881")),
        ("Total operating expenses", ("7,946", "6,747", "6,055")),
    ]
    doc = pymupdf.open()
    page = titled_page(doc, "Operating expenses (in millions)", ("2021", "2020", "2019"), _XS)
    y = 84.0
    for index, (label, figures) in enumerate(rows):
        y += 14
        page.insert_text((50, y), label, fontsize=SIZE)
        for x, text in zip(_XS, figures, strict=True):
            if index in (0, len(rows) - 1):
                page.insert_text((x - _DOLLAR_SLOT, y), "$", fontsize=SIZE)
            right_aligned(page, x, y, text)
    return process_bytes(doc.tobytes(), source="expenses.pdf")


@pytest.mark.parametrize(("text", "value"), [("2,188 $", 2188.0), ("2,188,000 $", 2188000.0)])
def test_a_trailing_dollar_sign_keeps_the_figure(text: str, value: float) -> None:
    parsed = parse_number(text)
    assert parsed is not None
    assert (parsed.value, parsed.currency) == (value, "USD")


def test_the_dollar_sign_after_a_number_in_prose_is_the_next_amounts() -> None:
    found = [
        (n.number.value, n.number.currency) for n in find_numbers("grew from 2,188 $ 1,930 the year before")
    ]
    assert found == [(2188.0, None), (1930.0, "USD")]


def test_the_clean_table_raises_nothing() -> None:
    assert _expenses("2,188").flags == []


def test_an_expense_keyed_a_thousand_times_too_large_is_flagged() -> None:
    assert "2,188,000" in only_flag(_expenses("2,188,000"), "TOT001").message
