"""A head centred over its own column, beside a column headed the same (generated page).

A table of share awards prints "Number of Shares (in thousands)", then "Weighted-Average" over
"Remaining Contractual Life (in years)" and "Weighted-Average" over "Grant Date Fair Value (per share)".
The first "Weighted-Average" stands on a line of its own, wider than its column and centred over it; its
middle is also near the middle of all three columns, so it was read as spanning them, and the share
count column became a "weighted-average" column, which adds up nothing: the roll-forward of the awards
(nonvested at the start, granted, vested, forfeited, nonvested at the end) was never checked (Foot
Locker's 2023 10-K, development seed 28). A head does not span a column whose own head under it is
printed as it is.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from pipeline.figures.grid import column_headers
from schemas.models import DocumentResult
from tests.support.pages import SIZE, Keyed, right_aligned

# Each column's head lines, bottom-aligned over the figures: (x of the right edge, lines top to bottom).
_HEADS = (
    (355.0, ("Number", "of", "Shares", "(in thousands)")),
    (430.0, ("Weighted-Average", "Remaining", "Contractual", "Life", "(in years)")),
    (520.0, ("Weighted-Average", "Grant Date", "Fair Value", "(per share)")),
)


def _centred(page: pymupdf.Page, right: float, width: float, y: float, text: str) -> None:
    # Heads are centred over a column as wide as its widest head, right-aligned with the figures.
    page.insert_text(
        (right - width / 2 - pymupdf.get_text_length(text, fontsize=SIZE) / 2, y), text, fontsize=SIZE
    )


@Keyed
def _awards(granted: str = "1,242") -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Restricted stock unit activity is summarized as follows:", fontsize=SIZE)
    top = 80.0
    for right, lines in _HEADS:
        width = max(pymupdf.get_text_length(t, fontsize=SIZE) for t in lines[1:])
        for k, text in enumerate(lines):
            _centred(page, right, width, top + 10 * (5 - len(lines) + k), text)
    rows = (
        ("Nonvested at beginning of year", ("1,391", "", "43.95")),
        ("Granted", (granted, "", "31.42")),
        ("Vested", ("(117)", "", "54.29")),
        ("Performance adjustment", ("15", "", "")),
        ("Forfeited", ("(539)", "", "35.56")),
        ("Nonvested at end of year", ("1,992", "1.3", "37.58")),
    )
    y = top + 50
    for label, figures in rows:
        y += 12
        page.insert_text((50, y), label, fontsize=SIZE)
        for (right, _), text in zip(_HEADS, figures, strict=True):
            if text:
                right_aligned(page, right, y, text)
    return process_bytes(doc.tobytes(), source="awards.pdf")


test_the_clean_table_raises_nothing = _awards.quiet_test()
test_a_grant_with_a_digit_dropped_is_flagged = _awards.flagged_test("TOT001", "122", granted="122")


def test_each_weighted_average_heads_its_own_column() -> None:
    [table] = _awards().tables
    heads = column_headers(table)
    assert heads[1] == "Number of Shares (in thousands)", heads
    assert heads[2].startswith("Weighted-Average Remaining"), heads
