"""Placing the tick-and-tie marks: what goes where on a page, before anything is drawn.

The plan (:func:`plan_marks`) turns a result's flags into boxes around the figures they cite and margin
labels, numbered in the flags' order; the positions put a tick beside its figure where nothing is printed
(:func:`place_tick`) and a label in the right margin clear of the labels before it (:func:`place_note`).
All boxes are in the records' visible (rotated) page space; :mod:`adapters.review.tick_drawing` turns them
into annotations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pymupdf

from adapters.review.tick_style import (
    MARGIN,
    NOTE_MAX_WIDTH,
    NOTE_MIN_WIDTH,
    NOTE_PAD,
    NOTE_SIZE,
    TICK_GAP,
    ascii_text,
    text_width,
    wrap,
)
from pipeline.checks.ticks import Tick, spot_key
from pipeline.checks.tolerance import fmt_amount
from schemas.models import BBox, Cell, DocumentResult, Evidence, Flag

__all__ = ["Mark", "Note", "page_obstacles", "place_note", "place_tick", "plan_marks"]


# --- plan: what goes where, before anything is drawn ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mark:
    """A box around a figure a flag cites: the flag's number (its order in the result), and its main one."""

    number: int
    flag: Flag
    evidence: Evidence
    bbox: BBox
    main: bool


@dataclass(slots=True)
class Note:
    """A margin label of one flag on one page, with the text it shows and the page it links to."""

    number: int
    flag: Flag
    page: int
    anchor: BBox | None
    text: str
    target: int | None  # the page the label links to; None: the summary entry


def _figure(evidence: Evidence) -> str:
    """The figure part of an evidence text ("Total current assets: 605.8" gives "605.8")."""
    text = " ".join(evidence.text.split())
    head, sep, tail = text.rpartition(": ")
    figure = tail if sep and head else text
    return figure if len(figure) <= 24 else figure[:23] + "…"


def _cells(result: DocumentResult) -> dict[tuple[int, tuple[float, ...]], Cell]:
    return {spot_key(c.page, c.bbox): c for t in result.tables for c in t.cells if c.bbox is not None}


def _expected(flag: Flag, cells: Mapping[tuple[int, tuple[float, ...]], Cell]) -> str | None:
    """What the check expected, written as the flag's main figure is printed; None when unclear."""
    if flag.expected is None or flag.actual is None or not flag.evidence:
        return None
    main = flag.evidence[0]
    cell = cells.get(spot_key(main.page, main.bbox))
    n = cell.number if cell is not None else None
    if n is None:
        return None
    # The sums compare base units when every figure of the table has a scale, else figures as printed:
    # whichever the flag's actual value is tells which.
    if n.base_value is not None and n.scale is not None and abs(flag.actual - n.base_value) < 1e-6:
        return fmt_amount(flag.expected, n.scale, n.places)
    if abs(flag.actual - n.value) < 1e-9 * max(1.0, abs(n.value)):
        return fmt_amount(flag.expected, 0, n.places)
    return None


def _note_text(number: int, flag: Flag, page: int, expected: str | None) -> str:
    """A margin label: the flag's number and rule, then the other figure and its page, or the expected one."""
    head = f"#{number} {flag.rule}"
    elsewhere: dict[int, Evidence] = {}
    for e in flag.evidence:
        if e.page != page:
            elsewhere.setdefault(e.page, e)
    if elsewhere:
        parts = [f"{_figure(e)} on p.{p}" for p, e in sorted(elsewhere.items())[:2]]
        more = f" (+{len(elsewhere) - 2} pages)" if len(elsewhere) > 2 else ""
        return f"{head}: {'; '.join(parts)}{more}"
    if expected is not None and flag.evidence and flag.evidence[0].page == page:
        return f"{head}: expected {expected}"
    return head  # (a sentence at odds with itself: its box's note and the summary say how)


def plan_marks(
    result: DocumentResult, n_pages: int
) -> tuple[list[Mark], list[Note], list[tuple[int, Flag, Evidence]]]:
    """Boxes, margin labels and unplaced evidence of every flag, numbered in the flags' order."""
    cells = _cells(result)
    marks: list[Mark] = []
    notes: list[Note] = []
    unplaced: list[tuple[int, Flag, Evidence]] = []
    for number, flag in enumerate(result.flags, start=1):
        pages = sorted({e.page for e in flag.evidence if 1 <= e.page <= n_pages})
        for i, e in enumerate(flag.evidence):
            if not 1 <= e.page <= n_pages:
                continue
            if e.bbox is None:
                unplaced.append((number, flag, e))
            else:
                marks.append(Mark(number, flag, e, e.bbox, main=i == 0))
        expected = _expected(flag, cells)
        for k, page in enumerate(pages):
            anchor = next((e.bbox for e in flag.evidence if e.page == page and e.bbox is not None), None)
            target = pages[(k + 1) % len(pages)] if len(pages) > 1 else None
            notes.append(Note(number, flag, page, anchor, _note_text(number, flag, page, expected), target))
    return marks, notes, unplaced


# --- positions: beside the figure, in the margin, clear of what is printed -------------------------


