"""Table structure: one region of a page's lines made into a grid of header and body rows.

Steps 3 to 5 of table finding (:mod:`pipeline.parse.tables` finds the regions, steps 1 and 2):

3. walk up from a region to its *header* lines (segments above the value columns) and *caption* lines
   (title, "(in millions)", "Year ended 31 December");
4. derive *columns* from the x-extents of the body's segments (or from vertical rules when the table is
   ruled) and place every segment in a column, spanning ones with a col-span;
5. form *rows*, merging wrapped labels and, in fully ruled tables, every line between two rules.

:func:`build_table` runs them (its docstrings number the steps within one region); the line tests the
finder shares with it (:func:`is_prose`, :func:`is_year_line`) live here too.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.figures.periods import parse_period
from pipeline.parse.head_split import split_merged_heads
from pipeline.parse.layout import Line, Segment, is_figure, split_at_walls
from pipeline.parse.table_types import BBoxT, RawCell, RawTable, Rules, TableFinderSettings, marked_continued

__all__ = [
    "build_table",
    "column_span",
    "derive_columns",
    "heads_over_values",
    "is_prose",
    "is_year_line",
    "pick_title",
]


# ---------------------------------------------------------------------------------------------------------
# line tests


def is_prose(line: Line, region_width: float) -> bool:
    """A running-text line: one long segment of many words across most of the width."""
    if len(line.segments) != 1:
        return False
    s = line.segments[0]
    return len(line.words) >= 8 and (s.x1 - s.x0) > 0.6 * region_width


_MARKS = r"(?:\((?:\d|[a-z])\))+"
"""Footnote marks printed after a column head: "(1)", "(a)", "(1)(2)"."""
_YEAR_RE = re.compile(
    rf"^(?:FY|Fiscal |Q[1-4] |H[12] )?(?:19|20)\d\d(?:[/–—-](?:\d{{2,4}})?)?[A-Za-z*]?(?: ?{_MARKS})?$"
)
"""A column head printed as a year, with footnote marks after it or not ("2020 (1)")."""


_NOTE_MARK_RE = re.compile(rf"^{_MARKS}$")


def is_year_line(segs: Sequence[Segment]) -> bool:
    """A line of column heads such as "2018  2017  2016" (possibly with a label on the left).

    A footnote mark right after a year ("2020⁽¹⁾", read as its own segment "(1)") is part of the head,
    not a figure (-1): it sits closer to the year than the year is wide.
    """
    figs = [s for s in segs if s.figure or _YEAR_RE.match(s.text)]
    years = [s for s in figs if _YEAR_RE.match(s.text)]
    if not years:
        return False
    return all(s in years or _marks_year(s, years) for s in figs)


def _marks_year(seg: Segment, years: Sequence[Segment]) -> bool:
    """Whether ``seg`` is a footnote mark printed right after one of the ``years``."""
    return bool(_NOTE_MARK_RE.match(seg.text)) and any(0 <= seg.x0 - y.x1 < y.x1 - y.x0 for y in years)


# ---------------------------------------------------------------------------------------------------------
# columns


def _cluster(intervals: list[tuple[float, float]], slack: float) -> list[list[float]]:
    """Merge overlapping x-intervals (with ``slack``) into clusters ``[x0, x1, count]``."""
    out: list[list[float]] = []
    for x0, x1 in sorted(intervals):
        if out and x0 <= out[-1][1] + slack:
            out[-1][1] = max(out[-1][1], x1)
            out[-1][2] += 1
        else:
            out.append([x0, x1, 1])
    return out


def derive_columns(body: Sequence[Sequence[Segment]], rules_v: Sequence[float]) -> list[tuple[float, float]]:
    """Column extents for a table body.

    Figure columns come from the figures' extents (right-aligned numbers overlap at their right edge);
    text left of the first figure column and text between figure columns form text columns of their own.
    A segment that would bridge two otherwise separate columns (a long heading) is left out of the vote.
    """
    fig_iv = [(s.x0, s.x1) for segs in body for s in segs if s.figure]
    fig_cols = _cluster(fig_iv, 0.5)
    # Every figure cluster is a column, however few rows support it (a bridging one is rare).
    text_iv: list[tuple[float, float]] = []
    for segs in body:
        for s in segs:
            if s.figure:
                continue
            if any(s.x0 < c[1] and s.x1 > c[0] for c in fig_cols):
                continue  # text inside a figure column (e.g. "n/a"): belongs to it
            text_iv.append((s.x0, s.x1))
    text_cols = _cluster(text_iv, 0.5)
    # The columns are the figure and text clusters in x order; a text cluster that still reaches into a
    # figure column's range is not split around the figures but joined with it into one column.
    cols = sorted([(c[0], c[1]) for c in fig_cols] + [(c[0], c[1]) for c in text_cols])
    merged: list[tuple[float, float]] = []
    for c in cols:
        if merged and c[0] < merged[-1][1] - 0.5:
            merged[-1] = (merged[-1][0], max(merged[-1][1], c[1]))
        else:
            merged.append(c)
    if len(rules_v) >= 2:
        figure_mids = [(c[0] + c[1]) / 2 for c in fig_cols]
        merged = _columns_from_rules(merged, rules_v, figure_mids)
    return merged


def _columns_from_rules(
    cols: list[tuple[float, float]], xs: Sequence[float], figure_mids: Sequence[float] = ()
) -> list[tuple[float, float]]:
    """Re-cut columns at vertical rules when the rules really form the grid.

    Rules count only when they separate at least half of the neighbouring whitespace columns: a frame
    around the table, or one rule beside the labels, says nothing about the columns inside. In a real
    grid, content between two rules is one column even when whitespace would split it ("$" and figure) —
    but a grid cell holds one figure: where two columns of figures sit between the same two rules (a
    "%" column beside next year's amounts, between rules that only close each year's group), the
    whitespace columns stand.
    """
    edges = sorted({round(x, 1) for x in xs})
    separated = sum(1 for a, b in itertools.pairwise(cols) if any(a[1] - 1 <= x <= b[0] + 1 for x in edges))
    if len(cols) < 2 or separated < max(1, (len(cols) - 1) / 2):
        return cols
    out: list[tuple[float, float]] = []
    for a, b in itertools.pairwise(edges):
        inside = [c for c in cols if a - 1 <= (c[0] + c[1]) / 2 <= b + 1]
        if sum(1 for m in figure_mids if a - 1 <= m <= b + 1) >= 2:
            out.extend(inside)
        elif inside:
            out.append((a, b))
    # content left of the first rule or right of the last one keeps its whitespace columns
    left = [c for c in cols if (c[0] + c[1]) / 2 < edges[0]]
    right = [c for c in cols if (c[0] + c[1]) / 2 > edges[-1]]
    return left + out + right


def column_span(s: Segment, bounds: Sequence[tuple[float, float]]) -> tuple[int, int]:
    """First column and number of columns that a segment covers (at least one)."""
    hit = [i for i, (a, b) in enumerate(bounds) if s.x0 < b - 0.5 and s.x1 > a + 0.5]
    if not hit:
        # in a gutter: the nearest column by centre
        mid = s.xmid
        best = min(range(len(bounds)), key=lambda i: min(abs(mid - bounds[i][0]), abs(mid - bounds[i][1])))
        return best, 1
    if s.figure and len(hit) > 1:
        # a figure is one value: place it where its right edge falls
        best = min(hit, key=lambda i: abs(s.x1 - bounds[i][1]))
        return best, 1
    return hit[0], hit[-1] - hit[0] + 1


# ---------------------------------------------------------------------------------------------------------
# a region's grid


@dataclass(frozen=True, slots=True)
class _NearRules:
    vertical: list[float]
    horizontal: list[float]
    full_width: list[float]  # above the region, spanning it: a grid's frame top


def _trim_heads(
    segs: Sequence[list[Segment]], data: Sequence[bool], start: int, end: int, cfg: TableFinderSettings
) -> int:
    """Step 1: the body's first line, past column heads that look like figures (years) and unit lines."""
    # Column heads printed as bare years ("2018  2017") look like figures: they are header, not body.
    # A title line with a page number may sit above them; it goes with the header search too.
    for k in range(start, min(start + cfg.year_head_search, end)):
        if is_year_line(segs[k]):
            if all(sum(1 for s in segs[j] if s.figure) <= 1 for j in range(start, k)):
                start = k
            break
    while start < end and is_year_line(segs[start]):
        start += 1
    # Unit lines under the year heads ("£m  £m", "Notes  $000  %") belong to the header as well, and so do
    # the heads of the columns a year spans ("2021" over "Under prior method  As adjusted").
    value_left = min(
        (s.x0 for k in range(start, end + 1) if data[k] for s in segs[k] if s.figure), default=0.0
    )
    label_left = min((s[0].x0 for k in range(start, end + 1) if data[k] and (s := segs[k])), default=0.0)
    while (
        start < end
        and not data[start]
        and (_is_unit_line(segs[start], value_left) or heads_over_values(segs[start], label_left, value_left))
    ):
        start += 1
    return start


