"""Symbolic verification of the model's proposals.

A proposal is only a pointer. Each one is checked against what is really printed: the cited pages must
exist, the cited numbers must be printed on those pages (in a table cell or in the quoted sentence), the
periods must agree, the metric must be one the taxonomy knows — and only then does the comparison use the
same rounding-aware arithmetic as the deterministic checks. Every proposal ends as a
:class:`~schemas.models.ProposalOutcome`, accepted or rejected with the reason.

Soundness rules:

* **Signs.** A printed value is signed (``(842.1)`` is −842.1) and the model is asked for it with its sign.
  Where the metric's sign is a presentation choice — the taxonomy's ``sign: expense`` metrics and the
  figures :data:`pipeline.statements.identities.IDENTITIES` take by magnitude (liability totals) — figures
  are found
  and compared by magnitude, so a cost printed with and without parentheses is one figure. Elsewhere the
  sign is part of the figure: a reading with the wrong sign is rejected and two printed figures of
  opposite sign disagree. A figure in running prose prints no sign (the words say "loss", "outflow"), so
  a narrative figure without one is compared by magnitude.
* **Labelled evidence.** A disagreement is only evidence when both sides are labelled with the metric: a
  table cell whose row label maps to it, or a figure in prose the deterministic reader (or the quote's own
  words) ties to it. A bare number that merely appears on the page can confirm an agreement but never
  makes a flag.
* **Reference.** A narrative claim is checked against the primary statement's figure (income statement,
  balance sheet, cash-flow statement, …) for the metric and period — never a summary or note table, and
  never merely the page the model named.
* **Model-derived facts.** Figures of a label the model mapped carry ``provenance`` ``model_corroborated``
  (a figure the taxonomy mapped agrees) or ``model_uncorroborated``.

Outcome reasons (short, stable strings: they become reward components):

Accepted — ``verified_consistent`` (the figures agree), ``verified_mismatch`` (a verified disagreement,
flagged MOD001), ``already_flagged`` (a verified disagreement a rule had already flagged), ``verified`` (a
label mapping whose figures agree with facts already read), ``unrefuted`` (a label mapping nothing
contradicts and nothing corroborates).

Rejected — ``page_out_of_range`` (a cited page the document does not have, or both sides on one page),
``period_unreadable``, ``unknown_metric``, ``number_not_on_page`` (the cited value is not printed on the
cited page), ``period_mismatch``, ``metric_mismatch`` (the value is printed, but for another period or
metric), ``sign_misread`` (printed with the opposite sign, where the metric's sign is fixed),
``unlabelled_evidence`` (a disagreement resting on a number not labelled with the metric),
``quote_not_found``, ``number_not_in_quote``, ``percent_not_a_level``, ``no_table_fact`` (no table prints
the metric for the period), ``no_statement_fact`` (tables print it, but no primary statement),
``already_known`` (a label the taxonomy maps already), ``label_not_found``, ``contradicts_facts``,
``no_figures``. All of them are listed in :data:`REJECTION_REASONS`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.checks.crossref import PRIMARY
from pipeline.checks.rule import Rule, printed_evidence
from pipeline.checks.tolerance import KnownFact, compare_values, known_facts
from pipeline.figures.facts import table_fact
from pipeline.figures.numbers import ParsedNumber, find_numbers
from pipeline.figures.periods import parse_period
from pipeline.figures.rounding import Comparison, within_rounding
from pipeline.figures.taxonomy import MetricDef, Taxonomy, normalise_label
from pipeline.ids import stable_id
from pipeline.model.proposals import FigureLink, LabelMapping, ProposedClaim
from pipeline.statements.identities import IDENTITIES
from schemas.models import DocumentResult, Evidence, Fact, Flag, Period, ProposalOutcome

__all__ = [
    "ACCEPTANCE_REASONS",
    "REJECTION_REASONS",
    "RULE",
    "PageIndex",
    "Printed",
    "sign_free",
    "verify_claim",
    "verify_link",
    "verify_mapping",
]

RULE = Rule(
    "MOD001",
    "model_finding",
    "warning",
    "A figure or claim the model proposed across pages, re-checked by code against the printed figures.",
    "code finds both figures printed where the model says, of one metric, period and basis",
)

ACCEPTANCE_REASONS: tuple[str, ...] = (
    "verified_consistent",
    "verified_mismatch",
    "already_flagged",
    "verified",
    "unrefuted",
)
"""Every reason an accepted proposal can carry."""

REJECTION_REASONS: tuple[str, ...] = (
    "page_out_of_range",
    "period_unreadable",
    "unknown_metric",
    "number_not_on_page",
    "period_mismatch",
    "metric_mismatch",
    "sign_misread",
    "unlabelled_evidence",
    "quote_not_found",
    "number_not_in_quote",
    "percent_not_a_level",
    "no_table_fact",
    "no_statement_fact",
    "already_known",
    "label_not_found",
    "contradicts_facts",
    "no_figures",
)
"""Every reason a proposal can be rejected with (see the module docstring)."""

_WS = re.compile(r"\s+")

# The figures the identities take by magnitude: their printed sign is a presentation choice (liabilities
# in parentheses in a net-assets balance sheet). The taxonomy's ``sign: expense`` covers the costs.
_MAGNITUDE_METRICS: frozenset[str] = frozenset(
    {o.metric for i in IDENTITIES for o in i.operands if o.magnitude}
    | {i.result for i in IDENTITIES if i.result_magnitude}
)


def sign_free(metric: MetricDef) -> bool:
    """Whether a metric's printed sign is a presentation choice, so its figures compare by magnitude.

    Args:
        metric: A taxonomy metric.

    Returns:
        True for the taxonomy's ``sign: expense`` metrics and the figures the accounting identities take
        by magnitude.
    """
    return metric.magnitude_only or metric.id in _MAGNITUDE_METRICS


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
    metric: str | None  # the metric its label maps to; None for a bare number
    printed: str  # the number as printed
    text: str  # the number with its context (the cell, or the prose around it)
    bbox: tuple[float, float, float, float] | None
    in_prose: bool = False


class PageIndex:
    """Every printed number of a document, by page: table cells and figures in narrative text."""

    def __init__(
        self,
        doc: DocumentResult,
        n_pages: int,
        by_page: dict[int, list[Printed]] | None = None,
        text_by_page: dict[int, list[tuple[str, tuple[float, float, float, float]]]] | None = None,
        labels: dict[str, list[tuple[int, str]]] | None = None,
    ) -> None:
        """An index of what is given.

        :meth:`of` builds one from a document; a restored one may hold the printed numbers only.
        """
        self.doc = doc
        self.n_pages = n_pages
        self.by_page = by_page if by_page is not None else {}
        self.text_by_page = text_by_page if text_by_page is not None else {}
        self.labels = labels if labels is not None else {}  # normalised label -> (table index, row)

    @classmethod
    def of(cls, doc: DocumentResult, taxonomy: Taxonomy) -> PageIndex:
        """Index the document's tables and narrative blocks."""
        index = cls(doc, doc.stats.pages or max((p.page for p in doc.page_info), default=0))
        index._read(doc, taxonomy)
        return index

    def _read(self, doc: DocumentResult, taxonomy: Taxonomy) -> None:
        # The deterministic reader's mapping wins over a bare label lookup: it knows opening balances
        # and the figures it tied to a metric in prose.
        cell_metric = {(f.table_id, f.row, f.col): f.metric for f in doc.facts if f.origin == "table_cell"}
        prose: dict[tuple[int, str], set[tuple[str, str | None]]] = {}
        for f in doc.facts:
            if f.origin == "text_span":
                prose.setdefault((f.page, f.printed), set()).add(
                    (f.metric, f.period.key if f.period else None)
                )
        for ti, t in enumerate(doc.tables):
            labels = {c.row: c.text for c in t.cells if c.col == 0 and not c.is_header}
            for row, lbl in labels.items():
                self.labels.setdefault(normalise_label(lbl), []).append((ti, str(row)))
            for c in t.cells:
                n = c.number
                if n is None or n.base_value is None or n.decimals is None:
                    continue  # a figure of unknown scale cannot be compared in base units
                label = labels.get(c.row)
                m = cell_metric.get((t.table_id, c.row, c.col))
                if m is None and label:
                    found = taxonomy.match(label)
                    m = found.id if found else None
                self._add(
                    Printed(
                        c.page, n.value, n.places, n.base_value, n.decimals,
                        n.period.key if n.period else None, label, m, c.text, c.text, c.bbox,
                    )
                )  # fmt: skip
        for b in doc.blocks:
            self.text_by_page.setdefault(b.page, []).append((b.text, b.bbox))
            for tn in find_numbers(b.text):
                p = tn.number
                scale = 0 if p.percent else p.scale
                raw = b.text[tn.start : tn.end]
                # Labelled only when the reader tied this printed figure to exactly one metric and period.
                tied = prose.get((b.page, raw), set())
                metric, period = next(iter(tied)) if len(tied) == 1 else (None, None)
                self._add(
                    Printed(
                        b.page, p.value, p.decimals_printed, p.value * 10**scale, p.decimals_printed - scale,
                        period, None, metric, raw, b.text[max(0, tn.start - 40) : tn.end + 40], b.bbox,
                        in_prose=True,
                    )
                )  # fmt: skip

    def _add(self, p: Printed) -> None:
        self.by_page.setdefault(p.page, []).append(p)

    def printed(self, page: int, value: float, *, magnitude: bool = False) -> list[Printed]:
        """Numbers on ``page`` printed as ``value`` (to their printed precision).

        Args:
            page: Page number.
            value: The value as read, no scale applied.
            magnitude: Match by magnitude, whatever sign either side carries.

        Returns:
            The printed numbers that match, in reading order.
        """
        if magnitude:
            return [
                p
                for p in self.by_page.get(page, [])
                if within_rounding(abs(value), abs(p.value), p.decimals_printed)
            ]
        return [p for p in self.by_page.get(page, []) if within_rounding(value, p.value, p.decimals_printed)]


