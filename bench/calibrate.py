"""Fit the flags' confidence (pipeline/checks/confidence.py) on a planted-errors run's development files.

Reads the JSON of ``python -m bench.planted_errors --json OUT`` and fits, on the development split only (the
validation split's flags are never read here), a logistic model of a flag being real from its features: a
flag that caught a plant is real, a flag of an untouched run or one a plant added elsewhere is a false alarm.
L2-regularised, fitted by Newton's method (numpy). Then the queue threshold: the lowest confidence at which
the flags at or above it are at least ``--target`` precise, estimated by 5-fold cross-validation so that the
threshold is not read off the very flags it was fitted on. Writes ``pipeline/data/confidence.json`` (or
``--out``) and prints the reliability table (predicted against observed precision per bin) of the
cross-validated predictions.

Usage::

    python -m bench.calibrate PLANTED.json [--target 0.9] [--l2 1.0] [--out pipeline/data/confidence.json]

The fit is only as good as the plants are like real errors: the planted kinds are keying errors (swap,
drop, double, sign, scale) in table figures printed at least twice. A stale copy or a wrong narrative
figure is not among them; their flags keep the features they have, fitted through their rule's one-hot.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.checks.confidence import ConfidenceModel

CONFIDENCE_BINS = (0.0, 0.5, 0.7, 0.8, 0.9, 1.0)


def _in_bin(value: float, lo: float, hi: float) -> bool:
    return lo <= value < hi or (hi == 1.0 and value == 1.0)


def reliability_table(labelled: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Predicted (mean confidence) against observed precision, per confidence bin."""
    rows: list[dict[str, Any]] = []
    for lo, hi in itertools.pairwise(CONFIDENCE_BINS):
        inside = [f for f in labelled if f["confidence"] is not None and _in_bin(f["confidence"], lo, hi)]
        n = len(inside)
        rows.append({
            "bin": f"{lo:.1f}-{hi:.1f}",
            "flags": n,
            "predicted": sum(f["confidence"] for f in inside) / n if n else (lo + hi) / 2,
            "observed": sum(f["real"] for f in inside) / n if n else None,
        })  # fmt: skip
    return rows


DEFAULT_OUT = Path(__file__).resolve().parents[1] / "pipeline" / "data" / "confidence.json"
MIN_RULE_FLAGS = 5
"""A rule with fewer labelled flags than this is not calibrated (it keeps its own score)."""


def design(flags: Sequence[dict[str, Any]], names: Sequence[str]) -> np.ndarray:
    """The feature matrix, one row per flag, one column per feature name."""
    x = np.zeros((len(flags), len(names)))
    index = {n: i for i, n in enumerate(names)}
    for r, f in enumerate(flags):
        for k, v in f["features"].items():
            if k in index:
                x[r, index[k]] = float(v)
    return x


def fit(x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 50) -> tuple[float, np.ndarray]:
    """Logistic regression with an L2 penalty on the weights (not the intercept), by Newton's method."""
    n, k = x.shape
    a = np.hstack([np.ones((n, 1)), x])
    w = np.zeros(k + 1)
    penalty = np.eye(k + 1) * l2
    penalty[0, 0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -40, 40)))
        grad = a.T @ (p - y) + penalty @ w
        hess = a.T @ (a * (p * (1 - p))[:, None]) + penalty + np.eye(k + 1) * 1e-9
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return float(w[0]), w[1:]


def predict(intercept: float, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(intercept + x @ weights, -40, 40))))


def cross_validated(x: np.ndarray, y: np.ndarray, l2: float, folds: int = 5) -> np.ndarray:
    """Each flag's probability from a model fitted without its fold (folds drawn with a fixed seed)."""
    out = np.zeros(len(y))
    fold = np.random.default_rng(20261201).permutation(len(y)) % folds
    for k in range(folds):
        test = fold == k
        b, w = fit(x[~test], y[~test], l2)
        out[test] = predict(b, w, x[test])
    return out


