"""A sentence about a ratio's change is not about the amount: "as a percentage of net sales, … decreased 1%".

"When compared to the same period in 2015, as a percentage of net sales, selling, general and administrative
expenses decreased by 1%" states that the expenses' share of sales fell a point; NAR001 read it as the
expenses falling 1 % and flagged the table's 25 % rise (Corning's 2016 10-K, a false flag on a development
filing). A clause that says "as a percentage (a share, a proportion) of" something is about a ratio.
"""

from __future__ import annotations

import pytest

from pipeline.figures.claims import parse_claims
from pipeline.figures.taxonomy import load_taxonomy
from tests.support.layouts import LayoutCases
from tests.support.tables import block

CASES = LayoutCases("ratio", ratio_sentence=True)


@pytest.mark.parametrize("name", CASES.names())
def test_a_ratio_sentence_raises_nothing(name: str) -> None:
    CASES.quiet(name)
    # The sentence's metric is one the narrative reads: said of the amount, it is a claim.
    label = CASES.cases[name].labels.get("cogs", "Cost of sales")
    said = block(f"{label} decreased by 1% in 2025.", page=1)
    assert [c.metric.id for c in parse_claims(said, load_taxonomy(), default_year=2025)] == ["cost_of_sales"]


@pytest.mark.parametrize(
    "share", ["as a percentage of net sales", "as a % of revenue", "as a share of sales"]
)
def test_the_ratio_clause_is_not_a_claim(share: str) -> None:
    text = f"When compared to 2015, {share}, selling, general and administrative expenses decreased by 1%."
    assert parse_claims(block(text, page=1), load_taxonomy(), default_year=2016) == []