def _reject(task: str, reason: str, proposal: object, pages: Sequence[int] = ()) -> ProposalOutcome:
    assert reason in REJECTION_REASONS, reason
    dump = proposal.model_dump() if hasattr(proposal, "model_dump") else {"raw": str(proposal)}
    return ProposalOutcome(task=task, accepted=False, reason=reason, proposal=dump, pages=sorted(set(pages)))


def _accept(
    task: str,
    reason: str,
    proposal: FigureLink | LabelMapping | ProposedClaim,
    pages: Sequence[int],
    flag: Flag | None = None,
) -> ProposalOutcome:
    assert reason in ACCEPTANCE_REASONS, reason
    return ProposalOutcome(
        task=task,
        accepted=True,
        reason=reason,
        proposal=proposal.model_dump(),
        pages=sorted(set(pages)),
        flag_id=flag.flag_id if flag else None,
    )


def _same_period(a: str | None, key: str) -> bool:
    return a is None or a == key


def _by_magnitude(metric: MetricDef, unsigned_prose: bool) -> bool:
    """Whether two figures of ``metric`` compare by magnitude.

    Prose carries a figure's direction in words ("a net loss of $842.1 million"): printed without a sign,
    it states only the magnitude, whatever the metric.
    """
    return sign_free(metric) or unsigned_prose


