"""NAR001: figures and percentage changes stated in narrative text agree with the tables.

Claims come from :func:`pipeline.figures.facts.parse_claims`, which already refuses qualified subjects,
forward-looking wording and unresolved periods. Here a claim is compared only with an unambiguous table
figure: whole-entity facts of the same metric, for one period key, all agreeing with each other. A
stated value is checked at its own printed precision ("$1.3 billion" is consistent with 1,338.2
million); a stated change is checked against ``(current − prior)/|prior|`` over the rounding intervals of
both figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.checks.rule import DocRef, Rule, printed_evidence
from pipeline.checks.tolerance import (
    Comparison,
    KnownFact,
    compare_pct_change,
    compare_sum,
    compare_values,
    fmt_amount,
    fmt_small,
    plausible_discrepancy,
    printed_decimals,
    scale_note,
)
from pipeline.figures.claims import NarrativeClaim, PeriodRef, parse_claims
from pipeline.figures.facts import OTHER_FIGURES, latest_fiscal_year
from pipeline.figures.sections import segment_blocks
from pipeline.figures.taxonomy import Taxonomy
from schemas.models import Block, Chunk, Evidence, Flag, Period, Table

__all__ = [
    "RULE",
    "SENTENCE_RULE",
    "TableFigure",
    "check_claim",
    "check_narrative",
    "check_sentence",
    "resolve",
]

RULE = Rule(
    "NAR001",
    "narrative_mismatch",
    "warning",
    "Figures and percentage changes in narrative text agree with the tables.",
    "a whole-entity figure of the same metric and period, unambiguous in the tables",
)
SENTENCE_RULE = Rule(
    "NAR002",
    "narrative_mismatch",
    "warning",
    "The figures of one sentence agree among themselves (from X to Y, up Z or P%).",
    "the figures of one sentence, about one subject and period",
)
_SNIPPET = 240


@dataclass(frozen=True, slots=True)
class TableFigure:
    """The table figure a narrative claim is compared with."""

    fact: KnownFact
    key: str

    @property
    def value(self) -> float:
        """Value in base units."""
        return self.fact.value


def _agree(facts: Sequence[KnownFact]) -> bool:
    return all(compare_values(a.value, a.decimals, b.value, b.decimals).ok for a in facts for b in facts)


def _keys_for(ref: PeriodRef, facts: Sequence[KnownFact]) -> set[str]:
    """Period keys of table facts that may be the period a claim names."""
    periods = [f.period for f in facts if f.period is not None]
    if ref.kind == "instant":
        return {p.key for p in periods if _instant_year(p) == ref.year}
    if ref.explicit or any(p.key == ref.key for p in periods):
        return {ref.key} if any(p.key == ref.key for p in periods) else set()
    # A bare "revenue increased 5%" in a quarterly report is about the one period of that year the
    # tables show; with several (quarter and year to date) it is ambiguous.
    return {p.key for p in periods if p.kind == "duration" and p.fiscal_year == ref.year}


def _instant_year(period: Period) -> int | None:
    if period.end_date:
        return int(period.end_date[:4])
    return period.fiscal_year


def resolve(ref: PeriodRef | None, facts: Sequence[KnownFact]) -> TableFigure | None:
    """The single table figure for a claimed period, or None when absent or ambiguous.

    Args:
        ref: The period the narrative names.
        facts: Whole-entity table facts of the claim's metric.

    Returns:
        The most precise fact of the one matching period when all facts of that period agree.
    """
    if ref is None:
        return None
    keys = _keys_for(ref, facts)
    if len(keys) != 1:
        return None
    key = keys.pop()
    matching = [f for f in facts if f.period is not None and f.period.key == key]
    if not matching or not _agree(matching):
        return None  # the tables disagree among themselves: XREF001's finding, not a narrative one
    return TableFigure(min(matching, key=lambda f: (-f.decimals, f.page)), key)


def _narrative_evidence(claim: NarrativeClaim, value: float | None) -> Evidence:
    sentence = claim.sentence if len(claim.sentence) <= _SNIPPET else claim.sentence[: _SNIPPET - 1] + "…"
    block: Block = claim.block
    return Evidence(page=block.page, bbox=block.bbox, text=sentence, role="narrative", value=value)


def _table_evidence(fig: TableFigure, role: str = "table") -> Evidence:
    return printed_evidence(fig.fact, role)


def _value_flag(
    claim: NarrativeClaim, which: str, fig: TableFigure, c: Comparison, *, doc_id: str, source: str
) -> Flag:
    amount = claim.current if which == "current" else claim.prior
    ref = claim.current_period if which == "current" else claim.prior_period
    assert amount is not None and ref is not None  # callers only pass claims with this side
    f = fig.fact
    places = printed_decimals(f.decimals, f.scale)
    diff, tol = fmt_small(abs(c.difference), f.scale, places), fmt_small(c.tolerance, f.scale, places)
    message = (
        f"Narrative on page {claim.block.page} states {claim.subject} {ref.label} as {amount.text} but the "
        f"table on page {f.page} shows {f.printed} (difference {diff}, tolerance {tol}{scale_note(f.scale)})."
    )
    return RULE.flag(
        DocRef(doc_id, source),
        message=message,
        evidence=[_narrative_evidence(claim, amount.value), _table_evidence(fig)],
        metric=claim.metric.id,
        period=f.period,
        comparison=c,
        confidence=0.7 if ref.explicit else 0.6,
        reasons=[
            f"the sentence names {claim.metric.id} as its subject and "
            f"{'states' if ref.explicit else 'implies'} the period {ref.label}",
            "the table figure is the whole entity's, as reported, and every table agrees on it",
        ],
    )


_EARLY_MONTHS = ("-01-", "-02-")
"""Year ends in January or February: a retailer's fiscal year, which many name by the year it began in."""


