"""Draft-to-draft figure diff: generated pairs against their truth, and the matched share on real years.

Generated pairs (``sample_docs.drafts``, one a seed): each pair's two PDFs run through the engine in
process, :func:`pipeline.across.diff_documents` compares them, and its changes are matched one to one with
the truth's: same kind, same period, the same old and new printings (text and page) and the truth's line
label at the start of the engine's (the engine keeps a note reference printed after a label). Reported per
seed and in total: changes found / expected, false changes (found, not in the truth: must be 0), the
broken tie found with a VER001 flag, the repaired tie found, and no other tie broken or repaired.

Real pairs (``--real``, development split only): consecutive 10-Ks of one issuer; how many of the earlier
year's statement figures find a partner in the later one by statement, line and column (period key included,
so the later year's comparative column meets the earlier year's current column; whether their values agree
is the prior-period check's business, not this bench's), and that share among the figures whose period the
later filing prints at all (the earliest year drops out of the later filing). The engine takes a minute or
two a 10-K here: results are cached as DocumentResult JSON under ``$TIEOUT_CACHE/bench/drafts`` (default
``~/.cache/tieout``), keyed by the file's document id and the pipeline version (delete the folder after
changing the engine without bumping it).

Usage::

    python -m bench.drafts [--seeds 0-9] [--real] [--json bench/results/drafts.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as ``python bench/drafts.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir
from bench.planted.running import split_of
from pipeline.across import diff_documents
from pipeline.figures.taxonomy import normalise_label
from sample_docs.drafts import render_pair, seed_range
from schemas.models import DocumentChanges, DocumentResult, FigureChange

REAL_PAIRS = (
    ("3M_2020", "3M_2021"),
    ("ADOBE_2020", "ADOBE_2021"),
    ("EBAY_2020", "EBAY_2021"),
    ("CORNING_2016", "CORNING_2017"),
    ("PG_E_2020", "PG_E_2021"),
)
"""Consecutive 10-Ks of the development split (``financebench__<name>_10K.pdf``)."""


def _printing(e: Any) -> tuple[int, str] | None:
    if e is None:
        return None
    if isinstance(e, dict):
        return int(e["page"]), "".join(str(e["text"]).split())
    return e.page, "".join(e.text.split())


def _same_line(truth_line: str, found_line: str) -> bool:
    want, got = normalise_label(truth_line), normalise_label(found_line)
    return got == want or got.startswith(want + " ")


def _matches(truth: dict[str, Any], found: FigureChange) -> bool:
    return (
        truth["kind"] == found.kind
        and truth["period"] == found.place.period
        and _printing(truth["old"]) == _printing(found.old)
        and _printing(truth["new"]) == _printing(found.new)
        and _same_line(truth["line"], found.place.line)
    )


def score_pair(truth: dict[str, Any], changes: DocumentChanges) -> dict[str, Any]:
    """One generated pair: the diff's changes and ties against the truth's.

    Args:
        truth: The pair's truth (``sample_docs.drafts.render_pair``).
        changes: What :func:`pipeline.across.diff_documents` found.

    Returns:
        Counts (expected, found, false, missed by kind) and whether the broken and repaired ties were found.
    """
    left = list(changes.changes)
    missed: list[dict[str, Any]] = []
    for want in truth["changes"]:
        hit = next((f for f in left if _matches(want, f)), None)
        if hit is None:
            missed.append(want)
        else:
            left.remove(hit)

    def tie_found(want: dict[str, Any], status: str) -> bool:
        return any(
            t.status == status and t.place.period == want["period"] and _same_line(want["line"], t.place.line)
            for t in changes.ties
        )

    broken = [tie_found(t, "broke") for t in truth["ties"]["broken"]]
    repaired = [tie_found(t, "repaired") for t in truth["ties"]["repaired"]]
    flagged = {t.flag_id for t in changes.ties if t.status == "broke" and t.flag_id}
    return {
        "seed": truth["seed"],
        "expected": len(truth["changes"]),
        "expected_by_kind": dict(Counter(c["kind"] for c in truth["changes"])),
        "found": len(changes.changes),
        "found_true": len(truth["changes"]) - len(missed),
        "false_changes": len(left),
        "false": [f"{f.kind} {f.place.line} {f.place.period}" for f in left],
        "missed": [f"{m['kind']} {m['line']} {m['period']}" for m in missed],
        "ties_broken_expected": len(broken),
        "ties_broken_found": sum(broken),
        "ver001_flags": len(changes.flags),
        "ver001_on_broken": len(flagged) == len(changes.flags) and bool(flagged),
        "ties_repaired_expected": len(repaired),
        "ties_repaired_found": sum(repaired),
        "other_ties_broken_or_repaired": sum(t.status in ("broke", "repaired") for t in changes.ties)
        - sum(broken)
        - sum(repaired),
        "unchanged_on_other_pages": truth["unchanged_on_other_pages"],
        "matched_share": round(changes.matched_share, 4),
    }


def generated(seeds: list[int]) -> list[dict[str, Any]]:
    """Score the diff on each seed's generated pair (the engine runs in process: a second a pair)."""
    from pipeline.engine import process_bytes

    rows = []
    for seed in seeds:
        pair = render_pair(seed)
        old = process_bytes(pair.old, source=pair.truth["old"])
        new = process_bytes(pair.new, source=pair.truth["new"])
        rows.append(score_pair(pair.truth, diff_documents(old, new)))
    return rows