def heads_over_values(segs: Sequence[Segment], label_left: float, value_left: float) -> bool:
    """Two words or phrases or more, none a figure, each nearer the figures than the labels: column heads.

    A line of the body has its label in the label column; a line that has nothing there but the unit
    ("(Millions, except per share amounts)") and no figure names the columns below it. A head centred over
    its figures may begin left of them: it need only begin past the middle of the labels' side.
    """
    heads = segs[1:] if segs and _UNIT_CAPTION.match(segs[0].text) else segs
    middle = (label_left + value_left) / 2
    return len(heads) >= 2 and all(not s.figure and s.x0 > middle for s in heads)


_UNIT_CAPTION = re.compile(
    r"^\(?\s*(?:(?:amounts |dollars |figures )?in |[$€£¥]\s?in )?(?:millions|thousands|billions)\b",
    re.IGNORECASE,
)
"""The unit printed in the label column of a line of column heads: "(Millions)", "(In thousands)"."""


def _rules_near(
    rules: Rules | None, box: tuple[float, float, float, float], cfg: TableFinderSettings
) -> _NearRules:
    """Step 2: the page's rules that belong to the region ``box`` (x0, y0, x1, y1)."""
    if rules is None:
        return _NearRules([], [], [])
    x_left, y_top, x_right, y_bot = box
    return _NearRules(
        vertical=[
            x
            for x, a, b in rules.vertical
            if a <= y_bot + cfg.rule_y_margin
            and b >= y_top - cfg.rule_y_margin
            and x_left - cfg.rule_x_margin <= x <= x_right + cfg.rule_x_margin
        ],
        horizontal=[
            y
            for y, a, b in rules.horizontal
            if a <= x_right and b >= x_left and y_top - cfg.rules_above <= y <= y_bot + cfg.rules_below
        ],
        full_width=[
            y
            for y, a, b in rules.horizontal
            if a <= x_left + cfg.frame_edge
            and b >= x_right - cfg.frame_edge
            and y_top - cfg.rules_above <= y < y_top
        ],
    )


