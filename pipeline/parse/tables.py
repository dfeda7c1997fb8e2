"""Table finding and structure from page geometry, without a generic table finder.

Generic finders (pdfplumber, PyMuPDF ``find_tables``) cost 200-500 ms a page. Financial tables announce
themselves far more cheaply: rows whose right-hand side is a run of figures separated by column-sized gaps.
So the finder is a chain of small steps over the page's lines (see :mod:`pipeline.parse.layout`):

1. mark *data lines* (a figure after a column gap, or two figures);
2. grow *regions* of data lines, allowing section headings and wrapped labels in between;
3. walk up from a region to its *header* lines (segments above the value columns) and *caption* lines
   (title, "(in millions)", "Year ended 31 December");
4. derive *columns* from the x-extents of the body's segments (or from vertical rules when the table is
   ruled) and place every segment in a column, spanning ones with a col-span;
5. form *rows*, merging wrapped labels and, in fully ruled tables, every line between two rules.

This module finds (steps 1 and 2, and the rules drawn on the page); :mod:`pipeline.parse.table_grid`
structures each region found (steps 3 to 5). The output is a :class:`RawTable` grid of strings with boxes
(:mod:`pipeline.parse.table_types`, re-exported here); typing of numbers and periods happens later.
"""

from __future__ import annotations

import re
import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from pipeline.parse.layout import CURRENCY_TOKENS, Line, Segment, is_figure
from pipeline.parse.table_grid import build_table, heads_over_values, is_prose, is_year_line
from pipeline.parse.table_types import (
    DEFAULT_FINDER,
    RawCell,
    RawTable,
    Rules,
    TableFinderSettings,
    marked_continued,
)

__all__ = [
    "attach_currency",
    "data_strength",
    "find_tables",
    "rules_from_drawings",
]


# ---------------------------------------------------------------------------------------------------------
# rules


def rules_from_drawings(drawings: Sequence[dict[str, object]], page_height: float) -> Rules:
    """Collect thin horizontal/vertical strokes and hairline rectangles from ``get_cdrawings()``.

    Shaded row backgrounds in filings are wide filled rectangles, not rules: only shapes thinner than 2 pt
    in one direction count.
    """
    rules = Rules()
    for d in drawings:
        items = d.get("items")
        if not isinstance(items, list):
            continue
        for it in items:
            kind = it[0]
            if kind == "l":
                (x0, y0), (x1, y1) = it[1], it[2]
            elif kind == "re":
                r = it[1]
                x0, y0, x1, y1 = r[0], r[1], r[2], r[3]
            else:
                continue
            x0, x1 = min(x0, x1), max(x0, x1)
            y0, y1 = min(y0, y1), max(y0, y1)
            w, h = x1 - x0, y1 - y0
            if h <= 2.0 and w > 4.0:
                rules.horizontal.append(((y0 + y1) / 2, x0, x1))
            elif w <= 2.0 and h > 4.0:
                rules.vertical.append(((x0 + x1) / 2, y0, y1))
    return rules


# ---------------------------------------------------------------------------------------------------------
# line classification (is_prose and is_year_line live in table_grid: the header search uses them too)


def attach_currency(line: Line) -> list[Segment]:
    """Fold a lone currency sign into the figure that follows it on the line (10-K "$" columns)."""
    segs = line.segments
    out: list[Segment] = []
    pending: Segment | None = None
    for s in segs:
        if not s.figure and s.text in CURRENCY_TOKENS and s.text != "%":
            if pending is not None:
                out.append(pending)
            pending = s
            continue
        if s.figure and s.currency is None and " " in s.text:
            # "$ 1,238.4": a sign set apart by a space is the cell's currency, not part of its figure.
            head, _, rest = s.text.partition(" ")
            if head in CURRENCY_TOKENS and head != "%":
                s = Segment(s.x0, s.y0, s.x1, s.y1, rest, True, head)
        if pending is not None:
            if s.figure:
                s = Segment(
                    s.x0, min(s.y0, pending.y0), s.x1, max(s.y1, pending.y1), s.text, True, pending.text
                )
            else:
                out.append(pending)
            pending = None
        out.append(s)
    if pending is not None:
        out.append(pending)
    return out


_DAY_OF_HEAD = re.compile(r"^\d{1,2},$")
"""A day of the month with the comma that follows it in a date ("28," of "January / 28, / 2023")."""


