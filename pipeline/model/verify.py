"""Symbolic verification of the model's proposals.

A proposal is only a pointer. Each one is checked against what is really printed: the cited pages must
exist, the cited numbers must be printed on those pages (in a table cell or in the quoted sentence), the
periods must agree, the metric must be one the taxonomy knows — and only then does the comparison use the
same rounding-aware arithmetic as the deterministic checks. Every proposal ends as a
:class:`~schemas.models.ProposalOutcome`, accepted or rejected with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.checks.rule import Rule
from pipeline.checks.tolerance import compare_values, known_facts
from pipeline.ids import stable_id
from pipeline.model.proposals import FigureLink, LabelMapping, ProposedClaim
from pipeline.numbers import find_numbers
from pipeline.periods import parse_period
from pipeline.rounding import within_rounding
from pipeline.taxonomy import Taxonomy, normalise_label
from schemas.models import DocumentResult, Evidence, Fact, Flag, Period, ProposalOutcome

RULE = Rule(
    "MOD001",
    "model_finding",
    "warning",
    "A figure or claim the model proposed across pages, re-checked by code against the printed figures.",
)
_WS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Printed:
    """A number printed on a page, with what the page says about it."""

    page: int
    value: float  # as printed, signed, no scale
    decimals_printed: int
    base: float  # scale applied
    decimals: int  # XBRL decimals in base units
    period: str | None
    label: str | None
    metric: str | None
    text: str
    bbox: tuple[float, float, float, float] | None


class PageIndex:
    """Every printed number of a document, by page: table cells and figures in narrative text."""

    def __init__(self, doc: DocumentResult, taxonomy: Taxonomy) -> None:
        """Index the document's tables and narrative blocks."""
        self.n_pages = doc.stats.pages or max((p.page for p in doc.page_info), default=0)
        self.by_page: dict[int, list[Printed]] = {}
        self.text_by_page: dict[int, list[tuple[str, tuple[float, float, float, float]]]] = {}
        self.labels: dict[str, list[tuple[int, str]]] = {}  # normalised label -> (table index, row)
        self.doc = doc
        for ti, t in enumerate(doc.tables):
            labels = {c.row: c.text for c in t.cells if c.col == 0 and not c.is_header}
            for row, lbl in labels.items():
                self.labels.setdefault(normalise_label(lbl), []).append((ti, str(row)))
            for c in t.cells:
                n = c.number
                if n is None or n.base_value is None or n.decimals is None:
                    continue  # a figure of unknown scale cannot be compared in base units
                label = labels.get(c.row)
                m = taxonomy.match(label) if label else None
                self._add(
                    Printed(
                        c.page, n.value, n.places, n.base_value, n.decimals,
                        n.period.key if n.period else None, label, m.id if m else None, c.text, c.bbox,
                    )
                )  # fmt: skip
        for b in doc.blocks:
            self.text_by_page.setdefault(b.page, []).append((b.text, b.bbox))
            for tn in find_numbers(b.text):
                p = tn.number
                scale = 0 if p.percent else p.scale
                self._add(
                    Printed(
                        b.page, p.value, p.decimals_printed, p.value * 10**scale, p.decimals_printed - scale,
                        None, None, None, b.text[max(0, tn.start - 40) : tn.end + 40], b.bbox,
                    )
                )  # fmt: skip

    def _add(self, p: Printed) -> None:
        self.by_page.setdefault(p.page, []).append(p)

    def printed(self, page: int, value: float) -> list[Printed]:
        """Numbers on ``page`` printed as ``value`` (to their printed precision)."""
        return [p for p in self.by_page.get(page, []) if within_rounding(value, p.value, p.decimals_printed)]


def _reject(task: str, reason: str, proposal: object, pages: Sequence[int] = ()) -> ProposalOutcome:
    dump = proposal.model_dump() if hasattr(proposal, "model_dump") else {"raw": str(proposal)}
    return ProposalOutcome(task=task, accepted=False, reason=reason, proposal=dump, pages=sorted(set(pages)))


def _accept(
    task: str,
    reason: str,
    proposal: FigureLink | LabelMapping | ProposedClaim,
    pages: Sequence[int],
    flag: Flag | None = None,
) -> ProposalOutcome:
    return ProposalOutcome(
        task=task,
        accepted=True,
        reason=reason,
        proposal=proposal.model_dump(),
        pages=sorted(set(pages)),
        flag_id=flag.flag_id if flag else None,
    )


