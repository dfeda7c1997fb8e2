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
* ``tieout note``: one label per flag and page, where the page has nothing printed (its margins first,
  else the free band nearest the figure), with a leader line to the figure: the flag's number, rule and
  decision, and the other figure and page (or the figure the check expected). The label links to the
  flag's next page (its pages in a cycle) or, for a flag on one page, to the flag's entry in the summary.
  A label with no free place on its page never covers the print: it is listed in the summary, and the
  flag's number alone (``#3``) stands at the figure, linked to it.

The analysts' decisions, when given, are drawn: a dismissed break is *cleared* (a dotted slate-grey box,
the reason on its label), a confirmed one is *confirmed* (a heavier box, "confirmed" on its label), and the
summary names the reviewer and the time of each decision.

A summary (one page or more) goes in front: the document, counts of ticks and breaks by rule, a legend,
what a tick means, and every break with a link to its page. Page labels keep the document's pages numbered
as tieout numbers them (the summary pages are ``S-1``, ``S-2``…), so "p.7" in a note is page 7 in the reader.

MuPDF is not thread-safe: one annotation runs at a time in a process (a lock), so a web console may call
:func:`annotate_pdf` from a thread pool.

This module runs the annotation; what goes where is decided in :mod:`adapters.review.tick_placing`, the
summary is laid out in :mod:`adapters.review.tick_summary`, both are drawn by
:mod:`adapters.review.tick_drawing`, and colours, sizes and fonts are :mod:`adapters.review.tick_style`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pymupdf

from adapters.review.tick_decisions import Decisions
from adapters.review.tick_drawing import draw_mark, draw_note, draw_summary_page, draw_tick, link_to
from adapters.review.tick_placing import PagePlan, plan_marks, plan_page
from adapters.review.tick_style import SUBJECT_BREAK, SUBJECT_NOTE, SUBJECT_TICK, is_latin
from adapters.review.tick_summary import SummaryPage, layout_summary
from pipeline.checks.ticks import ticks, ties
from pipeline.ids import document_id
from schemas.models import DocumentResult, ErrorCategory, Flag

__all__ = [
    "SUBJECT_BREAK",
    "SUBJECT_NOTE",
    "SUBJECT_TICK",
    "AnnotateError",
    "AnnotatedPdf",
    "AnnotationCounts",
    "annotate_pdf",
]

_LOCK = threading.Lock()


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
        notes: Labels (``tieout note`` annotations): one per flag and page it cites (the number alone for
            a label moved to the summary).
        links: Internal links added: from the labels, and from the summary's list of breaks.
        summary_pages: Pages inserted in front.
        unplaced: Evidence of flags printed without a box (narrative the reader could not place): listed
            in the summary and noted on their page, not boxed.
        ticks_by_rule: Ticks per rule whose comparison confirmed the figure (a figure can count for two).
        breaks_by_rule: Flags per rule.
        trees: Whether the result carried calculation trees (without them no figure can be ticked).
        moved: Labels with no free place on their page: listed in the summary, the flag's number on the page.
        confirmed: Breaks an analyst confirmed (drawn as confirmed).
        cleared: Breaks an analyst dismissed (drawn as cleared, with the reason).
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
    moved: int
    confirmed: int
    cleared: int


@dataclass(frozen=True, slots=True)
class AnnotatedPdf:
    """An annotated copy of a document and what it holds."""

    pdf: bytes
    counts: AnnotationCounts


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


def annotate_pdf(data: bytes, result: DocumentResult, decisions: Decisions | None = None) -> AnnotatedPdf:
    """Write the tick-and-tie copy of a document.

    Args:
        data: The PDF's bytes, exactly as parsed (the result's ``doc_id`` is their hash).
        result: The document's parsed and verified result (:func:`pipeline.engine.process_bytes`); with its
            calculation trees, figures the checks confirmed are ticked, else only the breaks are marked.
        decisions: The standing decision of each judged flag, by flag id
            (:func:`pipeline.rewards.regressions.standing` of a store's decisions): a dismissed break is
            drawn as cleared with its reason, a confirmed one as confirmed, and the summary names who
            decided and when. Decisions about other documents are left out.

    Returns:
        The annotated PDF's bytes and the counts of what it holds.

    Raises:
        AnnotateError: The PDF cannot be read (``corrupt``, ``encrypted``), the result is a failed one
            (its fatal error's category), or the result is of another document (``unsupported``).
    """
    _check(data, result)
    mine = {k: d for k, d in (decisions or {}).items() if d.doc_id == result.doc_id}
    with _LOCK:
        doc = _open(data)
        try:
            return _annotate(doc, result, mine)
        finally:
            doc.close()


