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
from pipeline.figures.facts import OTHER_FIGURES, other_figures
from schemas.models import DocumentResult, Fact, Period
from tests.support.pages import Rows, page_rows, write_table
from tests.support.records import fact

_INCOME: Rows = page_rows("""
    Net sales                                    | 32,184 | 32,136
    Cost of sales                                | 16,605 | 17,136
    Selling, general and administrative expenses | 6,929  | 7,029
    Research, development and related expenses   | 1,878  | 1,911
    Total operating expenses                     | 25,412 | 26,076
    Operating income                             | 6,772  | 6,060
""")
_BY_LINE: Rows = page_rows("""
    Cost of sales                                | 47  | 50
    Selling, general and administrative expenses | 169 | 185
    Research, development and related expenses   | 43  | 44
    Stock-based compensation expenses            | 259 | 279
""")


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


# --- a part of the company's statements, printed after the company's --------------------------------------

_GROUP: Rows = page_rows("""
    Net sales                                    | 377     | 391
    Cost of sales                                | 319     | 337
    Selling, general and administrative expenses | 1,125   | 1,251
    Research, development and related expenses   | 15      | 12
    Total operating expenses                     | 1,459   | 1,600
    Operating income                             | (1,082) | (1,209)
""")


def _two_statements(heading: str, second: Rows, first_heading: str = "") -> DocumentResult:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 50), first_heading, fontsize=10)
    _table(page, 80, "Consolidated Statements of Income (in millions)", _INCOME)
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 50), heading, fontsize=10)
    _table(page, 80, "Consolidated Statements of Income (in millions)", second)
    return process_bytes(doc.tobytes(), source="group-statements.pdf")


def test_a_part_of_the_company_printed_under_a_statements_title_is_not_the_companys() -> None:
    """The parent company alone or a deed of cross guarantee's closed group, under a statement's title."""
    result = _two_statements("Deed of Cross Guarantee", _GROUP)
    assert set(_contexts(result, 1).values()) == {None}
    assert set(_contexts(result, 2).values()) == {OTHER_FIGURES}


def test_a_second_registrants_statements_stay_its_own() -> None:
    result = _two_statements(
        "Acme Operating Partnership, L.P.", _GROUP, first_heading="Acme Properties, Inc."
    )
    assert {s.entity for s in result.statements} == {
        "acme properties, inc",
        "acme operating partnership, l.p",
    }
    assert set(_contexts(result, 1).values()) == set(_contexts(result, 2).values()) == {None}


def test_a_later_statement_that_repeats_one_of_two_printings_of_a_line_is_the_companys() -> None:
    """The balance sheet prints "Total shareholders' equity" and "Total equity"; the equity statement, one."""
    dec_2020 = Period(kind="instant", key="2020-12-31", label="2020", end_date="2020-12-31")
    dec_2019 = Period(kind="instant", key="2019-12-31", label="2019", end_date="2019-12-31")

    def equity(table: str, page: int, row: int, period: Period, value: float) -> Fact:
        return fact(
            fact_id=f"{table}{row}{period.key}", metric="total_equity", table_id=table, page=page, row=row,
            period=period, value=value, decimals=-6, statement="balance_sheet" if table == "bs" else "equity",
        )  # fmt: skip

    sheet = [
        equity("bs", 1, 32, dec_2020, 21_001e6),
        equity("bs", 1, 32, dec_2019, 5_136e6),
        equity("bs", 1, 34, dec_2020, 21_253e6),
        equity("bs", 1, 34, dec_2019, 5_388e6),
    ]
    statement = [equity("eq", 2, 18, dec_2020, 21_253e6), equity("eq", 2, 12, dec_2019, 5_388e6)]
    assert {f.context for f in other_figures([*sheet, *statement], {})} == {None}
    # Against the first printing alone the equity statement disagrees on both lines: a part's statement.
    marked = other_figures([*sheet[:2], *statement], {})
    assert {f.context for f in marked if f.table_id == "eq"} == {OTHER_FIGURES}
