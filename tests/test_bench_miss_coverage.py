"""``bench.miss_coverage`` tells a figure no relation holds from one a footing holds (generated page)."""

from __future__ import annotations

import pymupdf

from bench.miss_coverage import relations_of
from tests.support.pages import page_rows, titled_page, write_table


def _page() -> tuple[bytes, dict[str, tuple[float, float, float, float]]]:
    """A balance sheet's current assets with their total, and a headcount printed on its own below."""
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Balance Sheets (in millions)", (), ())
    rows = page_rows("""
        Cash and cash equivalents | 1,210 | 1,045
        Accounts receivable       | 845   | 790
        Inventories               | 612   | 588
        Total current assets      | 2,667 | 2,423
    """)
    write_table(page, 84.0, ("2024", "2023"), rows)
    page.insert_text((50, 400), "The company had 4,312 employees at the end of the year.", fontsize=9)
    data: bytes = doc.tobytes()
    with pymupdf.open(stream=data, filetype="pdf") as reread:
        words = reread[0].get_text("words")
    boxes = {w[4]: (w[0], w[1], w[2], w[3]) for w in words}
    return data, boxes


def test_a_figure_in_a_footing_enters_its_relations() -> None:
    data, boxes = _page()
    eqs = relations_of(data, 1, boxes["845"], "845")
    assert eqs and {eq.rule for eq in eqs} == {"TOT001"}
    assert all(eq.holds for eq in eqs)


def test_a_figure_printed_once_in_prose_enters_none() -> None:
    data, boxes = _page()
    assert relations_of(data, 1, boxes["4,312"], "4,312") == []