def _named_by_start(
    ref: PeriodRef | None, facts: Sequence[KnownFact], fig: TableFigure
) -> TableFigure | None:
    """The fiscal year a sentence may mean by ``ref`` where the tables date their years by their end.

    Ulta's "fiscal 2021" ended on 29 January 2022, the column the tables key FY2022, while the column
    ending on 30 January 2021 is their FY2021; Walmart names its years by their end. Where the year the
    sentence names ended early in the calendar year, the next column is the year the sentence may mean: a
    figure that agrees with it is no misstatement.
    """
    end = fig.fact.period.end_date if fig.fact.period is not None else None
    if ref is None or ref.kind != "FY" or end is None or end[4:8] not in _EARLY_MONTHS:
        return None
    later = resolve(PeriodRef("FY", ref.year + 1, explicit=ref.explicit), facts)
    later_end = later.fact.period.end_date if later is not None and later.fact.period is not None else None
    return later if later_end is not None and later_end[4:8] in _EARLY_MONTHS else None


def _check_value(
    claim: NarrativeClaim, which: str, facts: Sequence[KnownFact], *, doc_id: str, source: str
) -> tuple[Flag | None, TableFigure | None]:
    amount = claim.current if which == "current" else claim.prior
    ref = claim.current_period if which == "current" else claim.prior_period
    fig = resolve(ref, facts)
    if amount is None or fig is None:
        return None, fig
    if (
        claim.metric.unit == "currency"
        and amount.currency
        and fig.fact.currency
        and (amount.currency != fig.fact.currency)
    ):
        return None, fig  # a convenience translation ("$1.2bn (£0.9bn)") is not the reported figure
    a = abs(amount.value) if claim.metric.magnitude_only else amount.value
    b = abs(fig.value) if claim.metric.magnitude_only else fig.value
    c = compare_values(a, amount.decimals, b, fig.fact.decimals)
    if c.ok:
        return None, fig
    named_by_start = _named_by_start(ref, facts, fig)
    if (
        named_by_start is not None
        and compare_values(a, amount.decimals, named_by_start.value, named_by_start.fact.decimals).ok
    ):
        return None, named_by_start
    if not plausible_discrepancy(a, amount.decimals, b, fig.fact.decimals):
        # The sentence prints a figure no keying error makes of the table's: it is about another period
        # or scope ("$8.6 billion in fiscal 2021" of a retailer whose fiscal 2021 ended in January 2022,
        # beside a table that dates its years by their end). Its change is not compared with this figure.
        return None, None
    return _value_flag(claim, which, fig, c, doc_id=doc_id, source=source), fig


