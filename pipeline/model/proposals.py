"""What the model may propose: the structured-output contracts of each task.

The JSON Schema the server constrains generation with is generated from these models, and every answer is
validated against them on return. String fields are bounded because small models ramble inside strings.
Nothing proposed here is trusted: :mod:`pipeline.model.grounding` checks each item against the numbers that
really are printed on the cited pages.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "TASK_SCHEMAS",
    "CrossPageLinks",
    "FigureLink",
    "LabelMapping",
    "LabelMappings",
    "LedgerUpdate",
    "MetricName",
    "PageRef",
    "PageSummary",
    "PeriodText",
    "ProposedClaim",
    "ProposedClaims",
    "Rationale",
    "Short",
]

Short = Annotated[str, Field(max_length=80)]
Rationale = Annotated[str, Field(max_length=100)]
PageRef = Annotated[int, Field(ge=1, le=100_000)]
MetricName = Annotated[str, Field(max_length=60)]
"""One of the taxonomy's metric ids, as the prompt lists them."""
PeriodText = Annotated[str, Field(max_length=40)]
"""A period as printed ("FY2025", "Q3 2024")."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FigureLink(_Strict):
    """The same quantity (metric and period) printed on two pages, with the value read on each.

    The prompts ask for pairs that disagree; verification accepts agreeing pairs too (as consistent).
    """

    metric: Short = Field(description="What the figure measures, e.g. 'revenue' or the label as printed.")
    period: PeriodText = Field(description="Period as printed, e.g. 'FY2025'.")
    page_a: PageRef
    value_a: float = Field(
        description="The figure on page_a as printed, with its sign ((842.1) is -842.1), no scale applied."
    )
    page_b: PageRef
    value_b: float = Field(
        description="The figure on page_b as printed, with its sign ((842.1) is -842.1), no scale applied."
    )
    rationale: Rationale


class CrossPageLinks(_Strict):
    """Answer of the ``cross_page_links`` task."""

    links: list[FigureLink] = Field(max_length=6)


class LabelMapping(_Strict):
    """A printed row label the taxonomy does not know, mapped to one of its metric ids."""

    label: Short
    metric: MetricName
    rationale: Rationale


class LabelMappings(_Strict):
    """Answer of the ``label_mapping`` task."""

    mappings: list[LabelMapping] = Field(max_length=10)


class ProposedClaim(_Strict):
    """A figure stated in running text, with the metric and period it is about.

    The prompts ask for statements that disagree with the financial statements, with both places: the
    sentence (``page``, ``quote``, ``value``) and the statement (``statement_page``, ``statement_value``).
    Verification always compares with the primary statement's figure, whatever page is cited.
    """

    page: PageRef
    quote: Short = Field(description="The words of the sentence around the figure, copied exactly.")
    metric: MetricName
    period: PeriodText
    value: float = Field(
        description="The figure as printed in the sentence, with its sign if it has one, no scale applied."
    )
    statement_page: PageRef | None = Field(
        default=None, description="The page of the financial statement that prints this metric and period."
    )
    statement_value: float | None = Field(
        default=None, description="The figure as printed on statement_page, with its sign (no scale applied)."
    )
    rationale: Rationale


class ProposedClaims(_Strict):
    """Answer of the ``narrative_claims`` task."""

    claims: list[ProposedClaim] = Field(max_length=6)


class PageSummary(_Strict):
    """Ledger entry carried between windows of a long document."""

    page: PageRef
    summary: Annotated[str, Field(max_length=100)]


class LedgerUpdate(_Strict):
    """Answer of a ledger step: links found in this window and summaries of its pages."""

    links: list[FigureLink] = Field(max_length=4)
    pages: list[PageSummary] = Field(max_length=6)


TASK_SCHEMAS: dict[str, type[BaseModel]] = {
    "cross_page_links": CrossPageLinks,
    "label_mapping": LabelMappings,
    "narrative_claims": ProposedClaims,
    "ledger_step": LedgerUpdate,
}