def _period(text: str) -> Period | None:
    return parse_period(text)


def _same_period(a: str | None, key: str) -> bool:
    return a is None or a == key


def verify_link(
    link: FigureLink, index: PageIndex, taxonomy: Taxonomy, flags: Sequence[Flag]
) -> tuple[ProposalOutcome, Flag | None]:
    """Check a proposed cross-page link; a verified disagreement becomes a flag."""
    task = "cross_page_links"
    pages = [link.page_a, link.page_b]
    if not all(1 <= p <= index.n_pages for p in pages) or link.page_a == link.page_b:
        return _reject(task, "page_out_of_range", link, [p for p in pages if p >= 1]), None
    period = _period(link.period)
    if period is None:
        return _reject(task, "period_unreadable", link, pages), None
    metric = taxonomy.get(link.metric) or taxonomy.match(link.metric)
    if metric is None:
        return _reject(task, "unknown_metric", link, pages), None
    sides = []
    for page, value in ((link.page_a, link.value_a), (link.page_b, link.value_b)):
        found = index.printed(page, value)
        if not found:
            return _reject(task, "number_not_on_page", link, pages), None
        matching = [p for p in found if _same_period(p.period, period.key) and p.metric in (None, metric.id)]
        if not matching:
            reason = "period_mismatch" if any(p.period != period.key for p in found) else "metric_mismatch"
            return _reject(task, reason, link, pages), None
        # Prefer a table cell whose row is this metric over a bare number in text.
        sides.append(sorted(matching, key=lambda p: (p.metric != metric.id, p.period is None))[0])
    a, b = sides
    cmp = compare_values(a.base, a.decimals, b.base, b.decimals)
    if cmp.ok:
        return _accept(task, "verified_consistent", link, sorted(pages)), None
    if any(
        f.metric == metric.id and f.period and f.period.key == period.key and set(pages) <= set(f.pages)
        for f in flags
    ):
        return _accept(task, "already_flagged", link, sorted(pages)), None
    evidence = [
        Evidence(page=p.page, bbox=p.bbox, text=p.text, role=role, value=p.base)
        for p, role in ((a, "model_link_a"), (b, "model_link_b"))
    ]
    flag = RULE.flag(
        index.doc,
        message=(
            f"{metric.id} {period.key}: page {a.page} prints {a.text.strip()!r} but page {b.page} prints "
            f"{b.text.strip()!r} (difference {cmp.difference:,.0f}, tolerance {cmp.tolerance:,.0f}). "
            f"Model: {link.rationale}"
        ),
        evidence=evidence,
        metric=metric.id,
        period=period,
        comparison=cmp,
    )
    outcome = _accept(task, "verified_mismatch", link, sorted(pages), flag)
    return outcome, flag