_HEADS_APART = 3
"""Segments of a line ending with a period that make it a line of column heads, not a sentence's end."""
_HEAD_WORDS = 4
"""The most words of the last of those heads: a longer one is the end of a sentence beside them."""


def _heads_apart(segs: Sequence[Segment]) -> bool:
    """Whether a line ending with "." is heads standing apart, the last short ("Land  Total  Depr.")."""
    return len(segs) >= _HEADS_APART and len(segs[-1].text.split()) <= _HEAD_WORDS


def _heads_and_caption(
    lines: Sequence[Line],
    segs: Sequence[list[Segment]],
    start: int,
    floor: int,
    x_span: tuple[float, float],
    value_x0: float,
    frame_top: float | None,
    h: float,
    cfg: TableFinderSettings,
) -> tuple[list[int], list[int], list[int]]:
    """Step 3: the column-head lines and caption lines above the body, walking up from ``start``.

    Returns:
        Head lines, caption lines (both top to bottom) and label lines that sat between the heads and the
        first figures: section headings of the body ("Real estate loans"), to prepend to it.
    """
    x_left, x_right = x_span
    header_idx: list[int] = []
    caption_idx: list[int] = []
    to_body: list[int] = []
    k = start - 1
    while k > floor and start - k <= cfg.header_lines:
        gap = lines[k + 1].y0 - lines[k].y1
        if gap > cfg.header_gap_heights * h:
            break
        ln = lines[k]
        # Running text ends the search: a long line, or the last line of a sentence above the table; a
        # title that says "(continued)" is as long as prose on a continuation of a long name.
        sentence_end = ln.text.rstrip().endswith(".") and len(ln.words) >= 4 and not _heads_apart(segs[k])
        if not marked_continued(ln.text) and (is_prose(ln, x_right - x_left) or sentence_end):
            break
        over_values = any(s.x1 > value_x0 - cfg.value_edge for s in segs[k])
        # One phrase reaching from the label area across the value columns is a title, not a column head.
        if (
            len(segs[k]) == 1
            and segs[k][0].x0 < value_x0 - cfg.title_overhang
            and segs[k][0].x1 > value_x0 + cfg.title_overhang
        ):
            over_values = False
        inside_frame = frame_top is None or ln.y0 >= frame_top - cfg.frame_top_tolerance
        if over_values and inside_frame and (not caption_idx or (not header_idx and len(caption_idx) <= 2)):
            # Label-only lines between the column heads and the first figures are section headings of
            # the body ("Real estate loans"), not captions.
            if not header_idx and caption_idx:
                to_body[:0] = sorted(caption_idx)
                caption_idx = []
            header_idx.append(k)
        else:
            caption_idx.append(k)
            if len(caption_idx) >= cfg.caption_lines:
                break
        k -= 1
    header_idx.reverse()
    caption_idx.reverse()
    return header_idx, caption_idx, to_body