def _compare(a: float, a_decimals: int, b: float, b_decimals: int, by_magnitude: bool) -> Comparison:
    if by_magnitude:
        a, b = abs(a), abs(b)
    return compare_values(a, a_decimals, b, b_decimals)


def _locate(index: PageIndex, page: int, value: float, metric: MetricDef, period: str) -> Printed | str:
    """The printed figure a side of a link points to, or the reason it cannot be found."""
    found = index.printed(page, value, magnitude=True)
    if not found:
        return "number_not_on_page"
    matching = [p for p in found if _same_period(p.period, period) and p.metric in (None, metric.id)]
    if not matching:
        return "period_mismatch" if any(p.period != period for p in found) else "metric_mismatch"
    if not sign_free(metric):
        matching = [p for p in matching if within_rounding(value, p.value, p.decimals_printed)]
        if not matching:
            return "sign_misread"
    # Prefer a figure labelled with this metric over a bare number in text.
    return sorted(matching, key=lambda p: (p.metric != metric.id, p.period is None))[0]


def verify_link(
    link: FigureLink, index: PageIndex, taxonomy: Taxonomy, flags: Sequence[Flag]
) -> tuple[ProposalOutcome, Flag | None]:
    """Check a proposed cross-page link; a verified disagreement becomes a flag."""
    task = "cross_page_links"
    pages = [link.page_a, link.page_b]
    if not all(1 <= p <= index.n_pages for p in pages) or link.page_a == link.page_b:
        return _reject(task, "page_out_of_range", link, [p for p in pages if p >= 1]), None
    period = parse_period(link.period)
    if period is None:
        return _reject(task, "period_unreadable", link, pages), None
    metric = taxonomy.get(link.metric) or taxonomy.match(link.metric)
    if metric is None:
        return _reject(task, "unknown_metric", link, pages), None
    sides: list[Printed] = []
    for page, value in ((link.page_a, link.value_a), (link.page_b, link.value_b)):
        side = _locate(index, page, value, metric, period.key)
        if isinstance(side, str):
            return _reject(task, side, link, pages), None
        sides.append(side)
    a, b = sides
    by_magnitude = _by_magnitude(metric, any(p.in_prose and p.value >= 0 for p in sides))
    cmp = _compare(a.base, a.decimals, b.base, b.decimals, by_magnitude)
    if cmp.ok:
        return _accept(task, "verified_consistent", link, sorted(pages)), None
    if a.metric != metric.id or b.metric != metric.id:
        return _reject(task, "unlabelled_evidence", link, pages), None
    if any(
        f.metric == metric.id and f.period and f.period.key == period.key and set(pages) <= set(f.pages)
        for f in flags
    ):
        return _accept(task, "already_flagged", link, sorted(pages)), None
    evidence = [
        Evidence(
            page=p.page, bbox=p.bbox, text=f"{p.label or metric.id}: {p.printed}", role=role, value=p.base
        )
        for p, role in ((a, "model_link_a"), (b, "model_link_b"))
    ]
    reasons = [f"page {p.page}: {(p.label or p.text).strip()!r} is {metric.id}" for p in (a, b)]
    if by_magnitude:
        reasons.append(f"{metric.id} is compared by magnitude: its sign is presentation or unprinted")
    flag = RULE.flag(
        index.doc,
        message=(
            f"{metric.id} {period.key}: page {a.page} prints {a.printed.strip()!r} but page {b.page} prints "
            f"{b.printed.strip()!r} (difference {cmp.difference:,.0f}, tolerance {cmp.tolerance:,.0f}). "
            f"Model: {link.rationale}"
        ),
        evidence=evidence,
        metric=metric.id,
        period=period,
        comparison=cmp,
        reasons=reasons,
    )
    outcome = _accept(task, "verified_mismatch", link, sorted(pages), flag)
    return outcome, flag


