"""Reward for a model's cross-page-link answer, scored against the numbers printed on each page.

The model stage asks for figures printed on two pages (:class:`pipeline.model.proposals.CrossPageLinks`)::

    {"links": [{"metric": "revenue", "period": "FY2025", "page_a": 4, "value_a": 1368.9,
                "page_b": 12, "value_b": 1368.9, "rationale": "..."}]}

The ground truth is the document's :class:`pipeline.model.grounding.PageIndex` (every number printed on
every page, with its precision, period and metric where a table row says so), serialised to JSON by
:func:`page_index_json` so that a training row carries it. Scoring runs the model stage's own verifier
(:func:`pipeline.model.grounding.verify_link`) on the restored index, so a link is rewarded exactly when the
model stage would accept it — the value, sign and scale rules are verify.py's, not re-derived here.

Components (each in [0, 1]; every share is over the answer's links)::

    parse_ok       the answer is a CrossPageLinks object (JSON, possibly fenced or inside prose)
    pages_exist    share of links whose two pages exist and differ
    values_printed share of links whose value_a is printed on page_a and value_b on page_b
    agreement      share of links the verifier accepts: both figures printed with that metric and period
                   (consistent, or a verified disagreement, which is a finding)

    score = 0.1·parse_ok + 0.2·pages_exist + 0.3·values_printed + 0.4·agreement

An answer without links scores ``0.1``: well-formed, but it proposes nothing that can be checked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from typing import Any

from pydantic import ValidationError

from pipeline.figures.taxonomy import load_taxonomy
from pipeline.model.grounding import PageIndex, Printed, verify_link
from pipeline.model.proposals import CrossPageLinks, FigureLink
from pipeline.rewards.functions import completion_text, json_candidates
from schemas.models import DocumentResult

__all__ = [
    "LINK_COMPONENTS",
    "LINK_WEIGHTS",
    "grpo_link_reward",
    "page_index_json",
    "parse_links",
    "restore_page_index",
    "score_links",
]

LINK_WEIGHTS: dict[str, float] = {
    "parse_ok": 0.1,
    "pages_exist": 0.2,
    "values_printed": 0.3,
    "agreement": 0.4,
}
"""Weights of the components in the score; they sum to 1."""

LINK_COMPONENTS: tuple[str, ...] = tuple(LINK_WEIGHTS)

_INDEX_VERSION = 1
_PRINTED_FIELDS = tuple(f.name for f in fields(Printed))


def page_index_json(index: PageIndex) -> dict[str, Any]:
    """The numbers a :class:`PageIndex` holds, as JSON-ready data.

    Args:
        index: A document's page index.

    Returns:
        ``{"version", "doc_id", "source", "n_pages", "pages": {"<page>": [<Printed fields>, ...]}}``.
    """
    return {
        "version": _INDEX_VERSION,
        "doc_id": index.doc.doc_id,
        "source": index.doc.source,
        "n_pages": index.n_pages,
        "pages": {str(page): [asdict(p) for p in printed] for page, printed in sorted(index.by_page.items())},
    }


def restore_page_index(data: Mapping[str, Any]) -> PageIndex:
    """A :class:`PageIndex` rebuilt from :func:`page_index_json` output, for :func:`verify_link`.

    It holds the printed numbers only (no narrative text, no row labels): enough for the cross-page-link
    verifier's ``printed`` lookup. A verified disagreement becomes a flag of this document, which needs
    its ids only.

    Raises:
        KeyError, TypeError, ValueError: ``data`` is not such output.
    """
    doc = DocumentResult(
        doc_id=str(data.get("doc_id", "")), source=str(data.get("source", "")), pipeline_version=""
    )
    by_page = {int(page): [_printed(p) for p in printed] for page, printed in dict(data["pages"]).items()}
    return PageIndex(doc, int(data["n_pages"]), by_page)


def _printed(raw: Mapping[str, Any]) -> Printed:
    values: dict[str, Any] = {name: raw.get(name) for name in _PRINTED_FIELDS}
    if values["bbox"] is not None:
        values["bbox"] = tuple(values["bbox"])
    return Printed(**values)


def _load_index(ground_truth: object) -> PageIndex | None:
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except json.JSONDecodeError:
            return None
    if not isinstance(ground_truth, Mapping) or ground_truth.get("version") != _INDEX_VERSION:
        return None
    try:
        return restore_page_index(ground_truth)
    except (KeyError, TypeError, ValueError):
        return None


def parse_links(completion: str) -> list[FigureLink] | None:
    """The links of a cross-page-link answer.

    The answer is found as the extraction scorer finds its JSON (whole text, fenced blocks, then JSON
    inside prose) and must validate as :class:`CrossPageLinks`.

    Args:
        completion: The model's text.

    Returns:
        The links, or None when no candidate validates.
    """
    for candidate in json_candidates(completion):
        try:
            return list(CrossPageLinks.model_validate(candidate).links)
        except ValidationError:
            continue
    return None


def _zero() -> dict[str, float]:
    return dict.fromkeys(LINK_COMPONENTS, 0.0)


def score_links(completion: str, page_index: Mapping[str, Any] | str) -> tuple[float, dict[str, float]]:
    """Score a cross-page-link answer against the numbers printed on each page.

    The formula and the components are described in the module docstring.

    Args:
        completion: The model's answer text.
        page_index: :func:`page_index_json` output, or its JSON text.

    Returns:
        ``(score, components)``, all in [0, 1]. A malformed answer or an unreadable index gives
        ``(0.0, all zeros)``.
    """
    index = _load_index(page_index)
    links = parse_links(completion)
    if index is None or links is None:
        return 0.0, _zero()
    components = _zero()
    components["parse_ok"] = 1.0
    if links:
        taxonomy = load_taxonomy()
        exist = printed = accepted = 0
        for link in links:
            outcome, _ = verify_link(link, index, taxonomy, flags=())
            if outcome.reason == "page_out_of_range":
                continue
            exist += 1
            printed += all(
                index.printed(p, v) for p, v in ((link.page_a, link.value_a), (link.page_b, link.value_b))
            )
            accepted += outcome.accepted
        components["pages_exist"] = exist / len(links)
        components["values_printed"] = printed / len(links)
        components["agreement"] = accepted / len(links)
    total = math.fsum(LINK_WEIGHTS[name] * components[name] for name in LINK_COMPONENTS)
    return min(1.0, max(0.0, total)), components


def grpo_link_reward(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float | None]:
    """TRL ``GRPOTrainer`` reward function for cross-page-link answers.

    Reads the ``page_index`` column (:func:`page_index_json` output as JSON text, or a dict); a row
    without one is not a link task and gets None (TRL leaves it to the other reward functions).

    Args:
        prompts: The prompts (unused).
        completions: Strings or lists of ``{"role", "content"}`` messages.
        **kwargs: Dataset columns, each a list aligned with ``completions``.

    Returns:
        :func:`score_links` per completion, or None for a row without a page index.
    """
    del prompts
    raw = kwargs.get("page_index")
    rows: Sequence[Any] = raw if isinstance(raw, Sequence) and not isinstance(raw, str) else []
    out: list[float | None] = []
    for i, completion in enumerate(completions):
        index = rows[i] if i < len(rows) else None
        if not index:
            out.append(None)
            continue
        out.append(score_links(completion_text(completion), index)[0])
    return out