def _head_rows(
    header_idx: Sequence[int],
    lines: Sequence[Line],
    segs: Sequence[list[Segment]],
    bounds: list[tuple[float, float]],
    rules: Rules | None,
    fully_ruled: bool,
) -> tuple[list[list[RawCell]], list[float]]:
    """Step 5: header rows; spanning heads get their own row, single-column text stacks into the leaf row.

    A spanning head printed under every one-column head of its columns ("(Unaudited)" under "January 29,"
    and "2022", reaching into the next column) comes after the leaf row, in reading order.
    """
    placed: list[tuple[int, int, int, Segment]] = []  # (line, first column, columns, segment)
    units: dict[int, tuple[int, str]] = {}  # column → the nearest head under the line: (its id, its text)
    if not fully_ruled:  # a ruled grid's walls separate its heads
        split = split_merged_heads(header_idx, lines, segs, bounds, column_span)
        segs = [split.get(k, ss) for k, ss in enumerate(segs)]
    for i in reversed(range(len(header_idx))):  # bottom up: a head's span depends on the heads under it
        k = header_idx[i]
        cuts = _rules_at(rules, lines[k]) if fully_ruled and rules is not None else []
        below = _leaf_heads([segs[j] for j in header_idx[i + 1 :]], bounds)
        line: list[tuple[int, int, int, Segment]] = []
        for s in split_at_walls(lines[k], segs[k], cuts) if cuts else segs[k]:
            c, span = _ruled_span(s, bounds, cuts) if cuts else column_span(s, bounds)
            if (
                not cuts
                and (run := _centred_over(s, (c, span), segs[k], below, units, bounds))
                and run[0] <= c
                and c + span <= sum(run)
            ):
                c, span = run
            line.append((k, c, span, s))
        units.update({x: (id(s), s.text) for _, c, span, s in line for x in range(c, c + span)})
        placed[:0] = line
    last_leaf: dict[int, int] = {}
    for k, c, span, _ in placed:
        if span == 1:
            last_leaf[c] = k
    above: dict[int, list[RawCell]] = {}
    under: dict[int, list[RawCell]] = {}
    leaf: dict[int, list[Segment]] = {}
    for k, c, span, s in placed:
        if span == 1:
            leaf.setdefault(c, []).append(s)
            continue
        covered = [last_leaf[x] for x in range(c, c + span) if x in last_leaf]
        side = under if covered and all(k > x for x in covered) else above
        side.setdefault(k, []).append(RawCell(0, c, s.text, (s.x0, s.y0, s.x1, s.y1), span, True))
    leaf_row = [
        RawCell(0, c, " ".join(s.text for s in ss), _union(ss), 1, True) for c, ss in sorted(leaf.items())
    ]
    rows = [
        *(above[k] for k in sorted(above)),
        *([leaf_row] if leaf_row else []),
        *(under[k] for k in sorted(under)),
    ]
    return rows, [min(c.bbox[1] for c in r) for r in rows]


def _leaf_heads(
    lines: Sequence[Sequence[Segment]], bounds: Sequence[tuple[float, float]]
) -> dict[int, tuple[float, float]]:
    """The one-column heads of the head lines below a line: each column's x-extent of head text."""
    out: dict[int, tuple[float, float]] = {}
    for segs in lines:
        for s in segs:
            c, span = column_span(s, bounds)
            if span == 1:
                x0, x1 = out.get(c, (s.x0, s.x1))
                out[c] = (min(x0, s.x0), max(x1, s.x1))
    return out


