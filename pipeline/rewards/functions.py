"""Reward functions for RL on financial-figure extraction: a scorer and its TRL and verl adapters.

A policy model reads a statement or summary table (see :mod:`adapters.rewards_dataset`) and answers
with the figures it found, as JSON::

    [{"metric": "revenue", "period": "FY2025", "value": 1368900000, "page": 4}, ...]

or ``{"facts": [...]}``, possibly inside a ```` ```json ```` fence or surrounded by prose. The ground
truth is the document's checked facts::

    {"facts": [{"metric": "revenue", "period": "FY2025", "value": 1368900000.0, "pages": [2, 3, 4],
                "decimals": -5}, ...],
     "disputed": [{"metric": "total_equity", "period": "2024-03-31"}]}

``decimals`` (XBRL sense, base units) is optional: without it the precision is the finest that the
ground truth's values imply by their trailing zeros (``1368900000.0`` → ``-5``), so the facts of
``sample_docs/truth.json`` can be used as they are. ``disputed`` lists figures that the checks found
printed inconsistently in the document; a model's answer for them is neither rewarded nor penalised.

Score (every component in [0, 1])::

    total = 0.10·well_formed + 0.50·values + 0.20·citations + 0.10·consistency + 0.10·no_invented

* ``well_formed``: share of the answer's items that are objects with ``metric`` (a taxonomy id),
  ``period``, a numeric ``value`` and a positive integer ``page``. An answer that does not parse as
  JSON, or parses to something other than a fact list, scores 0 overall.
* ``values``: share of the ground-truth facts the answer gives the right value for. Right means that
  the value lies in the interval the printed figure stands for (``value ± ½·10^−decimals``), so
  1,368.94m for a printed 1,368.9m is right and 1,369.0m is not; a scale slip (1,368.9 or
  1,368,900,000,000 for £1,368.9m) is wrong. Costs, tax and capital expenditure are compared by
  magnitude, as are liability totals, because filers print their sign either way.
* ``citations``: share of the answer's facts for a ground-truth figure whose ``page`` is a page the
  figure is printed on.
* ``consistency``: share of the accounting identities among the answer's own numbers that hold
  (gross profit = revenue − cost of sales; net income = profit before tax − tax; total assets =
  current + non-current assets = liabilities + equity = total liabilities and equity; total
  liabilities = current + non-current liabilities), within the rounding of the figures. An identity
  the document itself breaks is left out: a faithful transcription of an inconsistent filing is not
  penalised. With no identity to test it is 1 when the answer has a valid fact, else 0.
* ``no_invented``: 1 − the share of the answer's valid facts that claim a figure the ground truth
  does not hold (a metric/period the table does not print, or a second answer for the same figure).

Calling conventions relied on:

* TRL ``GRPOTrainer`` (``trl/trainer/grpo_trainer.py``, ``_calculate_rewards``) calls every custom
  reward function as ``reward_func(prompts=prompts, completions=completions,
  completion_ids=completion_ids_list, **reward_kwargs)``, where ``reward_kwargs`` holds every other
  dataset column as a list aligned with the completions (plus ``trainer_state`` and, in recent
  versions, ``log_extra``/``log_metric``); completions are strings in the standard format and lists
  of ``{"role", "content"}`` messages in the conversational format; ``None`` in the returned list
  means "not applicable" and becomes NaN. TRL documentation: "Using a custom reward function".
* verl: see :mod:`pipeline.rewards.verl_reward` (``compute_score``), which dispatches to this scorer.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.checks.tolerance import compare_sum, compare_values
from pipeline.figures.periods import parse_period
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy
from pipeline.statements.identities import IDENTITIES, Identity

__all__ = [
    "COMPONENTS",
    "WEIGHTS",
    "completion_text",
    "grpo_reward",
    "implied_decimals",
    "json_candidates",
    "parse_completion",
    "score_extraction",
    "sign_free",
]

WEIGHTS: dict[str, float] = {
    "well_formed": 0.10,
    "values": 0.50,
    "citations": 0.20,
    "consistency": 0.10,
    "no_invented": 0.10,
}
"""Weights of the components in the total; they sum to 1."""

COMPONENTS: tuple[str, ...] = tuple(WEIGHTS)

_REQUIRED = ("metric", "period", "value", "page")

# A value compared "exactly" still goes through compare_values so that one rounding model is used
# everywhere; half_unit(12) is 5e-13, far below any money amount.
_EXACT_DECIMALS = 12

# Liability totals are printed in parentheses by filers that present net assets (Northwind); the
# figure is the same either way, so its sign is not part of a right answer.
_SIGN_FREE_EXTRA: frozenset[str] = frozenset(
    {"total_liabilities", "total_current_liabilities", "total_non_current_liabilities"}
)


# --- parsing --------------------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def _fact_list(data: object) -> list[Any] | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        facts = data.get("facts")
        if isinstance(facts, list):
            return facts
    return None


def json_candidates(completion: str) -> Iterator[object]:
    """Every JSON value a model's answer may hold, most likely first.

    Tries, in order: the whole text, each fenced block, then every ``[`` or ``{`` from which a JSON
    value decodes (prose around the JSON is common with chat models). Reasoning inside
    ``<think>…</think>`` is dropped first so that a draft in the reasoning is not taken for the answer.

    Args:
        completion: The model's text.

    Yields:
        Decoded JSON values, to be validated by the caller.
    """
    text = _THINK.sub("", completion).strip()
    for candidate in [text, *(m.group(1).strip() for m in _FENCE.finditer(text))]:
        try:
            yield json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            data, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        yield data


def parse_completion(completion: str) -> list[Any] | None:
    """Find the fact list in a model's answer (where :func:`json_candidates` looks).

    Args:
        completion: The model's text.

    Returns:
        The list of items (not yet validated), or None when no JSON fact list is found.
    """
    for data in json_candidates(completion):
        found = _fact_list(data)
        if found is not None:
            return found
    return None


@dataclass(frozen=True, slots=True)
class _Claim:
    metric: str
    period: str
    value: float
    page: int


def _number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        value = float(raw)
    elif isinstance(raw, str):
        try:
            value = float(raw.replace(",", "").strip())
        except ValueError:
            return None
    else:
        return None
    return value if math.isfinite(value) else None


def _page(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw >= 1 else None
    if isinstance(raw, float) and raw.is_integer() and raw >= 1:
        return int(raw)
    if isinstance(raw, str) and raw.strip().isdigit() and int(raw) >= 1:
        return int(raw)
    return None


def _period_key(raw: str, known: frozenset[str]) -> str:
    """Map a period as the model wrote it to the engine's key ("2025" → "FY2025")."""
    text = raw.strip()
    if text in known:
        return text
    parsed = parse_period(text)
    return parsed.key if parsed is not None else text


def _claim(item: object, taxonomy: Taxonomy, periods: frozenset[str]) -> _Claim | None:
    if not isinstance(item, dict) or any(k not in item for k in _REQUIRED):
        return None
    metric, period = item["metric"], item["period"]
    if not isinstance(metric, str) or taxonomy.get(metric) is None:
        return None
    if not isinstance(period, str | int) or isinstance(period, bool) or not str(period).strip():
        return None
    value, page = _number(item["value"]), _page(item["page"])
    if value is None or page is None:
        return None
    return _Claim(metric, _period_key(str(period), periods), value, page)


# --- ground truth ---------------------------------------------------------------------------------


def implied_decimals(value: float) -> int:
    """Precision a bare number implies, in XBRL ``decimals``: ``1368900000.0`` → -5, ``1.25`` → 2.

    Args:
        value: A number in base units.

    Returns:
        Minus the count of trailing zeros of an integer, or the count of decimal places (at most 6).
    """
    if value == 0 or not math.isfinite(value):
        return 0
    if float(value).is_integer():
        digits = str(abs(int(value)))
        return -(len(digits) - len(digits.rstrip("0")))
    places = f"{abs(value):.6f}".rstrip("0").split(".")[1]
    return len(places)


@dataclass(frozen=True, slots=True)
class _Truth:
    metric: str
    period: str
    value: float
    decimals: int
    pages: frozenset[int]


def _truth(item: object, default_decimals: int) -> _Truth | None:
    if not isinstance(item, dict):
        return None
    metric, period, value = item.get("metric"), item.get("period"), _number(item.get("value"))
    if not isinstance(metric, str) or not isinstance(period, str) or value is None:
        return None
    raw_decimals = item.get("decimals")
    decimals = raw_decimals if isinstance(raw_decimals, int) else default_decimals
    raw_pages = item.get("pages")
    if raw_pages is None and "page" in item:
        raw_pages = [item["page"]]
    pages = frozenset(p for p in (_page(x) for x in raw_pages or ()) if p is not None)
    return _Truth(metric, period, value, decimals, pages)


def _load_truth(ground_truth: object) -> tuple[dict[tuple[str, str], _Truth], set[tuple[str, str]]] | None:
    """Index the ground truth by (metric, period); None when it is missing or unreadable."""
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except json.JSONDecodeError:
            return None
    if not isinstance(ground_truth, Mapping):
        return None
    facts = ground_truth.get("facts")
    if not isinstance(facts, list):
        return None
    # Without ``decimals``, one value's trailing zeros understate its precision (£40.0m reads as
    # 4·10^7): the finest precision implied across the document's figures is the printed one.
    implied = [
        implied_decimals(v)
        for v in (_number(f.get("value")) for f in facts if isinstance(f, dict) and "decimals" not in f)
        if v is not None
    ]
    default_decimals = max(implied, default=0)
    index: dict[tuple[str, str], _Truth] = {}
    for item in facts:
        truth = _truth(item, default_decimals)
        if truth is not None:
            index.setdefault((truth.metric, truth.period), truth)
    disputed: set[tuple[str, str]] = set()
    for item in ground_truth.get("disputed") or ():
        if isinstance(item, Mapping) and isinstance(item.get("metric"), str):
            disputed.add((str(item["metric"]), str(item.get("period"))))
    return index, disputed


# --- comparison -----------------------------------------------------------------------------------


def sign_free(metric: str, taxonomy: Taxonomy | None = None) -> bool:
    """Whether a metric's printed sign is a presentation choice (costs, tax, capex, liability totals).

    Args:
        metric: Metric id.
        taxonomy: Taxonomy to look the metric up in (the packaged one by default).

    Returns:
        True when figures of this metric are compared by magnitude.
    """
    definition = (taxonomy or load_taxonomy()).get(metric)
    return metric in _SIGN_FREE_EXTRA or (definition is not None and definition.magnitude_only)


def _value_right(value: float, truth: _Truth, taxonomy: Taxonomy) -> bool:
    expected = truth.value
    if sign_free(truth.metric, taxonomy):
        value, expected = abs(value), abs(expected)
    # The answer is right when it lies in the interval the printed figure stands for.
    return compare_values(value, _EXACT_DECIMALS, expected, truth.decimals).ok


def _identity_holds(
    identity: Identity, source: Mapping[tuple[str, str], tuple[float, int]], period: str
) -> bool:
    """Check ``total = Σ sign·part`` within rounding, trying both signs where the sign is free."""

    def term(metric: str, magnitude: bool) -> tuple[float, int]:
        value, decimals = source[(metric, period)]
        return (abs(value) if magnitude else value), decimals

    total = term(identity.result, identity.result_magnitude)
    for terms in identity.sign_choices():
        parts = [(sign * v, d) for o, sign in terms for v, d in [term(o.metric, o.magnitude)]]
        if compare_sum(total[0], total[1], parts).ok:
            return True
    return False


def _consistency(
    values: Mapping[tuple[str, str], tuple[float, int]],
    truth: Mapping[tuple[str, str], _Truth],
) -> tuple[int, int]:
    """Count (tested, passed) identities among the answer's numbers, per period."""
    tested = passed = 0
    truth_values = {k: (t.value, t.decimals) for k, t in truth.items()}
    for period in sorted({p for _, p in values}):
        for identity in IDENTITIES:
            keys = [(m, period) for m in identity.metrics]
            if any(k not in values for k in keys):
                continue
            if all(k in truth_values for k in keys) and not _identity_holds(identity, truth_values, period):
                continue  # the document itself does not add up here
            tested += 1
            passed += int(_identity_holds(identity, values, period))
    return tested, passed


# --- the scorer -----------------------------------------------------------------------------------


def _zero() -> dict[str, float]:
    return dict.fromkeys(COMPONENTS, 0.0)


def score_extraction(
    completion: str, ground_truth: Mapping[str, Any] | str
) -> tuple[float, dict[str, float]]:
    """Score a model's extracted figures against the document's checked facts.

    The formula and each component are described in the module docstring.

    Args:
        completion: The model's answer text.
        ground_truth: ``{"facts": [{"metric", "period", "value", "pages", "decimals"?}], "disputed"?}``
            or its JSON text.

    Returns:
        ``(total, components)``: the total in [0, 1] and each component in [0, 1]. Malformed JSON (or
        an unreadable ground truth) gives ``(0.0, all zeros)``.
    """
    loaded = _load_truth(ground_truth)
    items = parse_completion(completion)
    if loaded is None or items is None:
        return 0.0, _zero()
    truth, disputed = loaded
    taxonomy = load_taxonomy()
    known_periods = frozenset(p for _, p in truth) | frozenset(p for _, p in disputed)

    claims = [_claim(item, taxonomy, known_periods) for item in items]
    valid = [c for c in claims if c is not None]
    components = _zero()
    components["well_formed"] = len(valid) / len(items) if items else 0.0

    first: dict[tuple[str, str], _Claim] = {}
    invented = 0
    for c in valid:
        key = (c.metric, c.period)
        if key in disputed and key not in truth:
            continue  # neither rewarded nor penalised
        if key not in truth or key in first:
            invented += 1  # a figure the table does not print, or a second answer for one
            continue
        first[key] = c

    right = sum(_value_right(c.value, truth[k], taxonomy) for k, c in first.items())
    components["values"] = right / len(truth) if truth else 0.0
    if first:
        cited = sum(c.page in truth[k].pages for k, c in first.items())
        components["citations"] = cited / len(first)
    if valid:
        components["no_invented"] = 1.0 - invented / len(valid)
        # The answer's own numbers, at the printed precision where the figure is known.
        own: dict[tuple[str, str], tuple[float, int]] = {}
        for c in valid:
            key = (c.metric, c.period)
            decimals = truth[key].decimals if key in truth else implied_decimals(c.value)
            own.setdefault(key, (c.value, decimals))
        tested, passed = _consistency(own, truth)
        components["consistency"] = passed / tested if tested else 1.0

    total = math.fsum(WEIGHTS[name] * components[name] for name in COMPONENTS)
    return min(1.0, max(0.0, total)), components


# --- adapters -------------------------------------------------------------------------------------


def completion_text(completion: object) -> str:
    """Text of a completion in TRL's standard (str) or conversational (list of messages) format.

    Args:
        completion: A string, one message, or a list of messages.

    Returns:
        The assistant's text (empty when there is none).
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        content = completion.get("content")
        return content if isinstance(content, str) else ""
    if isinstance(completion, Sequence):
        # Conversational: the assistant's turn(s); TRL gives a one-message list.
        parts = [
            str(m.get("content") or "")
            for m in completion
            if isinstance(m, Mapping) and m.get("role", "assistant") == "assistant"
        ]
        return "\n".join(parts)
    return ""


def _truth_row(raw: object) -> Mapping[str, Any] | str | None:
    if isinstance(raw, str):
        return raw if raw.strip() else None
    return raw if isinstance(raw, Mapping) else None


def grpo_reward(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float | None]:
    """TRL ``GRPOTrainer`` reward function: one score per completion.

    TRL calls it as ``grpo_reward(prompts=..., completions=..., completion_ids=..., ground_truth=...,
    <other dataset columns>=..., trainer_state=...)``; every column is a list aligned with
    ``completions``. Only ``ground_truth`` is read (a JSON string or a dict per row); the others are
    accepted and ignored.

    Args:
        prompts: The prompts (unused; the ground truth carries what is needed).
        completions: Strings (standard format) or lists of ``{"role", "content"}`` messages
            (conversational format).
        **kwargs: Dataset columns; ``ground_truth`` is required for a row to be scored.

    Returns:
        The total of :func:`score_extraction` per completion, or None for a row without ground truth
        (TRL turns None into NaN and leaves the row to the other reward functions).
    """
    del prompts
    truths = kwargs.get("ground_truth")
    rows: list[Any] = list(truths) if isinstance(truths, Sequence) and not isinstance(truths, str) else []
    out: list[float | None] = []
    for i, completion in enumerate(completions):
        truth = _truth_row(rows[i] if i < len(rows) else None)
        if truth is None:
            out.append(None)
            continue
        out.append(score_extraction(completion_text(completion), truth)[0])
    return out
