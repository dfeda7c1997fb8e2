"""Footnote marks set as superscripts after figures are the figures' notes, not a column (generated page).

Adobe's accumulated other comprehensive income roll-forward prints its reclassifications with a raised
footnote mark after them: "(1)⁽¹⁾", "6⁽²⁾". The marks were read as words like any other: a column of
negative ones and twos beside the real figures, and a mark raised above its line's band made a row of its
own, splitting a wrapped label from its figures. No column then added up to the total line, so a total
keyed wrong went unflagged (development seeds 31-32, in two years' filings). A mark set at most 80 % of the
height of the word before it, raised and touching it, is now left out of the table; the page's text keeps
it.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from sample_docs.generate import winansi
from schemas.models import DocumentResult
from tests.support.pages import SIZE, right_aligned

_XS = (330.0, 400.0, 470.0, 540.0)
_HEADS = ("January 1, 2024", "Increase / Decrease", "Reclassifications", "December 31, 2024")


def _roll_forward(total: str = "(158)") -> DocumentResult:
    """Three components of AOCI, opening + change + reclassification = closing, marks after two figures;
    the second component's label wraps, its figures on its second line."""
    rows = [
        ("Unrealized gains on available-for-sale securities", ("4", "3", "(1)", "6"), ("(1)", 3.5, 4.5)),
        ("Net unrealized gains / losses on derivative instruments", None, None),
        # raised as high as the figure's top: above the line's band, as Adobe prints it
        ("    designated as hedging instruments", ("(22)", "(44)", "6", "(60)"), ("(2)", 6.5, 9.5)),
        ("Cumulative foreign currency translation adjustments", ("(170)", "66", winansi("—"), "(104)"), None),
        ("Total accumulated other comprehensive income (loss)", ("(188)", "25", "5", total), None),
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text(
        (50, 60), "The changes in accumulated other comprehensive income were (in millions):", fontsize=SIZE
    )
    for x, head in zip(_XS, _HEADS, strict=True):
        right_aligned(page, x, 84, head)
    y = 84.0
    for label, figures, mark in rows:
        y += 11 if figures is not None and label.startswith(" ") else 16
        page.insert_text((50 + 2 * (len(label) - len(label.lstrip())), y), label.strip(), fontsize=SIZE)
        for x, text in zip(_XS, figures or (), strict=False):  # (a wrapped label's first line has none)
            right_aligned(page, x, y, text)
        if mark is not None:  # after the reclassification, small and raised
            text, gap, raised = mark
            page.insert_text((_XS[2] + gap, y - raised), text, fontsize=SIZE * 0.65)
    return process_bytes(doc.tobytes(), source="aoci.pdf")


def _table_rows(result: DocumentResult) -> list[list[str]]:
    (table,) = result.tables
    grid: dict[int, dict[int, str]] = {}
    for cell in table.cells:
        grid.setdefault(cell.row, {})[cell.col] = cell.text
    return [[grid[r].get(c, "") for c in range(table.n_cols)] for r in sorted(grid)]


def test_the_marks_make_no_column_of_their_own() -> None:
    rows = _table_rows(_roll_forward())
    assert all(len(row) == 5 for row in rows), rows
    assert [row[1:] for row in rows] == [
        ["4", "3", "(1)", "6"],
        ["(22)", "(44)", "6", "(60)"],
        ["(170)", "66", "—", "(104)"],
        ["(188)", "25", "5", "(158)"],
    ]
    assert rows[1][0].endswith("designated as hedging instruments")


def test_the_clean_roll_forward_raises_nothing() -> None:
    assert _roll_forward().flags == []


def test_a_total_keyed_wrong_is_flagged() -> None:
    result = _roll_forward(total="(1,558)")
    assert [f.rule for f in result.flags] == ["TOT001"], [f.message for f in result.flags]
    assert "(1,558)" in result.flags[0].message or "-1,558" in result.flags[0].message