def _check_change(
    claim: NarrativeClaim,
    current: TableFigure | None,
    prior: TableFigure | None,
    *,
    doc_id: str,
    source: str,
) -> Flag | None:
    stated = claim.signed_change
    if stated is None or claim.change is None or current is None or prior is None:
        return None
    cur, pri = current.value, prior.value
    if claim.metric.magnitude_only:
        cur, pri = abs(cur), abs(pri)
    c = compare_pct_change(
        stated, claim.change.decimals, cur, current.fact.decimals, pri, prior.fact.decimals
    )
    if c is None:
        return None
    if claim.direction == 0 and stated >= 0:
        # The wording gave no direction ("a 3% change"): only the magnitude is stated.
        c_abs = compare_pct_change(
            -stated, claim.change.decimals, cur, current.fact.decimals, pri, prior.fact.decimals
        )
        if c_abs is not None and c_abs.ok:
            return None
    if c.ok:
        return None
    word = "increase" if stated > 0 else "decrease"
    message = (
        f"Narrative on page {claim.block.page} states a {abs(stated):g}% {word} in {claim.subject} but the "
        f"tables give {prior.fact.printed} (page {prior.fact.page}) to {current.fact.printed} (page "
        f"{current.fact.page}), a change of {c.expected:+.2f}% (difference {c.difference:+.2f} points, "
        f"tolerance {c.tolerance:.2f})."
    )
    return RULE.flag(
        DocRef(doc_id, source),
        message=message,
        evidence=[
            _narrative_evidence(claim, stated),
            _table_evidence(current, "table current"),
            _table_evidence(prior, "table prior"),
        ],
        metric=claim.metric.id,
        period=current.fact.period,
        comparison=c,
        confidence=0.7,
        reasons=[
            f"the sentence states a change of {claim.metric.id} between two periods the tables print",
            "the rounding of both table figures is allowed for",
        ],
    )


def check_claim(claim: NarrativeClaim, facts: Sequence[KnownFact], *, doc_id: str, source: str) -> list[Flag]:
    """Compare one narrative claim with the table facts of its metric.

    Args:
        claim: A parsed narrative claim.
        facts: Whole-entity table facts of the claim's metric and unit.
        doc_id: Document id.
        source: Source path.

    Returns:
        Flags for a stated value that disagrees, and for a stated change that disagrees (the latter
        only when the stated values themselves were consistent, so one misprint gives one flag).
    """
    flags: list[Flag] = []
    cur_flag, cur_fig = _check_value(claim, "current", facts, doc_id=doc_id, source=source)
    prior_flag, prior_fig = _check_value(claim, "prior", facts, doc_id=doc_id, source=source)
    flags.extend(f for f in (cur_flag, prior_flag) if f is not None)
    if not flags:
        change_flag = _check_change(claim, cur_fig, prior_fig, doc_id=doc_id, source=source)
        if change_flag is not None:
            flags.append(change_flag)
    return flags


