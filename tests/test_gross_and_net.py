"""A line "X, net" under "X, gross" and the deduction between them (generated page).

AES prints "Regulated generation and distribution assets and other, gross", "Regulated accumulated
depreciation" and "…, net", then the same three lines for its non-regulated assets. "…, net" was a total
only when the line it is net of was printed bare above it, or the deduction started with "Less" or
"Accumulated", so a keying error in the deduction raised nothing. "X, gross" above now names it too.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import write_table


def _assets(depreciation: str = "(3,655)") -> DocumentResult:
    rows = [
        ("Regulated assets and other, gross", ("9,151", "8,858")),
        ("Regulated accumulated depreciation", (depreciation, "(3,329)")),
        ("Regulated assets and other, net", ("5,496", "5,529")),
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Property, plant and equipment (in millions)", fontsize=9)
    write_table(page, 84, ("December 31, 2021", "December 31, 2020"), rows)
    return process_bytes(doc.tobytes(), source="assets.pdf")


def test_the_clean_table_raises_nothing() -> None:
    assert _assets().flags == []


def test_a_deduction_keyed_wrong_is_flagged() -> None:
    flags = _assets(depreciation="(3,565)").flags
    assert [f.rule for f in flags] == ["TOT001"]
    assert "Regulated assets and other, net" in flags[0].message
