"""A table's lines written as the table is printed, one line of text a row, for tests to read at a glance."""

from __future__ import annotations

Row = tuple[str, list[str]]
"""A table's line: its label and its printed figures, one per value column."""


def printed_rows(table: str, *, dash: str = "—") -> list[Row]:
    """The rows of a table written one per line, its label and each figure separated by ``|``.

    A line reads as the printed line does::

        Cost of sales           | (12) | (36) | 6
        Severance charges       | 73   |      |
        Commitments (Note 12)

    Blank lines are skipped and each cell is stripped, so the columns may be aligned; a cell left empty
    between two bars is a blank figure (``""``), and a line without a bar is a label printing no figure.

    Args:
        table: The table, one row a line.
        dash: What a figure printed ``—`` becomes (a page written in PyMuPDF's base-14 fonts needs the dash
            re-encoded, see :func:`sample_docs.generate.winansi`).

    Returns:
        The rows in order, each its label and its figures.
    """
    rows: list[Row] = []
    for line in table.splitlines():
        if not line.strip():
            continue
        label, *figures = (cell.strip() for cell in line.split("|"))
        rows.append((label, [dash if figure == "—" else figure for figure in figures]))
    return rows
