"""The tick-and-tie summary: the pages put in front of the document, laid out before they are drawn.

The document, counts of ticks and breaks by rule, a legend, what a tick means, and every break with a link
to its page, the analyst's decision on it (who, when, and why a dismissed one was cleared), and the labels
that had no room on their page; :mod:`adapters.review.tick_drawing` draws the pages this lays out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pymupdf

from adapters.review.tick_decisions import Decisions, decided_line
from adapters.review.tick_placing import Note
from adapters.review.tick_style import (
    CLEARED,
    GREEN,
    GREY,
    INK,
    MARGIN,
    SEVERITY_COLORS,
    Color,
    text_width,
    wrap,
)
from pipeline.checks import RULES
from pipeline.checks.ticks import Tick
from schemas.models import DocumentResult, Evidence, Flag
from schemas.reviews import ReviewDecision

__all__ = [
    "TICK_WORDS",
    "SummaryGlyph",
    "SummaryLink",
    "SummaryPage",
    "SummaryText",
    "layout_summary",
]

# --- layout ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SummaryText:
    """A line of text on a summary page, at its baseline."""

    x: float
    y: float  # baseline
    text: str
    size: float
    bold: bool = False
    color: Color = INK


@dataclass(frozen=True, slots=True)
class SummaryLink:
    """A link from a summary page to a place on a document page."""

    rect: pymupdf.Rect
    page: int  # document page, 1-based
    y: float  # where on the target page (visible coordinates)


@dataclass(frozen=True, slots=True)
class SummaryGlyph:
    """A legend's sample mark: a tick of a kind, a break's box of a severity, or a label."""

    kind: str  # a tie kind ("footed", "cross_footed", "agreed"), a severity, "cleared", "confirmed", "note"
    rect: pymupdf.Rect


@dataclass(slots=True)
class SummaryPage:
    """What one summary page holds, laid out and ready to draw."""

    texts: list[SummaryText] = field(default_factory=list)
    links: list[SummaryLink] = field(default_factory=list)
    glyphs: list[SummaryGlyph] = field(default_factory=list)


class _Flow:
    """Lays text out top to bottom over as many summary pages as it needs."""

    def __init__(self, width: float, height: float) -> None:
        self.width = width
        self.height = height
        self.pages: list[SummaryPage] = [SummaryPage()]
        self.y = MARGIN

    @property
    def page(self) -> SummaryPage:
        return self.pages[-1]

    def need(self, height: float) -> None:
        if self.y + height > self.height - MARGIN:
            self.pages.append(SummaryPage())
            self.y = MARGIN

    def line(
        self, text: str, size: float = 9.0, *, x: float = MARGIN, bold: bool = False, color: Color = INK
    ) -> None:
        self.need(size * 1.35)
        self.y += size * 1.35
        self.page.texts.append(SummaryText(x, self.y - size * 0.3, text, size, bold, color))

    def para(
        self, text: str, size: float = 9.0, *, x: float = MARGIN, bold: bool = False, max_lines: int = 0
    ) -> None:
        lines = wrap(text, size, self.width - MARGIN - x, bold)
        if max_lines and len(lines) > max_lines:
            lines = lines[:max_lines]
            lines[-1] = lines[-1][: max(0, len(lines[-1]) - 2)] + " …"
        for ln in lines:
            self.line(ln, size, x=x, bold=bold)

    def gap(self, points: float) -> None:
        self.y += points


TICK_WORDS = {
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


def layout_summary(
    result: DocumentResult,
    tick_list: Sequence[Tick],
    n_ties: int,
    n_pages: int,
    size: tuple[float, float],
    *,
    unplaced: Sequence[tuple[int, Flag, Evidence]] = (),
    moved: Sequence[Note] = (),
    decisions: Decisions | None = None,
) -> tuple[list[SummaryPage], dict[int, tuple[int, float]]]:
    """The summary pages, and where each break is listed on them (number → summary page index, y).

    Args:
        result: The document's result.
        tick_list: The figures ticked.
        n_ties: The comparisons that held.
        n_pages: The document's pages.
        size: The summary pages' width and height.
        unplaced: Evidence printed without a box, by flag number.
        moved: Labels with no free place on their page: their text is listed with their break.
        decisions: The standing decision of each judged flag, by flag id.
    """
    width, height = size
    decided = {f.flag_id: d for f in result.flags if (d := (decisions or {}).get(f.flag_id)) is not None}
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
    if decisions:
        _review_counts(flow, result, decided, decisions)
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
            where[number] = _break_entry(flow, number, flag, decided.get(flag.flag_id), number in missing)
            for note in (n for n in moved if n.number == number):
                flow.para(
                    f"Note on p.{note.page} (no room on the page, #{number} there): {note.text}",
                    7.5,
                    x=MARGIN + 12,
                )
            flow.gap(3)
    return flow.pages, where


def _review_counts(flow: _Flow, result: DocumentResult, decided: Decisions, decisions: Decisions) -> None:
    """The analysts' decisions in a sentence, and the decisions about flags this copy does not hold."""
    status = Counter(d.status for d in decided.values())
    open_ = len(result.flags) - len(decided)
    flow.para(
        f"Reviewed: {status['confirmed']} confirmed, {status['dismissed']} dismissed (cleared), "
        f"{open_} open.",
        9,
    )
    elsewhere = [d for d in decisions.values() if d.doc_id == result.doc_id and d.flag_id not in decided]
    if elsewhere:
        flow.para(
            f"{_n(len(elsewhere), 'decision')} about flags this copy does not hold (flags of another "
            "pipeline version, or of the model stage): not drawn.",
            8,
        )