def threshold_for(probabilities: np.ndarray, y: np.ndarray, target: float) -> float:
    """The lowest probability whose flags at or above it are at least ``target`` precise (1.0 if none)."""
    best = 1.0
    for t in sorted(set(probabilities.tolist()), reverse=True):
        above = probabilities >= t
        if float(y[above].mean()) >= target:
            best = t  # the lowest so far whose queue keeps the target: the most real flags in the queue
    return math.floor(best * 10_000) / 10_000  # rounded down: the flags it was read from stay above it


@dataclass(frozen=True)
class Fitted:
    """A fit: the shippable model, and the cross-validated probabilities of the flags it was fitted on."""

    model: ConfidenceModel
    names: list[str]
    held_out: np.ndarray
    y: np.ndarray
    flags: list[dict[str, Any]]


def fit_all(labelled: Sequence[dict[str, Any]], target: float = 0.9, l2: float = 1.0) -> Fitted | None:
    """Fit on labelled flags (rules with enough of them); None when there are not both kinds to fit."""
    flags = [f for f in labelled if f["features"]]
    per_rule: dict[str, int] = {}
    for f in flags:
        per_rule[f["rule"]] = per_rule.get(f["rule"], 0) + 1
    rules = sorted(r for r, n in per_rule.items() if n >= MIN_RULE_FLAGS)
    flags = [f for f in flags if f["rule"] in rules]
    if not flags or len({f["real"] for f in flags}) < 2:
        return None
    names = sorted({k for f in flags for k in f["features"]})
    x = design(flags, names)
    y = np.array([1.0 if f["real"] else 0.0 for f in flags])
    held_out = cross_validated(x, y, l2)
    threshold = threshold_for(held_out, y, target)
    intercept, weights = fit(x, y, l2)
    model = ConfidenceModel(
        intercept=round(intercept, 6),
        weights={n: round(float(w), 6) for n, w in zip(names, weights, strict=True)},
        rules=frozenset(rules),
        threshold=threshold,
        target=target,
    )
    return Fitted(model, names, held_out, y, flags)


def fit_labelled(labelled: Sequence[dict[str, Any]], target: float = 0.9) -> ConfidenceModel | None:
    """The model :func:`main` would ship for these labelled flags."""
    fitted = fit_all(labelled, target)
    return None if fitted is None else fitted.model


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description="Fit the flags' confidence on planted errors.")
    parser.add_argument("planted", type=Path, help="JSON written by python -m bench.planted_errors --json")
    parser.add_argument("--target", type=float, default=0.9, help="precision the queue threshold keeps")
    parser.add_argument("--l2", type=float, default=1.0, help="L2 penalty on the weights")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the model")
    args = parser.parse_args(argv)

    run = json.loads(args.planted.read_text(encoding="utf-8"))
    dev = run.get("splits", {}).get("development")
    if dev is None or "labelled_flags" not in dev:
        print(f"{args.planted}: no development split with labelled flags (run bench.planted_errors first)")
        return 2
    fitted = fit_all(dev["labelled_flags"], args.target, args.l2)
    if fitted is None:
        print("not enough labelled flags of both kinds to fit")
        return 2
    m, y = fitted.model, fitted.y
    table = reliability_table(
        [{"confidence": float(p), "real": bool(r)} for p, r in zip(fitted.held_out, y, strict=True)]
    )
    rules, threshold = sorted(m.rules), m.threshold
    model = {
        "version": 1,
        "fitted_on": str(run.get("command", args.planted)),
        "flags": len(fitted.flags),
        "real": int(y.sum()),
        "rules": rules,
        "intercept": m.intercept,
        "weights": dict(m.weights),
        "threshold": threshold,
        "target": args.target,
        "reliability_cross_validated": table,
    }
    args.out.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    print(f"{len(fitted.flags)} labelled flags ({int(y.sum())} real) of rules {', '.join(rules)}")
    print(f"wrote {args.out}")
    print(f"queue threshold {threshold:.4f}: flags at or above it estimated >= {args.target:.0%} precise")
    print(f"{'bin':<10} {'flags':>6} {'predicted':>9} {'observed':>9}  (5-fold cross-validated)")
    for row in table:
        observed = "n/a" if row["observed"] is None else f"{row['observed']:.2f}"
        print(f"{row['bin']:<10} {row['flags']:>6} {row['predicted']:>9.2f} {observed:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
