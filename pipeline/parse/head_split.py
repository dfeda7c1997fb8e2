"""Two column heads the line builder read as one: "Net Carrying Average Useful".

In a dense table the heads of neighbouring columns can sit closer than a column gap, and on baselines a
point or two apart: eBay's intangible assets print "Net Carrying" over "Amount" (one column) a word space
from "Average Useful" between "Weighted" and "Life (Years)" (the next one). Read as one segment, the pair
heads neither column as printed: the first column's head reads "Net Carrying Average Useful", the words
of an average, and its amounts were left out of every sum.

Such a segment is cut where a word gap falls in the gutter between two value columns and each side is
centred on a head of its own column on the head line above or below: the columns' head stacks continue
through it. Edges are not enough: a spanning head starts at its first column's head and may end at its
last one's (Corning's "Fair value measurements at reporting date using"). A spanning head ("Pension
Benefits" over "2021" and "2020") is centred over its columns as a phrase, not word by word over each; a
period head ("Year ended December 31,") is never cut; and a line of spanning heads alone (no one-column
head beside the segment) is left as it is.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Final

from pipeline.parse.layout import Line, Segment, split_at_walls

__all__ = ["split_merged_heads"]

_ALIGNED: Final = 2.0
"""Points within which a piece's middle must meet the middle of a head of its column above or below."""

_PERIOD_HEAD: Final = re.compile(
    r"\b(?:19|20)\d{2}\b|\b(?:ended|ending|as of|weeks?|months?|quarters?)\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b",
    re.IGNORECASE,
)
"""Words of a period head, which spans its columns as a phrase and is never cut."""


def split_merged_heads(
    header_idx: Sequence[int],
    lines: Sequence[Line],
    segs: Sequence[list[Segment]],
    bounds: Sequence[tuple[float, float]],
    span_of: Callable[[Segment, Sequence[tuple[float, float]]], tuple[int, int]],
) -> dict[int, list[Segment]]:
    """The head lines whose segments hold two columns' heads, each with its segments cut between them.

    Args:
        header_idx: The head lines, top to bottom.
        lines: The page's lines (their words decide where a cut falls).
        segs: Each line's segments.
        bounds: The table's columns (the label column first), from the figures under the heads.
        span_of: ``column_span``: a segment's (first column, number of columns).

    Returns:
        Line index → its segments, for the lines where a segment was cut (the others are left out).
    """
    gutters = [(bounds[j][1], bounds[j + 1][0]) for j in range(1, len(bounds) - 1)]
    out: dict[int, list[Segment]] = {}
    for pos, k in enumerate(header_idx):
        if not any(n == 1 and c > 0 for c, n in (span_of(s, bounds) for s in segs[k])):
            continue  # a line of spanning heads alone: its phrases span columns as printed
        near = [segs[header_idx[j]] for j in (pos - 1, pos + 1) if 0 <= j < len(header_idx)]
        walls = [
            x for s in segs[k] if not _PERIOD_HEAD.search(s.text) for x in _cuts(lines[k], s, gutters, near)
        ]
        if walls:
            out[k] = split_at_walls(lines[k], segs[k], walls)
    return out


def _cuts(
    line: Line, s: Segment, gutters: Sequence[tuple[float, float]], near: Sequence[Sequence[Segment]]
) -> list[float]:
    """Where ``s`` holds two heads: word gaps in a gutter with each side in line with a head near it."""
    words = [w for w in line.words if w[0] >= s.x0 - 0.5 and w[2] <= s.x1 + 0.5]
    out = []
    for i, (prev, w) in enumerate(itertools.pairwise(words), start=1):
        mid = (prev[2] + w[0]) / 2
        if not any(g0 < mid < g1 for g0, g1 in gutters):
            continue
        left, right = (words[0][0], words[i - 1][2]), (w[0], words[-1][2])
        if any(_in_line(left, o, mid, True) and _in_line(right, o, mid, False) for o in near):
            out.append(mid)
    return out


def _in_line(piece: tuple[float, float], heads: Sequence[Segment], mid: float, left: bool) -> bool:
    """Whether a head on its side of ``mid`` is centred where the piece is."""
    x0, x1 = piece
    return any(
        (h.x1 < mid if left else h.x0 > mid) and abs(h.xmid - (x0 + x1) / 2) <= _ALIGNED for h in heads
    )
