"""A registrant's table carried onto the next page is still that registrant's (generated pages).

A REIT and its operating partnership file one 10-K: each prints its selected data under its own name,
"Boston Properties, Inc." over the statement-of-operations lines on one page, the balance-sheet lines on the
next page under the same year heads and no name. The second page's table named no entity, so its total
assets were grouped with the partnership's (whose figures differ by design) instead of the REIT's balance
sheet, and a digit doubled in them went unflagged. A table first on its page, without a title, with as
many value columns as the last table of the page before, takes that table's entity.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Rows, write_table

_REIT, _PARTNERSHIP = "Acme Realty Holdings, Inc.", "Acme Realty Operating Partnership, L.P."
_FIGURES = {
    _REIT: ("18,379,456", "19,886,767", "5,709,435", "5,697,298"),
    _PARTNERSHIP: ("18,038,140", "19,536,260", "5,368,119", "5,346,791"),
}


def _table(page: pymupdf.Page, lines: Sequence[str], heads: tuple[str, str], rows: Rows) -> None:
    y = 70.0
    for text in lines:
        page.insert_text((50, y), text, fontsize=10)
        y += 16
    write_table(page, y + 10, heads, rows)


def _document(total_assets_2014: str | None = None) -> DocumentResult:
    doc = pymupdf.open()
    years = ("2015", "2014")
    for name, (assets, assets_prior, _, _) in _FIGURES.items():
        revenue = [("Total revenue", ("2,490,821", "2,396,998")), ("Net income", ("633,079", "503,609"))]
        _table(doc.new_page(), ["Selected Financial Data", name, "(in thousands)"], years, revenue)
        if name == _REIT and total_assets_2014 is not None:
            assets_prior = total_assets_2014
        balance = [
            ("Cash and cash equivalents", ("723,718", "1,763,079")),
            ("Total assets", (assets, assets_prior)),
        ]
        _table(doc.new_page(), [], years, balance)
    for name, (assets, assets_prior, equity, equity_prior) in _FIGURES.items():
        liabilities = f"{int(assets.replace(',', '')) - int(equity.replace(',', '')):,}"
        liabilities_prior = f"{int(assets_prior.replace(',', '')) - int(equity_prior.replace(',', '')):,}"
        sheet = [
            ("Total assets", (assets, assets_prior)),
            ("Total liabilities", (liabilities, liabilities_prior)),
            ("Total equity", (equity, equity_prior)),
            ("Total liabilities and equity", (assets, assets_prior)),
        ]
        lines = [name, "Consolidated Balance Sheets", "(in thousands)"]
        _table(doc.new_page(), lines, years, sheet)
    return process_bytes(doc.tobytes(), source="registrants.pdf")


def test_the_carried_table_is_its_registrants() -> None:
    result = _document()
    entities = {s.pages[0]: s.entity for s in result.statements}
    assert entities[2] == _REIT.casefold().rstrip(".")
    assert entities[4] == _PARTNERSHIP.casefold().rstrip(".")
    assert not result.flags


def test_a_digit_doubled_in_the_carried_table_is_flagged_against_its_registrants_balance_sheet() -> None:
    result = _document(total_assets_2014="198,866,767")
    hits = [f for f in result.flags if f.rule == "XREF001" and {e.page for e in f.evidence} == {2, 5}]
    assert hits, [f.message for f in result.flags]