def _centred_over(
    s: Segment,
    hit: tuple[int, int],
    line: Sequence[Segment],
    below: dict[int, tuple[float, float]],
    units: dict[int, tuple[int, str]],
    bounds: Sequence[tuple[float, float]],
) -> tuple[int, int] | None:
    """The columns a head is centred over: "2021" over "Under prior method  As adjusted".

    A year printed once over two columns of heads of its own is narrower than either and falls into one
    column or the gutter between; "Year ended December 31," centred over four reaches the middle two. It
    spans the longest run of columns from one headed column to another, both nearer to it than to the
    line's other heads, whose heads' middle it stands over (within a quarter of a column); a column without
    a head may lie between ("13 Weeks Ended" over "January 28, 2023", a percentage column and "January 29,
    2022"). No head under it may be printed twice ("Activision  Blizzard  Activision  Blizzard": two spans;
    "Three months ended March 31," over "2021  2020", each over "Reported  Managed basis", spans all) or be
    its own text: "Weighted-Average" over three columns, one of them headed "Weighted-Average", heads one.

    ``hit``: the columns it reaches as printed (first column, number of columns).

    Returns:
        (first column, number of columns), or None when it stands over no run of two or more.
    """
    (c, span), others = hit, [o.xmid for o in line if o is not s]
    pitch = _pitch(bounds)
    # The head of its own column ("% of Total" over "Revenues"), not past its right edge; a year on a line
    # of its own heads the columns it is centred over, even over a middle column's wide head ("2022" over
    # "That Impacted Earnings  That Did Not Impact Earnings  Total Utility").
    if span == 1 and c not in below and bounds[c][0] < s.x1 and s.x0 < bounds[c][1]:
        return None  # over a column with no head under it: that column's head ("Percent Increase")
    own = span == 1 and c in below and s.x1 <= max(bounds[c][1], below[c][1]) + pitch / 8
    if own and not _YEAR_RE.match(s.text) and _centred(s, c, c, below, bounds, pitch):
        return None
    near = sorted(
        c
        for c, (x0, x1) in below.items()
        if c > 0 and all(abs((x0 + x1) / 2 - s.xmid) < abs((x0 + x1) / 2 - m) for m in others)
    )
    best: tuple[int, int] | None = None
    for i, first in enumerate(near):
        for j in range(i + 1, len(near)):
            last = near[j]
            heads = dict(units[c] for c in range(first, last + 1) if c in units)
            if (
                len(set(heads.values())) == len(heads)
                and s.text not in heads.values()
                and _centred(s, first, last, below, bounds, pitch)
                and (best is None or last - first + 1 > best[1])
            ):
                best = (first, last - first + 1)
    return best


def _centred(
    s: Segment,
    first: int,
    last: int,
    below: dict[int, tuple[float, float]],
    bounds: Sequence[tuple[float, float]],
    pitch: float,
) -> bool:
    """Whether a head stands over the middle of columns ``first`` to ``last`` (within a quarter column).

    The middle of their heads as printed, or of their cells: a column's cell reaches a column's width left
    of its right edge (figures and heads are right-aligned, a spanning head centred over the cells).
    """
    x0, x1 = min(below[c][0] for c in (first, last)), max(below[c][1] for c in (first, last))
    right = {c: max(bounds[c][1], below[c][1]) for c in (first, last)}
    middles = ((x0 + x1) / 2, (right[first] - pitch + right[last]) / 2)
    inside = x0 - pitch / 4 <= s.x0 and s.x1 <= right[last] + pitch / 4
    return inside and any(abs(m - s.xmid) <= pitch / 4 for m in middles)


def _pitch(bounds: Sequence[tuple[float, float]]) -> float:
    """The width of one value column, gutter included: the value columns' extent over their number."""
    return (bounds[-1][1] - bounds[1][0]) / (len(bounds) - 1)