def _agrees(a: Fact, b: KnownFact, by_magnitude: bool) -> bool:
    assert a.value is not None and a.decimals is not None
    return _compare(a.value, a.decimals, b.value, b.decimals, by_magnitude).ok


def verify_mapping(
    m: LabelMapping, index: PageIndex, taxonomy: Taxonomy
) -> tuple[ProposalOutcome, list[Fact]]:
    """Check a proposed label mapping; when it holds, the row's figures become facts.

    Each fact is tagged with its provenance: ``model_corroborated`` when a figure the taxonomy mapped to
    the metric for that period agrees with it, ``model_uncorroborated`` otherwise. A figure that disagrees
    with one refutes the whole mapping.
    """
    task = "label_mapping"
    metric = taxonomy.get(m.metric)
    if metric is None:
        return _reject(task, "unknown_metric", m), []
    if taxonomy.match(m.label) is not None:
        return _reject(task, "already_known", m), []
    rows = index.labels.get(normalise_label(m.label))
    if not rows:
        return _reject(task, "label_not_found", m), []
    by_magnitude = sign_free(metric)
    existing: dict[str, list[KnownFact]] = {}
    for f in known_facts(index.doc.facts):
        if f.metric == metric.id and f.period is not None and f.context is None:
            existing.setdefault(f.period.key, []).append(f)
    facts: list[Fact] = []
    for ti, row in rows:
        t = index.doc.tables[ti]
        for c in t.cells:
            n = c.number
            if str(c.row) != row or n is None or n.period is None:
                continue
            if n.base_value is None or n.decimals is None or n.scale is None:
                continue  # a figure of unknown scale is never a fact in units
            period = n.period
            fact = table_fact(
                t,
                c,
                n,
                metric,
                period,
                fact_id=stable_id(
                    index.doc.doc_id, "model-fact", metric.id, period.key, t.table_id, c.row, c.col
                ),
                label=m.label,
                page=c.page,
                row=c.row,
                printed=c.text,
            )
            priors = existing.get(period.key, [])
            wrong = [p for p in priors if not _agrees(fact, p, by_magnitude)]
            if wrong:
                return _reject(task, "contradicts_facts", m, [c.page, wrong[0].page]), []
            provenance = "model_corroborated" if priors else "model_uncorroborated"
            facts.append(fact.model_copy(update={"provenance": provenance}))
    if not facts:
        return _reject(task, "no_figures", m), []
    # Figures that agree with facts already read corroborate the mapping; a metric with no facts yet
    # cannot refute it, and the outcome says so.
    corroborated = any(f.provenance == "model_corroborated" for f in facts)
    return _accept(task, "verified" if corroborated else "unrefuted", m, [f.page for f in facts]), facts


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def _names_metric(quote: str, metric: MetricDef) -> bool:
    """Whether a quote's own words name the metric (one of its printed labels)."""
    words = f" {normalise_label(quote)} "
    return any(
        key and f" {key} " in words for key in {normalise_label(s) for s in (*metric.synonyms, metric.id)}
    )


