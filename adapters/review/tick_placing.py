"""Placing the tick-and-tie marks: what goes where on a page, before anything is drawn.

The plan (:func:`plan_marks`) turns a result's flags into boxes around the figures they cite and margin
labels, numbered in the flags' order and worded with the analysts' decisions; the positions put a tick
beside its figure where nothing is printed (:func:`place_tick`), and a label where the page has nothing
printed or drawn (:func:`place_note`: its words, rules, dark fills and images, the boxes, the ticks and
the labels before it), the margins first, with a leader line to its figure (:func:`leader`). A label with
no free place on its page goes to the summary, and its number stands at the figure instead
(:func:`plan_page`): a label never covers what is printed. All boxes are in the records' visible
(rotated) page space; :mod:`adapters.review.tick_drawing` turns them into annotations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pymupdf

from adapters.review.render import visible_words
from adapters.review.tick_decisions import Decisions, decision_words
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
from schemas.reviews import ReviewDecision

__all__ = [
    "CLEARANCE",
    "EDGE",
    "REACH",
    "Label",
    "Mark",
    "Note",
    "PagePlan",
    "Shape",
    "Space",
    "leader",
    "mark_rect",
    "page_drawn",
    "page_obstacles",
    "place_note",
    "place_reference",
    "place_tick",
    "plan_marks",
    "plan_page",
    "reference_text",
]


# --- plan: what goes where, before anything is drawn ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mark:
    """A box around a figure a flag cites.

    The flag's number (its order in the result), whether this is its main figure, and the flag's standing
    decision (None: open).
    """

    number: int
    flag: Flag
    evidence: Evidence
    bbox: BBox
    main: bool
    decision: ReviewDecision | None = None


@dataclass(slots=True)
class Note:
    """A margin label of one flag on one page, with the text it shows and the page it links to."""

    number: int
    flag: Flag
    page: int
    anchor: BBox | None
    text: str
    target: int | None  # the page the label links to; None: the summary entry
    decision: ReviewDecision | None = None


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


def _note_text(
    number: int, flag: Flag, page: int, expected: str | None, decision: ReviewDecision | None
) -> str:
    """A margin label: the flag's number, rule and decision, then the other figure and its page, or the one.

    The one expected, that is: ``#2 TOT001 cleared, Wrong scale: expected 677.8``.
    """
    words = decision_words(decision)
    head = f"#{number} {flag.rule}" + (f" {words}" if words else "")
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
    result: DocumentResult, n_pages: int, decisions: Decisions | None = None
) -> tuple[list[Mark], list[Note], list[tuple[int, Flag, Evidence]]]:
    """Boxes, margin labels and unplaced evidence of every flag, numbered in the flags' order.

    ``decisions`` holds the standing decision of each judged flag by its id (see
    :mod:`adapters.review.tick_decisions`).
    """
    cells = _cells(result)
    marks: list[Mark] = []
    notes: list[Note] = []
    unplaced: list[tuple[int, Flag, Evidence]] = []
    for number, flag in enumerate(result.flags, start=1):
        decision = (decisions or {}).get(flag.flag_id)
        pages = sorted({e.page for e in flag.evidence if 1 <= e.page <= n_pages})
        for i, e in enumerate(flag.evidence):
            if not 1 <= e.page <= n_pages:
                continue
            if e.bbox is None:
                unplaced.append((number, flag, e))
            else:
                marks.append(Mark(number, flag, e, e.bbox, main=i == 0, decision=decision))
        expected = _expected(flag, cells)
        for k, page in enumerate(pages):
            anchor = next((e.bbox for e in flag.evidence if e.page == page and e.bbox is not None), None)
            target = pages[(k + 1) % len(pages)] if len(pages) > 1 else None
            text = _note_text(number, flag, page, expected, decision)
            notes.append(Note(number, flag, page, anchor, text, target, decision))
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
    return [box for box, _text in visible_words(page)]


def _inside(word: BBox, figure: BBox) -> bool:
    """A word that is (mostly) the figure itself: no obstacle to the figure's own tick."""
    w = max(0.0, min(word[2], figure[2]) - max(word[0], figure[0]))
    h = max(0.0, min(word[3], figure[3]) - max(word[1], figure[1]))
    return w * h >= 0.5 * (word[2] - word[0]) * (word[3] - word[1])