def verify_mapping(
    m: LabelMapping, index: PageIndex, taxonomy: Taxonomy
) -> tuple[ProposalOutcome, list[Fact]]:
    """Check a proposed label mapping; when it holds, the row's figures become facts."""
    task = "label_mapping"
    metric = taxonomy.get(m.metric)
    if metric is None:
        return _reject(task, "unknown_metric", m), []
    if taxonomy.match(m.label) is not None:
        return _reject(task, "already_known", m), []
    rows = index.labels.get(normalise_label(m.label))
    if not rows:
        return _reject(task, "label_not_found", m), []
    facts: list[Fact] = []
    corroborated = False
    existing = {
        (f.metric, f.period.key): f
        for f in known_facts(index.doc.facts)
        if f.period is not None and f.context is None
    }
    for ti, row in rows:
        t = index.doc.tables[ti]
        for c in t.cells:
            n = c.number
            if str(c.row) != row or n is None or n.period is None:
                continue
            if n.base_value is None or n.decimals is None or n.scale is None:
                continue  # a figure of unknown scale is never a fact in units
            period = n.period
            prior = existing.get((metric.id, period.key))
            if (
                prior is not None
                and not compare_values(n.base_value, n.decimals, prior.value, prior.decimals).ok
            ):
                return _reject(task, "contradicts_facts", m, [c.page, prior.page]), []
            corroborated = corroborated or prior is not None
            facts.append(
                Fact(
                    fact_id=stable_id(
                        index.doc.doc_id, "model-fact", metric.id, period.key, t.table_id, c.row, c.col
                    ),
                    doc_id=index.doc.doc_id,
                    source=index.doc.source,
                    metric=metric.id,
                    concept_us_gaap=metric.us_gaap,
                    concept_ifrs=metric.ifrs,
                    label=m.label,
                    period=period,
                    value=n.base_value,
                    printed=c.text,
                    printed_value=n.value,
                    decimals=n.decimals,
                    scale=n.scale,
                    scale_source=n.scale_source,
                    currency=n.currency,
                    unit=n.unit,
                    page=c.page,
                    bbox=c.bbox,
                    origin="table_cell",
                    table_id=t.table_id,
                    row=c.row,
                    col=c.col,
                )
            )
    if not facts:
        return _reject(task, "no_figures", m), []
    # Figures that agree with facts already read corroborate the mapping; a metric with no facts yet
    # cannot refute it, and the outcome says so.
    return _accept(task, "verified" if corroborated else "unrefuted", m, [f.page for f in facts]), facts


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def verify_claim(
    claim: ProposedClaim, index: PageIndex, taxonomy: Taxonomy, flags: Sequence[Flag]
) -> tuple[ProposalOutcome, Flag | None]:
    """Check a narrative claim the model read.

    The quote must be on the page, the number in the quote, and it must agree with the statements' figure
    for that metric and period.
    """
    task = "narrative_claims"
    if not 1 <= claim.page <= index.n_pages:
        return _reject(task, "page_out_of_range", claim), None
    quote = _norm(claim.quote)
    blocks = [(t, bb) for t, bb in index.text_by_page.get(claim.page, []) if quote and quote in _norm(t)]
    if not blocks:
        return _reject(task, "quote_not_found", claim, [claim.page]), None
    numbers = [
        tn.number
        for tn in find_numbers(claim.quote)
        if within_rounding(claim.value, tn.number.value, tn.number.decimals_printed)
    ]
    if not numbers:
        return _reject(task, "number_not_in_quote", claim, [claim.page]), None
    metric = taxonomy.get(claim.metric) or taxonomy.match(claim.metric)
    if metric is None:
        return _reject(task, "unknown_metric", claim, [claim.page]), None
    period = _period(claim.period)
    if period is None:
        return _reject(task, "period_unreadable", claim, [claim.page]), None
    table = [
        f
        for f in known_facts(index.doc.facts)
        if f.metric == metric.id and f.origin == "table_cell" and f.context is None and f.period is not None
        and f.period.key == period.key
    ]  # fmt: skip
    if not table:
        return _reject(task, "no_table_fact", claim, [claim.page]), None
    n = numbers[0]
    if n.percent:
        return _reject(task, "percent_not_a_level", claim, [claim.page]), None
    ref = table[0]
    scale = n.scale or ref.scale
    cmp = compare_values(n.value * 10**scale, n.decimals_printed - scale, ref.value, ref.decimals)
    pages = sorted({claim.page, ref.page})
    if cmp.ok:
        return _accept(task, "verified_consistent", claim, pages), None
    if any(f.metric == metric.id and set(pages) <= set(f.pages) for f in flags):
        return _accept(task, "already_flagged", claim, pages), None
    bbox = blocks[0][1]
    flag = RULE.flag(
        index.doc,
        message=(
            f"Narrative on page {claim.page} states {metric.id} {period.key} as {claim.value:,} "
            f"but the table on page {ref.page} prints {ref.printed}. Model: {claim.rationale}"
        ),
        evidence=[
            Evidence(
                page=claim.page, bbox=bbox, text=claim.quote, role="narrative", value=n.value * 10**scale
            ),
            Evidence(
                page=ref.page,
                bbox=ref.bbox,
                text=f"{ref.label}: {ref.printed}",
                role="table",
                value=ref.value,
            ),
        ],
        metric=metric.id,
        period=period,
        comparison=cmp,
    )
    outcome = _accept(task, "verified_mismatch", claim, pages, flag)
    return outcome, flag
