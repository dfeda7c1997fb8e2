"""Page geometry: words into lines, and lines into segments (the cells of a row) split at wide gaps.

Everything here works on plain tuples and slotted dataclasses rather than pydantic models because it runs
for every word of every page; the typed records are built once per table, chunk and fact downstream.
Coordinates are visual page space (PyMuPDF's ``page.rect``): origin top-left, y down, page rotation and
the dominant text direction already undone, so that a table printed sideways reads as a normal table.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

__all__ = [
    "CURRENCY_TOKENS",
    "DASH_TOKENS",
    "NUMERIC_RE",
    "Line",
    "Segment",
    "Word",
    "build_lines",
    "is_figure",
    "split_segments",
    "transform_words",
]

# A word that is, or starts a figure: 1,234 (1,234) -12.5 12% $1,234 £12m — –  .5
NUMERIC_RE = re.compile(
    r"""^[\(\[]?[-−–—+△▲]?(?:US\$|HK\$|A\$|C\$|R\$|[$€£¥₹])?[\(]?[-−]?
        (?:\d{1,3}(?:[,.\u202f\u00a0']\d{3})+|\d+)(?:[.,]\d+)?
        (?:\s?%|bn|m|k|x)?[\)\]]?%?(?:\(\d\)|\*|[¹²³⁴⁵⁶⁷⁸⁹])?[,;:]?$""",
    re.VERBOSE,
)
DASH_TOKENS = frozenset(
    {
        "-",
        "—",
        "–",
        "−",
        "―",
        "‐",
        "－",
        "--",
        "---",
        "‒",
        "nil",
        "Nil",
        "n/a",
        "N/A",
        "n.m.",
        "NM",
        "nm",
        "*",
    }
)
# Dot leaders and unmapped glyphs drawn as leaders ("........", "…", "\ufffd\ufffd") carry no text and would
# otherwise bridge the gap between a label and its figures.
_LEADER = re.compile(r"^[.\u2026\ufffd·_\-]{3,}$|^\ufffd+$")
_LEADER_START = frozenset(".\u2026\ufffd·_-")
_LEADER_DOTS = frozenset({".", "·", "…", "_"})
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATE_END = re.compile(rf"(?:{_MONTH} \d{{1,2}},?|\d{{1,2}} {_MONTH}) (?:19|20)\d\d$", re.IGNORECASE)
"""Text that ends with a whole date ("December 25, 2021", "25 December 2021")."""
_DAY_HEAD_END = re.compile(rf"(?:^|\s){_MONTH} \d{{1,2}},?$", re.IGNORECASE)
"""Text that ends with a month and day, the year printed on the line below ("January 28," over "2023")."""
_MONTH_WORD = re.compile(rf"^{_MONTH}$", re.IGNORECASE)
_DAY_WORD = re.compile(r"^\d{1,2}$")
CURRENCY_TOKENS = frozenset({"$", "€", "£", "¥", "₹", "US$", "HK$", "A$", "C$", "R$", "Rs", "Rs.", "%"})


@lru_cache(maxsize=1 << 16)
def is_figure(text: str) -> bool:
    """Cheap test used for layout decisions: does this word look like a table figure?"""
    if text in DASH_TOKENS:
        return True
    c = text[0]
    if not (c.isdigit() or c in "([-−–—+△▲$€£¥₹.U"):
        return False
    return NUMERIC_RE.match(text) is not None


Word = tuple[float, float, float, float, str, int, int, int]
"""One word in visual page space: ``(x0, y0, x1, y1, text, block, line, word)`` as MuPDF's
``extractWORDS`` gives it. Plain tuples, because building an object per word costs more than the rest of
the line grouping."""


@dataclass(slots=True)
class Segment:
    """Words of one line that sit together, separated from the next segment by a wide gap."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    figure: bool
    currency: str | None = None

    @property
    def xmid(self) -> float:
        """Horizontal centre."""
        return (self.x0 + self.x1) / 2


@dataclass(slots=True)
class Line:
    """Words sharing a baseline, left to right, split into segments at column-sized gaps."""

    y0: float
    y1: float
    words: list[Word]
    segments: list[Segment] = field(default_factory=list)

    @property
    def x0(self) -> float:
        """Left edge."""
        return self.words[0][0]

    @property
    def x1(self) -> float:
        """Right edge."""
        return max(w[2] for w in self.words)

    @property
    def height(self) -> float:
        """Line height."""
        return self.y1 - self.y0

    @property
    def text(self) -> str:
        """The line's words joined by single spaces."""
        return " ".join(w[4] for w in self.words)

    @property
    def n_figures(self) -> int:
        """How many of the line's segments are figures."""
        return sum(1 for s in self.segments if s.figure)


def transform_words(
    raw: Iterable[Word], matrix: tuple[float, float, float, float, float, float] | None
) -> list[Word]:
    """Words from PyMuPDF's ``extractWORDS`` in visual space, dot leaders dropped.

    Args:
        raw: Tuples from ``TextPage.extractWORDS()``.
        matrix: An affine ``(a, b, c, d, e, f)`` to apply (page rotation), or None for identity.

    Returns:
        Words with normalised bboxes (x0 < x1, y0 < y1).
    """
    if matrix is None:
        # Blank "words" (an ideographic space U+3000 is not a separator to MuPDF) and leaders are dropped.
        return [w for w in raw if (w[4][:1] not in _LEADER_START or not _LEADER.match(w[4])) and w[4].strip()]
    a, b, c, d, e, f = matrix
    out: list[Word] = []
    for x0, y0, x1, y1, text, blk, ln, wn in raw:
        if not text.strip() or _LEADER.match(text):
            continue
        ax, ay = a * x0 + c * y0 + e, b * x0 + d * y0 + f
        bx, by = a * x1 + c * y1 + e, b * x1 + d * y1 + f
        out.append((min(ax, bx), min(ay, by), max(ax, bx), max(ay, by), text, blk, ln, wn))
    return out


def _next_date(words: Sequence[Word], k: int) -> bool:
    """Whether a date starts at ``words[k]``: "December 26, 2020" or "26 December 2020"."""
    first = words[k][4]
    if _MONTH_WORD.match(first):
        return True
    return bool(_DAY_WORD.match(first)) and k + 1 < len(words) and bool(_MONTH_WORD.match(words[k + 1][4]))


_MARK = re.compile(r"(?:\(\s*(?:\d{1,2}|[a-zA-Z])\s*\))+|\d{1,2}|[a-z]|[*†‡§]")
"""What a footnote mark prints: "(1)", "(a)", "(1)(2)", "1", "a", "*"."""
_MARK_SIZE = 0.8
"""A footnote mark set as a superscript is at most this share of the height of the word it follows."""


def without_superscript_marks(words: Sequence[Word]) -> list[Word]:
    """The words without the footnote marks set as superscripts after a word (a figure, a label, a head).

    "(1)" set small and raised right after a figure ("(1)⁽¹⁾" in an AOCI roll-forward's reclassification
    column) was read as a figure of its own: a column of negative ones and twos beside the real figures,
    which no column's sum then explains, so the table's total line went unchecked; a mark raised above the
    line's band even made a row of its own. A word that prints a mark, set at most 80 % of the height of the
    word just before it and raised (its foot above that word's foot), touching it, is the other word's note.

    Args:
        words: A page's words.

    Returns:
        The words in the same order, superscript marks left out.
    """
    marks = [k for k, w in enumerate(words) if len(w[4]) <= 8 and _MARK.fullmatch(w[4])]
    if not marks:
        return list(words)
    # The word a mark is raised after has its foot below the mark's and its head no lower than a fifth of
    # its height under the mark's foot: by their feet, only the words within 1.2 of the tallest word's
    # height below the mark's foot can be it, found by bisection instead of a walk over the page.
    by_foot = sorted(words, key=_y1)
    feet = [w[3] for w in by_foot]
    reach = 1.2 * max(w[3] - w[1] for w in words) + 1.0
    drop = set()
    for k in marks:
        foot = words[k][3]
        near = by_foot[bisect.bisect_left(feet, foot) : bisect.bisect_right(feet, foot + reach)]
        if _raised_after_a_word(words[k], near):
            drop.add(k)
    return [w for k, w in enumerate(words) if k not in drop] if drop else list(words)


def _y1(w: Word) -> float:
    return w[3]


def _raised_after_a_word(mark: Word, words: Sequence[Word]) -> bool:
    mx0, my0, _, my1 = mark[:4]
    mh = my1 - my0
    for w in words:
        vx0, vy0, vx1, vy1 = w[0], w[1], w[2], w[3]
        vh = vy1 - vy0
        if (
            mh <= _MARK_SIZE * vh
            and -1.0 <= mx0 - vx1 <= 0.8 * vh
            and vy0 - 0.2 * vh <= my1 <= vy1 - 0.15 * vh
            and vx0 < mx0
        ):
            return True
    return False


def build_lines(words: Sequence[Word]) -> list[Line]:
    """Group words into lines by vertical overlap, then order each line left to right.

    PyMuPDF's own line numbers are not used: in filings each table cell is often its own "line", and a
    table row is what the rest of the engine needs.
    """
    if not words:
        return []
    ordered = sorted(words, key=_ymid2)
    lines: list[Line] = []
    first = ordered[0]
    group = [first]
    cy0, cy1 = first[1], first[3]
    for w in ordered[1:]:
        wy0, wy1 = w[1], w[3]
        h = wy1 - wy0
        ch = cy1 - cy0
        overlap = (cy1 if cy1 < wy1 else wy1) - (cy0 if cy0 > wy0 else wy0)
        # Join when the word overlaps the line's band by half the smaller height. Stacked header lines
        # ("Total" over "Revenue") overlap little and stay apart; superscript footnote markers are small
        # and overlap mostly, so they join without stretching the band.
        if overlap >= 0.5 * (h if h < ch else ch):
            group.append(w)
            if 0.7 * ch <= h <= 1.5 * ch:
                if wy0 < cy0:
                    cy0 = wy0
                if wy1 > cy1:
                    cy1 = wy1
        else:
            lines.append(Line(cy0, cy1, group))
            group = [w]
            cy0, cy1 = wy0, wy1
    lines.append(Line(cy0, cy1, group))
    for line in lines:
        if len(line.words) > 1:
            line.words.sort(key=_x0)
        line.segments = split_segments(line)
    return lines


def _x0(w: Word) -> float:
    return w[0]


def _ymid2(w: Word) -> float:
    return w[1] + w[3]


def split_at_walls(line: Line, segments: Sequence[Segment], walls: Sequence[float]) -> list[Segment]:
    """Split segments at the vertical rules that cross them between two words.

    In a ruled grid a cell wall separates two cells however close their texts sit: a right-aligned head
    ("Price") and the left-aligned head of the next cell ("May yet be purchased") can be closer than a
    column gap, and :func:`split_segments` alone reads them as one. A wall through a word splits nothing.

    Args:
        line: The line the segments were split from (its words decide where a wall falls).
        segments: The line's segments.
        walls: X of the vertical rules crossing the line.

    Returns:
        The segments, each cut where a wall passes between two of its words.
    """
    out: list[Segment] = []
    for seg in segments:
        inner = [x for x in walls if seg.x0 < x < seg.x1]
        words = [w for w in line.words if w[0] >= seg.x0 - 0.5 and w[2] <= seg.x1 + 0.5]
        if not inner or len(words) < 2:
            out.append(seg)
            continue
        piece: list[Word] = [words[0]]
        for prev, w in itertools.pairwise(words):
            if any(prev[2] <= x <= w[0] for x in inner):
                out.append(_segment_of(piece))
                piece = []
            piece.append(w)
        out.append(_segment_of(piece) if len(piece) < len(words) else seg)
    return out


def _segment_of(words: Sequence[Word]) -> Segment:
    """A segment of consecutive words of one line."""
    text = " ".join(w[4] for w in words)
    return Segment(
        words[0][0],
        min(w[1] for w in words),
        max(w[2] for w in words),
        max(w[3] for w in words),
        text,
        is_figure(text),
    )


def split_segments(line: Line) -> list[Segment]:
    """Split a line into segments at gaps wider than a word space.

    A figure always ends a segment and starts a new one when the gap before it is more than a normal space,
    because adjacent numeric columns can be close together; label words stay together across normal spaces.
    """
    words = line.words
    h = max(line.height, 1.0)
    big_gap = 0.85 * h
    # A line that ends in a figure prints its currency signs before the figures ("$ (4,000) $ 55,047"): a
    # sign after a figure then opens the next cell however close it sits. A line ending in a sign prints
    # them after ("1 234 $  5 678 $"), and only a column gap splits.
    prefix_signs = words[-1][4] not in CURRENCY_TOKENS
    segs: list[Segment] = []
    first = words[0]
    sx0, sy0, sx1, sy1, text0 = first[:5]
    texts = [text0]
    fig = is_figure(text0)
    for k, w in enumerate(words[1:], start=2):
        wx0, wy0, wx1, wy1, wtext = w[:5]
        gap = wx0 - sx1
        wfig = is_figure(wtext)
        # Two figures side by side are two cells even when close ("48.11 40.45"); a figure inside a label
        # ("at 31 December") needs a real column gap before it splits.
        # A currency sign after a figure opens the next cell ("1,321.2  $ 1,238.4").
        split = (
            gap > big_gap
            or (
                gap > 0.3 * h
                and fig
                and (
                    (wfig and not (texts[-1] in CURRENCY_TOKENS or wtext.startswith("%")))
                    or (wtext in CURRENCY_TOKENS and wtext != "%")
                )
            )
            or (
                fig
                and prefix_signs
                and gap > 0
                and wtext in CURRENCY_TOKENS
                and wtext != "%"
                and k < len(words)
                and is_figure(words[k][4])  # "$ 55,047", not the "$ million" of a column head
            )
            # "Net revenue . . . . . 1,513": a figure after spaced-out leader dots is its own cell.
            or (wfig and len(texts) >= 2 and texts[-1] in _LEADER_DOTS and texts[-2] in _LEADER_DOTS)
            # Dates side by side are two column heads, as two figures are two cells, even when a 52/53-week
            # year's dates fill the columns ("December 25, 2021  December 26, 2020").
            # So are a month and day over each column, the years below ("January 28,  January 29,").
            or (
                gap > 0.3 * h
                and _next_date(words, k - 1)
                and bool(_DATE_END.search(tail := " ".join(texts[-4:])) or _DAY_HEAD_END.search(tail))
            )
        )
        if split:
            segs.append(Segment(sx0, sy0, sx1, sy1, " ".join(texts), fig))
            sx0, sy0, sx1, sy1 = wx0, wy0, wx1, wy1
            texts = [wtext]
            fig = wfig
        else:
            texts.append(wtext)
            if wx1 > sx1:
                sx1 = wx1
            if wy0 < sy0:
                sy0 = wy0
            if wy1 > sy1:
                sy1 = wy1
            # A currency sign followed by a number is a figure ("$ 1,234"); words then numbers are a label.
            # "2 %" stays a figure, so that the "$" of the next column after it still opens a cell.
            fig = (wfig and (fig or (len(texts) == 2 and texts[0] in CURRENCY_TOKENS))) or (
                fig and wtext.startswith("%")
            )
    segs.append(Segment(sx0, sy0, sx1, sy1, " ".join(texts), fig))
    return segs
