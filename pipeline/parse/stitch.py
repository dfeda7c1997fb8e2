"""Tables that continue on the next page become one logical table.

A balance sheet that breaks across pages arrives as two fragments: the second is the first table of its
page, has the same value columns (same count, right edges aligned), and either says "(continued)", repeats
the first fragment's column heads, or has no heads at all. Stitching keeps per-row page provenance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.parse.layout import Line
from pipeline.parse.table_grid import pick_title
from pipeline.parse.table_types import RawCell, RawTable, says_continued, title_name
from schemas.models import Block

__all__ = [
    "TableGroup",
    "continues",
    "furniture_key",
    "join_split_tables",
    "page_furniture",
    "says_continued",
    "section_headings",
    "stitch_pages",
]


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


def furniture_key(text: str) -> str:
    """A line's text as page furniture is compared: no spaces, every digit alike ("Page 7" = "Page 12")."""
    return _DIGIT.sub("#", "".join(text.split())).casefold()


_DIGIT = re.compile(r"\d")
# Top and bottom bands of a page where running heads and feet sit, as a share of its height.
_FURNITURE_BAND = 0.12
# A line is furniture when it is repeated in those bands on this many pages (and this share of them).
_FURNITURE_PAGES = 3
_FURNITURE_SHARE = 0.2


def page_furniture(blocks: Sequence[Block], page_heights: Mapping[int, float]) -> frozenset[str]:
    """Running heads and feet: lines repeated at the top or bottom of many pages.

    A report that prints its name at the top of every page ("…2018 年第一季度报告全文", "Table of
    Contents") puts that line over every table that starts a page; read as the table's caption, it hides
    that the table carries on from the page before.

    Args:
        blocks: The document's text blocks.
        page_heights: Each page's height.

    Returns:
        The furniture lines' keys (:func:`furniture_key`).
    """
    pages: dict[str, set[int]] = {}
    for b in blocks:
        height = page_heights.get(b.page)
        if not height or (
            b.bbox[1] > _FURNITURE_BAND * height and b.bbox[3] < (1 - _FURNITURE_BAND) * height
        ):
            continue
        pages.setdefault(furniture_key(b.text), set()).add(b.page)
    least = max(_FURNITURE_PAGES, _FURNITURE_SHARE * len(page_heights))
    return frozenset(key for key, on in pages.items() if key and len(on) >= least)