def _tick_extent(box: BBox, kinds: Sequence[str]) -> BBox:
    """The area a tick's strokes cover: its box, and the ring of an agreement beside it."""
    x0, y0, _, y1 = box
    s = y1 - y0
    return (x0 - 0.1 * s, y0, x0 + (1.4 if "agreed" in kinds else 0.95) * s, y1 + 0.1 * s)


def _overlaps(a: BBox, b: BBox) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _tick_box(bbox: BBox, kinds: Sequence[str], obstacles: Sequence[BBox]) -> BBox:
    """Where a figure's tick goes: beside the figure, as high as its glyphs, never over printed text.

    Right of the figure first (where an auditor ticks); where something is printed there (a currency
    sign of the next column, a footnote mark), left of it, where a right-aligned figure has white space.
    """
    x0, y0, x1, y1 = bbox
    h = max(4.0, min(9.0, (y1 - y0) * 0.75))
    top = (y0 + y1) / 2 - h / 2
    right = (x1 + TICK_GAP, top, x1 + TICK_GAP + h, top + h)
    extent = _tick_extent(right, kinds)
    width = extent[2] - extent[0]
    left = (x0 - TICK_GAP - width, top, x0 - TICK_GAP - width + h, top + h)
    # Only what is printed at the figure's height can be in the way (a cheap filter: pages hold thousands
    # of words and a statement hundreds of ticks).
    row = [o for o in obstacles if o[3] > top - 2 and o[1] < top + h + 2 and not _inside(o, bbox)]
    for box in (right, left):
        area = _tick_extent(box, kinds)
        if not any(_overlaps(area, o) for o in row):
            return box
    return right


def place_tick(tick: Tick, obstacles: list[BBox]) -> BBox:
    """Where a figure's tick goes (see :func:`_tick_box`); its strokes become an obstacle to the next ones.

    Args:
        tick: The figure ticked.
        obstacles: What is printed on the page (:func:`page_obstacles`) and the ticks placed so far; the
            new tick's extent is appended.

    Returns:
        The tick's box, in the records' visible page space.
    """
    box = _tick_box(tick.bbox, tick.kinds, obstacles)
    obstacles.append(_tick_extent(box, tick.kinds))  # the next figure's tick keeps clear of this one
    return box


def page_obstacles(page: Any) -> list[BBox]:
    """The boxes of the words printed on a page, in the visible (rotated) space of the records."""
    words = [pymupdf.Rect(w[:4]) for w in page.get_text("words")]
    if page.rotation:
        words = [r * page.rotation_matrix for r in words]
    return [(r.x0, r.y0, r.x1, r.y1) for r in words]


def _inside(word: BBox, figure: BBox) -> bool:
    """A word that is (mostly) the figure itself: no obstacle to the figure's own tick."""
    w = max(0.0, min(word[2], figure[2]) - max(word[0], figure[0]))
    h = max(0.0, min(word[3], figure[3]) - max(word[1], figure[1]))
    return w * h >= 0.5 * (word[2] - word[0]) * (word[3] - word[1])


def _margin_start(obstacles: Sequence[BBox], anchor: BBox, width: float) -> float:
    """Where the right margin starts beside a figure: right of every word and tick printed near its row."""
    mid = (anchor[1] + anchor[3]) / 2
    near = [o[2] for o in obstacles if o[3] >= mid - 10 and o[1] <= mid + 10 and o[2] < width - 1]
    return max([anchor[2] + 3.0, *near])


def place_note(
    note: Note, width: float, height: float, obstacles: Sequence[BBox], placed: list[pymupdf.Rect]
) -> tuple[pymupdf.Rect, list[str]]:
    """A label's box in the right margin at its figure's height, clear of the labels placed before it.

    A flag's evidence without a box (narrative the reader could not place) gets its label at the top right.
    """
    anchor = note.anchor or (width - MARGIN, MARGIN / 2, width - MARGIN, MARGIN / 2 + 8)
    left = _margin_start(obstacles, anchor, width) + 5.0
    room = width - 4.0 - left
    w = max(NOTE_MIN_WIDTH, min(NOTE_MAX_WIDTH, room))
    text = ascii_text(note.text)
    lines = wrap(text, NOTE_SIZE, w - 2 * NOTE_PAD - 2)
    w = min(w, max(text_width(ln, NOTE_SIZE) for ln in lines) + 2 * NOTE_PAD + 3)
    h = len(lines) * NOTE_SIZE * 1.35 + 2 * NOTE_PAD + 1.5
    x0 = min(left, width - 4.0 - w)
    y0 = max(2.0, (anchor[1] + anchor[3]) / 2 - h / 2)
    start = pymupdf.Rect(x0, y0, x0 + w, y0 + h)
    rect = _free(start, placed, 2.0, height) or _free(start, placed, -2.0, height) or start
    placed.append(rect)
    return rect, lines


def _free(
    rect: pymupdf.Rect, placed: Sequence[pymupdf.Rect], step: float, height: float
) -> pymupdf.Rect | None:
    """The first position from ``rect`` moving by ``step`` that overlaps no placed label, on the page."""
    while any(rect.intersects(p) for p in placed):
        rect = pymupdf.Rect(rect.x0, rect.y0 + step, rect.x1, rect.y1 + step)
        if rect.y0 < 2.0 or rect.y1 > height - 2.0:
            return None
    return rect
