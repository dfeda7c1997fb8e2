"""A total named only by the rule printed over its figures (generated page).

US filings underline the figures a total adds up: "Consumer", "Small Business", "Corporate", a rule, then
"Card Member loans", whose label does not say it is a total. In a table of two columns such a line was
never tried as one, so a component keyed wrong raised nothing (American Express's loan tables). A row
whose figures sit just under a rule is now a weak total (``RawCell.ruled``, ``Table.ruled_rows``): the
figures must still prove it, exactly, in the other column. A grid, where every row is ruled, says nothing.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import only_flag, page_rows, titled_page, write_ruled_rows

_XS = (420.0, 500.0)


def _loans(small_business: str = "22,947", *, grid: bool = False) -> DocumentResult:
    rows = page_rows(f"""
        Consumer                         | 84,964           | 70,467
        Small Business                   | {small_business} | 18,040
        Corporate                        | 53               | 55
        Card Member loans                | 107,964          | 88,562
        Less: Reserves for credit losses | 3,747            | 3,305
        Card Member loans, net           | 104,217          | 85,257
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Card Member loans as of December 31 (Millions)", ("2022", "2021"), _XS)
    write_ruled_rows(page, rows, _XS, lambda label: grid or label.startswith("Card Member loans"))
    return process_bytes(doc.tobytes(), source="loans.pdf")


def test_the_clean_table_raises_nothing() -> None:
    result = _loans()
    assert result.flags == []
    [table] = result.tables
    assert len(table.ruled_rows) == 2


def test_a_component_keyed_wrong_is_flagged() -> None:
    assert "Card Member loans" in only_flag(_loans(small_business="22,497"), "TOT001").message


def test_a_grid_marks_no_total() -> None:
    [table] = _loans(grid=True).tables
    assert table.ruled_rows == []
