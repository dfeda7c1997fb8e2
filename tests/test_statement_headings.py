"""A balance sheet's own captions are not segments (generated page).

A heading over lines without figures names the segment or dimension its lines belong to ("Americas",
"Discontinued operations"), and their facts are left out of the whole entity's checks. Ulta Beauty's
balance sheet prints "Commitments and contingencies" between its liabilities and "Total stockholders'
equity", with no equity heading after it: both grand totals under it were read as a segment's, and a total
of liabilities and equity keyed wrong raised nothing. Commitments and contingencies, the owners' equity
of the reporting entity, a caption wrapped over its figures (a par value, an amount, "(net of ...)") and
a date are the statement's own structure.
"""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.engine import process_bytes
from pipeline.figures.facts import heading_is_generic
from pipeline.figures.taxonomy import load_taxonomy
from schemas.models import DocumentResult
from tests.support.pages import page_rows, titled_page, write_table


def _balance_sheet(grand_total: str = "5,370,411") -> DocumentResult:
    rows = page_rows(f"""
        Cash and cash equivalents                  | 737,877       | 431,560
        Merchandise inventories, net               | 1,971,427     | 1,849,623
        Property and equipment, net                | 2,661,107     | 2,483,196
        Total assets                               | 5,370,411     | 4,764,379
        Accounts payable                           | 559,527       | 552,730
        Operating lease liabilities                | 2,851,073     | 2,676,276
        Total liabilities                          | 3,410,600     | 3,229,006
        Commitments and contingencies (Note 12)
        Total stockholders' equity                 | 1,959,811     | 1,535,373
        Total liabilities and stockholders' equity | {grand_total} | 4,764,379
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Balance Sheets (In thousands)", (), ())
    xs = (420.0, 500.0)
    write_table(page, 84.0, ("January 28, 2023", "January 29, 2022"), [], xs)
    y = 84.0
    for label, figures in rows:
        y += 14
        page.insert_text((50, y), label, fontsize=9.0)
        if figures:
            write_table(page, y - 14, ("", ""), [("", figures)], xs)
    return process_bytes(doc.tobytes(), source="balance.pdf")


def test_the_clean_balance_sheet_raises_nothing() -> None:
    assert _balance_sheet().flags == []


def test_a_grand_total_keyed_wrong_under_the_commitments_caption_is_flagged() -> None:
    flags = _balance_sheet(grand_total="537,411").flags
    assert "BAL001" in [f.rule for f in flags]


@pytest.mark.parametrize(
    "heading",
    [
        "Commitments and contingencies (see Notes 12 and 13)",
        "Amcor plc shareholders' equity",
        "Stockholders' equity attributable to Boston Properties, Inc.",
        "Customers (net of allowance for doubtful accounts of $171 million and $146 million)",
        "Preferred shares, $1.66 2/3 par value, authorized 20 million shares",
        "Shares outstanding - December 31, 2021",
        "Noncontrolling interests",
        "Cash paid during the year for",
    ],
)
def test_a_statement_caption_is_no_segment(heading: str) -> None:
    assert heading_is_generic(heading, load_taxonomy())


@pytest.mark.parametrize(
    "heading", ["Americas", "Parent company", "Discontinued operations", "Safety and Graphics Business"]
)
def test_a_segment_heading_stays_one(heading: str) -> None:
    assert not heading_is_generic(heading, load_taxonomy())
