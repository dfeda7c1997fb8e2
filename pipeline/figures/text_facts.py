"""Facts stated in narrative sentences: the current and prior figures of each claim, as facts.

The claims are :mod:`pipeline.figures.claims`'; a fact is made of a claim's figure when its period is a
duration with a key a table column would carry, so that it can be tied to the tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.figures.claims import NarrativeClaim, parse_claims
from pipeline.figures.taxonomy import Taxonomy
from pipeline.ids import stable_id
from schemas.models import Block, Fact, Period

__all__ = ["extract_text_facts"]


def _text_fact(claim: NarrativeClaim, which: str, doc_id: str, source: str) -> Fact | None:
    """A claim's current or prior figure as a fact; None for instants and missing figures."""
    amount = claim.current if which == "current" else claim.prior
    ref = claim.current_period if which == "current" else claim.prior_period
    if amount is None or ref is None or ref.kind == "instant":
        # An instant stated only by its year ("at the end of 2025") has no comparable period key.
        return None
    period = Period(
        kind="duration",
        key=ref.key,
        label=ref.label,
        fiscal_year=ref.year,
        quarter=ref.quarter,
        months=ref.months,
    )
    block = claim.block
    start = claim.offset + amount.start
    return Fact(
        fact_id=stable_id(doc_id, claim.metric.id, ref.key, block.page, "text", block.bbox, start),
        doc_id=doc_id,
        source=source,
        **claim.metric.of_fact(),
        label=claim.subject,
        period=period,
        value=amount.value,
        printed=amount.text,
        printed_value=amount.printed_value,
        decimals=amount.decimals,
        scale=amount.scale,
        scale_source="cell",
        currency=amount.currency,
        page=block.page,
        bbox=block.bbox,
        origin="text_span",
    )


def extract_text_facts(
    blocks: Sequence[Block], taxonomy: Taxonomy, *, doc_id: str, source: str, default_year: int | None
) -> list[Fact]:
    """Facts stated in narrative sentences ("Revenue increased 8.4% to $1,338.2 million in 2025").

    Only sentences whose subject is exactly a taxonomy synonym and whose period can be resolved give
    facts; qualified subjects ("Adjusted revenue", "Revenue in Europe") are left out.

    Args:
        blocks: Text blocks of the document.
        taxonomy: The metric taxonomy.
        doc_id: Document id for the facts.
        source: Source path for the facts.
        default_year: The document's current fiscal year, used when a sentence names no year.

    Returns:
        Facts with origin ``text_span``.
    """
    facts: list[Fact] = []
    for block in blocks:
        if block.kind == "table":
            continue
        for claim in parse_claims(block, taxonomy, default_year=default_year):
            for which in ("current", "prior"):
                fact = _text_fact(claim, which, doc_id, source)
                if fact is not None:
                    facts.append(fact)
    return facts