def _body_rows(
    body_idx: Sequence[int],
    end: int,
    lines: Sequence[Line],
    segs: Sequence[list[Segment]],
    data: Sequence[bool],
    bounds: list[tuple[float, float]],
    band_edges: Sequence[float] | None,
    rows: list[list[RawCell]],
    row_tops: list[float],
    h: float,
    cfg: TableFinderSettings,
) -> None:
    """Step 6: body rows appended to ``rows``; a grid's band or a wrapped label makes one row of lines."""
    header_rows = len(rows)
    pending_label: list[Segment] = []
    prev_band = -1
    for k in body_idx:
        ln = lines[k]
        cells = _place(segs[k], bounds)
        if band_edges is not None:
            band = sum(1 for y in band_edges if y < (ln.y0 + ln.y1) / 2)
            filled = {c.col for c in rows[-1] if c.col > 0 and c.text.strip()} if rows else set()
            # A band is one row of wrapped lines, unless its lines each fill the same value columns: then
            # it holds several rows under one shading ("January / February / March" above their total).
            stacked = data[k] and any(c.col in filled for c in cells if c.col > 0)
            words_on_figures = not data[k] and bool(rows) and _onto_figures(rows[-1], cells)
            if (
                rows
                and band == prev_band
                and len(rows) > header_rows
                and not stacked
                and not words_on_figures
            ):
                _merge_into(rows[-1], cells)
                continue
            prev_band = band
        else:
            if not data[k]:
                only_label = len(cells) == 1 and cells[0].col == 0
                # A wrapped label continues on the next line: "Net cash provided by operating" / "activities".
                # A label set a few points above its figures (cells aligned to different edges: Boston
                # Properties' equity statement) overlaps their line, and lines of two rows never overlap;
                # a heading ("Senior debt:") or a wrapped label's end ("and deposits") is no row's label.
                lower = k < end and data[k + 1] and bool(segs[k + 1]) and lines[k + 1].y0 < ln.y1
                lower = lower and ln.text[:1].isupper() and not ln.text.rstrip().endswith(":")
                if only_label and (
                    _wraps_into_figures(k, lines, segs, data, bounds, end)
                    or (lower and _place(segs[k + 1], bounds)[0].col > 0)
                ):
                    pending_label.extend(segs[k])
                    continue
                if (
                    only_label
                    and rows
                    and len(rows) > header_rows
                    and cells[0].text[:1].islower()
                    and ln.y0 - lines[k - 1].y1 < cfg.continuation_gap_heights * h
                ):
                    _merge_into(rows[-1], cells)
                    continue
            if pending_label and cells and cells[0].col == 0:
                first = cells[0]
                text = " ".join(s.text for s in pending_label) + " " + first.text
                cells[0] = RawCell(0, 0, text, _bbox_join(_union(pending_label), first.bbox))
            elif pending_label:
                cells.insert(0, RawCell(0, 0, " ".join(s.text for s in pending_label), _union(pending_label)))
            pending_label = []
        rows.append(cells)
        row_tops.append(ln.y0)


def build_table(
    lines: Sequence[Line],
    segs: Sequence[list[Segment]],
    data: Sequence[bool],
    region: tuple[int, int, int],
    page: int,
    h: float,
    rules: Rules | None,
    cfg: TableFinderSettings,
) -> RawTable | None:
    """One region (first line, last data line, the line above which nothing belongs to it) as a table."""
    start, end, floor = region
    start = _trim_heads(segs, data, start, end, cfg)
    body_idx = list(range(start, end + 1))
    data_body = [segs[k] for k in body_idx if data[k]]
    x_left = min(lines[k].x0 for k in body_idx)
    x_right = max(lines[k].x1 for k in body_idx)
    near = _rules_near(rules, (x_left, lines[start].y0, x_right, lines[end].y1), cfg)
    fully_ruled = _fully_ruled([lines[k] for k in body_idx], near.horizontal)
    # In a grid, the frame's top rule is where the table starts: lines above it are captions.
    frame_top = min(near.full_width) if fully_ruled and near.full_width else None
    fig_cols = _cluster([(s.x0, s.x1) for row in data_body for s in row if s.figure], 0.5)
    value_x0 = fig_cols[0][0] if fig_cols else x_right
    header_idx, caption_idx, to_body = _heads_and_caption(
        lines, segs, start, floor, (x_left, x_right), value_x0, frame_top, h, cfg
    )
    body_idx[:0] = to_body
    # Step 4: the columns, from the figures' extents or the grid's rules.
    bounds = derive_columns(data_body, near.vertical)
    if len(bounds) < 2:
        return None
    rows, row_tops = _head_rows(header_idx, lines, segs, bounds, rules, fully_ruled)
    header_rows = len(rows)
    band_edges = sorted(near.horizontal) if fully_ruled else None
    _body_rows(body_idx, end, lines, segs, data, bounds, band_edges, rows, row_tops, h, cfg)
    # Step 7: the table.
    for ri, row in enumerate(rows):
        for cell in row:
            cell.row = ri
    all_boxes = [c.bbox for row in rows for c in row]
    bbox = (
        min(b[0] for b in all_boxes),
        min(b[1] for b in all_boxes),
        max(b[2] for b in all_boxes),
        max(b[3] for b in all_boxes),
    )
    caption = [lines[k].text for k in caption_idx]
    caption_boxes = [(lines[k].x0, lines[k].y0, lines[k].x1, lines[k].y1) for k in caption_idx]
    return RawTable(
        page=page,
        bbox=bbox,
        n_cols=len(bounds),
        rows=rows,
        header_rows=header_rows,
        col_bounds=bounds,
        caption=caption,
        title=pick_title(caption),
        method="ruled" if fully_ruled or len(near.vertical) >= 2 else "whitespace",
        row_tops=row_tops,
        caption_boxes=caption_boxes,
    )