def mark_rect(bbox: BBox, overlap: int) -> pymupdf.Rect:
    """The box drawn around a flagged figure; ``overlap`` counts the boxes drawn around it before."""
    # A figure two flags cite gets two boxes, the second a little larger, so both stay visible.
    pad = 1.2 + 1.6 * min(overlap, 3)
    x0, y0, x1, y1 = bbox
    return pymupdf.Rect(x0 - pad, y0 - pad, x1 + pad, y1 + pad)


# --- labels: where the page has nothing printed ---------------------------------------------------------


def _light(color: Sequence[float] | None) -> bool:
    """A fill too light to be content (white, a shaded row's tint): a label may lie on it."""
    if not color:
        return True
    # CMYK: light when little ink of any kind; grey or RGB: by the mean of the channels
    cmyk = len(color) == 4
    lightness = (1.0 - color[3]) * (1.0 - max(color[:3])) if cmyk else sum(color) / len(color)
    return lightness >= 0.85


def page_drawn(page: Any) -> list[BBox]:
    """What is drawn on a page besides its words, in visible space: lines, rules, dark fills, images.

    Left out, since a label may lie on them without hiding anything: white and lightly tinted fills (page
    backgrounds, shaded rows), drawings over half the page (a background, a frame) and images over nine
    tenths of it (a scanned page, whose words are the page's own; a chart is smaller, and kept).
    """
    area = page.rect.width * page.rect.height
    rects: list[pymupdf.Rect] = []
    for path in page.get_drawings():
        kind = path.get("type") or ""
        stroked = "s" in kind and path.get("color") is not None
        filled = "f" in kind and not _light(path.get("fill"))
        r = pymupdf.Rect(path["rect"])
        if (stroked or filled) and r.width * r.height < 0.5 * area:
            half = float(path.get("width") or 1.0) / 2 if stroked else 0.0
            rects.append(pymupdf.Rect(r.x0 - half, r.y0 - half, r.x1 + half, r.y1 + half))
    images = [pymupdf.Rect(info["bbox"]) for info in page.get_image_info()]
    rects += [r for r in images if r.width * r.height < 0.9 * area]
    if page.rotation:
        rects = [r * page.rotation_matrix for r in rects]
    return [(r.x0, r.y0, r.x1, r.y1) for r in rects]


