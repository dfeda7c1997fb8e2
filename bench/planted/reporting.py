"""Reporting by split: the development files in full, the validation split as aggregates, side by side.

The validation split's flags are read here only to measure (issue 23): no file, flag or plant of it is
printed or written, and the confidence model is fitted on the development files alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.calibrate import fit_labelled, reliability_table
from bench.planted.running import SPLITS, Outcome
from bench.planted.scoring import pct, score

__all__ = ["score_splits"]


def _subset(outcome: Outcome, names: set[str]) -> Outcome:
    return Outcome(
        files=[f for f in outcome.files if f in names],
        clean={k: v for k, v in outcome.clean.items() if k in names},
        plants=[p for p in outcome.plants if p["file"] in names],
        seconds=outcome.seconds,
    )


def _validation_refit(summaries: dict[str, dict[str, Any]], hidden: Sequence[dict[str, Any]]) -> list[str]:
    """The validation split's reliability with the confidence ``bench.calibrate`` would ship.

    The model is fitted on the development files' flags only and then measured on the validation split's
    (``hidden``: used here for the figures and nowhere else, never printed or written).
    """
    model = fit_labelled(summaries["development"]["labelled_flags"])
    if model is None:
        return []
    refit = [
        {"confidence": model.confidence(f["rule"], f["features"], f["confidence"]), "real": f["real"]}
        for f in hidden
    ]
    table = reliability_table(refit)
    above = [f for f in refit if f["confidence"] is not None and f["confidence"] >= model.threshold]
    precision = sum(f["real"] for f in above) / len(above) if above else None
    val = summaries["validation"]
    val["reliability_refit_on_development"] = table
    val["queue_above_threshold"] = {"threshold": model.threshold, "flags": len(above), "precision": precision}
    shown = "n/a" if precision is None else f"{precision:.2f}"
    out = [
        "== validation split: confidence fitted on the development files (bench.calibrate)",
        f"queue threshold {model.threshold:.4f}: {len(above)} flags at or above it, precision {shown}",
    ]
    for line in table:
        observed = "n/a" if line["observed"] is None else f"{line['observed']:.2f}"
        out.append(f"  {line['bin']:<10} {line['flags']:>6} {line['predicted']:>8.2f} {observed:>8}")
    return [*out, ""]


def score_splits(
    outcome: Outcome, kinds: Sequence[str], seeds: Sequence[int], splits: dict[str, str]
) -> tuple[list[str], dict[str, Any]]:
    """:func:`score` per split (development in full, validation as aggregates), then the two side by side.

    Returns:
        Printable lines and ``{"splits": {name: summary}, "side_by_side": {row: {split: value}}}``.
    """
    lines: list[str] = []
    summaries: dict[str, dict[str, Any]] = {}
    for name in SPLITS:
        names = {f for f in outcome.files if splits.get(f, "development") == name}
        if not names:
            continue
        details = name != "validation"
        part_lines, summaries[name] = score(_subset(outcome, names), kinds, seeds, details=details)
        title = "development files" if name == "development" else "validation split (aggregates only)"
        lines += [f"== {title}", *part_lines, ""]
    if len(summaries) > 1:
        _, summaries["all"] = score(outcome, kinds, seeds, details=False)
    if "development" in summaries and "validation" in summaries:
        names = {f for f in outcome.files if splits.get(f, "development") == "validation"}
        _, hidden = score(_subset(outcome, names), kinds, seeds, details=True)
        lines += _validation_refit(summaries, hidden["labelled_flags"])
    rows: dict[str, dict[str, Any]] = {}
    for name, sm in summaries.items():
        rows.setdefault("files", {})[name] = sm["files"] if isinstance(sm["files"], int) else len(sm["files"])
        rows.setdefault("pages", {})[name] = sm["pages"]
        for kind in kinds:
            rows.setdefault(f"{kind} caught %", {})[name] = sm["by_kind"][kind]["rate"]
        rows.setdefault("all kinds caught %", {})[name] = sm["overall"]["rate"]
        rows.setdefault("plants run", {})[name] = sm["overall"]["planted"]
        rows.setdefault("false flags", {})[name] = sm["false_flags"]
        rows.setdefault("false flags / 100 pages", {})[name] = sm["false_flags_per_100_pages"]
        rows.setdefault("precision on planted copies %", {})[name] = sm["planted_copies"]["precision"]
        rows.setdefault("structure questions / 100 pages", {})[name] = sm["structure_questions_per_100_pages"]
        rows.setdefault("localization ms / page", {})[name] = sm["localize_ms_per_page"]
    cols = list(summaries)
    lines.append("== side by side")
    lines.append(f"{'':<32}" + "".join(f"{c:>14}" for c in cols))
    for row, values in rows.items():
        cells = []
        for c in cols:
            v = values.get(c)
            if v is None:
                cells.append("n/a")
            elif "%" in row:
                cells.append(pct(v))
            elif isinstance(v, float):
                cells.append(f"{v:.3f}")
            else:
                cells.append(str(v))
        lines.append(f"{row:<32}" + "".join(f"{x:>14}" for x in cells))
    return lines, {"splits": summaries, "side_by_side": rows}