_NOT_TITLE = re.compile(
    r"^\(?(?:in |amounts in |all amounts in |dollars in |\$ in |unaudited|\(?millions|thousands)"
    r"|ended|^as (?:at|of)\b",
    re.IGNORECASE,
)
_UNIT_LINE = re.compile(
    r"^\([^()]*\b(?:thousands?|millions?|billions?|crores?|lakhs?)\b[^()]*\)$"
    r"|^\(\s*(?:[€£$¥₹]|[a-z]{3}|us\$)\s*(?:m|mn|bn|k|'?000s?)?\s*\)$",
    re.IGNORECASE,
)
"""A unit note in parentheses ("(€ million)", "(EUR thousands)", "(£m)"): the title when nothing else is."""


def pick_title(caption: Sequence[str]) -> str | None:
    """The caption line that names the table: the closest one that is not a scale or period phrase."""
    lines = [t for text in reversed(caption) if (t := text.strip()) and not t.endswith(".")]
    named = [t for t in lines if not _NOT_TITLE.search(t)]
    return (
        next((t for t in named if not _UNIT_LINE.search(t)), None)
        or next(iter(named), None)
        or (caption[0] if caption else None)
    )


def _rules_at(rules: Rules, line: Line) -> list[float]:
    """X of the vertical rules crossing a line: the cell walls of that row in a grid."""
    mid = (line.y0 + line.y1) / 2
    return sorted(x for x, a, b in rules.vertical if a - 1 <= mid <= b + 1)


def _ruled_span(s: Segment, bounds: Sequence[tuple[float, float]], cuts: Sequence[float]) -> tuple[int, int]:
    """Columns covered by the grid cell that holds a segment (a spanning head sits in a wide cell)."""
    mid = s.xmid
    left = max((x for x in cuts if x <= mid), default=None)
    right = min((x for x in cuts if x >= mid), default=None)
    if left is None or right is None:
        return column_span(s, bounds)
    inside = [i for i, (a, b) in enumerate(bounds) if left - 1 <= (a + b) / 2 <= right + 1]
    if not inside:
        return column_span(s, bounds)
    return inside[0], inside[-1] - inside[0] + 1


_UNIT_TOKEN = re.compile(
    r"^(?:notes?|ref\.?|[$€£¥₹]|us\$|rs\.?|%|[$€£¥]?\s?(?:m|bn|k|mn|million|billion|thousands?|'?000s?)|"
    r"\(?[$€£¥]?\s?'?000\)?|\([$€£¥]?m\)|[A-Z]{3}\s?(?:m|bn|'?000)?|unaudited|audited|restated)$",
    re.IGNORECASE,
)


def _is_unit_line(segs: Sequence[Segment], value_left: float) -> bool:
    """A line of unit or note markers over the value columns ("£m  £m", "Notes  $'000")."""
    if not segs:
        return False
    over = [s for s in segs if s.x1 > value_left - 2]
    return bool(over) and all(_UNIT_TOKEN.match(s.text.strip()) for s in segs)


def _onto_figures(row: Sequence[RawCell], cells: Sequence[RawCell]) -> bool:
    """Whether a line of words would land in a value column on a figure of the row above.

    A band of a ruled grid that a rule does not close may run into the next block's head: Activision
    Blizzard's segment table prints "Year Ended December 31, 2019" under a block's last row with no rule
    between, and merged into the row it turned "693" into "693 Year Ended December 31, 2019". Words go on
    a label; they never go on a figure, so such a line starts a row of its own.
    """
    figures = {c.col for c in row if c.col > 0 and c.text.strip() and is_figure(c.text.split()[-1])}
    return any(c.col in figures for c in cells if c.col > 0)


def _fully_ruled(body: Sequence[Line], h_rules: Sequence[float]) -> bool:
    """True when rules separate most pairs of neighbouring lines (a grid), not just header and totals."""
    if len(body) < 2 or not h_rules:
        return False
    ys = sorted(h_rules)
    separated = 0
    for a, b in itertools.pairwise(body):
        lo, hi = (a.y0 + a.y1) / 2, (b.y0 + b.y1) / 2
        if any(lo < y < hi for y in ys):
            separated += 1
    # Multi-line cells make some neighbours share a band, so "most" rather than "all".
    return separated >= 0.5 * (len(body) - 1) and separated >= 2