def check_narrative(
    blocks: Sequence[Block],
    facts: Sequence[KnownFact],
    taxonomy: Taxonomy,
    *,
    doc_id: str,
    source: str,
    tables: Sequence[Table] = (),
    chunks: Sequence[Chunk] = (),
) -> list[Flag]:
    """NAR001 over every narrative block of a document.

    A block in a segment's section (:func:`pipeline.figures.sections.segment_blocks`) is about that
    segment's figures: its sentences are checked for their own arithmetic (NAR002) only.

    Args:
        blocks: Text blocks, in reading order.
        facts: Facts of the document (only whole-entity table facts are used as reference).
        taxonomy: The metric taxonomy.
        doc_id: Document id.
        source: Source path.
        tables: The document's tables, whose line labels and column heads name its segments.
        chunks: Its heading-aware chunks, whose heading paths say which section each block sits under.

    Returns:
        Flags of kind ``narrative_mismatch``.
    """
    # A table that prints the metric at other figures (a division's, a breakdown of another measure) is
    # no reference, but it is a reason to doubt which figure a sentence means: with it, the tables
    # disagree for that period and the sentence is left alone, as before it was told apart.
    table_facts = [
        f
        for f in facts
        if f.origin == "table_cell" and f.context in (None, OTHER_FIGURES) and f.period is not None
    ]
    if not table_facts:
        return []
    default_year = latest_fiscal_year(table_facts)
    by_metric: dict[str, list[KnownFact]] = {}
    for f in table_facts:
        by_metric.setdefault(f.metric, []).append(f)
    flags: list[Flag] = []
    segments = segment_blocks(blocks, tables, taxonomy, chunks)
    for i, block in enumerate(blocks):
        if block.kind != "text":
            continue
        for claim in parse_claims(block, taxonomy, default_year=default_year):
            own = check_sentence(claim, doc_id=doc_id, source=source)
            flags.extend(own)
            metric_facts = [f for f in by_metric.get(claim.metric.id, []) if f.unit == claim.metric.unit]
            if metric_facts and not own and i not in segments:
                flags.extend(check_claim(claim, metric_facts, doc_id=doc_id, source=source))
    return flags


def check_sentence(claim: NarrativeClaim, *, doc_id: str, source: str) -> list[Flag]:
    """NAR002: the figures of one sentence agree among themselves.

    "Revenue increased 8.4% to $1,338.2 million from $1,234.5 million" states a level, a comparative and a
    change; the change must be what the two levels give, within their rounding, whatever the tables say.
    A stated amount of change ("up $103.7 million") is checked the same way.

    Args:
        claim: A parsed narrative claim with a current and a prior figure.
        doc_id: Document id.
        source: Source path.

    Returns:
        At most one flag: the first of the percentage and the amount that does not fit.
    """
    cur, pri = claim.current, claim.prior
    if cur is None or pri is None:
        return []
    c: Comparison | None = None
    stated_text = ""
    if claim.change is not None and claim.signed_change is not None:
        stated = claim.signed_change
        c = compare_pct_change(
            stated, claim.change.decimals, cur.value, cur.decimals, pri.value, pri.decimals
        )
        if c is not None and not c.ok and claim.direction == 0:
            alt = compare_pct_change(
                -stated, claim.change.decimals, cur.value, cur.decimals, pri.value, pri.decimals
            )
            c = alt if alt is not None and alt.ok else c
        stated_text = f"a change of {claim.change.text}"
    elif claim.change_amount is not None:
        amount = claim.change_amount
        sign = claim.direction_word or (1 if cur.value >= pri.value else -1)
        expected = compare_sum(
            sign * abs(amount.value), amount.decimals, [(cur.value, cur.decimals), (-pri.value, pri.decimals)]
        )
        c = Comparison(
            expected.ok, expected.expected, expected.actual, expected.difference, expected.tolerance
        )
        stated_text = f"a change of {amount.text}"
    if c is None or c.ok:
        return []
    if claim.change is not None:
        implied = f"{c.expected:+.1f}%"
    else:
        implied = fmt_amount(c.expected, cur.scale, printed_decimals(cur.decimals, cur.scale)) + scale_note(
            cur.scale
        )
    message = (
        f"Narrative on page {claim.block.page} states {claim.subject} moving from {pri.text} to {cur.text} "
        f"and {stated_text}, which those two figures do not give (they give {implied})."
    )
    return [
        SENTENCE_RULE.flag(
            DocRef(doc_id, source),
            message=message,
            evidence=[_narrative_evidence(claim, cur.value)],
            metric=claim.metric.id,
            comparison=c,
            confidence=0.8,
            reasons=["the level, the comparative and the change are stated in one sentence"],
        )
    ]