def data_strength(segs: Sequence[Segment], h: float) -> int:
    """2 for a table row (a figure after a column-sized gap, or two figures), 1 for a lone figure, else 0.

    A lone figure on its own line (a value centred beside a two-line label) keeps a table going but does
    not start one: page numbers look the same.
    """
    if segs and all(_DAY_OF_HEAD.match(s.text) for s in segs):
        return 0  # "28,  29,  30,": the days of the dates the columns are headed by, between month and year
    figs = 0
    prev: Segment | None = None
    col_gap = False
    for s in segs:
        if s.figure:
            figs += 1
            if prev is not None and s.x0 - prev.x1 > 0.9 * h:
                col_gap = True
        prev = s
    if (figs >= 1 and col_gap) or figs >= 2:
        return 2
    return 1 if figs == 1 and len(segs) == 1 else 0


# ---------------------------------------------------------------------------------------------------------
# regions


def _median_height(lines: Sequence[Line]) -> float:
    hs = [ln.height for ln in lines if ln.height > 0]
    return statistics.median(hs) if hs else 10.0


def find_tables(
    lines: Sequence[Line],
    page: int,
    page_width: float,
    rules: Rules | Callable[[], Rules | None] | None = None,
    settings: TableFinderSettings = DEFAULT_FINDER,
) -> list[RawTable]:
    """Find the tables on one page.

    Args:
        lines: The page's lines from :func:`pipeline.parse.layout.build_lines`, top to bottom.
        page: 1-based page number, recorded on the result.
        page_width: Page width in points.
        rules: Rules drawn on the page, or a function that collects them; it is called only when the
            page has a table region, since walking a page's drawings costs more than finding regions.
        settings: The finder's tolerances (:class:`TableFinderSettings`).

    Returns:
        Tables top to bottom.
    """
    if not lines:
        return []
    segs_per_line = [attach_currency(ln) for ln in lines]
    h = _median_height(lines)
    strength = [data_strength(segs_per_line[i], max(lines[i].height, 1.0)) for i in range(len(lines))]
    data = [x == 2 for x in strength]
    tables: list[RawTable] = []
    regions: list[tuple[int, int, int, Literal["top", "foot"] | None]] = []
    used_until = -1
    i = 0
    n = len(lines)
    while i < n:
        if not data[i] or i <= used_until:
            i += 1
            continue
        start = i
        last_data = _region_end(lines, segs_per_line, data, strength, i, page_width, h, settings)
        n_data = sum(1 for k in range(start, last_data + 1) if data[k])
        region = (start, last_data, used_until)
        lone = None if n_data >= 2 else _lone_line(lines, region, page_width, settings)
        if n_data >= 2 or lone:
            regions.append((start, last_data, used_until, lone))
        used_until = last_data
        i = last_data + 1
    resolved: Rules | None = None
    if regions:
        resolved = rules() if callable(rules) else rules
    for start, last_data, floor, lone in regions:
        t = build_table(lines, segs_per_line, data, (start, last_data, floor), page, h, resolved, settings)
        # (a line at a page's foot is a table's start only under its heads)
        if t is not None and (lone != "foot" or t.header_rows):
            t.lone = lone
            if resolved is not None:
                _mark_underlines(t, resolved.horizontal)
            tables.append(t)
    _note_below(tables, lines, settings)
    return tables


def _mark_underlines(table: RawTable, horizontal: Sequence[tuple[float, float, float]]) -> None:
    """Mark the figures printed just under a rule (:attr:`RawCell.ruled`): where US filings print totals.

    A rule between a body row and the one above it, over the figure's own width, is the underline of
    the figures it adds up. The first body row's rule closes the heads, not a run of figures; a table in
    which most rows are ruled is a grid, where a rule says nothing of a total.
    """
    body = table.rows[table.header_rows :]
    if len(body) < 2:
        return
    # Only the rules between the body's first and last rows can underline anything: a page's other
    # tables' rules are left out once, not tried against every cell.
    bottoms = [max((c.bbox[3] for c in row), default=0.0) for row in body]
    y_top = min(bottoms[:-1]) - 2.0
    y_bottom = max((c.bbox[1] for row in body[1:] for c in row), default=y_top) + 1.0
    horizontal = sorted(rule for rule in horizontal if y_top <= rule[0] <= y_bottom)
    if not horizontal:
        return
    # Sorted by height, each cell tries only the rules in its own band: a ruled page has hundreds of rules.
    heights = [y for y, _, _ in horizontal]
    marked: list[RawCell] = []
    for bottom, row in zip(bottoms[:-1], body[1:], strict=True):
        for cell in row:
            if cell.col == 0 or not is_figure(cell.text):
                continue
            x0, top, x1 = cell.bbox[0], cell.bbox[1], cell.bbox[2]
            band = horizontal[bisect_left(heights, bottom - 2.0) : bisect_right(heights, top + 1.0)]
            if any(a <= x1 and b >= x0 for _, a, b in band):
                marked.append(cell)
    if 2 * len({c.row for c in marked}) <= len(body):
        for cell in marked:
            cell.ruled = True


