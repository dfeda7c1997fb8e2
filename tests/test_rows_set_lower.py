"""A row whose label is printed a few points above its figures (generated page).

Boston Properties' equity statement prints each movement's label at the top of its row and the figures a
few points lower: the two lines overlap, but too little to be read as one line. The label became a row of
its own (read as a section heading) and the figures a row without a label, so the roll-forward from one
year's equity to the next was never found. A label-only line that overlaps the unlabelled figures below it
is now their label; a heading ending in a colon, or the lower-case end of a wrapped label, is not.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, right_aligned

_ROWS = (
    ("Equity, December 31, 2012", ("1,516", "5,222,073", "5,223,589"), 0.0),
    ("Redemption of partnership units", ("10", "30,281", "30,291"), 7.0),
    ("Allocated net income for the year", ("-", "749,811", "749,811"), 7.0),
    ("Dividends declared", ("-", "(748,378)", "(748,378)"), 7.0),
    ("Equity, December 31, 2013", ("1,526", "5,253,787", "5,255,313"), 0.0),
)


def _statement() -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Statements of Stockholders' Equity (in thousands)", fontsize=SIZE)
    for x, head in zip((380, 460, 540), ("Amount", "Retained earnings", "Total"), strict=True):
        right_aligned(page, x, 90, head)
    y = 90.0
    for label, figures, drop in _ROWS:
        y += 20
        page.insert_text((50, y), label, fontsize=SIZE)
        for x, text in zip((380, 460, 540), figures, strict=True):
            right_aligned(page, x, y + drop, text)
    return process_bytes(doc.tobytes(), source="equity.pdf")


def test_each_label_keeps_its_figures() -> None:
    [table] = _statement().tables
    rows: dict[int, list[str]] = {}
    for cell in table.cells:
        rows.setdefault(cell.row, []).append(cell.text)
    assert ["Redemption of partnership units", "10", "30,281", "30,291"] in rows.values()
    assert ["Dividends declared", "-", "(748,378)", "(748,378)"] in rows.values()
