"""A table set in one column of a page of two text columns (generated pages).

Banks' quarterly reports set their pages in two columns of running text, with small tables in one column.
Read as one column, each of the table's rows took the prose beside it into its label ("commodities. The
Firm makes markets in derivatives in Total, net of cash collateral"), the rows of the prose and of the
table interleaved, and the table's sums were never found: a total re-keyed with the other sign raised
nothing (JPMorgan's quarterly report). Such a page is now read one column at a time
(``pipeline.parse.columns``); a page whose table spans the page, with a wide gap between its labels and
its figures, is read as it always was.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from pipeline.parse.columns import find_gutter
from schemas.models import DocumentResult
from tests.support.pages import SIZE, only_flag, right_aligned

_TEXT = (
    "the firm manages its exposure to counterparties through collateral agreements and master netting "
    "arrangements which reduce the credit risk arising from derivative receivables held against clients "
    "while liquidity and capital are monitored daily by the treasury function under the limits the board "
    "approves each year for every business segment and legal entity"
)
_WORDS = _TEXT.split()


def _prose(page: pymupdf.Page, x: float, y0: float, y1: float, pitch: float, start: int) -> None:
    """Lines of running text about 230 pt wide from ``x``, every ``pitch`` points from ``y0`` to ``y1``."""
    y, k = y0, start
    while y <= y1:
        words: list[str] = []
        while pymupdf.get_text_length(" ".join([*words, _WORDS[k % len(_WORDS)]]), fontsize=SIZE) < 230:
            words.append(_WORDS[k % len(_WORDS)])
            k += 1
        page.insert_text((x, y), " ".join(words), fontsize=SIZE)
        y += pitch


_ROWS = (
    ("Total, net of cash collateral", ("73,119", "79,630")),
    ("Liquid securities collateral", ("(13,958)", "(14,806)")),
    ("Total, net of liquid collateral", ("59,161", "64,824")),
    ("Other collateral held", ("(5,716)", "(6,022)")),
)


def _two_columns(net: str) -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _prose(page, 50, 70, 700, 12, 0)
    _prose(page, 320, 70, 130, 12, 7)
    page.insert_text((322, 160), "Derivative receivables (in millions)", fontsize=SIZE)
    right_aligned(page, 490, 176, "2021")
    right_aligned(page, 560, 176, "2020")
    y = 176.0
    for label, (a, b) in (*_ROWS, ("Total, net of all collateral", (net, "58,802"))):
        y += 13
        page.insert_text((322, y), label, fontsize=SIZE)
        right_aligned(page, 490, y, a)
        right_aligned(page, 560, y, b)
    _prose(page, 320, y + 30, 700, 12, 3)
    return process_bytes(doc.tobytes(), source="two-columns.pdf")


def test_the_table_in_the_right_column_keeps_its_own_labels() -> None:
    result = _two_columns("53,445")
    assert result.flags == []
    [table] = result.tables
    labels = [c.text for c in table.cells if c.col == 0]
    assert "Total, net of all collateral" in labels
    assert "Liquid securities collateral" in labels


def test_a_total_keyed_with_the_other_sign_is_flagged() -> None:
    assert "components sum to 53,445" in only_flag(_two_columns("(53,445)"), "TOT001").message


def test_a_table_across_the_page_is_not_split_at_its_label_gap() -> None:
    # Labels end near the middle and figures start well right of it: a strip no word crosses, but no
    # running text beside the table on either side of it, so the page is one column.
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _prose(page, 50, 70, 110, 12, 0)
    y = 130.0
    for k in range(30):
        y += 13
        page.insert_text((50, y), f"Line item number {k} of the schedule", fontsize=SIZE)
        right_aligned(page, 480, y, f"{100 + k:,}")
        right_aligned(page, 550, y, f"{200 + k:,}")
    words = [tuple(w[:5]) for w in page.get_text("words")]
    assert find_gutter(words, page.rect.width, page.rect.height) is None


def test_a_table_across_the_strip_keeps_the_page_one_column() -> None:
    # Prose in two columns above, then a table whose short labels sit in the left column and whose
    # figures begin in the right one: one table across the strip, so the page is not split.
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _prose(page, 50, 70, 400, 12, 0)
    _prose(page, 320, 70, 400, 12, 5)
    y = 420.0
    for label, (a, b) in (
        ("Investment-grade", ("$ 32,774", "61 %")),
        ("Noninvestment-grade", ("20,671", "39")),
    ):
        y += 13
        page.insert_text((52, y), label, fontsize=SIZE)
        right_aligned(page, 380, y, a)
        right_aligned(page, 430, y, b)
    words = [tuple(w[:5]) for w in page.get_text("words")]
    assert find_gutter(words, page.rect.width, page.rect.height) is None
