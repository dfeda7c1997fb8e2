"""Generated PDF pages with a small table of two value columns, shared by the layout regression tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, ParamSpec

import pymupdf

from pipeline.engine import process_bytes
from sample_docs.generate import winansi
from schemas.models import DocumentResult, Flag
from tests.support.printed import Row, printed_rows

SIZE = 9.0
"""Font size of heads, labels and figures."""

Rows = Sequence[tuple[str, Sequence[str]]]
"""A table's lines: label and one printed figure per value column."""

P = ParamSpec("P")


def page_rows(table: str) -> list[Row]:
    """The rows of a table written as it is printed, to be written on a generated page.

    Args:
        table: One row a line, its label and figures separated by ``|``, as
            :func:`tests.support.printed.printed_rows` reads them.

    Returns:
        The rows, a figure printed ``—`` re-encoded as the page's base-14 fonts print it
        (:func:`sample_docs.generate.winansi`).
    """
    return printed_rows(table, dash=winansi("—"))


def right_aligned(page: pymupdf.Page, x: float, y: float, text: str) -> None:
    """Write ``text`` ending at ``x`` on the baseline ``y``, as a figure or column head is printed."""
    page.insert_text((x - pymupdf.get_text_length(text, fontsize=SIZE), y), text, fontsize=SIZE)


def write_table(
    page: pymupdf.Page, y: float, heads: Sequence[str], rows: Rows, xs: Sequence[float] = (420.0, 500.0)
) -> float:
    """Write column heads on the line ``y``, then the rows under them; returns the last row's baseline."""
    for x, head in zip(xs, heads, strict=True):
        right_aligned(page, x, y, head)
    for label, figures in rows:
        y += 14
        page.insert_text((50, y), label, fontsize=SIZE)
        for x, text in zip(xs, figures, strict=True):
            right_aligned(page, x, y, text)
    return y


def titled_page(
    doc: pymupdf.Document,
    title: str,
    heads: Sequence[str],
    xs: Sequence[float],
    *,
    title_y: float = 60.0,
    heads_y: float = 84.0,
) -> pymupdf.Page:
    """A new A4 page with ``title`` at the top and the column ``heads`` right-aligned at ``xs``."""
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, title_y), title, fontsize=SIZE)
    for x, head in zip(xs, heads, strict=True):
        right_aligned(page, x, heads_y, head)
    return page


def table_result(
    title: str,
    heads: Sequence[str],
    rows: Rows,
    xs: Sequence[float] = (420.0, 500.0),
    *,
    heads_y: float = 84.0,
    source: str = "table.pdf",
) -> DocumentResult:
    """Process a one-page document: ``title`` at the top, the column ``heads`` on the line ``heads_y`` and
    the ``rows`` under them (the page most layout regression tests need)."""
    doc = pymupdf.open()
    page = titled_page(doc, title, (), ())
    write_table(page, heads_y, heads, rows, xs)
    return process_bytes(doc.tobytes(), source=source)


def tables_result(
    tables: Sequence[tuple[str, Rows]],
    heads: Sequence[str],
    xs: Sequence[float] = (420.0, 500.0),
    *,
    source: str = "tables.pdf",
) -> DocumentResult:
    """Process a document of one table a page: each of ``tables`` is a page's title and rows, under the same
    column ``heads`` (a summary and the statement it summarises, say)."""
    doc = pymupdf.open()
    for title, rows in tables:
        write_table(titled_page(doc, title, (), ()), 84.0, heads, rows, xs)
    return process_bytes(doc.tobytes(), source=source)


def only_flag(result: DocumentResult, rule: str) -> Flag:
    """The one flag ``result`` raised, asserted to be a ``rule`` flag (the failure lists what was raised)."""
    rules = [flag.rule for flag in result.flags]
    assert rules == [rule], f"expected one {rule} flag, got {rules}"
    return result.flags[0]


class Keyed(Generic[P]):
    """A generated document whose builder takes the figures a test keys wrong, each defaulting to the figure
    the clean document prints; decorate the builder with it. Calling it builds and processes the document;
    :meth:`quiet_test` and :meth:`flagged_test` are the two tests most such documents have (assign each to a
    ``test_`` name)."""

    def __init__(self, build: Callable[P, DocumentResult]) -> None:
        self.build = build

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> DocumentResult:
        return self.build(*args, **kwargs)

    def quiet_test(self) -> Callable[[], None]:
        """A test: the clean document raises no flag."""

        def test() -> None:
            flags = self.build().flags  # type: ignore[call-arg]  # every figure has its clean default
            assert flags == [], [f.message for f in flags]

        return test

    def flagged_test(self, rule: str, naming: str, *args: P.args, **kwargs: P.kwargs) -> Callable[[], None]:
        """A test: the document built with ``args`` and ``kwargs`` (a figure keyed wrong) raises one flag, a
        ``rule`` flag whose message prints ``naming``."""

        def test() -> None:
            message = only_flag(self.build(*args, **kwargs), rule).message
            assert naming in message, message

        return test


def write_ruled_rows(
    page: pymupdf.Page, rows: Rows, xs: Sequence[float], ruled: Callable[[str], bool], y: float = 84.0
) -> float:
    """Write the rows 16 points apart under the heads' line ``y``, with a rule over the figures of each
    row whose label ``ruled`` accepts (US filings underline the figures a total adds up); returns the last
    row's baseline."""
    for label, figures in rows:
        y += 16
        if ruled(label):
            for x in xs:  # the underline over each figure of the line below it
                page.draw_line((x - 40, y - 11), (x, y - 11), width=0.5)
        page.insert_text((50, y), label, fontsize=SIZE)
        for x, text in zip(xs, figures, strict=True):
            right_aligned(page, x, y, text)
    return y


def table_and_text(
    title: str,
    heads: Sequence[str],
    rows: Rows,
    lines: Sequence[str],
    xs: Sequence[float] = (420.0, 500.0),
    *,
    source: str = "narrative.pdf",
) -> DocumentResult:
    """Process a document of two pages: a table (``title``, ``heads``, ``rows``) and then the discussion's
    ``lines`` of text, one paragraph line each (a sentence to compare with the table)."""
    doc = pymupdf.open()
    write_table(titled_page(doc, title, (), ()), 84.0, heads, rows, xs)
    page = doc.new_page(width=595, height=842)
    for i, line in enumerate(lines):
        page.insert_text((50, 60 + 13 * i), line, fontsize=SIZE)
    return process_bytes(doc.tobytes(), source=source)
