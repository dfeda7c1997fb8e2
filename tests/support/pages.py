"""Generated PDF pages with a small table of two value columns, shared by the layout regression tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pymupdf

SIZE = 9.0
"""Font size of heads, labels and figures."""

Rows = Sequence[tuple[str, Sequence[str]]]
"""A table's lines: label and one printed figure per value column."""


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
