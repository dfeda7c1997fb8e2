"""Tables that continue on the next page become one logical table.

A balance sheet that breaks across pages arrives as two fragments: the second is the first table of its
page, has the same value columns (same count, right edges aligned), and either says "(continued)", repeats
the first fragment's column heads, or has no heads at all. Stitching keeps per-row page provenance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.tables import RawTable

_CONTINUED = re.compile(r"\b(continued|cont['’]?d|cont\.)\b|\(cont", re.IGNORECASE)


@dataclass(slots=True)
class TableGroup:
    """One logical table: fragments on consecutive pages, the first carrying the header."""

    fragments: list[RawTable] = field(default_factory=list)

    @property
    def first(self) -> RawTable:
        """The fragment with the header."""
        return self.fragments[0]

    @property
    def last(self) -> RawTable:
        """The fragment printed last."""
        return self.fragments[-1]


def _header_texts(t: RawTable) -> list[str]:
    return [" ".join(c.text for c in row).casefold() for row in t.rows[: t.header_rows]]


def _value_edges(t: RawTable) -> list[float]:
    return [b for _, b in t.col_bounds[1:]]


def _title_key(title: str) -> str:
    return " ".join(title.casefold().split())


def continues(prev: RawTable, nxt: RawTable, prev_is_last_on_page: bool, page_height: float) -> bool:
    """Whether ``nxt`` (first table on its page) continues ``prev`` from the page before.

    Args:
        prev: The last table of the previous page.
        nxt: The first table of the next page.
        prev_is_last_on_page: Guard: only the last table of a page can continue.
        page_height: Height of the previous page, to tell whether ``prev`` ran to the bottom.
    """
    if not prev_is_last_on_page or nxt.page != prev.page + 1:
        return False
    if prev.n_cols != nxt.n_cols:
        return False
    edges_a, edges_b = _value_edges(prev), _value_edges(nxt)
    if any(abs(a - b) > 12 for a, b in zip(edges_a, edges_b, strict=True)):
        return False
    said_continued = any(_CONTINUED.search(c) for c in nxt.caption) or bool(
        nxt.title and _CONTINUED.search(nxt.title)
    )
    if not said_continued and nxt.title and prev.title and _title_key(nxt.title) != _title_key(prev.title):
        # A new title is a new table (the same statement of another registrant, the next note).
        return False
    same_header = nxt.header_rows > 0 and _header_texts(prev) == _header_texts(nxt)
    no_header = nxt.header_rows == 0 and not nxt.caption
    ran_to_bottom = prev.bbox[3] > 0.72 * page_height
    return said_continued or (same_header and ran_to_bottom) or (no_header and ran_to_bottom)


def stitch_pages(pages: Sequence[tuple[Sequence[RawTable], float]]) -> list[TableGroup]:
    """Group the tables of consecutive pages into logical tables.

    Args:
        pages: For each page in order, its tables and its height.

    Returns:
        Logical tables in reading order.
    """
    groups: list[TableGroup] = []
    prev_last: TableGroup | None = None
    prev_height = 0.0
    for tables, height in pages:
        for i, t in enumerate(tables):
            if i == 0 and prev_last is not None and continues(prev_last.last, t, True, prev_height):
                prev_last.fragments.append(t)
                continue
            groups.append(TableGroup([t]))
        prev_last = groups[-1] if tables and groups and groups[-1].last is tables[-1] else None
        prev_height = height
    return groups