def _cache() -> Path:
    root = os.environ.get("TIEOUT_CACHE") or str(Path.home() / ".cache" / "tieout")
    return Path(root) / "bench" / "drafts"


def _result(pdf: Path) -> DocumentResult:
    """The engine's result for a filing, from the cache when there."""
    from pipeline.config import PIPELINE_VERSION
    from pipeline.engine import process_bytes
    from pipeline.ids import document_id

    data = pdf.read_bytes()
    cached = _cache() / f"{document_id(data)[:16]}-{PIPELINE_VERSION}.json"
    if cached.is_file():
        return DocumentResult.model_validate_json(cached.read_text(encoding="utf-8"))
    result = process_bytes(data, source=pdf.name)
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text(result.model_dump_json(), encoding="utf-8")
    return result


def real() -> list[dict[str, Any]]:
    """The matched-figure share of each consecutive pair of the development split."""
    folder = corpus_dir() / "filings"
    rows: list[dict[str, Any]] = []
    for a, b in REAL_PAIRS:
        old, new = folder / f"financebench__{a}_10K.pdf", folder / f"financebench__{b}_10K.pdf"
        if not (old.is_file() and new.is_file()):
            continue
        if set(split_of([old, new]).values()) != {"development"}:
            continue  # never measured here: the validation split is for measuring the engine, not this
        later = _result(new)
        c = diff_documents(_result(old), later)
        kinds = Counter(ch.kind for ch in c.changes)
        # The earliest year of the earlier filing is printed nowhere in the later one: no partner to find.
        periods = {col.period.key for s in later.statements for col in s.columns if col.period}
        gone = sum(1 for ch in c.changes if ch.kind == "removed" and ch.place.period not in periods)
        comparable = c.old_figures - gone
        rows.append(
            {
                "old": old.name,
                "new": new.name,
                "old_figures": c.old_figures,
                "new_figures": c.new_figures,
                "matched": c.matched,
                "matched_share": round(c.matched_share, 4),
                "period_not_in_later": gone,
                "matched_share_of_comparable": round(c.matched / comparable, 4) if comparable else None,
                "changes": dict(kinds),
                "ties": dict(Counter(t.status for t in c.ties)),
                "ver001_flags": len(c.flags),
            }
        )
        print(
            f"{old.name} -> {new.name}: {c.matched}/{c.old_figures} matched ({c.matched_share:.1%}); "
            f"{c.matched}/{comparable} of those whose period the later filing prints"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--seeds", type=seed_range, default=seed_range("0-9"), help="generated pairs, e.g. 0-9")
    ap.add_argument("--real", action="store_true", help="also the consecutive 10-Ks (slow the first time)")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args(argv)
    rows = generated(args.seeds)
    for r in rows:
        print(
            f"seed {r['seed']}: {r['found_true']}/{r['expected']} changes found, {r['false_changes']} false, "
            f"tie broken {r['ties_broken_found']}/{r['ties_broken_expected']} ({r['ver001_flags']} VER001), "
            f"repaired {r['ties_repaired_found']}/{r['ties_repaired_expected']}, "
            f"{r['other_ties_broken_or_repaired']} other; "
            f"{r['unchanged_on_other_pages']} unchanged figures moved"
        )
    total = {
        k: sum(r[k] for r in rows)
        for k in (
            "expected",
            "found_true",
            "false_changes",
            "ties_broken_expected",
            "ties_broken_found",
            "ver001_flags",
            "ties_repaired_expected",
            "ties_repaired_found",
            "other_ties_broken_or_repaired",
        )
    }
    print(f"total over {len(rows)} pairs: {total}")
    out: dict[str, Any] = {"generated": {"pairs": rows, "total": total}}
    if args.real:
        out["real"] = real()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    ok = total["found_true"] == total["expected"] and total["false_changes"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
