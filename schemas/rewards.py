"""The reward record: one extraction with its reward, as the rewards topic and the training sets carry it.

Built by :func:`pipeline.rewards.records.build_reward_records`; lives here so that the schema of every
topic is defined in ``schemas`` alone.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from schemas.models import PageNo, Record

__all__ = ["RewardRecord"]


class RewardRecord(Record):
    """One extraction with its reward, ready for a training set."""

    record_id: str
    doc_id: str
    source: str
    task: str = Field(
        description="'table_fact', 'narrative_claim' (extractions), 'check_flag' (a judged flag), or the "
        "model stage's task of a verified proposal: 'cross_page_links', 'label_mapping', 'narrative_claims'."
    )
    extractor: str = Field(
        description="'pymupdf_tables', 'pymupdf_text', 'pdfplumber', 'model:<name>', 'rule:<id>'."
    )
    context: str = Field(description="The text the figure was read from, with '[page N]' markers.")
    completion: str = Field(
        description='The extraction as JSON: [{"metric","period","value","page"}]; for a model proposal, the '
        "model's raw answer."
    )
    reward: float = Field(ge=0.0, le=1.0)
    components: dict[str, float] = Field(
        description="consistency, agreement, truth, analyst; for a model proposal parse_ok, pages_exist, "
        "values_printed, agreement (each in [0, 1]; absent when unknown)."
    )
    label_reason: str | None = Field(
        default=None,
        description="Why an analyst dismissed a flag (wrong_pairing, wrong_scale, different_basis, …).",
    )
    pages: list[PageNo]
    messages: list[dict[str, str]] = Field(
        default_factory=list, description="A model proposal's prompt: the chat messages of its call."
    )
    call_id: str | None = Field(default=None, description="A model proposal's call ('c1', …).")
    outcome: str | None = Field(
        default=None,
        description="A model proposal's verification: the reason it was accepted or rejected "
        "(verified_consistent, number_not_on_page, …).",
    )
    proposal: str | None = Field(default=None, description="A model proposal as the model gave it (JSON).")
    created_at: datetime
