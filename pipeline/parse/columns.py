"""Text columns: a page printed in two columns of running text is read one column at a time.

Banks' quarterly reports and many annual reports set the page in two columns, with a table in one of them
and prose beside it. Read as one column, each of the table's rows takes the prose beside it into its label
("commodities. The Firm makes markets in derivatives in Total, net of cash collateral"), and the rows of
the prose and of the table interleave, so the table's labels, heads and sums are all wrong. A page is read
in two columns only when the evidence is unmistakable:

1. a vertical strip in the middle of the page that no word of the page's body crosses (its header and
   footer lines, where a centred page number sits, do not count);
2. running text on both sides of it: at least :data:`MIN_PROSE_LINES` lines on each side that are prose
   (many words, across most of that side's width), so a table whose label column ends before the strip
   (a wide gap between labels and figures) never splits;
3. words on both sides at the same height on many lines, so that a page whose right half is simply empty
   does not count;
4. no table across the strip: a row whose figures begin the right side's line, beside a short label on
   the left ("Investment-grade" … "$ 48,000  66 %"), is one table's row, not two columns' lines.

A full-width line of body text, or a full-width table whose words cross the middle, leaves no strip: such
pages are read as they always were.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.parse.layout import CURRENCY_TOKENS, Line, Word, build_lines

__all__ = ["MIN_GUTTER", "MIN_PROSE_LINES", "find_gutter", "split_columns"]

MIN_GUTTER = 10.0
"""Narrowest strip between two text columns, in points (filings use 18-30 pt)."""
MIN_PROSE_LINES = 4
"""Lines of running text each column must hold before the page counts as two columns."""
_PROSE_WORDS = 8
"""Words of a line of running text (fewer: a label, a heading)."""
_MIDDLE = (0.3, 0.7)
"""Where the strip may lie, as shares of the page width."""
_MARGIN = 0.07
"""Share of the page height at top and bottom (running heads, page numbers) left out of the search."""
_SIDE_BY_SIDE = 8
"""Lines with words on both sides of the strip needed to call the page two columns."""


def find_gutter(words: Sequence[Word], width: float, height: float) -> tuple[float, float] | None:
    """The strip between a page's two text columns, or None when the page is not set in two columns.

    Args:
        words: The page's words (x0, y0, x1, y1, text, …) in visual page space.
        width: Page width in points.
        height: Page height in points.

    Returns:
        The strip's left and right x, or None.
    """
    top, bottom = _MARGIN * height, (1 - _MARGIN) * height
    body = [w for w in words if top <= (w[1] + w[3]) / 2 <= bottom]
    if len(body) < 40:
        return None
    lo, hi = _MIDDLE[0] * width, _MIDDLE[1] * width
    strip = _widest_gap(body, lo, hi)
    if strip is None:
        return None
    left = [w for w in body if w[2] <= strip[0]]
    right = [w for w in body if w[0] >= strip[1]]
    if not left or not right:
        return None
    if min(len(left), len(right)) < MIN_PROSE_LINES * _PROSE_WORDS:  # too few words for the prose lines
        return None
    # Each side's lines are built only when the other side's did not already fail (most strips are the gap
    # between a table's labels and its figures, whose left side holds no prose).
    x_left, x_right = min(w[0] for w in left), max(w[2] for w in right)
    left_lines = build_lines(left)
    if _prose_lines(left_lines, strip[0] - x_left) < MIN_PROSE_LINES:
        return None
    right_lines = build_lines(right)
    if _prose_lines(right_lines, x_right - strip[1]) < MIN_PROSE_LINES:
        return None
    if _side_by_side(left_lines, right_lines) < _SIDE_BY_SIDE or _spanning_rows(left_lines, right_lines) >= 2:
        return None
    return strip


def split_columns(words: Sequence[Word], gutter: tuple[float, float] | None) -> list[list[Word]]:
    """The page's words by text column, left column first (its reading order).

    Args:
        words: The page's words.
        gutter: The strip from :func:`find_gutter`, or None.

    Returns:
        One list of words per column; all the words in one list when there is no strip. A word in the
        header or footer that crosses the strip (a centred page number) goes with the column its middle
        falls in.
    """
    if gutter is None:
        return [list(words)]
    mid = (gutter[0] + gutter[1]) / 2
    left = [w for w in words if (w[0] + w[2]) / 2 < mid]
    right = [w for w in words if (w[0] + w[2]) / 2 >= mid]
    return [cols for cols in (left, right) if cols]


def _widest_gap(words: Sequence[Word], lo: float, hi: float) -> tuple[float, float] | None:
    """The widest x-interval within [lo, hi] that no word covers, if at least :data:`MIN_GUTTER` wide."""
    # The words themselves are sorted, left edge first: no pair is built per word, and the order of words
    # sharing a left edge changes neither the gaps nor the edge reached.
    spans = sorted([w for w in words if w[2] > lo and w[0] < hi])
    best: tuple[float, float] | None = None
    edge = lo
    for w in spans:
        x0 = w[0]
        if x0 > edge and (best is None or x0 - edge > best[1] - best[0]):
            best = (edge, x0)
        if w[2] > edge:
            edge = w[2]
    if hi > edge and (best is None or hi - edge > best[1] - best[0]):
        best = (edge, hi)
    if best is None or best[1] - best[0] < MIN_GUTTER or best[0] <= lo or best[1] >= hi:
        # A gap touching the search window's edge is a margin or a ragged edge, not a strip between columns.
        return None
    return best


def _prose_lines(lines: Sequence[Line], side_width: float) -> int:
    """Lines of running text on one side: eight words or more in one run, across 60 % of the side's width."""
    n = 0
    for line in lines:
        if (
            len(line.segments) == 1
            and len(line.words) >= _PROSE_WORDS
            and line.x1 - line.x0 >= 0.6 * side_width
        ):
            n += 1
    return n


def _spanning_rows(left: Sequence[Line], right: Sequence[Line]) -> int:
    """Lines of the right side that begin with a figure beside a short line of the left side (a label)."""
    labels = [ln for ln in left if len(ln.words) < _PROSE_WORDS]
    n = 0
    for line in right:
        first = next((seg for seg in line.segments if seg.text not in CURRENCY_TOKENS), None)
        if first is not None and first.figure:
            n += any(ln.y0 < line.y1 and line.y0 < ln.y1 for ln in labels)
    return n


def _side_by_side(left: Sequence[Line], right: Sequence[Line]) -> int:
    """Lines of the left side with a line of the right side at the same height."""
    n = 0
    for line in left:
        if any(r.y0 < line.y1 and line.y0 < r.y1 for r in right):
            n += 1
    return n
