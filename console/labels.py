"""Where a highlight's label goes on a page image: outside its box, on a side where nothing is covered.

The one rule for the console's evidence labels (computed on the server, so the page needs no script to lay
them out and the rule is tested without a browser). Every rectangle is ``(x0, y0, x1, y1)`` in CSS pixels
from the page image's top-left corner.

A label is drawn in a monospace font at a fixed size with its box's width and height set from here
(``console.css`` ``.box .label``), so the rectangle placed is the rectangle shown, whatever the browser.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "LABEL_CHAR_PX",
    "LABEL_GAP_PX",
    "LABEL_HEIGHT_PX",
    "LABEL_PAD_PX",
    "Rect",
    "label_size",
    "place_label",
]

Rect = tuple[float, float, float, float]

LABEL_CHAR_PX = 6.7
"""The width budget of one character: a monospace glyph at 11 px is 0.6 em (6.6 px) in the usual fonts."""
LABEL_PAD_PX = 4.0
"""Padding left and right of the label's text."""
LABEL_HEIGHT_PX = 15.0
"""The label's height (its line height at 11 px)."""
LABEL_GAP_PX = 5.0
"""Between a label and its box: clear of the box's outline, drawn 3 px outside it."""
_EPS = 0.02
_RINGS = 4  # how far out a label may be pushed, in steps of its own size, before the least-covering place


def label_size(text: str) -> tuple[float, float]:
    """The width and height in pixels of a label showing ``text``."""
    return round(len(text) * LABEL_CHAR_PX + 2 * LABEL_PAD_PX, 2), LABEL_HEIGHT_PX


@dataclass(frozen=True)
class _Choice:
    text: str
    rect: Rect


def _candidates(box: Rect, texts: Sequence[str]) -> Iterator[_Choice]:
    """Places around ``box``, best first.

    Left (the white space between a line's label and its figures), right, above, below; the full text
    before the short one; then further out, ring by ring.
    """
    x0, y0, x1, y1 = box
    g = LABEL_GAP_PX
    for ring in range(_RINGS):
        for text in texts if ring == 0 else texts[-1:]:
            w, h = label_size(text)
            cy = (y0 + y1) / 2 - h / 2
            dx, dy = ring * (w + 2), ring * (h + 2)
            for x, y in (
                (x0 - g - w - dx, cy),  # left
                (x1 + g + dx, cy),  # right
                (x0, y0 - g - h - dy),  # above
                (x0, y1 + g + dy),  # below
                (x1 - w, y0 - g - h - dy),  # above, right-aligned
                (x1 - w, y1 + g + dy),  # below, right-aligned
            ):
                yield _Choice(text, (round(x, 2), round(y, 2), round(x + w, 2), round(y + h, 2)))


def _cover(a: Rect, b: Rect) -> float:
    """The area of ``a`` that ``b`` covers."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > _EPS and h > _EPS else 0.0  # rects that only touch (rounded to 0.01 px) do not


def _inside(r: Rect, page: Rect) -> bool:
    return page[0] <= r[0] and r[2] <= page[2] and page[1] <= r[1] and r[3] <= page[3]


def place_label(
    box: Rect,
    texts: Sequence[str],
    figures: Sequence[Rect],
    words: Sequence[Rect],
    page: Rect,
) -> tuple[str, Rect]:
    """The text and place of ``box``'s label: outside it, on the page, on the first side covering nothing.

    A figure is never covered where any place avoids it; among the places that cover no figure, the first
    covering no word either; where every place covers a figure (a page crowded at a small zoom), the one
    covering the least.

    Args:
        box: The highlighted figure.
        texts: What the label may say, longest first (e.g. ``"2 · component"``, then ``"2"``).
        figures: What the label must not cover: the figures printed on the page (other than the box's own),
            the other highlights (with their outlines) and the labels placed so far.
        words: What it had better not cover: the other words printed on the page.
        page: The page image's rectangle.
    """
    margin = LABEL_GAP_PX
    grown = (box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin)
    reach = max(label_size(t)[0] for t in texts) * (_RINGS + 1) + LABEL_HEIGHT_PX * _RINGS
    area = (box[0] - reach, box[1] - reach, box[2] + reach, box[3] + reach)
    hard = [f for f in figures if _cover(f, area)]
    soft = [w for w in words if _cover(w, area)]
    best: tuple[float, int, int, _Choice] | None = None
    for i, c in enumerate(_candidates(box, texts)):
        if not _inside(c.rect, page) or _cover(c.rect, grown):
            continue
        covered = sum(_cover(c.rect, f) for f in hard)
        hits = sum(1 for w in soft if _cover(c.rect, w))
        if covered == 0 and hits == 0:
            return c.text, c.rect
        key = (covered, hits, i, c)
        if best is None or key[:3] < best[:3]:
            best = key
    if best is not None:
        return best[3].text, best[3].rect
    # no place on the page at all (a page smaller than its label): above the box, inside the page
    w, h = label_size(texts[-1])
    x = min(max(box[0], page[0]), page[2] - w)
    y = max(box[1] - LABEL_GAP_PX - h, page[1])
    return texts[-1], (x, y, x + w, y + h)
