"""The tick-and-tie PDF: a copy of a document marked as an auditor would mark it.

PDF bytes and the document's :class:`~schemas.models.DocumentResult` in, annotated PDF bytes out; no files,
no terminal. Everything added to the document's own pages is a PDF annotation (any reader shows it, and
hides or deletes it), identified by its subject:

* ``tieout tick``: an ink tick beside each figure that a check confirmed (:mod:`pipeline.checks.ticks` defines
  which: a sum down a column or across a row that holds, copies of one figure that agree; never a figure
  a flag cites). The tick's shape says what held: a plain tick for a footing, a bar under it for a
  cross-footing, a ring beside it for an agreement with another table. Its note lists the comparisons.
* ``tieout break``: a box around every figure a flag cites, coloured by severity (red error, orange
  warning, blue info), solid around the flag's main figure and dashed around the others; its note gives
  the rule, the message and every other figure of the flag with its page.
* ``tieout note``: one label per flag and page, in the margin to the right of the figure with a callout
  line to it: the flag's number and rule, and the other figure and page (or the figure the check expected).
  The label links to the flag's next page (its pages in a cycle) or, for a flag on one page, to the flag's
  entry in the summary.

A summary (one page or more) goes in front: the document, counts of ticks and breaks by rule, a legend,
what a tick means, and every break with a link to its page. Page labels keep the document's pages numbered
as tieout numbers them (the summary pages are ``S-1``, ``S-2``…), so "p.7" in a note is page 7 in the reader.

MuPDF is not thread-safe: one annotation runs at a time in a process (a lock), so a web console may call
:func:`annotate_pdf` from a thread pool.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pymupdf

from pipeline.checks import RULES
from pipeline.checks.ticks import Tick, spot_key, ticks, ties
from pipeline.checks.tolerance import fmt_amount
from pipeline.ids import document_id
from schemas.models import BBox, Cell, DocumentResult, ErrorCategory, Evidence, Flag

__all__ = [
    "SUBJECT_BREAK",
    "SUBJECT_NOTE",
    "SUBJECT_TICK",
    "AnnotateError",
    "AnnotatedPdf",
    "AnnotationCounts",
    "annotate_pdf",
]

SUBJECT_TICK = "tieout tick"
SUBJECT_BREAK = "tieout break"
SUBJECT_NOTE = "tieout note"
TITLE = "tieout"

Color = tuple[float, float, float]
GREEN: Color = (0.0, 0.55, 0.25)
SEVERITY_COLORS: dict[str, Color] = {
    "error": (0.85, 0.1, 0.1),
    "warning": (0.93, 0.5, 0.0),
    "info": (0.15, 0.4, 0.85),
}
INK: Color = (0.1, 0.1, 0.1)
GREY: Color = (0.4, 0.4, 0.4)
WHITE: Color = (1.0, 1.0, 1.0)

_NOTE_SIZE = 6.0  # the margin labels' font size (pt): legible at 100 %, small enough for a margin
_NOTE_PAD = 1.5
_NOTE_MIN_WIDTH = 44.0
_NOTE_MAX_WIDTH = 110.0
_TICK_GAP = 1.5  # between a figure's box and its tick
_MARGIN = 48.0  # the summary's page margins

_LOCK = threading.Lock()
_LINE_END_NONE = int(getattr(pymupdf, "PDF_ANNOT_LE_NONE", 0))  # not in PyMuPDF's type hints


class AnnotateError(ValueError):
    """The document cannot be annotated: unreadable, encrypted, or results of another document.

    Attributes:
        category: What went wrong, in the engine's error categories (``encrypted``, ``corrupt``, …).
        message: A sentence for the user.
    """

    def __init__(self, category: ErrorCategory, message: str) -> None:
        super().__init__(f"{category}: {message}")
        self.category: ErrorCategory = category
        self.message = message


@dataclass(frozen=True, slots=True)
class AnnotationCounts:
    """What the annotated copy holds.

    Attributes:
        ticks: Figures ticked (one ``tieout tick`` annotation each).
        ties: Comparisons that held (a tick may stand for several, a tie ticks several figures).
        breaks: Flags drawn (every flag of the result).
        marks: Boxes around flagged figures (``tieout break`` annotations): one per flag and cited figure
            with a box.
        notes: Margin labels (``tieout note`` annotations): one per flag and page it cites.
        links: Internal links added: from the labels, and from the summary's list of breaks.
        summary_pages: Pages inserted in front.
        unplaced: Evidence of flags printed without a box (narrative the reader could not place): listed
            in the summary and noted on their page, not boxed.
        ticks_by_rule: Ticks per rule whose comparison confirmed the figure (a figure can count for two).
        breaks_by_rule: Flags per rule.
        trees: Whether the result carried calculation trees (without them no figure can be ticked).
    """

    ticks: int
    ties: int
    breaks: int
    marks: int
    notes: int
    links: int
    summary_pages: int
    unplaced: int
    ticks_by_rule: dict[str, int]
    breaks_by_rule: dict[str, int]
    trees: bool


@dataclass(frozen=True, slots=True)
class AnnotatedPdf:
    """An annotated copy of a document and what it holds."""

    pdf: bytes
    counts: AnnotationCounts


# --- plan: what goes where, before anything is drawn ------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Mark:
    number: int
    flag: Flag
    evidence: Evidence
    bbox: BBox
    main: bool


@dataclass(slots=True)
class _Note:
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


def _plan(
    result: DocumentResult, n_pages: int
) -> tuple[list[_Mark], list[_Note], list[tuple[int, Flag, Evidence]]]:
    """Boxes, margin labels and unplaced evidence of every flag, numbered in the flags' order."""
    cells = _cells(result)
    marks: list[_Mark] = []
    notes: list[_Note] = []
    unplaced: list[tuple[int, Flag, Evidence]] = []
    for number, flag in enumerate(result.flags, start=1):
        pages = sorted({e.page for e in flag.evidence if 1 <= e.page <= n_pages})
        for i, e in enumerate(flag.evidence):
            if not 1 <= e.page <= n_pages:
                continue
            if e.bbox is None:
                unplaced.append((number, flag, e))
            else:
                marks.append(_Mark(number, flag, e, e.bbox, main=i == 0))
        expected = _expected(flag, cells)
        for k, page in enumerate(pages):
            anchor = next((e.bbox for e in flag.evidence if e.page == page and e.bbox is not None), None)
            target = pages[(k + 1) % len(pages)] if len(pages) > 1 else None
            notes.append(_Note(number, flag, page, anchor, _note_text(number, flag, page, expected), target))
    return marks, notes, unplaced