_CLAIM_TASK = "narrative_claims"


@dataclass(frozen=True, slots=True)
class _ReadClaim:
    """What a narrative claim points at, once its quote, number, metric and period are found."""

    bbox: tuple[float, float, float, float]  # the text block that holds the quote
    number: ParsedNumber  # the quote's figure that the claim's value reads
    metric: MetricDef
    period: Period


def _read_claim(claim: ProposedClaim, index: PageIndex, taxonomy: Taxonomy) -> _ReadClaim | ProposalOutcome:
    """Step 1: the quote on its page, the claim's number in it, and the metric and period it names.

    A statement page the model cites must print the value it gives; it is only checked here, since the
    reference is the primary statement's figure whatever page the model named.

    Returns:
        What the claim points at, or the rejection that ends its check.
    """
    task = _CLAIM_TASK
    if not 1 <= claim.page <= index.n_pages:
        return _reject(task, "page_out_of_range", claim)
    quote = _norm(claim.quote)
    blocks = [(t, bb) for t, bb in index.text_by_page.get(claim.page, []) if quote and quote in _norm(t)]
    if not blocks:
        return _reject(task, "quote_not_found", claim, [claim.page])
    numbers = [
        tn.number
        for tn in find_numbers(claim.quote)
        if within_rounding(abs(claim.value), abs(tn.number.value), tn.number.decimals_printed)
    ]
    if not numbers:
        return _reject(task, "number_not_in_quote", claim, [claim.page])
    metric = taxonomy.get(claim.metric) or taxonomy.match(claim.metric)
    if metric is None:
        return _reject(task, "unknown_metric", claim, [claim.page])
    period = parse_period(claim.period)
    if period is None:
        return _reject(task, "period_unreadable", claim, [claim.page])
    n = numbers[0]
    if n.percent:
        return _reject(task, "percent_not_a_level", claim, [claim.page])
    if not sign_free(metric) and not within_rounding(claim.value, n.value, n.decimals_printed):
        return _reject(task, "sign_misread", claim, [claim.page])
    if claim.statement_page is not None:
        cited = claim.statement_page
        if not 1 <= cited <= index.n_pages:
            return _reject(task, "page_out_of_range", claim, [claim.page])
        if claim.statement_value is not None:
            side = _locate(index, cited, claim.statement_value, metric, period.key)
            if isinstance(side, str):
                return _reject(task, side, claim, [claim.page, cited])
    return _ReadClaim(blocks[0][1], n, metric, period)