def _region_end(
    lines: Sequence[Line],
    segs: Sequence[Sequence[Segment]],
    data: Sequence[bool],
    strength: Sequence[int],
    start: int,
    page_width: float,
    h: float,
    settings: TableFinderSettings,
) -> int:
    """The last data line of the table region whose first data line is ``start``."""
    last_data = start
    items = others = 0
    for j in range(start + 1, len(lines)):
        gap = lines[j].y0 - lines[j - 1].y1
        if gap > settings.region_gap_heights * h:
            break
        if j > last_data + 1 and (
            (data[j] and (is_year_line(segs[j]) or _columns_moved(segs, last_data, j, settings)))
            or (
                not data[j]
                and heads_over_values(segs[j], lines[last_data].x0, _value_left(segs[last_data]))
                and not _next_block(lines, segs, (start, last_data, j), page_width, settings)
            )
        ):
            break  # years or words over the figures under a caption: the next table's column heads
        if data[j]:
            last_data = j
            items = others = 0
        elif strength[j] == 1:
            continue
        elif is_prose(lines[j], page_width - 100):
            if not _label_line_inside(lines, data, j, last_data, h):
                break
        elif not others and items < settings.nil_items and _nil_item(lines[j], lines[last_data], gap, h):
            items += 1  # a line item printed without figures ("Derivative financial assets")
        else:
            # Anything else (a title, column heads) ends the table after at most three such lines,
            # however many nil items it follows.
            others += 1
            if others + items > settings.region_other_lines:
                break
    return last_data


def _columns_moved(
    segs: Sequence[Sequence[Segment]], last_data: int, j: int, settings: TableFinderSettings
) -> bool:
    """Whether the figures of line ``j`` begin a column or more left of the table's, under heads of their own.

    A key-figures page prints its GAAP results in two columns at the right, then "Adjusted non-GAAP
    results  2022 $ million  2023 $ million  Reported ∆%  …" over four columns that begin further left:
    the next table, whose heads (a stub head in the label column, then the columns') stand between.
    """
    row, label_left = segs[last_data], segs[last_data][0].x0
    # (A table with columns of words, "Quarter, 2013  Office", moves its first figure from line to line.)
    moved = all(s.figure for s in row[1:]) and _value_left(segs[j]) < _value_left(row) - settings.column_move
    return moved and any(
        len(segs[k]) >= 3
        and abs(segs[k][0].x0 - label_left) <= _SAME_CENTRE
        and not any(s.figure for s in segs[k])
        for k in range(last_data + 1, j)
    )


def _next_block(
    lines: Sequence[Line],
    segs: Sequence[Sequence[Segment]],
    where: tuple[int, int, int],
    page_width: float,
    settings: TableFinderSettings,
) -> bool:
    """Whether the heads at line ``j`` open the next block of the same table, not another table.

    ``where``: the region's first line, its last data line so far, and ``j``. A segment note prints a block
    a year, each under its period and the segments' names again ("Year Ended December 31, 2020" /
    "Activision  Blizzard  King  Total"); a quarterly summary prints the period's flows, then the balances
    at its end under heads of their own over the same columns ("本报告期" then "本报告期末"). The heads repeat
    those over the region's first line, or stand over the same columns (their middles within a few points,
    one for one), and no sentence stands between. Split, each block would prove its columns' relations in
    too few rows.
    """
    start, last_data, j = where
    above = range(max(0, start - settings.header_lines), start)
    between = range(last_data + 1, j)
    if any(is_prose(lines[k], page_width - 100) for k in between):
        return False
    if any(lines[k].text == lines[j].text for k in above):
        return True
    label_left, value_left = lines[last_data].x0, _value_left(segs[last_data])
    middle = (label_left + value_left) / 2
    heads = [k for k in above if heads_over_values(segs[k], label_left, value_left)]
    ours, theirs = _head_centres(segs, heads, middle), _head_centres(segs, [*between, j], middle)
    return len(ours) == len(theirs) >= 2 and all(
        abs(x - y) <= _SAME_CENTRE for x, y in zip(ours, theirs, strict=True)
    )