# --- text layout -----------------------------------------------------------------------------------

_FONTS: dict[str, Any] = {}


def _latin(text: str) -> bool:
    """Whether a base-14 font shows the text (WinAnsi), so nothing needs embedding."""
    try:
        text.encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def _font(name: str) -> Any:
    if name not in _FONTS:
        _FONTS[name] = pymupdf.Font(name)
    return _FONTS[name]


def _runs(text: str, bold: bool) -> list[tuple[str, str]]:
    """The text cut into runs of one font each: Helvetica, or MuPDF's built-in CJK font for other scripts."""
    latin = "hebo" if bold else "helv"
    runs: list[tuple[str, str]] = []
    for ch in text:
        face = latin if _latin(ch) else "cjk"
        if runs and runs[-1][1] == face:
            runs[-1] = (runs[-1][0] + ch, face)
        else:
            runs.append((ch, face))
    return runs


def _width(text: str, size: float, bold: bool = False) -> float:
    return sum(float(_font(face).text_length(run, fontsize=size)) for run, face in _runs(text, bold))


def _wrap(text: str, size: float, width: float, bold: bool = False) -> list[str]:
    """Greedy word wrap; a word longer than the line is cut."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if _width(candidate, size, bold) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while _width(word, size, bold) > width and len(word) > 1:
            cut = len(word)
            while cut > 1 and _width(word[:cut], size, bold) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines or [""]


def _ascii(text: str) -> str:
    """Text a base-14 font can show in an annotation's appearance (FreeText has no font fallback)."""
    replaced = text.replace("…", "...").replace("—", "-").replace("–", "-").replace("’", "'")
    return "".join(ch if _latin(ch) else "?" for ch in replaced)


# --- the summary -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Text:
    x: float
    y: float  # baseline
    text: str
    size: float
    bold: bool = False
    color: Color = INK