def _annotate(doc: Any, result: DocumentResult, decisions: Decisions) -> AnnotatedPdf:
    n_pages = doc.page_count
    all_ties = ties(result)
    tick_list = [t for t in ticks(result, all_ties) if 1 <= t.page <= n_pages]
    marks, notes, unplaced = plan_marks(result, n_pages, decisions)
    # Every page is planned before the summary is laid out: the labels with no room on their page are
    # listed in it.
    marks_by = _by_page((m.evidence.page, m) for m in marks)
    notes_by = _by_page((n.page, n) for n in notes)
    ticks_by = _by_page((t.page, t) for t in tick_list)
    plans = {
        pno: plan_page(doc[pno - 1], marks_by.get(pno, []), ticks_by.get(pno, []), notes_by.get(pno, []))
        for pno in sorted(set(marks_by) | set(notes_by) | set(ticks_by))
    }
    moved = [n for plan in plans.values() for n in plan.moved]
    first = doc[0].rect
    width, height = (
        (first.width, first.height) if first.width > 200 and first.height > 200 else (612.0, 792.0)
    )
    pages, where = layout_summary(
        result,
        tick_list,
        len(all_ties),
        n_pages,
        (width, height),
        unplaced=unplaced,
        moved=moved,
        decisions=decisions,
    )
    links = _insert_summary(doc, pages, (width, height))
    offset = len(pages)
    for pno, plan in plans.items():
        links += _mark_page(doc, pno, offset, plan, where)
    labels = [{"startpage": 0, "prefix": "S-", "style": "D", "firstpagenum": 1}]
    labels.append({"startpage": offset, "prefix": "", "style": "D", "firstpagenum": 1})
    doc.set_page_labels(labels)
    if any(not is_latin(t.text) for sp in pages for t in sp.texts):
        doc.subset_fonts()
    pdf: bytes = doc.tobytes(garbage=3, deflate=True, use_objstms=True)
    ticks_by_rule = Counter(r for t in tick_list for r in t.rules)
    status = Counter(d.status for f in result.flags if (d := decisions.get(f.flag_id)) is not None)
    counts = AnnotationCounts(
        ticks=len(tick_list),
        ties=len(all_ties),
        breaks=len(result.flags),
        marks=len(marks),
        notes=sum(len(plan.labels) for plan in plans.values()),
        links=links,
        summary_pages=offset,
        unplaced=len(unplaced),
        ticks_by_rule=dict(sorted(ticks_by_rule.items())),
        breaks_by_rule=dict(sorted(Counter(f.rule for f in result.flags).items())),
        trees=bool(result.statements),
        moved=len(moved),
        confirmed=status["confirmed"],
        cleared=status["dismissed"],
    )
    return AnnotatedPdf(pdf=pdf, counts=counts)


def _insert_summary(doc: Any, pages: Sequence[SummaryPage], size: tuple[float, float]) -> int:
    """Draw the summary pages in front of the document, then link their breaks; returns the links added."""
    width, height = size
    offset = len(pages)
    for i, sp in enumerate(pages):
        page = doc.new_page(i, width=width, height=height)
        draw_summary_page(page, sp)
    # Links only once every summary page is in: a link's target index counts them all.
    links = 0
    for i, sp in enumerate(pages):
        page = doc[i]
        for link in sp.links:
            target = offset + link.page - 1
            link_to(page, link.rect, target, link.y, doc[target])
            links += 1
    return links


def _mark_page(doc: Any, pno: int, offset: int, plan: PagePlan, where: dict[int, tuple[int, float]]) -> int:
    """Draw the boxes, ticks and labels planned for document page ``pno``; returns the links added.

    A label links to its flag's next page, or to the flag's entry in the summary (a flag on one page, and
    the number standing for a note moved to the summary).
    """
    page = doc[offset + pno - 1]
    for mark, rect in plan.boxes:
        draw_mark(page, mark, rect)
    for tick, box in plan.ticks:
        draw_tick(page, tick, box)
    for label in plan.labels:
        draw_note(page, label)
        note = label.note
        if note.target is not None and not label.moved:
            target = offset + note.target - 1
            link_to(page, label.rect, target, _first_y(note.flag, note.target), doc[target])
        else:
            spage, y = where[note.number]
            link_to(page, label.rect, spage, y, doc[spage])
    return len(plan.labels)


def _first_y(flag: Flag, page: int) -> float:
    return next((e.bbox[1] for e in flag.evidence if e.page == page and e.bbox is not None), 0.0)