_SAME_CENTRE = 3.0
"""Points by which the middles of two heads over the same column may differ."""


def _head_centres(segs: Sequence[Sequence[Segment]], lines: Iterable[int], middle: float) -> list[float]:
    """The middles of the heads over the figures (past ``middle``) on some lines, left to right."""
    return sorted(s.xmid for k in lines for s in segs[k] if s.x0 > middle)


def _value_left(segs: Sequence[Segment]) -> float:
    """Where a line's figures begin."""
    return min((s.x0 for s in segs if s.figure), default=float("inf"))


def _note_below(tables: Sequence[RawTable], lines: Sequence[Line], settings: TableFinderSettings) -> None:
    """Record under each table the lines printed below it, to the next table (:attr:`RawTable.below`)."""
    for i, t in enumerate(tables):
        limit = tables[i + 1].bbox[1] if i + 1 < len(tables) else float("inf")
        t.below = [ln.text for ln in lines if t.bbox[3] < ln.y0 and ln.y1 <= limit][: settings.header_lines]


def _lone_line(
    lines: Sequence[Line], region: tuple[int, int, int], page_width: float, settings: TableFinderSettings
) -> Literal["top", "foot"] | None:
    """Whether a lone line of figures may be a table's part that a page break cut off, and which part.

    A statement that runs out of room one line short prints its total at the top of the next page, under
    its title "(continued)" and heads, or under nothing but the running head ("top"); a schedule set low on
    its page prints its heads and first line at the foot, the rest on the next page ("foot"). Without the
    line the part is read nowhere and the table ends, or begins, one line short. No running text stands
    between a top line and the page's top; only the page's foot follows a foot line. The table it makes is
    kept only if the page break joins it to another (:attr:`RawTable.lone`).
    """
    start, last_data, floor = region
    if is_year_line(attach_currency(lines[start])):
        return None  # years over the columns are heads, not a line
    above = lines[floor + 1 : start]
    prose = any(is_prose(line, page_width - 100) and not marked_continued(line.text) for line in above)
    near = lines[max(floor + 1, start - settings.header_lines) : start]
    if not prose and (
        (floor < 0 and start <= settings.header_lines) or any(marked_continued(ln.text) for ln in near)
    ):
        return "top"
    return "foot" if len(lines) - 1 - last_data <= _FOOT_LINES else None


_FOOT_LINES = 2
"""Lines a page's foot may print under its last table (a running foot, the page number)."""


def _nil_item(line: Line, row: Line, gap: float, h: float) -> bool:
    """A short label at the labels' left edge, at row spacing: a line item printed without figures."""
    return len(line.words) <= 8 and abs(line.x0 - row.x0) <= 30 and gap <= 1.5 * h and line.n_figures == 0


def _label_line_inside(lines: Sequence[Line], data: Sequence[bool], j: int, last_data: int, h: float) -> bool:
    """Whether a long line inside a table region is one of its labels rather than running text.

    "Adjustments to reconcile net income to net cash provided by operating activities:" and the first
    line of a label that wraps onto its figures' line are as long as prose, but they start at the labels'
    left edge, sit at row spacing, and the table's next row follows at once (after the colon, at most one
    more label line).
    """
    line, row = lines[j], lines[last_data]
    if abs(line.x0 - row.x0) > 60 or line.y0 - lines[j - 1].y1 > 1.5 * h:
        return False
    colon = line.text.rstrip().endswith(":") or (
        j + 1 < len(lines) and lines[j + 1].text.rstrip().endswith(":")
    )
    ahead = 2 if colon else 1
    for k in range(j + 1, min(j + 1 + ahead, len(lines))):
        if lines[k].y0 - lines[k - 1].y1 > 1.5 * h:
            return False
        if data[k]:
            return True
    return False