@dataclass(frozen=True, slots=True)
class _Link:
    rect: pymupdf.Rect
    page: int  # document page, 1-based
    y: float  # where on the target page (visible coordinates)


@dataclass(frozen=True, slots=True)
class _Glyph:
    kind: str  # a tie kind ("footed", "cross_footed", "agreed"), a severity, or "note"
    rect: pymupdf.Rect


@dataclass(slots=True)
class _SummaryPage:
    texts: list[_Text] = field(default_factory=list)
    links: list[_Link] = field(default_factory=list)
    glyphs: list[_Glyph] = field(default_factory=list)


class _Flow:
    """Lays text out top to bottom over as many summary pages as it needs."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height
        self.pages: list[_SummaryPage] = [_SummaryPage()]
        self.y = _MARGIN

    @property
    def page(self) -> _SummaryPage:
        return self.pages[-1]

    def need(self, height: float) -> None:
        if self.y + height > self.height - _MARGIN:
            self.pages.append(_SummaryPage())
            self.y = _MARGIN

    def line(
        self, text: str, size: float = 9.0, *, x: float = _MARGIN, bold: bool = False, color: Color = INK
    ) -> None:
        self.need(size * 1.35)
        self.y += size * 1.35
        self.page.texts.append(_Text(x, self.y - size * 0.3, text, size, bold, color))

    def para(
        self, text: str, size: float = 9.0, *, x: float = _MARGIN, bold: bool = False, max_lines: int = 0
    ) -> None:
        lines = _wrap(text, size, self.width - _MARGIN - x, bold)
        if max_lines and len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = lines[-1][: max(0, len(lines[-1]) - 2)] + " …"
        for ln in lines:
            self.line(ln, size, x=x, bold=bold)

    def gap(self, points: float) -> None:
        self.y += points


_TICK_WORDS = {
    "footed": "footed: a total and its lines that add up in this column (TOT001)",
    "cross_footed": "cross-footed: a row whose total column is the sum of the other columns (TOT002)",
    "agreed": "agreed: the same figure printed alike in another table (XREF001)",
}

_DEFINITION = (
    "A tick marks a printed figure that a check compared and found to agree, within rounding: the total and "
    "lines of a proven calculation-tree node in a column where they add up (TOT001), the total and "
    "component columns of a row that adds across (TOT002), and every copy of a figure whose copies in "
    "different tables all agree (XREF001). A figure that any flag cites is a break, never a tick. The other "
    "rules record no comparison that held, so they tick nothing."
)


def _summary(
    result: DocumentResult,
    tick_list: Sequence[Tick],
    n_ties: int,
    unplaced: Sequence[tuple[int, Flag, Evidence]],
    n_pages: int,
    size: tuple[float, float],
) -> tuple[list[_SummaryPage], dict[int, tuple[int, float]]]:
    """The summary pages, and where each break is listed on them (number → summary page index, y)."""
    width, height = size
    flow = _Flow(width, height)
    flow.line("Tick-and-tie", 18, bold=True)
    flow.para(result.source, 11, bold=True)
    flow.line(
        f"document {result.doc_id[:16]}   pipeline {result.pipeline_version}   {n_pages} pages",
        8,
        color=GREY,
    )
    flow.gap(6)
    severities = Counter(f.severity for f in result.flags)
    flow.para(
        f"{_n(len(tick_list), 'figure')} ticked ({_n(n_ties, 'comparison')} held); "
        f"{_n(len(result.flags), 'break')} ({_n(severities['error'], 'error')}, "
        f"{_n(severities['warning'], 'warning')}, {severities['info']} info).",
        10,
        bold=True,
    )
    if not result.statements and result.tables:
        flow.para(
            "These results carry no calculation trees (the output of `tieout run`), so no figure is ticked: "
            "the breaks are the run's flags. Annotate the PDF itself to have the checks' agreements ticked.",
            8.5,
        )
    flow.gap(6)
    _rule_table(flow, result, tick_list)
    flow.gap(8)
    _legend(flow)
    flow.gap(4)
    flow.para(_DEFINITION, 8)
    flow.gap(8)
    where: dict[int, tuple[int, float]] = {}
    if result.flags:
        flow.line("Breaks", 11, bold=True)
        missing = {n for n, _, _ in unplaced}
        for number, flag in enumerate(result.flags, start=1):
            flow.need(9 * 1.35 * 4)
            top = flow.y
            pages = ", ".join(str(p) for p in flag.pages)
            head = f"#{number}   p.{pages}   {flag.rule}   {flag.severity}   confidence {flag.confidence:.2f}"
            flow.line(head, 8.5, bold=True, color=SEVERITY_COLORS.get(flag.severity, INK))
            flow.para(flag.message, 8, x=_MARGIN + 12, max_lines=3)
            if number in missing:
                flow.para(
                    "(part of its evidence has no box on the page: see the page's note)", 7, x=_MARGIN + 12
                )
            rect = pymupdf.Rect(_MARGIN - 2, top + 1, width - _MARGIN, flow.y + 2)
            target = flag.evidence[0] if flag.evidence else None
            y = target.bbox[1] if target is not None and target.bbox is not None else 0.0
            flow.page.links.append(_Link(rect, flag.pages[0] if flag.pages else 1, y))
            where[number] = (len(flow.pages) - 1, top)
            flow.gap(3)
    return flow.pages, where


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _rule_table(flow: _Flow, result: DocumentResult, tick_list: Sequence[Tick]) -> None:
    ticks_by = Counter(r for t in tick_list for r in t.rules)
    breaks_by = Counter(f.rule for f in result.flags)
    rules = {rule_id: rule.checks for rule_id, rule in RULES.items()}
    for f in result.flags:
        rules.setdefault(f.rule, f.kind.replace("_", " "))
    x_rule, x_ticks, x_breaks, x_what = _MARGIN, _MARGIN + 80, _MARGIN + 115, _MARGIN + 130
    flow.line("Rule", 8.5, x=x_rule, bold=True)
    flow.page.texts.append(
        _Text(x_ticks - _width("Ticks", 8.5, True), flow.page.texts[-1].y, "Ticks", 8.5, True)
    )
    flow.page.texts.append(
        _Text(x_breaks - _width("Breaks", 8.5, True), flow.page.texts[-1].y, "Breaks", 8.5, True)
    )
    flow.page.texts.append(_Text(x_what + 8, flow.page.texts[-1].y, "What it checks", 8.5, True))
    for rule, what in rules.items():
        lines = _wrap(what, 8, flow.width - _MARGIN - x_what - 8)
        flow.line(rule, 8, x=x_rule)
        baseline = flow.page.texts[-1].y
        ticked = str(ticks_by[rule]) if rule in ("TOT001", "TOT002", "XREF001") else "-"
        broken = str(breaks_by[rule])
        color = SEVERITY_COLORS["error"] if breaks_by[rule] else INK
        flow.page.texts.append(_Text(x_ticks - _width(ticked, 8), baseline, ticked, 8, color=GREEN))
        flow.page.texts.append(_Text(x_breaks - _width(broken, 8), baseline, broken, 8, color=color))
        flow.page.texts.append(_Text(x_what + 8, baseline, lines[0], 8))
        for extra in lines[1:]:
            flow.line(extra, 8, x=x_what + 8)


def _legend(flow: _Flow) -> None:
    flow.line("Legend", 9, bold=True)
    for kind, words in _TICK_WORDS.items():
        flow.line(words, 8, x=_MARGIN + 24)
        y = flow.page.texts[-1].y
        flow.page.glyphs.append(_Glyph(kind, pymupdf.Rect(_MARGIN + 4, y - 7, _MARGIN + 14, y + 1)))
    for severity, words in (
        (
            "error",
            "break, error: a figure a flag cites (solid box: the flag's main figure; dashed: the others)",
        ),
        ("warning", "break, warning"),
        ("info", "break, info"),
    ):
        flow.line(words, 8, x=_MARGIN + 24)
        y = flow.page.texts[-1].y
        flow.page.glyphs.append(_Glyph(severity, pymupdf.Rect(_MARGIN + 2, y - 7, _MARGIN + 18, y + 1)))
    flow.line(
        "#n RULE: the margin note of break n, naming the other figure and its page; click it to go there",
        8,
        x=_MARGIN + 24,
    )
    y = flow.page.texts[-1].y
    flow.page.glyphs.append(_Glyph("note", pymupdf.Rect(_MARGIN, y - 7, _MARGIN + 20, y + 1.5)))


# --- drawing ---------------------------------------------------------------------------------------


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
    right = (x1 + _TICK_GAP, top, x1 + _TICK_GAP + h, top + h)
    extent = _tick_extent(right, kinds)
    width = extent[2] - extent[0]
    left = (x0 - _TICK_GAP - width, top, x0 - _TICK_GAP - width + h, top + h)
    # Only what is printed at the figure's height can be in the way (a cheap filter: pages hold thousands
    # of words and a statement hundreds of ticks).
    row = [o for o in obstacles if o[3] > top - 2 and o[1] < top + h + 2 and not _inside(o, bbox)]
    for box in (right, left):
        area = _tick_extent(box, kinds)
        if not any(_overlaps(area, o) for o in row):
            return box
    return right


def _obstacles(page: Any) -> list[BBox]:
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


def _visible_to_page(page: Any, rect: pymupdf.Rect) -> pymupdf.Rect:
    # The records' boxes are in the visible (rotated) page space; annotations take unrotated coordinates.
    return rect * page.derotation_matrix if page.rotation else rect


def _point(page: Any, x: float, y: float) -> pymupdf.Point:
    p = pymupdf.Point(x, y)
    return p * page.derotation_matrix if page.rotation else p


def _tick(page: Any, tick: Tick, obstacles: list[BBox]) -> None:
    box = _tick_box(tick.bbox, tick.kinds, obstacles)
    obstacles.append(_tick_extent(box, tick.kinds))  # the next figure's tick keeps clear of this one
    strokes: list[list[tuple[float, float]]] = []
    for stroke in _tick_strokes(box, tick.kinds):
        points = [_point(page, x, y) for x, y in stroke]
        strokes.append([(p.x, p.y) for p in points])
    annot = page.add_ink_annot(strokes)
    annot.set_border(width=max(0.6, (box[3] - box[1]) / 9))
    annot.set_colors(stroke=GREEN)
    annot.set_info(title=TITLE, subject=SUBJECT_TICK, content=f"{tick.text}\n" + "\n".join(tick.notes))
    annot.update()


def _mark_content(mark: _Mark) -> str:
    flag = mark.flag
    others = [e for e in flag.evidence if e is not mark.evidence]
    lines = [f"#{mark.number} {flag.rule} ({flag.severity}, confidence {flag.confidence:.2f})", flag.message]
    if others:
        lines.append("Other figures of this flag:")
        lines += [f"- {' '.join(e.text.split())[:140]} ({e.role}, p.{e.page})" for e in others]
    return "\n".join(lines)


def _mark(page: Any, mark: _Mark, overlap: int) -> None:
    # A figure two flags cite gets two boxes, the second a little larger, so both stay visible.
    pad = 1.2 + 1.6 * min(overlap, 3)
    x0, y0, x1, y1 = mark.bbox
    rect = pymupdf.Rect(x0 - pad, y0 - pad, x1 + pad, y1 + pad)
    annot = page.add_rect_annot(_visible_to_page(page, rect))
    color = SEVERITY_COLORS.get(mark.flag.severity, SEVERITY_COLORS["error"])
    if mark.main:
        annot.set_border(width=1.2)
    else:
        annot.set_border(width=0.8, dashes=[3, 2])
    annot.set_colors(stroke=color)
    annot.set_info(title=TITLE, subject=SUBJECT_BREAK, content=_mark_content(mark))
    annot.update()


def _margin_start(obstacles: Sequence[BBox], anchor: BBox, width: float) -> float:
    """Where the right margin starts beside a figure: right of every word and tick printed near its row."""
    mid = (anchor[1] + anchor[3]) / 2
    near = [o[2] for o in obstacles if o[3] >= mid - 10 and o[1] <= mid + 10 and o[2] < width - 1]
    return max([anchor[2] + 3.0, *near])


def _place_note(
    note: _Note, width: float, height: float, obstacles: Sequence[BBox], placed: list[pymupdf.Rect]
) -> tuple[pymupdf.Rect, list[str]]:
    """A label's box in the right margin at its figure's height, clear of the labels placed before it.

    A flag's evidence without a box (narrative the reader could not place) gets its label at the top right.
    """
    anchor = note.anchor or (width - _MARGIN, _MARGIN / 2, width - _MARGIN, _MARGIN / 2 + 8)
    left = _margin_start(obstacles, anchor, width) + 5.0
    room = width - 4.0 - left
    w = max(_NOTE_MIN_WIDTH, min(_NOTE_MAX_WIDTH, room))
    text = _ascii(note.text)
    lines = _wrap(text, _NOTE_SIZE, w - 2 * _NOTE_PAD - 2)
    w = min(w, max(_width(ln, _NOTE_SIZE) for ln in lines) + 2 * _NOTE_PAD + 3)
    h = len(lines) * _NOTE_SIZE * 1.35 + 2 * _NOTE_PAD + 1.5
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


def _note(page: Any, note: _Note, rect: pymupdf.Rect, lines: Sequence[str]) -> None:
    color = SEVERITY_COLORS.get(note.flag.severity, SEVERITY_COLORS["error"])
    callout = None
    if note.anchor is not None and rect.x0 > note.anchor[2] + 2:
        # A callout line from the label to the figure (its box's right edge), like an auditor's arrow.
        # It runs along the gap under the figure's row, so it crosses no figure printed further right.
        below = note.anchor[3] + 1.0
        tip = (note.anchor[2] + 1.2, below)
        knee = (rect.x0 - 2.0, below)
        start = (rect.x0, min(max(rect.y0 + 1.0, below), rect.y1 - 1.0))
        callout = [_point(page, *tip), _point(page, *knee), _point(page, *start)]
    annot = page.add_freetext_annot(
        _visible_to_page(page, rect),
        "\n".join(lines),
        fontsize=_NOTE_SIZE,
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


def _goto(page: Any, rect: pymupdf.Rect, target: int, y: float, target_page: Any) -> None:
    to = _point(target_page, 0.0, max(0.0, y - 36.0))
    page.insert_link(
        {"kind": pymupdf.LINK_GOTO, "from": _visible_to_page(page, rect), "page": target, "to": to, "zoom": 0}
    )


def _draw_text(page: Any, t: _Text) -> None:
    if _latin(t.text):  # a base-14 font, not embedded
        page.insert_text(
            (t.x, t.y), t.text, fontsize=t.size, fontname="hebo" if t.bold else "helv", color=t.color
        )
        return
    # Labels in other scripts (a Chinese filing's line names): each run in a font that has its glyphs.
    writer = pymupdf.TextWriter(page.rect)
    pos = pymupdf.Point(t.x, t.y)
    for run, face in _runs(t.text, t.bold):
        _, pos = writer.append(pos, run, font=_font(face), fontsize=t.size)
    writer.write_text(page, color=t.color)


def _draw_summary(page: Any, sp: _SummaryPage) -> None:
    for t in sp.texts:
        _draw_text(page, t)
    for g in sp.glyphs:
        r = g.rect
        if g.kind in _TICK_WORDS:
            for stroke in _tick_strokes((r.x0, r.y0, r.x0 + r.height, r.y1), [g.kind]):
                page.draw_polyline(stroke, color=GREEN, width=0.9)
        elif g.kind == "note":
            page.draw_rect(r, color=SEVERITY_COLORS["error"], fill=WHITE, width=0.6)
            page.insert_text(
                (r.x0 + 1.5, r.y1 - 2.5),
                "#n",
                fontsize=_NOTE_SIZE,
                fontname="helv",
                color=SEVERITY_COLORS["error"],
            )
        else:
            page.draw_rect(r, color=SEVERITY_COLORS[g.kind], width=1.2)


def _open(data: bytes) -> Any:
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises plain RuntimeError/FileDataError variants
        raise AnnotateError("corrupt", f"not a readable PDF: {exc}") from exc
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise AnnotateError("encrypted", "the PDF is encrypted and needs a password")
    if doc.page_count == 0:
        doc.close()
        raise AnnotateError("corrupt", "no pages could be recovered from the file")
    return doc


def _check(data: bytes, result: DocumentResult) -> None:
    fatal = next((e for e in result.errors if e.fatal), None)
    if fatal is not None:
        raise AnnotateError(fatal.category, fatal.message)
    if result.doc_id != document_id(data):
        raise AnnotateError(
            "unsupported",
            f"the results are of another document ({result.source}, {result.doc_id[:12]}), not of this PDF",
        )


def _by_page(items: Iterator[tuple[int, Any]]) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {}
    for page, item in items:
        out.setdefault(page, []).append(item)
    return out


def annotate_pdf(data: bytes, result: DocumentResult) -> AnnotatedPdf:
    """Write the tick-and-tie copy of a document.

    Args:
        data: The PDF's bytes, exactly as parsed (the result's ``doc_id`` is their hash).
        result: The document's parsed and verified result (:func:`pipeline.engine.process_bytes`); with its
            calculation trees, figures the checks confirmed are ticked, else only the breaks are marked.

    Returns:
        The annotated PDF's bytes and the counts of what it holds.

    Raises:
        AnnotateError: The PDF cannot be read (``corrupt``, ``encrypted``), the result is a failed one
            (its fatal error's category), or the result is of another document (``unsupported``).
    """
    _check(data, result)
    with _LOCK:
        doc = _open(data)
        try:
            return _annotate(doc, result)
        finally:
            doc.close()


def _annotate(doc: Any, result: DocumentResult) -> AnnotatedPdf:
    n_pages = doc.page_count
    all_ties = ties(result)
    tick_list = [t for t in ticks(result, all_ties) if 1 <= t.page <= n_pages]
    marks, notes, unplaced = _plan(result, n_pages)
    first = doc[0].rect
    width, height = (
        (first.width, first.height) if first.width > 200 and first.height > 200 else (612.0, 792.0)
    )
    pages, where = _summary(result, tick_list, len(all_ties), unplaced, n_pages, (width, height))
    offset = len(pages)
    for i, sp in enumerate(pages):
        page = doc.new_page(i, width=width, height=height)
        _draw_summary(page, sp)
    links = 0
    for i, sp in enumerate(pages):
        page = doc[i]
        for link in sp.links:
            target = offset + link.page - 1
            _goto(page, link.rect, target, link.y, doc[target])
            links += 1
    marks_by = _by_page((m.evidence.page, m) for m in marks)
    notes_by = _by_page((n.page, n) for n in notes)
    ticks_by = _by_page((t.page, t) for t in tick_list)
    for pno in sorted(set(marks_by) | set(notes_by) | set(ticks_by)):
        page = doc[offset + pno - 1]
        seen: Counter[tuple[float, ...]] = Counter()
        for mark in marks_by.get(pno, []):
            key = spot_key(pno, mark.bbox)[1]
            _mark(page, mark, seen[key])
            seen[key] += 1
        obstacles = _obstacles(page)
        for tick in ticks_by.get(pno, []):
            _tick(page, tick, obstacles)
        placed: list[pymupdf.Rect] = []
        for note in sorted(notes_by.get(pno, []), key=lambda n: (n.anchor[1] if n.anchor else 0.0, n.number)):
            rect, lines = _place_note(note, page.rect.width, page.rect.height, obstacles, placed)
            _note(page, note, rect, lines)
            if note.target is not None:
                _goto(
                    page,
                    rect,
                    offset + note.target - 1,
                    _first_y(note.flag, note.target),
                    doc[offset + note.target - 1],
                )
            else:
                spage, y = where[note.number]
                _goto(page, rect, spage, y, doc[spage])
            links += 1
    labels = [{"startpage": 0, "prefix": "S-", "style": "D", "firstpagenum": 1}]
    labels.append({"startpage": offset, "prefix": "", "style": "D", "firstpagenum": 1})
    doc.set_page_labels(labels)
    if any(not _latin(t.text) for sp in pages for t in sp.texts):
        doc.subset_fonts()
    pdf: bytes = doc.tobytes(garbage=3, deflate=True, use_objstms=True)
    ticks_by_rule = Counter(r for t in tick_list for r in t.rules)
    counts = AnnotationCounts(
        ticks=len(tick_list),
        ties=len(all_ties),
        breaks=len(result.flags),
        marks=len(marks),
        notes=len(notes),
        links=links,
        summary_pages=offset,
        unplaced=len(unplaced),
        ticks_by_rule=dict(sorted(ticks_by_rule.items())),
        breaks_by_rule=dict(sorted(Counter(f.rule for f in result.flags).items())),
        trees=bool(result.statements),
    )
    return AnnotatedPdf(pdf=pdf, counts=counts)


def _first_y(flag: Flag, page: int) -> float:
    return next((e.bbox[1] for e in flag.evidence if e.page == page and e.bbox is not None), 0.0)
