"""A flag's confidence as a probability: calibrated on planted errors against flags on clean filings.

Each rule scores its own flags from its evidence (columns that prove a structure, anchors of a copy); the
localization adds what the document's other relations say (a unique keying-error change, figures pinned by
relations that hold). Those are the flag's *features* (:func:`features`, kept on the flag). A logistic
model over them, fitted by ``python -m bench.calibrate`` on the development files' planted runs (a flag that
catches a plant is a true finding) and untouched runs (every flag is a false alarm), turns them into the
probability that the flag is a real inconsistency. The fitted weights ship as
``pipeline/data/confidence.json`` with the queue threshold: the lowest confidence at which the estimated
precision of the flags at or above it is still at least the target (0.9).

Without the file, or for a rule it was not fitted on, the rule's own score stands.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

from schemas.models import Flag

__all__ = ["MODEL_FILE", "ConfidenceModel", "calibrate", "features", "queue_threshold", "shipped_model"]

_KEYING = frozenset({"swap", "digit", "digit_count", "sign", "scale"})
MODEL_FILE = "confidence.json"


def features(flag: Flag) -> dict[str, float]:
    """The evidence features of a flag (rule, its own score, what the localization found).

    Args:
        flag: A flag as the checks and the localization left it (its ``confidence`` the rule's score).

    Returns:
        Feature name to value, every value in [0, 1].
    """
    out: dict[str, float] = {f"rule:{flag.rule}": 1.0, "score": flag.confidence}
    out["evidence"] = min(len(flag.evidence), 8) / 8
    loc = flag.localization
    if loc is not None:
        out["localized"] = 1.0
        out["unique"] = 1.0 if loc.alternatives == 0 else 0.0
        out["keying"] = 1.0 if all(s in _KEYING for s in loc.signatures) else 0.0
        out["near_miss"] = 1.0 if "near_miss" in loc.signatures else 0.0
        out["pair"] = 1.0 if len(loc.figures) > 1 else 0.0
        out["pinned"] = min(loc.holding, 4) / 4
        out["repairs"] = min(len(loc.repairs), 4) / 4
    return out


@dataclass(frozen=True, slots=True)
class ConfidenceModel:
    """A fitted logistic model of a flag being real, and the queue threshold.

    Attributes:
        intercept: The model's intercept.
        weights: Feature name to weight.
        rules: The rules it was fitted on (others keep their own score).
        threshold: The lowest confidence whose flags and those above it were estimated at least ``target``
            precise on the development files.
        target: The precision the threshold keeps.
    """

    intercept: float
    weights: Mapping[str, float]
    rules: frozenset[str]
    threshold: float
    target: float

    def probability(self, feats: Mapping[str, float]) -> float:
        """The calibrated probability for the features."""
        z = self.intercept + sum(self.weights.get(k, 0.0) * v for k, v in feats.items())
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    def confidence(self, rule: str, feats: Mapping[str, float], own: float) -> float:
        """A flag's confidence: the probability for a rule the model was fitted on, else the rule's own."""
        return round(self.probability(feats), 4) if rule in self.rules else own

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ConfidenceModel:
        """The model from its JSON form (what ``bench.calibrate`` writes)."""
        weights = data["weights"]
        rules = data["rules"]
        assert isinstance(weights, dict) and isinstance(rules, list)
        return cls(
            intercept=float(str(data["intercept"])),
            weights={str(k): float(v) for k, v in weights.items()},
            rules=frozenset(str(r) for r in rules),
            threshold=float(str(data["threshold"])),
            target=float(str(data["target"])),
        )


@cache
def shipped_model() -> ConfidenceModel | None:
    """The model shipped in ``pipeline/data`` (None when it was never fitted)."""
    path = resources.files("pipeline") / "data" / MODEL_FILE
    if not path.is_file():
        return None
    return ConfidenceModel.from_json(json.loads(path.read_text(encoding="utf-8")))


def calibrate(flag: Flag, model: ConfidenceModel | None = None) -> Flag:
    """The flag with its features recorded and, for a rule the model knows, its calibrated confidence.

    Args:
        flag: A flag of the checks, after localization.
        model: The model; the shipped one by default.

    Returns:
        The flag with ``features`` set and ``confidence`` the model's probability where it applies.
    """
    model = model if model is not None else shipped_model()
    feats = features(flag)
    confidence = flag.confidence if model is None else model.confidence(flag.rule, feats, flag.confidence)
    return flag.model_copy(update={"features": feats, "confidence": confidence})


def queue_threshold(model: ConfidenceModel | None = None) -> float:
    """The confidence at or above which flags are in the analyst's default queue (0 without a model)."""
    model = model if model is not None else shipped_model()
    return model.threshold if model is not None else 0.0