def _break_entry(
    flow: _Flow, number: int, flag: Flag, decision: ReviewDecision | None, missing: bool
) -> tuple[int, float]:
    """A break in the summary's list, linked to its page; returns where it starts (page index, y)."""
    flow.need(9 * 1.35 * 4)
    top = flow.y
    pages = ", ".join(str(p) for p in flag.pages)
    head = f"#{number}   p.{pages}   {flag.rule}   {flag.severity}   confidence {flag.confidence:.2f}"
    cleared = decision is not None and decision.status == "dismissed"
    flow.line(head, 8.5, bold=True, color=CLEARED if cleared else SEVERITY_COLORS.get(flag.severity, INK))
    flow.para(flag.message, 8, x=MARGIN + 12, max_lines=3)
    if decision is not None:
        flow.para(decided_line(decision), 8, x=MARGIN + 12, bold=True, max_lines=3)
    if missing:
        flow.para("(part of its evidence has no box on the page: see the page's note)", 7, x=MARGIN + 12)
    rect = pymupdf.Rect(MARGIN - 2, top + 1, flow.width - MARGIN, flow.y + 2)
    target = flag.evidence[0] if flag.evidence else None
    y = target.bbox[1] if target is not None and target.bbox is not None else 0.0
    flow.page.links.append(SummaryLink(rect, flag.pages[0] if flag.pages else 1, y))
    return len(flow.pages) - 1, top


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _rule_table(flow: _Flow, result: DocumentResult, tick_list: Sequence[Tick]) -> None:
    ticks_by = Counter(r for t in tick_list for r in t.rules)
    breaks_by = Counter(f.rule for f in result.flags)
    rules = {rule_id: rule.checks for rule_id, rule in RULES.items()}
    for f in result.flags:
        rules.setdefault(f.rule, f.kind.replace("_", " "))
    x_rule, x_ticks, x_breaks, x_what = MARGIN, MARGIN + 80, MARGIN + 115, MARGIN + 130
    flow.line("Rule", 8.5, x=x_rule, bold=True)
    flow.page.texts.append(
        SummaryText(x_ticks - text_width("Ticks", 8.5, True), flow.page.texts[-1].y, "Ticks", 8.5, True)
    )
    flow.page.texts.append(
        SummaryText(x_breaks - text_width("Breaks", 8.5, True), flow.page.texts[-1].y, "Breaks", 8.5, True)
    )
    flow.page.texts.append(SummaryText(x_what + 8, flow.page.texts[-1].y, "What it checks", 8.5, True))
    for rule, what in rules.items():
        lines = wrap(what, 8, flow.width - MARGIN - x_what - 8)
        flow.line(rule, 8, x=x_rule)
        baseline = flow.page.texts[-1].y
        ticked = str(ticks_by[rule]) if rule in ("TOT001", "TOT002", "XREF001") else "-"
        broken = str(breaks_by[rule])
        color = SEVERITY_COLORS["error"] if breaks_by[rule] else INK
        flow.page.texts.append(SummaryText(x_ticks - text_width(ticked, 8), baseline, ticked, 8, color=GREEN))
        flow.page.texts.append(
            SummaryText(x_breaks - text_width(broken, 8), baseline, broken, 8, color=color)
        )
        flow.page.texts.append(SummaryText(x_what + 8, baseline, lines[0], 8))
        for extra in lines[1:]:
            flow.line(extra, 8, x=x_what + 8)


def _legend(flow: _Flow) -> None:
    flow.line("Legend", 9, bold=True)
    for kind, words in TICK_WORDS.items():
        flow.line(words, 8, x=MARGIN + 24)
        y = flow.page.texts[-1].y
        flow.page.glyphs.append(SummaryGlyph(kind, pymupdf.Rect(MARGIN + 4, y - 7, MARGIN + 14, y + 1)))
    for severity, words in (
        (
            "error",
            "break, error: a figure a flag cites (solid box: the flag's main figure; dashed: the others)",
        ),
        ("warning", "break, warning"),
        ("info", "break, info"),
    ):
        flow.line(words, 8, x=MARGIN + 24)
        y = flow.page.texts[-1].y
        flow.page.glyphs.append(SummaryGlyph(severity, pymupdf.Rect(MARGIN + 2, y - 7, MARGIN + 18, y + 1)))
    flow.line(
        "cleared: a break an analyst dismissed as a false alarm; its label gives the reason", 8, x=MARGIN + 24
    )
    y = flow.page.texts[-1].y
    flow.page.glyphs.append(SummaryGlyph("cleared", pymupdf.Rect(MARGIN + 2, y - 7, MARGIN + 18, y + 1)))
    flow.line("confirmed: a break an analyst confirmed (a heavier box; its label says so)", 8, x=MARGIN + 24)
    y = flow.page.texts[-1].y
    flow.page.glyphs.append(SummaryGlyph("confirmed", pymupdf.Rect(MARGIN + 2, y - 7, MARGIN + 18, y + 1)))
    flow.line(
        "#n RULE: the margin note of break n, naming the other figure and its page; click it to go there",
        8,
        x=MARGIN + 24,
    )
    y = flow.page.texts[-1].y
    flow.page.glyphs.append(SummaryGlyph("note", pymupdf.Rect(MARGIN, y - 7, MARGIN + 20, y + 1.5)))
    flow.line(
        "#n alone: the note of break n had no free place on its page; it is listed here with the break",
        8,
        x=MARGIN + 24,
    )