def _statement_fact(
    claim: ProposedClaim, index: PageIndex, metric: MetricDef, period: str
) -> KnownFact | ProposalOutcome:
    """Step 2: the reference, the primary statement's figure for the metric and period (never a note's)."""
    table = [
        f
        for f in known_facts(index.doc.facts)
        if f.metric == metric.id and f.origin == "table_cell" and f.context is None and f.period is not None
        and f.period.key == period
    ]  # fmt: skip
    if not table:
        return _reject(_CLAIM_TASK, "no_table_fact", claim, [claim.page])
    statements = [f for f in table if f.statement in PRIMARY]
    if not statements:
        return _reject(_CLAIM_TASK, "no_statement_fact", claim, [claim.page, *(f.page for f in table)])
    return statements[0]


def _claim_flag(
    claim: ProposedClaim, read: _ReadClaim, ref: KnownFact, stated: float, cmp: Comparison, index: PageIndex
) -> Flag:
    """Step 4: the flag of a verified disagreement between the narrative and the primary statement."""
    metric, period, n = read.metric, read.period, read.number
    cited_note = (
        f" (the model cited page {claim.statement_page})"
        if claim.statement_page is not None and claim.statement_page != ref.page
        else ""
    )
    kind = (ref.statement or "statement").replace("_", " ")
    return RULE.flag(
        index.doc,
        message=(
            f"Narrative on page {claim.page} states {metric.id} {period.key} as {n.text.strip()} "
            f"but the primary statement ({kind}) on page {ref.page} prints {ref.printed}{cited_note}. "
            f"Model: {claim.rationale}"
        ),
        evidence=[
            Evidence(page=claim.page, bbox=read.bbox, text=claim.quote, role="narrative", value=stated),
            printed_evidence(ref, "table"),
        ],
        metric=metric.id,
        period=period,
        comparison=cmp,
        reasons=[
            f"the quote names {metric.id}",
            f"the reference is the primary statement's figure ({kind}, page {ref.page})",
        ],
    )


def verify_claim(
    claim: ProposedClaim, index: PageIndex, taxonomy: Taxonomy, flags: Sequence[Flag]
) -> tuple[ProposalOutcome, Flag | None]:
    """Check a narrative claim the model read.

    The quote must be on the page and the number in the quote (with the sign it is printed with, where
    the metric's sign is fixed), and it must agree with the primary statement's figure for that metric
    and period. A statement page the model names must print the value it gives, but the reference is the
    primary statement whatever page the model named.
    """
    task = _CLAIM_TASK
    read = _read_claim(claim, index, taxonomy)
    if isinstance(read, ProposalOutcome):
        return read, None
    n, metric, period = read.number, read.metric, read.period
    ref = _statement_fact(claim, index, metric, period.key)
    if isinstance(ref, ProposalOutcome):
        return ref, None
    # Step 3: the comparison in base units; the two agree when their rounding intervals overlap.
    scale = n.scale or ref.scale
    stated = n.value * 10**scale
    by_magnitude = _by_magnitude(metric, not n.negative)
    cmp = _compare(stated, n.decimals_printed - scale, ref.value, ref.decimals, by_magnitude)
    pages = sorted({claim.page, ref.page})
    if cmp.ok:
        return _accept(task, "verified_consistent", claim, pages), None
    tied = any(
        p.metric == metric.id and p.period in (None, period.key) and claim.quote.find(p.printed) >= 0
        for p in index.printed(claim.page, n.value)
    )
    if not (tied or _names_metric(claim.quote, metric)):
        return _reject(task, "unlabelled_evidence", claim, pages), None
    if any(f.metric == metric.id and set(pages) <= set(f.pages) for f in flags):
        return _accept(task, "already_flagged", claim, pages), None
    flag = _claim_flag(claim, read, ref, stated, cmp, index)
    outcome = _accept(task, "verified_mismatch", claim, pages, flag)
    return outcome, flag