_FOOTNOTE_TAIL = re.compile(r"\s*(?:\(\w\)|\d{1,2}|\*+)$")


_DANGLING = frozenset(
    {"of", "and", "or", "the", "to", "in", "for", "from", "by", "net", "on", "at", "with", "a", "an", "less"}
)


def _wraps_into_figures(
    k: int,
    lines: Sequence[Line],
    segs: Sequence[list[Segment]],
    data: Sequence[bool],
    bounds: Sequence[tuple[float, float]],
    end: int,
) -> bool:
    """Whether label-only line ``k`` wraps, through label-only lines that go on wrapping, into a data line.

    A long label in a narrow label column takes three lines or more ("Total long-term" / "unsecured funding
    –" / "issuance  $ 13,538  $ 9,387"): every line of it belongs to the row of its figures. A period
    phrase on the first line is a caption over the rows of that period, not the start of a label.
    """
    if k + 1 > end or (not data[k + 1] and parse_period(lines[k].text) is not None):
        return False  # (a caption: "Year ended December 31, 2021" over "adjusted amounts (non-GAAP" ...)
    j = k
    # Past two lines, each line must say it goes on (lower case, an open parenthesis, a dangling word): a
    # line that merely fills the label column may be a heading's last.
    while j + 1 <= end and _continues(
        lines[j], lines[j + 1], segs[j + 1], bounds[0][1], by_words=j > k or not data[k + 1]
    ):
        if data[j + 1]:
            return True
        if [c.col for c in _place(segs[j + 1], bounds)] != [0]:
            return False
        j += 1
    return False


def _continues(
    line: Line, nxt: Line, nxt_segs: Sequence[Segment], label_right: float, *, by_words: bool = False
) -> bool:
    """Whether a label-only line wraps into the data line below it.

    A wrapped label either goes on in lower case ("Net cash provided by operating" / "activities") or
    filled its column before breaking (not with ``by_words``: the words must say it). A short phrase over
    indented items is a section heading ("Current assets" over "Inventories").
    """
    if _FOOTNOTE_TAIL.sub("", line.text.rstrip()).endswith(":"):
        return False
    first = nxt_segs[0] if nxt_segs else None
    if first is None or first.figure:
        return False
    gap = nxt.y0 - line.y1
    if gap > 0.6 * max(line.height, 1.0):
        return False
    if first.text[:1].islower() or first.text.startswith("("):
        return True  # "Net periodic benefit" / "(income) cost": the label goes on
    if line.words[-1][4].lower().rstrip(",") in _DANGLING:
        return True  # "…, net of income tax of" / "$(10), $4, and $10, respectively"
    if by_words:
        return False
    width = label_right - line.x0
    return width > 0 and (line.x1 - line.x0) >= 0.8 * width and first.x0 > line.x0 + 2


def _place(segs: Sequence[Segment], bounds: Sequence[tuple[float, float]]) -> list[RawCell]:
    cells: dict[int, RawCell] = {}
    for s in segs:
        c, span = column_span(s, bounds)
        cur = cells.get(c)
        if cur is None:
            cells[c] = RawCell(0, c, s.text, (s.x0, s.y0, s.x1, s.y1), span, False, s.currency)
        else:
            cur.text = f"{cur.text} {s.text}"
            cur.bbox = _bbox_join(cur.bbox, (s.x0, s.y0, s.x1, s.y1))
            cur.col_span = max(cur.col_span, span)
    return [cells[c] for c in sorted(cells)]


def _merge_into(row: list[RawCell], cells: Sequence[RawCell]) -> None:
    """Append a continuation line's cells to the row above, column by column."""
    by_col = {c.col: c for c in row}
    for c in cells:
        cur = by_col.get(c.col)
        if cur is None:
            row.append(c)
            by_col[c.col] = c
        else:
            cur.text = f"{cur.text} {c.text}"
            cur.bbox = _bbox_join(cur.bbox, c.bbox)
    row.sort(key=lambda c: c.col)


def _union(ss: Sequence[Segment]) -> BBoxT:
    return (min(s.x0 for s in ss), min(s.y0 for s in ss), max(s.x1 for s in ss), max(s.y1 for s in ss))


def _bbox_join(a: BBoxT, b: BBoxT) -> BBoxT:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
