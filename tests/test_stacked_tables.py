"""Two tables stacked on a page, the second's columns further left under heads of their own (generated).

A results release prints its GAAP results in two columns at the right, then "Adjusted non-GAAP results
2022  2023  Reported change %" in four columns that begin further left, the stub head in the label
column. Read as one table, its columns were merged: the adjusted figures fell under no period, the
change column under the wrong head, and an adjusted EBITDA keyed wrong against its printed change of (5) %
went unflagged (Amcor's fourth-quarter release, a development plant). A data line whose figures begin a
column or more left of the table's, under a line of heads that starts with a stub head, starts a table.
A table whose lines print columns of words ("Quarter, 2013") moves its first figure from line to line
and is not split so.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import write_table

_RIGHT = (440.0, 520.0)
_LEFT = (260.0, 340.0, 420.0, 520.0)


def _release(ebitda: str) -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Key financials", fontsize=9)
    page.insert_text((50, 90), "GAAP results", fontsize=9)
    gaap = [("Net sales", ("14,544", "14,694")), ("Net income", ("805", "1,048"))]
    y = write_table(page, 90, ("2022 $ million", "2023 $ million"), gaap, _RIGHT)
    page.insert_text((300, y + 30), "Twelve Months Ended June 30,", fontsize=9)
    page.insert_text((50, y + 44), "Adjusted non-GAAP results", fontsize=9)
    rows = [
        ("Net sales", ("14,544", "14,694", "1", "-")),
        ("EBITDA", ("2,117", ebitda, "(5)", "1")),
        ("EBIT", ("1,701", "1,608", "(5)", "1")),
        ("Net income", ("1,224", "1,089", "(11)", "(4)")),
    ]
    heads = ("2022 $ million", "2023 $ million", "Reported change %", "Constant currency %")
    write_table(page, y + 44, heads, rows, _LEFT)
    return process_bytes(doc.tobytes(), source="release.pdf")


def test_the_second_table_is_read_on_its_own_and_quiet() -> None:
    result = _release("2,018")
    assert len(result.tables) == 2
    assert result.flags == []


def test_a_figure_keyed_wrong_against_its_printed_change_is_flagged() -> None:
    assert [f.rule for f in _release("2,081").flags] == ["CHG001"]


def test_a_table_with_columns_of_words_stays_one() -> None:
    """Properties placed in service: a wrapped name and its quarters on a line of words, then the figures."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    xs = (200.0, 280.0, 380.0, 460.0, 540.0)
    heads = ("Initial", "Stabilized", "Square Feet", "Revenue", "Income")
    rows = [
        ("300 Binney Street", ("Quarter, 2013", "Quarter, 2013", "195,191", "11,017", "1,150")),
        ("250 West 55th", ("Third Quarter,", "Third Quarter,", "", "", "")),
        ("Street", ("2013", "2014", "986,823", "25,794", "12,530")),
        ("535 Mission Street", ("Quarter, 2014", "N/A", "307,235", "841", "429")),
    ]
    write_table(page, 90, heads, rows, xs)
    tables = process_bytes(doc.tobytes(), source="in-service.pdf").tables
    assert [{"195,191", "986,823", "307,235"} <= {c.text for c in t.cells} for t in tables] == [True]
