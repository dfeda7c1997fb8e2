"""Reward records from the model stage's own proposals: what verification decided is the reward.

Every :class:`~schemas.models.ProposalOutcome` of ``DocumentResult.model`` becomes one record carrying the
prompt (the chat messages of the call that proposed it, found by ``call_id``), the call's raw answer, the
proposal itself and the verification's reason. The components are the stages of verification the proposal
passed, the same four as the cross-page-link scorer (:mod:`pipeline.rewards.links`), with its weights::

    parse_ok        the answer validated into this proposal
    pages_exist     the cited page(s) exist
    values_printed  the cited figure (or quote, or label) is printed where the proposal says
    agreement       verification accepted it (verified consistent, a verified disagreement, a mapping
                    verified or unrefuted, or an already-flagged finding)

A rejection sets the components of the stages it passed: verification checks in a fixed order per task
(:mod:`pipeline.model.grounding`), so the reason says how far the proposal got. A reason this module does not
know (a check added later) counts as parsed and nothing more; an accepted proposal passes every stage.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime

from pipeline.ids import stable_id
from pipeline.rewards.links import LINK_COMPONENTS, LINK_WEIGHTS
from schemas.models import DocumentResult, ModelCall, ProposalOutcome
from schemas.rewards import RewardRecord

__all__ = ["STAGES_PASSED", "model_records", "outcome_components"]

_PARSED, _PAGES, _PRINTED = 1, 2, 3

STAGES_PASSED: dict[str, dict[str, int]] = {
    "cross_page_links": {
        "page_out_of_range": _PARSED,
        "period_unreadable": _PAGES,
        "unknown_metric": _PAGES,
        "number_not_on_page": _PAGES,
        "period_mismatch": _PRINTED,
        "metric_mismatch": _PRINTED,
    },
    "narrative_claims": {
        "page_out_of_range": _PARSED,
        "quote_not_found": _PAGES,
        "number_not_in_quote": _PAGES,
        "unknown_metric": _PRINTED,
        "period_unreadable": _PRINTED,
        "no_table_fact": _PRINTED,
        "percent_not_a_level": _PRINTED,
    },
    "label_mapping": {
        # a mapping cites no page: a known metric is its first check, the label being printed the next
        "unknown_metric": _PARSED,
        "already_known": _PARSED,
        "label_not_found": _PAGES,
        "contradicts_facts": _PRINTED,
        "no_figures": _PRINTED,
    },
}
"""Per task, how many verification stages (of :data:`~pipeline.rewards.links.LINK_COMPONENTS`) a rejected
proposal passed, by its reason."""

_UNPARSED = frozenset({"schema", "invalid_json"})


def outcome_components(outcome: ProposalOutcome) -> dict[str, float]:
    """The verification stages a proposal passed, as reward components.

    Args:
        outcome: What verification decided.

    Returns:
        ``parse_ok``, ``pages_exist``, ``values_printed``, ``agreement``, each 1.0 (passed) or 0.0.
    """
    if outcome.accepted:
        passed = len(LINK_COMPONENTS)
    elif outcome.reason in _UNPARSED:
        passed = 0
    else:
        passed = STAGES_PASSED.get(outcome.task, {}).get(outcome.reason, _PARSED)
    return {name: float(i < passed) for i, name in enumerate(LINK_COMPONENTS)}


def _prompt_text(call: ModelCall | None) -> str:
    if call is None:
        return ""
    users = [m.get("content", "") for m in call.messages if m.get("role") == "user"]
    return users[-1] if users else ""


def model_records(result: DocumentResult, created_at: datetime) -> list[RewardRecord]:
    """One reward record per proposal the model stage verified.

    Args:
        result: A processed document whose model stage ran (none when it did not).
        created_at: Timestamp for the records.

    Returns:
        Records in outcome order: task = the model task, extractor ``model:<name>``, context = the last
        user message of the call, completion = the call's raw answer (the proposal as JSON when the call is
        unknown), ``messages``, ``call_id``, ``outcome`` (the reason) and ``proposal``; reward =
        Σ w·c over :data:`~pipeline.rewards.links.LINK_WEIGHTS`.
    """
    if result.model is None:
        return []
    calls: Mapping[str, ModelCall] = {c.call_id: c for c in result.model.calls if c.call_id is not None}
    records: list[RewardRecord] = []
    for i, outcome in enumerate(result.model.outcomes):
        call = calls.get(outcome.call_id or "")
        proposal = json.dumps(outcome.proposal, ensure_ascii=False, sort_keys=True)
        components = outcome_components(outcome)
        records.append(
            RewardRecord(
                record_id=stable_id("reward", result.doc_id, "model", outcome.call_id, i, proposal),
                doc_id=result.doc_id,
                source=result.source,
                task=outcome.task,
                extractor=f"model:{call.model}" if call is not None else "model",
                context=_prompt_text(call),
                completion=call.answer if call is not None and call.answer is not None else proposal,
                reward=math.fsum(LINK_WEIGHTS[k] * v for k, v in components.items()),
                components=components,
                pages=list(outcome.pages),
                messages=list(call.messages) if call is not None else [],
                call_id=outcome.call_id,
                outcome=outcome.reason,
                proposal=proposal,
                created_at=created_at,
            )
        )
    return records