class Space:
    """A page's printed and drawn boxes, which labels keep clear of; cheap to ask about one band of it.

    Boxes are kept by the horizontal bands of the page they reach, so a question looks at the boxes of a
    few bands only (a page holds thousands of words, and a label tries hundreds of places).
    """

    _BAND = 24.0

    def __init__(self, width: float, height: float, boxes: Sequence[BBox] = ()) -> None:
        """An empty page of ``width`` × ``height`` (visible space) holding ``boxes``."""
        self.width = width
        self.height = height
        self._bands: dict[int, list[BBox]] = {}
        for box in boxes:
            self.add(box)

    def add(self, box: BBox) -> None:
        """Something more on the page (a label placed, a tick drawn)."""
        for band in range(int(box[1] // self._BAND), int(box[3] // self._BAND) + 1):
            self._bands.setdefault(band, []).append(box)

    def runs(self, top: float, bottom: float) -> list[tuple[float, float]]:
        """The free stretches ``(x0, x1)`` of the band from ``top`` to ``bottom``, left to right.

        Free: within the page less :data:`EDGE`, and :data:`CLEARANCE` away from every box.
        """
        y0, y1 = top - CLEARANCE, bottom + CLEARANCE
        taken = sorted(
            (o[0] - CLEARANCE, o[2] + CLEARANCE)
            for band in range(int(y0 // self._BAND), int(y1 // self._BAND) + 1)
            for o in self._bands.get(band, ())
            if o[1] < y1 and y0 < o[3]
        )
        out: list[tuple[float, float]] = []
        x, end = EDGE, self.width - EDGE
        for a, b in taken:
            if a > x:
                out.append((x, min(a, end)))
            x = max(x, b)
            if x >= end:
                break
        if x < end:
            out.append((x, end))
        return [r for r in out if r[1] > r[0]]

    def free(self, box: BBox) -> bool:
        """Whether ``box`` lies in one free stretch of its band (on the page, clear of every box)."""
        if box[1] < EDGE or box[3] > self.height - EDGE:
            return False
        return any(x0 <= box[0] and box[2] <= x1 for x0, x1 in self.runs(box[1], box[3]))


EDGE = 3.0
"""Labels keep this far (pt) from the page's edges."""
CLEARANCE = 2.0
"""And this far from anything printed or drawn (a hair's breadth still, at 150 %, reads as touching)."""
REACH = 60.0
"""How far above or below its figure's row a label in the margin may sit (pt), before anywhere else."""
_STEP = 2.0  # positions tried, in points


Shape = tuple[float, float, list[str]]  # a label's width and height, and its lines


def _shapes(text: str) -> list[Shape]:
    """A label's shapes, widest first: up to :data:`NOTE_MAX_WIDTH` wide, then narrower and taller."""
    text = ascii_text(text)
    widest = max((text_width(w, NOTE_SIZE) for w in text.split()), default=0.0)
    shapes: list[Shape] = []
    for limit in (NOTE_MAX_WIDTH, 72.0, NOTE_MIN_WIDTH, widest + 2 * NOTE_PAD + 2):
        lines = wrap(text, NOTE_SIZE, min(limit, NOTE_MAX_WIDTH) - 2 * NOTE_PAD - 2)
        w = max(text_width(ln, NOTE_SIZE) for ln in lines) + 2 * NOTE_PAD + 3
        h = len(lines) * NOTE_SIZE * 1.35 + 2 * NOTE_PAD + 1.5
        if all(abs(w - s[0]) > 0.5 for s in shapes):
            shapes.append((w, h, lines))
    return shapes


def _offsets(reach: float) -> list[float]:
    """0, then ±STEP, ±2·STEP… up to ``reach``: nearest first."""
    out = [0.0]
    for k in range(1, int(reach / _STEP) + 1):
        out += [k * _STEP, -k * _STEP]
    return out


def _nearest_x(run: tuple[float, float], w: float, anchor: BBox) -> tuple[float, float]:
    """The place in a free stretch for a label ``w`` wide nearest the figure: its x, and the gap left."""
    lo, hi = run[0], run[1] - w
    x = min(max((anchor[0] + anchor[2] - w) / 2, lo), hi)  # centred on the figure, as far as the run lets
    return x, max(0.0, anchor[0] - (x + w), x - anchor[2])


def _spot(shapes: Sequence[Shape], anchor: BBox, space: Space) -> tuple[BBox, list[str]] | None:
    """Where a label goes: the margin beside its figure, else the nearest free place; None: no room.

    1. The free stretch that runs to the page's right edge (its margin, where an auditor writes) beside
       the figure, at its row or up to :data:`REACH` above or below it, widest shape first.
    2. Any free place on the page (white space between blocks, columns or paragraphs, the left margin),
       nearest the figure; a step up or down counts double a step along the row, as a label level with its
       figure reads best.
    """
    mid = (anchor[1] + anchor[3]) / 2
    for dy in _offsets(REACH):
        for w, h, lines in shapes:
            y0 = mid + dy - h / 2
            if y0 < EDGE or y0 + h > space.height - EDGE:
                continue
            runs = space.runs(y0, y0 + h)
            if runs and runs[-1][1] >= space.width - EDGE and runs[-1][0] >= anchor[2]:
                x0, x1 = runs[-1]
                if x1 - x0 >= w:
                    return (x0, y0, x0 + w, y0 + h), lines
    best: tuple[float, BBox, list[str]] | None = None
    for w, h, lines in shapes:
        for k in range(int((space.height - 2 * EDGE - h) / _STEP) + 1):
            y0 = EDGE + k * _STEP
            dy = max(0.0, anchor[1] - (y0 + h), y0 - anchor[3])
            if best is not None and 2 * dy >= best[0]:
                continue
            for run in space.runs(y0, y0 + h):
                if run[1] - run[0] < w:
                    continue
                x, dx = _nearest_x(run, w, anchor)
                score = (dx * dx + 4 * dy * dy) ** 0.5
                if best is None or score < best[0]:
                    best = (score, (x, y0, x + w, y0 + h), lines)
    return None if best is None else (best[1], best[2])


def place_note(note: Note, space: Space) -> tuple[pymupdf.Rect, list[str]] | None:
    """A label's box where the page has nothing printed, nearest its figure; it joins ``space``.

    A flag's evidence without a box (narrative the reader could not place) gets its label near the top
    right. None when no free place holds the label: its text then goes to the summary.
    """
    found = _spot(_shapes(note.text), _anchor(note, space), space)
    if found is None:
        return None
    space.add(found[0])
    return pymupdf.Rect(found[0]), found[1]


def place_reference(note: Note, space: Space) -> pymupdf.Rect | None:
    """Where the reference number (``#n``) of a note moved to the summary goes, by the same rule."""
    found = _spot(_shapes(reference_text(note)), _anchor(note, space), space)
    if found is None:
        return None
    space.add(found[0])
    return pymupdf.Rect(found[0])


def reference_text(note: Note) -> str:
    """What stands at a figure for its note moved to the summary: the flag's number."""
    return f"#{note.number}"


def _anchor(note: Note, space: Space) -> BBox:
    return note.anchor or (space.width - MARGIN, MARGIN / 2, space.width - MARGIN, MARGIN / 2 + 8)


def leader(anchor: BBox, rect: pymupdf.Rect) -> list[tuple[float, float]] | None:
    """The leader line from a label to its figure's box, as the points of a callout (figure end first).

    Beside the figure, the line runs along the gap under the figure's row, so it crosses no figure
    printed further along the row; above or below it, it drops straight to the box. None: they touch.
    """
    x0, y0, x1, y1 = anchor
    if not (rect.x0 > x1 + 2.0 or rect.x1 < x0 - 2.0 or rect.y0 > y1 + 2.0 or rect.y1 < y0 - 2.0):
        return None  # touching
    if rect.x0 >= x1 + 2.0 or rect.x1 <= x0 - 2.0:
        right = rect.x0 >= x1
        below = y1 + 1.0
        start = (rect.x0 if right else rect.x1, min(max(rect.y0 + 1.0, below), rect.y1 - 1.0))
        return [(x1 + 1.2 if right else x0 - 1.2, below), (start[0] + (-2.0 if right else 2.0), below), start]
    x = min(max((rect.x0 + rect.x1) / 2, x0 + 1.0), x1 - 1.0)
    x = min(max(x, rect.x0 + 1.0), rect.x1 - 1.0)  # where the two overlap, or nearly
    above = rect.y1 <= y0
    return [(x, y0 - 1.2 if above else y1 + 1.2), (x, rect.y1 if above else rect.y0)]


# --- a page's plan: every box, tick and label at its place -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Label:
    """A label placed on its page: the note, or only its reference number when the note is in the summary."""

    note: Note
    rect: pymupdf.Rect
    lines: list[str]
    moved: bool


@dataclass(slots=True)
class PagePlan:
    """Everything drawn on one document page, placed: boxes first, ticks next, then labels clear of both.

    ``moved`` holds the notes with no free place on the page: the summary lists them, and a label with
    the flag's number stands on the page instead where there is room for it.
    """

    boxes: list[tuple[Mark, pymupdf.Rect]]
    ticks: list[tuple[Tick, BBox]]
    labels: list[Label]
    moved: list[Note]


def plan_page(page: Any, marks: Sequence[Mark], tick_list: Sequence[Tick], notes: Sequence[Note]) -> PagePlan:
    """Place the boxes, ticks and labels of one page (visible space)."""
    seen: Counter[tuple[float, ...]] = Counter()
    boxes: list[tuple[Mark, pymupdf.Rect]] = []
    for mark in marks:
        key = spot_key(mark.evidence.page, mark.bbox)[1]
        boxes.append((mark, mark_rect(mark.bbox, seen[key])))
        seen[key] += 1
    obstacles = page_obstacles(page)
    placed_ticks = [(tick, place_tick(tick, obstacles)) for tick in tick_list]
    plan = PagePlan(boxes, placed_ticks, [], [])
    if not notes:
        return plan
    rects = [(r.x0, r.y0, r.x1, r.y1) for _, r in boxes]
    space = Space(page.rect.width, page.rect.height, [*obstacles, *page_drawn(page), *rects])
    for note in sorted(notes, key=lambda n: (n.anchor[1] if n.anchor else 0.0, n.number)):
        found = place_note(note, space)
        if found is not None:
            plan.labels.append(Label(note, found[0], found[1], moved=False))
            continue
        plan.moved.append(note)
        ref = place_reference(note, space)
        if ref is not None:
            plan.labels.append(Label(note, ref, [reference_text(note)], moved=True))
    return plan
