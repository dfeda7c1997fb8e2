"""Flag confidence as a probability (pipeline/checks/confidence.py) and its fit (bench/calibrate.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from bench.calibrate import fit, main, threshold_for
from pipeline.checks.confidence import ConfidenceModel, calibrate, features
from schemas.models import Evidence, Flag, Localization
from tests.support.records import flag


def _flag(rule: str = "TOT001", confidence: float = 0.8, loc: Localization | None = None) -> Flag:
    return flag(rule=rule, confidence=confidence, localization=loc)


def _loc(signature: str, alternatives: int = 0, holding: int = 2) -> Localization:
    return Localization(
        figures=[Evidence(page=1, text="a: 1,383", role="localized figure")], corrected=["1,338"],
        signatures=[signature], repairs=["r1"], holding=holding, alternatives=alternatives, note="n",
    )  # fmt: skip


def test_features_say_what_the_localization_found() -> None:
    assert features(_flag()) == {"rule:TOT001": 1.0, "score": 0.8, "evidence": 0.125}
    f = features(_flag(loc=_loc("swap")))
    assert f["localized"] == f["unique"] == f["keying"] == 1.0 and f["pinned"] == 0.5
    f = features(_flag(loc=_loc("other", alternatives=2)))
    assert f["unique"] == 0.0 and f["keying"] == 0.0


def test_a_model_turns_features_into_a_probability_for_the_rules_it_knows() -> None:
    model = ConfidenceModel(-2.0, {"keying": 3.0, "unique": 1.0}, frozenset({"TOT001"}), 0.7, 0.9)
    keyed = calibrate(_flag(loc=_loc("swap")), model)
    stale = calibrate(_flag(loc=_loc("other", alternatives=1)), model)
    assert keyed.confidence > 0.85 > stale.confidence and stale.confidence < 0.2
    assert keyed.features["keying"] == 1.0
    # A rule it was not fitted on keeps the rule's own score.
    assert calibrate(_flag(rule="NAR001", confidence=0.7), model).confidence == 0.7


def test_the_fit_separates_real_flags_and_the_threshold_keeps_the_target() -> None:
    rng = random.Random(3)
    x = np.array([[1.0 if i % 2 else 0.0, rng.random()] for i in range(400)])
    y = np.array(
        [1.0 if (row[0] and rng.random() < 0.95) or (not row[0] and rng.random() < 0.1) else 0.0 for row in x]
    )
    b, w = fit(x, y, l2=1.0)
    assert w[0] > 2.0 and abs(w[1]) < 1.0  # the informative feature carries the weight
    p = 1 / (1 + np.exp(-(b + x @ w)))
    t = threshold_for(p, y, 0.9)
    assert float(y[p >= t].mean()) >= 0.9  # the queue above the threshold keeps the target precision
    assert y[p >= t].sum() >= 0.9 * y[x[:, 0] == 1].sum()  # and holds the flags the feature marks real


def test_calibrate_writes_a_model_the_pipeline_loads(tmp_path: Path) -> None:
    labelled = [
        {
            "rule": "TOT001",
            "confidence": 0.8,
            "features": {"rule:TOT001": 1.0, "keying": 1.0},
            "real": i % 10 != 0,
        }
        for i in range(60)
    ] + [
        {
            "rule": "TOT001",
            "confidence": 0.8,
            "features": {"rule:TOT001": 1.0, "keying": 0.0},
            "real": i % 5 == 0,
        }
        for i in range(60)
    ]
    run = tmp_path / "planted.json"
    run.write_text(json.dumps({"splits": {"development": {"labelled_flags": labelled}}}), encoding="utf-8")
    out = tmp_path / "confidence.json"
    assert main([str(run), "--out", str(out)]) == 0
    model = ConfidenceModel.from_json(json.loads(out.read_text(encoding="utf-8")))
    assert model.rules == {"TOT001"} and model.weights["keying"] > 1.0
    assert (
        model.probability({"rule:TOT001": 1.0, "keying": 1.0}) > 0.8 > model.probability({"rule:TOT001": 1.0})
    )
    # No labelled flags of the validation split is ever read: a run without development flags is refused.
    run.write_text(json.dumps({"splits": {"validation": {"false_flags": 3}}}), encoding="utf-8")
    assert main([str(run), "--out", str(out)]) == 2
