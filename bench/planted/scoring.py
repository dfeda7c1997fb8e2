"""Scoring: which plants the engine caught (a flag the clean run lacks, on the plant), and the report.

Flags are matched between a clean run and its planted copy by :func:`flag_key`, not by ``flag_id``: the
engine hashes the document id into every ``flag_id``, so every flag of a planted copy would look new.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from bench.calibrate import reliability_table
from bench.planted.candidates import STATEMENTS
from bench.planted.mutations import KINDS, parse_amount
from bench.planted.running import Outcome
from bench.planted.tasks import FlagRec, PlantResult

__all__ = [
    "SCALES",
    "TARGET_ALL",
    "TARGET_FALSE_PER_100",
    "TARGET_SWAP",
    "carries_figure",
    "catching_flag",
    "flag_key",
    "labelled_flags",
    "mentions",
    "pct",
    "plant_record",
    "score",
]

# Issue 23's acceptance, which the validation split is measured against: swapped digits caught >= 90 %,
# every kind together >= 85 %, <= 0.1 false flags per 100 untouched pages (before it: 80 % and 0.2).
TARGET_SWAP = 0.90
TARGET_ALL = 0.85
TARGET_FALSE_PER_100 = 0.1

SCALES = (1.0, 1e3, 1e6, 1e9)


def _digits_re(token: str) -> re.Pattern[str] | None:
    amount = parse_amount(token, strict=False)
    if amount is None:
        return None
    return re.compile(rf"(?<![\d.,]){re.escape(amount.core)}(?![\d]|[.,]\d)")


def mentions(text: str, tokens: Sequence[str]) -> bool:
    """Whether ``text`` prints the digits of one of ``tokens`` as a whole number (not in ``11,234``)."""
    for token in tokens:
        pattern = _digits_re(token)
        if pattern is not None and pattern.search(text):
            return True
    return False


def flag_key(flag: FlagRec, tokens: Sequence[str] = ()) -> tuple[Any, ...]:
    """A flag's identity across a document and its planted copy.

    The engine's ``flag_id`` hashes the rule, the document id, the metric, the period and every evidence's
    (page, box, role, text); the document id is the sha256 of the PDF's bytes, so it changes with any
    plant. This key is the same recipe without the document id, and evidence that prints one of
    ``tokens`` (the planted figure, old or new) is reduced to its page and role: a flag that the clean run
    already raised on the same figure is then the same flag, not a catch.
    """
    evidence: list[tuple[int, str, str, tuple[float, ...]]] = []
    for e in flag["evidence"]:
        if tokens and mentions(e["text"], tokens):
            evidence.append((e["page"], e["role"], "*", ()))
        else:
            box = tuple(round(x, 1) for x in e["bbox"]) if e["bbox"] else ()
            evidence.append((e["page"], e["role"], e["text"], box))
    return (flag["rule"], flag["metric"], flag["period"], tuple(sorted(evidence)))


def carries_figure(flag: FlagRec, old: str, new: str) -> bool:
    """Whether the flag holds the old or the new figure: as a value (±v×10^k, k ∈ {0, 3, 6, 9}; relative
    tolerance 1e-9 or absolute 1e-6) in its evidence, expected or actual, or as printed digits in an
    evidence text."""
    amounts = (parse_amount(old, strict=False), parse_amount(new, strict=False))
    targets = [abs(a.value) for a in amounts if a is not None]
    values = [e["value"] for e in flag["evidence"]] + [flag["expected"], flag["actual"]]
    for v in values:
        if v is None:
            continue
        for t in targets:
            if any(math.isclose(abs(v), t * k, rel_tol=1e-9, abs_tol=1e-6) for k in SCALES):
                return True
    return any(mentions(e["text"], (old, new)) for e in flag["evidence"])


def catching_flag(
    planted: Sequence[FlagRec], clean: Sequence[FlagRec], page: int, old: str, new: str
) -> FlagRec | None:
    """The first flag of the planted run that catches the plant, or None (missed).

    A flag catches it when the clean run has no flag with the same :func:`flag_key`, its pages include the
    planted page, and it carries the old or new figure (:func:`carries_figure`).
    """
    tokens = (old, new)
    before = {flag_key(f, tokens) for f in clean}
    for flag in planted:
        if page in flag["pages"] and carries_figure(flag, old, new) and flag_key(flag, tokens) not in before:
            return flag
    return None


# --- the report ------------------------------------------------------------------------------------


def _rate(caught: int, planted: int) -> float | None:
    return caught / planted if planted else None


def pct(rate: float | None) -> str:
    """A rate as the report prints it (``"84.1%"``, or ``"n/a"`` when nothing was measured)."""
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def plant_record(p: PlantResult, clean_flags: Sequence[FlagRec]) -> dict[str, Any]:
    """One plant as reported: where, what, and whether (and by which flag) it was caught.

    ``new_flags`` lists the planted run's flags that the clean run does not have (by :func:`flag_key`),
    caught or not, so a near miss (a flag on another page, or without the figure) can be looked at.
    """
    cand, run, new = p["candidate"], p["run"], p["new"]
    rec: dict[str, Any] = {
        "file": p["file"], "seed": p["seed"], "kind": p["kind"], "status": p["status"], "error": p["error"],
        "discarded": p["discarded"], "seconds": round(p["seconds"], 2), "page": None, "bbox": None,
        "old": None, "new": new, "statement": None, "caught": None, "rule": None, "flag_id": None,
        "message": None, "new_flags": [], "new_on_plant": 0,
    }  # fmt: skip
    if p["status"] != "ok" or cand is None or run is None or new is None:
        return rec
    flag = catching_flag(run["flags"], clean_flags, cand.page, cand.text, new)
    rec.update(page=cand.page, bbox=list(cand.bbox), old=cand.text, statement=cand.statement)
    rec["caught"] = flag is not None
    if flag is not None:
        rec.update(rule=flag["rule"], flag_id=flag["flag_id"], message=flag["message"])
    before = {flag_key(f, (cand.text, new)) for f in clean_flags}
    added = [f for f in run["flags"] if flag_key(f, (cand.text, new)) not in before]
    on_plant = [cand.page in f["pages"] and carries_figure(f, cand.text, new) for f in added]
    rec["new_flags"] = [
        {"rule": f["rule"], "pages": f["pages"], "message": f["message"], "on_plant": hit,
         "confidence": f.get("confidence"), "features": f.get("features", {})}
        for f, hit in zip(added, on_plant, strict=True)
    ]  # fmt: skip
    rec["new_on_plant"] = sum(on_plant)
    return rec


def score(
    outcome: Outcome, kinds: Sequence[str], seeds: Sequence[int], *, details: bool = True
) -> tuple[list[str], dict[str, Any]]:
    """Score the plants against the clean runs and format the report.

    Args:
        outcome: What the run produced.
        kinds: The error kinds planted.
        seeds: The seeds used.
        details: Include the per-file table, every plant and every clean flag. Off for the validation
            split: its figures are read as aggregates only.

    Returns:
        Printable lines and the JSON-ready summary.
    """
    plants: list[dict[str, Any]] = []
    tally: dict[str, dict[str, list[int]]] = {
        "kind": defaultdict(lambda: [0, 0]),
        "statement": defaultdict(lambda: [0, 0]),
    }
    per_file: dict[str, dict[str, Any]] = {}
    for name in outcome.files:
        clean = outcome.clean.get(name)
        run = clean["run"] if clean else None
        per_file[name] = {
            "pages": run["pages"] if run else None,
            "candidates": len(clean["candidates"]) if clean else 0,
            "clean_flags": len(run["flags"]) if run else None,
            "clean_error": clean["error"] if clean else "not run",
            "planted": 0,
            "caught": 0,
        }
    ordered = sorted(
        outcome.plants, key=lambda p: (outcome.files.index(p["file"]), p["seed"], KINDS.index(p["kind"]))
    )
    for p in ordered:
        cr = outcome.clean.get(p["file"])
        rec = plant_record(p, cr["run"]["flags"] if cr and cr["run"] else [])
        if rec["caught"] is not None:
            for axis, value in (("kind", rec["kind"]), ("statement", rec["statement"])):
                tally[axis][value][0] += 1
                tally[axis][value][1] += rec["caught"]
            per_file[p["file"]]["planted"] += 1
            per_file[p["file"]]["caught"] += rec["caught"]
        plants.append(rec)

    clean_flags_out = [
        {"file": name, "rule": f["rule"], "page": f["pages"][0] if f["pages"] else None, "pages": f["pages"],
         "message": f["message"], "flag_id": f["flag_id"], "confidence": f.get("confidence"),
         "features": f.get("features", {})}
        for name in outcome.files
        if (cr := outcome.clean.get(name)) and cr["run"]
        for f in cr["run"]["flags"]
    ]  # fmt: skip
    worker_s = sum(c["seconds"] for c in outcome.clean.values()) + sum(p["seconds"] for p in outcome.plants)
    total_pages = sum(f["pages"] or 0 for f in per_file.values())
    total_clean = len(clean_flags_out)
    false_per_100 = 100 * total_clean / total_pages if total_pages else None
    planted_n = sum(v[0] for v in tally["kind"].values())
    caught_n = sum(v[1] for v in tally["kind"].values())
    overall = _rate(caught_n, planted_n)
    swap = tally["kind"].get("swap", [0, 0])
    swap_rate = _rate(swap[1], swap[0])
    status_counts = Counter(p["status"] for p in plants)
    # Precision of what the analyst sees on a planted copy: of the flags the plant added, how many are it.
    new_total = sum(len(p["new_flags"]) for p in plants if p["caught"] is not None)
    new_on_plant = sum(p["new_on_plant"] for p in plants if p["caught"] is not None)
    planted_precision = _rate(new_on_plant, new_total)
    false_by_rule = Counter(str(f["rule"]) for f in clean_flags_out)
    labelled = labelled_flags(plants, clean_flags_out)
    reliability = reliability_table(labelled)
    clean_runs = [cr["run"] for name in outcome.files if (cr := outcome.clean.get(name)) and cr["run"]]
    questions = sum(r.get("questions", 0) for r in clean_runs)
    questions_per_100 = 100 * questions / total_pages if total_pages else None
    localize_ms_per_page = (
        1000 * sum(r.get("localize_seconds", 0.0) for r in clean_runs) / total_pages if total_pages else None
    )
    discarded = sum(p["discarded"] for p in plants)
    discarded_by_kind = Counter({k: sum(p["discarded"] for p in plants if p["kind"] == k) for k in kinds})

    lines = [
        f"files {len(outcome.files)}, pages {total_pages}, seeds {','.join(map(str, seeds))}, "
        f"kinds {','.join(kinds)}, wall time {outcome.seconds:.0f} s "
        f"(tasks took {worker_s:.0f} s of worker time)",
        f"plants: {status_counts['ok']} run, {status_counts['unverified']} unverified (all tries discarded), "
        f"{status_counts['no_candidate']} without candidate, {status_counts['error']} errors; "
        f"{discarded} plant attempts discarded by verification "
        f"({', '.join(f'{k} {discarded_by_kind[k]}' for k in kinds)})",
        "",
    ]
    for axis, keys in (("kind", list(kinds)), ("statement", list(STATEMENTS))):
        lines.append(f"{'by ' + axis:<16} {'planted':>8} {'caught':>8} {'%':>8}")
        for key in keys:
            n, c = tally[axis].get(key, [0, 0])
            if axis == "statement" and n == 0:
                continue
            lines.append(f"{key:<16} {n:>8} {c:>8} {pct(_rate(c, n)):>8}")
        lines.append(f"{'all':<16} {planted_n:>8} {caught_n:>8} {pct(overall):>8}")
        lines.append("")
    header = f"{'file':<46} {'pages':>5} {'cands':>6} {'clean':>5} {'/100p':>6} {'planted':>7} {'caught':>6}"
    for name, f in per_file.items() if details else ():
        if name == next(iter(per_file)):
            lines.append(header)
        pages = f["pages"] or 0
        rate = f"{100 * f['clean_flags'] / pages:.2f}" if pages and f["clean_flags"] is not None else "n/a"
        note = f"  error: {f['clean_error']}" if f["clean_error"] else ""
        lines.append(
            f"{name[:46]:<46} {pages:>5} {f['candidates']:>6} {f['clean_flags'] or 0:>5} {rate:>6} "
            f"{f['planted']:>7} {f['caught']:>6}{note}"
        )
    if details:
        lines.append("")
    fp_text = "n/a" if false_per_100 is None else f"{false_per_100:.3f}"
    lines.append(f"false flags: {total_clean} on {total_pages} untouched pages = {fp_text} per 100 pages")
    lines.append(
        "false flags by rule: "
        + (", ".join(f"{r} {n}" for r, n in sorted(false_by_rule.items(), key=_by_count)) or "none")
    )
    lines.append(
        f"precision on planted copies: {new_on_plant} of the {new_total} flags the plants added are the "
        f"planted error ({pct(planted_precision)})"
    )
    lines.append("reliability (confidence bin: flags, mean confidence, observed precision):")
    for row in reliability:
        observed = "n/a" if row["observed"] is None else f"{row['observed']:.2f}"
        lines.append(f"  {row['bin']:<10} {row['flags']:>6} {row['predicted']:>8.2f} {observed:>8}")
    q_text = "n/a" if questions_per_100 is None else f"{questions_per_100:.3f}"
    ms_text = "n/a" if localize_ms_per_page is None else f"{localize_ms_per_page:.2f}"
    lines.append(
        f"structure questions: {questions} on the untouched pages = {q_text} per 100 pages; "
        f"localization {ms_text} ms per page"
    )
    targets = {
        "swap_caught": (TARGET_SWAP, swap_rate, None if swap_rate is None else swap_rate >= TARGET_SWAP),
        "all_caught": (TARGET_ALL, overall, None if overall is None else overall >= TARGET_ALL),
        "false_flags_per_100_pages": (
            TARGET_FALSE_PER_100,
            false_per_100,
            None if false_per_100 is None else false_per_100 <= TARGET_FALSE_PER_100,
        ),
    }
    lines.append(
        f"target swap caught >= {TARGET_SWAP:.0%}: {pct(swap_rate)}  {_verdict(targets['swap_caught'][2])}"
    )
    lines.append(
        f"target all kinds caught >= {TARGET_ALL:.0%}: {pct(overall)}  {_verdict(targets['all_caught'][2])}"
    )
    lines.append(
        f"target false flags <= {TARGET_FALSE_PER_100} per 100 pages: {fp_text}  "
        f"{_verdict(targets['false_flags_per_100_pages'][2])}"
    )
    summary: dict[str, Any] = {
        "seeds": list(seeds),
        "kinds": list(kinds),
        "files": per_file,
        "pages": total_pages,
        "wall_seconds": round(outcome.seconds, 1),
        "worker_seconds": round(worker_s, 1),
        "by_kind": {k: _axis(tally["kind"].get(k, [0, 0])) for k in kinds},
        "by_statement": {s: _axis(v) for s in STATEMENTS if (v := tally["statement"].get(s))},
        "overall": _axis([planted_n, caught_n]),
        "false_flags": total_clean,
        "false_flags_per_100_pages": false_per_100,
        "false_flags_by_rule": dict(false_by_rule),
        "reliability": reliability,
        "structure_questions": questions,
        "structure_questions_per_100_pages": questions_per_100,
        "localize_ms_per_page": localize_ms_per_page,
        "planted_copies": {
            "new_flags": new_total,
            "on_the_plant": new_on_plant,
            "precision": planted_precision,
        },
        "status": dict(status_counts),
        "discarded": discarded,
        "discarded_by_kind": dict(discarded_by_kind),
        "targets": {k: {"target": t, "value": v, "pass": ok} for k, (t, v, ok) in targets.items()},
        "plants": plants,
        "clean_flags": clean_flags_out,
    }
    if not details:
        summary["files"] = len(per_file)
        del summary["plants"], summary["clean_flags"]
    else:
        summary["labelled_flags"] = labelled
    return lines, summary


def labelled_flags(
    plants: Sequence[dict[str, Any]], clean_flags: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every flag with its label, for calibration and the reliability table.

    A flag a plant added on the planted figure is a real finding; every flag of an untouched run, and a flag
    a plant added elsewhere, is a false alarm.
    """
    out = [
        {
            "rule": f["rule"],
            "confidence": f.get("confidence"),
            "features": f.get("features", {}),
            "real": bool(f["on_plant"]),
        }
        for p in plants
        if p["caught"] is not None
        for f in p["new_flags"]
    ]
    out += [
        {
            "rule": f["rule"],
            "confidence": f.get("confidence"),
            "features": f.get("features", {}),
            "real": False,
        }
        for f in clean_flags
    ]
    return out


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _axis(counts: Sequence[int]) -> dict[str, Any]:
    return {"planted": counts[0], "caught": counts[1], "rate": _rate(counts[1], counts[0])}
