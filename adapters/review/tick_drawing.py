"""Drawing the tick-and-tie marks: PDF annotations on the document's pages, and the summary pages.

Everything here takes a position already decided (:mod:`adapters.review.tick_placing`,
:mod:`adapters.review.tick_summary`) and turns it into MuPDF calls; positions are in the records' visible
(rotated) page space and are derotated where an annotation needs the page's own coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pymupdf

from adapters.review.tick_decisions import decided_line
from adapters.review.tick_placing import Label, Mark, leader
from adapters.review.tick_style import (
    CLEARED,
    GREEN,
    NOTE_SIZE,
    SEVERITY_COLORS,
    SUBJECT_BREAK,
    SUBJECT_NOTE,
    SUBJECT_TICK,
    TITLE,
    WHITE,
    cached_font,
    font_runs,
    is_latin,
)
from adapters.review.tick_summary import TICK_WORDS, SummaryPage, SummaryText
from pipeline.checks.ticks import Tick
from schemas.models import BBox, Flag
from schemas.reviews import ReviewDecision

__all__ = ["color_of", "draw_mark", "draw_note", "draw_summary_page", "draw_tick", "link_to"]

_LINE_END_NONE = int(getattr(pymupdf, "PDF_ANNOT_LE_NONE", 0))  # not in PyMuPDF's type hints


def _tick_strokes(box: BBox, kinds: Sequence[str]) -> list[list[tuple[float, float]]]:
    """Ink strokes of a tick in ``box`` (visible coordinates): a check mark, a bar, a ring."""
    x, y, s = box[0], box[1], box[3] - box[1]
    strokes = [[(x, y + 0.55 * s), (x + 0.35 * s, y + 0.9 * s), (x + 0.85 * s, y + 0.05 * s)]]
    if "cross_footed" in kinds:
        strokes.append([(x - 0.05 * s, y + 1.05 * s), (x + 0.9 * s, y + 1.05 * s)])
    if "agreed" in kinds:
        cx, cy, r = x + 1.15 * s, y + 0.3 * s, 0.22 * s
        ring = [(cx + r * _COS[i], cy + r * _SIN[i]) for i in range(len(_COS))]
        strokes.append([*ring, ring[0]])
    return strokes


_COS = [1.0, 0.866, 0.5, 0.0, -0.5, -0.866, -1.0, -0.866, -0.5, 0.0, 0.5, 0.866]
_SIN = [0.0, 0.5, 0.866, 1.0, 0.866, 0.5, 0.0, -0.5, -0.866, -1.0, -0.866, -0.5]


def _visible_to_page(page: Any, rect: pymupdf.Rect) -> pymupdf.Rect:
    # The records' boxes are in the visible (rotated) page space; annotations take unrotated coordinates.
    return rect * page.derotation_matrix if page.rotation else rect


def _point(page: Any, x: float, y: float) -> pymupdf.Point:
    p = pymupdf.Point(x, y)
    return p * page.derotation_matrix if page.rotation else p


def draw_tick(page: Any, tick: Tick, box: BBox) -> None:
    """An ink tick in ``box`` (from :func:`~adapters.review.tick_placing.place_tick`), noting its ties."""
    strokes: list[list[tuple[float, float]]] = []
    for stroke in _tick_strokes(box, tick.kinds):
        points = [_point(page, x, y) for x, y in stroke]
        strokes.append([(p.x, p.y) for p in points])
    annot = page.add_ink_annot(strokes)
    annot.set_border(width=max(0.6, (box[3] - box[1]) / 9))
    annot.set_colors(stroke=GREEN)
    annot.set_info(title=TITLE, subject=SUBJECT_TICK, content=f"{tick.text}\n" + "\n".join(tick.notes))
    annot.update()


def _mark_content(mark: Mark) -> str:
    flag = mark.flag
    others = [e for e in flag.evidence if e is not mark.evidence]
    lines = [f"#{mark.number} {flag.rule} ({flag.severity}, confidence {flag.confidence:.2f})", flag.message]
    if mark.decision is not None:
        lines.append(decided_line(mark.decision))
    if others:
        lines.append("Other figures of this flag:")
        lines += [f"- {' '.join(e.text.split())[:140]} ({e.role}, p.{e.page})" for e in others]
    return "\n".join(lines)


def color_of(flag: Flag, decision: ReviewDecision | None) -> tuple[float, float, float]:
    """A break's colour: its severity's, or slate grey once an analyst dismissed it (cleared)."""
    if decision is not None and decision.status == "dismissed":
        return CLEARED
    return SEVERITY_COLORS.get(flag.severity, SEVERITY_COLORS["error"])


def draw_mark(page: Any, mark: Mark, rect: pymupdf.Rect) -> None:
    """A box around a flagged figure in ``rect`` (:func:`~adapters.review.tick_placing.mark_rect`).

    Solid around the flag's main figure, dashed around the others; a cleared break's box is dotted and
    grey, a confirmed one's is drawn heavier.
    """
    annot = page.add_rect_annot(_visible_to_page(page, rect))
    status = mark.decision.status if mark.decision is not None else "open"
    width = (1.2 if mark.main else 0.8) + (0.6 if status == "confirmed" else 0.0)
    if status == "dismissed":
        annot.set_border(width=width, dashes=[1, 1.5])
    elif mark.main:
        annot.set_border(width=width)
    else:
        annot.set_border(width=width, dashes=[3, 2])
    annot.set_colors(stroke=color_of(mark.flag, mark.decision))
    annot.set_info(title=TITLE, subject=SUBJECT_BREAK, content=_mark_content(mark))
    annot.update()


def draw_note(page: Any, label: Label) -> None:
    """A label placed by :func:`~adapters.review.tick_placing.plan_page`, with its leader line."""
    note, rect = label.note, label.rect
    color = color_of(note.flag, note.decision)
    line = leader(note.anchor, rect) if note.anchor is not None else None
    callout = [_point(page, x, y) for x, y in line] if line else None
    annot = page.add_freetext_annot(
        _visible_to_page(page, rect),
        "\n".join(label.lines),
        fontsize=NOTE_SIZE,
        fontname="helv",
        text_color=color,
        fill_color=WHITE,
        border_width=0.6,
        callout=callout,
        line_end=_LINE_END_NONE,
        rotate=page.rotation,
    )
    annot.set_info(title=TITLE, subject=SUBJECT_NOTE)
    annot.update()


def link_to(page: Any, rect: pymupdf.Rect, target: int, y: float, target_page: Any) -> None:
    """A link from ``rect`` on ``page`` to height ``y`` (visible space) of page index ``target``."""
    to = _point(target_page, 0.0, max(0.0, y - 36.0))
    page.insert_link(
        {"kind": pymupdf.LINK_GOTO, "from": _visible_to_page(page, rect), "page": target, "to": to, "zoom": 0}
    )


def _draw_text(page: Any, t: SummaryText) -> None:
    if is_latin(t.text):  # a base-14 font, not embedded
        page.insert_text(
            (t.x, t.y), t.text, fontsize=t.size, fontname="hebo" if t.bold else "helv", color=t.color
        )
        return
    # Labels in other scripts (a Chinese filing's line names): each run in a font that has its glyphs.
    writer = pymupdf.TextWriter(page.rect)
    pos = pymupdf.Point(t.x, t.y)
    for run, face in font_runs(t.text, t.bold):
        _, pos = writer.append(pos, run, font=cached_font(face), fontsize=t.size)
    writer.write_text(page, color=t.color)


def draw_summary_page(page: Any, sp: SummaryPage) -> None:
    """Draw a summary page laid out by :func:`~adapters.review.tick_summary.layout_summary` (links aside)."""
    for t in sp.texts:
        _draw_text(page, t)
    for g in sp.glyphs:
        r = g.rect
        if g.kind in TICK_WORDS:
            for stroke in _tick_strokes((r.x0, r.y0, r.x0 + r.height, r.y1), [g.kind]):
                page.draw_polyline(stroke, color=GREEN, width=0.9)
        elif g.kind == "note":
            page.draw_rect(r, color=SEVERITY_COLORS["error"], fill=WHITE, width=0.6)
            page.insert_text(
                (r.x0 + 1.5, r.y1 - 2.5),
                "#n",
                fontsize=NOTE_SIZE,
                fontname="helv",
                color=SEVERITY_COLORS["error"],
            )
        elif g.kind == "cleared":
            page.draw_rect(r, color=CLEARED, width=1.2, dashes="[1 1.5] 0")
        elif g.kind == "confirmed":
            page.draw_rect(r, color=SEVERITY_COLORS["error"], width=1.8)
        else:
            page.draw_rect(r, color=SEVERITY_COLORS[g.kind], width=1.2)