def continues(
    prev: RawTable,
    nxt: RawTable,
    prev_is_last_on_page: bool,
    page_height: float,
    furniture: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``nxt`` (first table on its page) continues ``prev`` from the page before.

    Args:
        prev: The last table of the previous page.
        nxt: The first table of the next page.
        prev_is_last_on_page: Guard: only the last table of a page can continue.
        page_height: Height of the previous page, to tell whether ``prev`` ran to the bottom.
        furniture: Running heads and feet (:func:`page_furniture`), which are no table's caption.
    """
    if not prev_is_last_on_page or nxt.page != prev.page + 1:
        return False
    if prev.n_cols != nxt.n_cols:
        return False
    edges_a, edges_b = _value_edges(prev), _value_edges(nxt)
    if any(abs(a - b) > 12 for a, b in zip(edges_a, edges_b, strict=True)):
        return False
    caption = [c for c in nxt.caption if furniture_key(c) not in furniture]
    title = nxt.title if nxt.title and furniture_key(nxt.title) not in furniture else None
    # The label column's head: a table of one value column takes its title lines into its head ("Maturities
    # of lease liabilities (continued)" over "As at 31 December 2025").
    label_heads = [row[0].text for row in nxt.rows[: nxt.header_rows] if row and row[0].col == 0]
    said_continued = any(says_continued(c) for c in [*caption, *label_heads, title or ""])
    if said_continued and title and _introduced_below(prev, title):
        # "Receivables (continued)" whose title and heads were printed under the tax note's table, the
        # last one on the page before: it continues the table begun there, with no rows, not that one.
        return False
    new_title = title and prev.title and _title_key(title) != _title_key(prev.title)
    # A running head read as the continuation's only head row ("Table of Contents" over a schedule whose
    # heads were not printed again) is no column head.
    heads = nxt.header_rows - _furniture_heads(nxt, furniture)
    if not said_continued and new_title and not (heads == 0 and section_headings(caption)):
        # A new title is a new table (the same statement of another registrant, the next note), unless it
        # is a section heading over figures without column heads; over heads of its own ("Accrued Expenses
        # and Other Current Liabilities" over "December 31, 2020  2019") it is the next note's title.
        return False
    same_header = heads > 0 and _header_texts(prev) == _header_texts(nxt)
    no_header = heads == 0 and not caption
    ran_to_bottom = prev.bbox[3] > 0.72 * page_height
    # A statement kept together by section ("Current liabilities" starts the next page) need not have
    # filled its page: the heading over figures without column heads is the continuation's mark.
    by_section = heads == 0 and section_headings(caption)
    return said_continued or by_section or ((same_header or no_header) and ran_to_bottom)


def _introduced_below(prev: RawTable, title: str) -> bool:
    """Whether a continued table's title (without "(continued)") was printed under ``prev`` on its page."""
    name = title_name(title).strip(" :,.-–—")
    return bool(name) and any(title_name(text).strip(" :,.-–—") == name for text in prev.below)


# A letter (of any script) first, then letters, spaces and the punctuation of line-item labels; full-width
# forms included, as Chinese and Japanese statements print them ("其中：优先股").
_SECTION_HEADING = re.compile(r"^[^\W\d_](?:[^\W\d_]|[ ,'’&()（）、-]){0,60}[:：]?$")
_NOT_SECTION = re.compile(
    r"\b(?:statements?|balance sheets?|notes?|continued|in (?:thousands|millions|billions)|page|"
    r"inc|incorporated|corp|corporation|company|limited|llc|plc|partnership|ag|se|n\.?v|s\.?a)\b",
    re.IGNORECASE,
)


def section_headings(caption: Sequence[str]) -> bool:
    """Whether a table's caption lines are section headings of its body ("Current liabilities").

    A statement that breaks at a section heading starts the next page with that heading above its
    figures, with no column heads; the finder takes the heading for the table's caption.
    """
    return bool(caption) and all(
        len(text.split()) <= 6 and _SECTION_HEADING.match(text.strip()) and not _NOT_SECTION.search(text)
        for text in caption
    )


def stitch_pages(
    pages: Sequence[tuple[Sequence[RawTable], float]], furniture: frozenset[str] = frozenset()
) -> list[TableGroup]:
    """Group the tables of consecutive pages into logical tables.

    Args:
        pages: For each page in order, its tables and its height.
        furniture: Running heads and feet (:func:`page_furniture`).

    Returns:
        Logical tables in reading order.
    """
    groups: list[TableGroup] = []
    prev_last: TableGroup | None = None
    prev_height = 0.0
    for tables, height in pages:
        if tables and furniture:
            _drop_furniture_rows(tables[-1], furniture)
        first = True  # no table read so far on the page (a lone line dropped is none)
        for t in tables:
            if first and prev_last is not None and continues(prev_last.last, t, True, prev_height, furniture):
                _drop_furniture(t, furniture)
                prev_last.fragments.append(t)
                first = False
                continue
            if t.lone == "top":
                continue  # one line of figures that continues nothing is no table
            first = False
            groups.append(TableGroup([t]))
        prev_last = groups[-1] if tables and groups and groups[-1].last is tables[-1] else None
        prev_height = height
    # (a line at a page's foot that the next page does not continue is no table either)
    return [g for g in groups if len(g.fragments) > 1 or not g.first.lone]


def _drop_furniture_rows(table: RawTable, furniture: frozenset[str]) -> None:
    """Take a running foot off the bottom of a page's last table.

    A table that runs to the foot of its page takes the foot in as its last row when the page number sits
    under a value column ("Aurelia Logistik SE | Prospectus" and "8"): a row that is no line item, which a
    continuation then carries into the middle of the logical table. The table's box keeps its extent, as
    it still ran to the bottom of the page (what :func:`continues` asks).

    In place, like :func:`_drop_furniture`.
    """
    while table.n_rows > table.header_rows + 1:
        last = table.rows[-1]
        if furniture_key(" ".join(c.text for c in last)) not in furniture:
            return
        table.rows.pop()
        if len(table.row_tops) > len(table.rows):
            table.row_tops.pop()


def _renumber(rows: Sequence[Sequence[RawCell]]) -> None:
    """Give each cell the index of its row, after rows were taken out or put together (in place)."""
    for i, row in enumerate(rows):
        for cell in row:
            cell.row = i


def _furniture_heads(table: RawTable, furniture: frozenset[str]) -> int:
    """How many of a table's first rows are head rows that print a running head and nothing else."""
    k = 0
    while k < table.header_rows and furniture_key(" ".join(c.text for c in table.rows[k])) in furniture:
        k += 1
    return k


def _drop_furniture(table: RawTable, furniture: frozenset[str]) -> None:
    """Take running heads off a continuation's caption and head rows, so they do not become rows of it.

    In place: the page stage keys each table's scale context by the object.
    """
    if (k := _furniture_heads(table, furniture)) and furniture:
        del table.rows[:k]
        del table.row_tops[:k]
        _renumber(table.rows)
        table.header_rows -= k
    kept = [k for k, text in enumerate(table.caption) if furniture_key(text) not in furniture]
    if len(kept) == len(table.caption):
        return
    boxes = table.caption_boxes
    table.caption = [table.caption[k] for k in kept]
    table.caption_boxes = [boxes[k] for k in kept if k < len(boxes)]
    table.title = pick_title(table.caption)


_MAX_GAP_LINES = 10


def join_split_tables(tables: Sequence[RawTable], lines: Sequence[Line]) -> list[RawTable]:
    """Join a page's tables that the finder split in two: the second carries the first on.

    A run of label-only lines (line items printed without figures, a section heading, a long wrapped
    label) can end a table region early; the next region then has no column heads of its own but the same
    value columns. The two are one table when the second has no heads, the same columns (right edges
    within 12 pt), and at most a few lines between them, none of them running text ending a sentence.
    The lines between become label rows.

    Args:
        tables: The page's tables, top to bottom.
        lines: The page's lines, top to bottom.

    Returns:
        The tables, joined where they continue one another.
    """
    out: list[RawTable] = []
    for t in tables:
        prev = out[-1] if out else None
        between = [] if prev is None else _lines_between(prev, t, lines)
        if prev is not None and between is not None and _carries_on(prev, t):
            out[-1] = _join(prev, t, between)
        else:
            out.append(t)
    return out


def _lines_between(prev: RawTable, nxt: RawTable, lines: Sequence[Line]) -> list[Line] | None:
    """The lines between two tables, or None when they are too many or read as running text."""
    x0, x1 = min(prev.bbox[0], nxt.bbox[0]), max(prev.bbox[2], nxt.bbox[2])
    gap = [
        ln
        for ln in lines
        if ln.y0 >= prev.bbox[3] - 1 and ln.y1 <= nxt.bbox[1] + 1 and ln.x1 > x0 and ln.x0 < x1
    ]
    if len(gap) > _MAX_GAP_LINES:
        return None
    for ln in gap:
        if ln.text.rstrip().endswith(".") and len(ln.words) >= 6:
            return None  # a sentence between them: two tables
        values_from = min((b[0] for b in prev.col_bounds[1:]), default=prev.col_bounds[0][1] + 12)
        wider = ln.x1 > prev.col_bounds[0][1] + 12
        if ln.x0 < x0 - 40 or ln.x1 > values_from - 6 or (wider and ln.text.rstrip().endswith((":", "."))):
            # Not a label of the table's label column (sub-items may be indented deep). However many words
            # it holds, a line wider than the labels above it that stops short of the value columns is a
            # wrapped label ("Customers (net of allowance for doubtful accounts of $166 million …" over
            # three lines), unless it ends as a sentence or a lead-in does ("Undiscounted lease payments
            # fall due as follows:" introduces another table); running text spans the page.
            return None
    return gap


def _carries_on(prev: RawTable, nxt: RawTable) -> bool:
    if nxt.header_rows or prev.n_cols != nxt.n_cols:
        return False
    return all(abs(a - b) <= 12 for a, b in zip(_value_edges(prev), _value_edges(nxt), strict=True))


def _join(prev: RawTable, nxt: RawTable, between: Sequence[Line]) -> RawTable:
    rows = [list(r) for r in prev.rows]
    tops = list(prev.row_tops)
    for ln in between:
        rows.append([RawCell(0, 0, ln.text, (ln.x0, ln.y0, ln.x1, ln.y1))])
        tops.append(ln.y0)
    rows.extend(list(r) for r in nxt.rows)
    tops.extend(nxt.row_tops)
    _renumber(rows)
    bbox = (
        min(prev.bbox[0], nxt.bbox[0]),
        prev.bbox[1],
        max(prev.bbox[2], nxt.bbox[2]),
        max(prev.bbox[3], nxt.bbox[3]),
    )
    return replace(prev, rows=rows, bbox=bbox, row_tops=tops)
