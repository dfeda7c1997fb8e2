"""Statement lines printed at another measure's figures are not published as the statements' (generated).

A note on stock-based compensation breaks the expense down "by line item": "Cost of sales 47, Selling,
general and administrative 185, Research and development 43". The labels are the income statement's, so
each figure was published as the company's cost of sales, SG&A and R&D for the year — 47 beside an
income statement's 18,795 (3M, Adobe, AMD, eBay, Salesforce print such tables; a division's summary
without a title naming the division, a discontinued operation's results, an equity affiliate's summary
do the same). :func:`pipeline.figures.facts.other_figures` gives such a table's facts the context
``OTHER_FIGURES``; a table that repeats the statement's figures, one of them misprinted, keeps its facts.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from pipeline.figures.facts import OTHER_FIGURES
from schemas.models import DocumentResult
from tests.support.pages import Rows, write_table

_INCOME: Rows = [
    ("Net sales", ("32,184", "32,136")),
    ("Cost of sales", ("16,605", "17,136")),
    ("Selling, general and administrative expenses", ("6,929", "7,029")),
    ("Research, development and related expenses", ("1,878", "1,911")),
    ("Total operating expenses", ("25,412", "26,076")),
    ("Operating income", ("6,772", "6,060")),
]
_BY_LINE: Rows = [
    ("Cost of sales", ("47", "50")),
    ("Selling, general and administrative expenses", ("169", "185")),
    ("Research, development and related expenses", ("43", "44")),
    ("Stock-based compensation expenses", ("259", "279")),
]


def _table(page: pymupdf.Page, y: float, title: str, rows: Rows) -> float:
    page.insert_text((50, y), title, fontsize=10)
    return write_table(page, y + 24, ("2020", "2019"), rows) + 40


def _document(note: Rows) -> DocumentResult:
    doc = pymupdf.open()
    _table(doc.new_page(width=595, height=842), 80, "Consolidated Statement of Income (in millions)", _INCOME)
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Note 17. Stock-Based Compensation", fontsize=10)
    _table(page, 90, "Stock-based compensation expense by line item (in millions)", note)
    return process_bytes(doc.tobytes(), source="other-figures.pdf")


def _contexts(result: DocumentResult, page: int) -> dict[tuple[str, str], str | None]:
    return {
        (f.metric, f.period.key): f.context
        for f in result.facts
        if f.page == page and f.period is not None and f.origin == "table_cell"
    }


def test_a_breakdown_of_another_measure_by_statement_line_is_not_the_statements() -> None:
    result = _document(_BY_LINE)
    statement = _contexts(result, 1)
    assert statement[("cost_of_sales", "FY2020")] is None
    note = _contexts(result, 2)
    assert {note[(m, "FY2020")] for m in ("cost_of_sales", "selling_general_and_administrative")} == {
        OTHER_FIGURES
    }


def test_a_copy_of_the_statement_with_one_figure_misprinted_keeps_its_facts() -> None:
    copy = [(label, figures) for label, figures in _INCOME[1:4]]
    copy[0] = ("Cost of sales", ("16,065", "17,136"))  # two digits swapped: a keying error, still a copy
    note = _contexts(_document(copy), 2)
    assert note and set(note.values()) == {None}


def test_a_misprint_is_a_copys_only_agreement_and_still_keeps_its_facts() -> None:
    # 2020's cost of sales is the statement's with two digits swapped; every other figure differs (a note
    # that restates some lines): the misprinted copy still counts as agreeing, so the checks can find it
    copy = [
        ("Cost of sales", ("16,065", "17,500")),
        ("Selling, general and administrative expenses", ("7,100", "7,150")),
    ]
    note = _contexts(_document(copy), 2)
    assert note and set(note.values()) == {None}
