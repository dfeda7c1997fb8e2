"""A table's body as rows: the view the statement trees, the facts and the checks share.

A typed :class:`~schemas.models.Table` is a grid of cells; here each body row becomes a
:class:`RowView` with its label (the text left of the first figure), the label's indentation and page,
and its figures by column; :func:`column_headers` gives the text stacked over each column.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.figures.scale_captions import unit_caption
from pipeline.memo import per_document
from schemas.models import BBox, Cell, Table

__all__ = ["RowView", "column_headers", "row_labels", "table_key", "table_rows"]

# Cells that only carry a currency symbol ("$" printed in its own column) are not figures.
_CURRENCY_ONLY = re.compile(
    r"^\s*(?:US\$|A\$|C\$|HK\$|S\$|R\$|\$|£|€|¥|₹|CHF|USD|GBP|EUR)\s*$", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class RowView:
    """A body row of a table, reduced to what the checks need.

    Attributes:
        index: Row index in the table grid.
        label: Row label as printed (text cells left of the first figure), '' when absent.
        label_bbox: Box of the label's first cell.
        indent: Left edge of the label (x0), a proxy for the indentation level.
        page: Page the row is printed on.
        numbers: Column → cell, for cells holding a typed figure.
        subheader: True when a row without figures has text under the figure columns (a repeated
            column header such as "£m £m"), which is not a section heading.
        ruled: True when the row's figures are printed under a rule (the underline over a total).
    """

    index: int
    label: str
    label_bbox: BBox | None
    indent: float | None
    page: int
    numbers: Mapping[int, Cell]
    subheader: bool = False
    ruled: bool = False

    @property
    def is_heading(self) -> bool:
        """A label-only row: a section heading such as "Current assets" or "Segment A"."""
        return bool(self.label.strip()) and not self.numbers and not self.subheader


def _header_row_indices(table: Table) -> set[int]:
    rows = {c.row for c in table.cells if c.is_header}
    rows.update(range(table.header_rows))
    return rows


def table_key(table: Table) -> str:
    """What a table is known by within a document's run: its id."""
    return table.table_id


def table_rows(table: Table) -> list[RowView]:
    """Body rows of a table in grid order (header rows left out).

    Every check reads them: within a document's run they are built once per table
    (:func:`pipeline.memo.per_document`), and each caller gets its own list of the shared rows.

    Args:
        table: A logical table.

    Returns:
        One view per body row that has at least one non-empty cell.
    """
    return list(_table_rows(table))


@per_document(key=table_key)
def _table_rows(table: Table) -> tuple[RowView, ...]:
    header_rows = _header_row_indices(table)
    by_row: dict[int, list[Cell]] = {}
    for cell in table.cells:
        if cell.row not in header_rows:
            by_row.setdefault(cell.row, []).append(cell)
    views: list[RowView] = []
    ruled = set(table.ruled_rows)
    for r in sorted(by_row):
        cells = sorted(by_row[r], key=lambda c: c.col)
        numbers = {c.col: c for c in cells if c.number is not None}
        texts = [c for c in cells if c.number is None and c.text.strip() and not _CURRENCY_ONLY.match(c.text)]
        # The label is the text left of the first figure; in a row without figures, the first column's.
        limit = min(numbers) if numbers else 1
        label_cells = [c for c in texts if c.col < limit]
        label = " ".join(c.text.strip() for c in label_cells)
        bbox = label_cells[0].bbox if label_cells else None
        page = table.row_pages[r] if r < len(table.row_pages) else cells[0].page
        if not label and not numbers:
            continue
        # Text under the figure columns ("£m", "Notes", "2025") makes a row a sub-header, not a heading.
        subheader = any(c.col >= limit for c in texts)
        views.append(RowView(r, label, bbox, bbox[0] if bbox else None, page, numbers, subheader, r in ruled))
    return tuple(views)


def row_labels(rows: Sequence[RowView]) -> dict[int, str]:
    """Row → the line's label as printed (spaces joined), or ``row N``: how a flag names its line."""
    return {r.index: " ".join(r.label.split()) or f"row {r.index}" for r in rows}


def column_headers(table: Table, *, above: Mapping[int, int] | None = None) -> dict[int, str]:
    """Header text above each column (spanning header cells count for every column they cover).

    Args:
        table: A logical table.
        above: Column → the row of its first figure. When given, every line printed above that row counts,
            header or not: the sub-heads a header finder left in the body under a line of years ("As
            Reported", "FX-Neutral % Change").

    Returns:
        Column index → header text, rows joined top to bottom.
    """
    return dict(_header_text(table)) if above is None else _column_heads(table, above)


@per_document(key=table_key)
def _header_text(table: Table) -> dict[int, str]:
    """The header rows' text over each column (built once per table in a document's run)."""
    return _column_heads(table, None)


def _column_heads(table: Table, above: Mapping[int, int] | None) -> dict[int, str]:
    parts: dict[int, list[tuple[int, str]]] = {}
    header_rows = _header_row_indices(table)
    for cell in table.cells:
        if not cell.text.strip():
            continue
        cols = [
            col
            for col in range(cell.col, cell.col + cell.col_span)
            if (cell.row in header_rows if above is None else cell.row < above.get(col, -1))
        ]
        if cols and not unit_caption(cell.text):  # (the caption test only for heads: it is slow)
            for col in cols:
                parts.setdefault(col, []).append((cell.row, cell.text.strip()))
    return {col: " ".join(t for _, t in sorted(items)) for col, items in parts.items()}
