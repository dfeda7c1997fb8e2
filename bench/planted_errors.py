"""Planted keying errors: how many does the engine catch on real filings, and how many false flags does it
raise on the untouched ones?

For every filing of the corpus (``<corpus>/financial/*.pdf`` and ``<corpus>/filings/*.pdf``):

1. **Clean run.** The engine runs on the untouched PDF; all its flags count as false flags (the filings are
   taken to be consistent). The same task lists the *candidate figures*, chosen with PyMuPDF's words and
   independently of the engine: an amount token (``1,234``, ``(842.1)``, ``$12,345``; no years, page
   numbers, percentages or tokens with fewer than 3 digits) whose nearest word on the same baseline (|Δy1|
   ≤ 2 pt) to the left or right, punctuation aside, is a number (a figure in a table row, not prose), and
   whose digits are printed at least twice in the document.
2. **Planted runs.** For every seed and error kind, one candidate is drawn with
   ``random.Random(f"{seed}:{file}:{kind}")`` and mutated (``swap`` two adjacent different digits, ``drop``
   a digit, ``double`` a digit, flip the ``sign``, or key it at the wrong ``scale``, ×1,000). The new token
   is typeset in place: the old token's characters are redacted (rules and images are kept) and the new one
   is written right-aligned on the old baseline, in the span's size and colour with a base-14 font of the
   same family and weight. Every plant is verified by reading the page's words back: the word multiset
   must differ by exactly old → new, with the new word at the old place. A plant that does not verify is
   discarded and the next candidate is tried (``--tries``).
3. **Score.** A plant is *caught* when the planted run has a flag that the clean run does not have, whose
   pages include the planted page and that carries the new or the old figure (a value ±v×10^k, k ∈
   {0, 3, 6, 9}, or the printed digits in an evidence text). Flags are matched between the two runs on
   their rule, metric, period and evidence (page, role, box, text) with the planted figure's evidence
   masked, not on ``flag_id``: the engine hashes the document id (the sha256 of the bytes) into every
   ``flag_id``, so every flag of a planted copy would otherwise look new.

4. **Splits.** ``../shared/corpus/MANIFEST.tsv`` marks some filings as the ``validation split``: they are for
   measuring only (issue 23). The report gives the development files in full and the validation files as
   aggregates only (by kind, statement and rule; no file, flag or plant), and the two side by side, so that
   a reader measures on them without reading a flag to tune a rule. ``--split`` runs one of them alone.

Each task runs in a worker process (``--workers``), with a per-task time limit (``--timeout``); a task that
fails or times out is recorded as an error and the run goes on. Targets (issue 23's acceptance): ``swap``
caught ≥ 90 %, all kinds together ≥ 85 %, false flags ≤ 0.1 per 100 untouched pages.

The code is in :mod:`bench.planted`: ``mutations`` (the error kinds), ``candidates`` (the figures that may
receive one), ``planting`` (typesetting and verifying a plant), ``tasks`` (what a worker runs), ``running``
(the pool), ``scoring`` (catches, false flags, the report) and ``reporting`` (the splits side by side). This
module is the command line and exports the public names of all of them.

Usage::

    python -m bench.planted_errors [INPUT ...] [--kinds swap,drop,double,sign,scale] [--seeds 1,2,3]
        [--workers 2] [--limit N] [--tries 8] [--timeout 300] [--split all|development|validation]
        [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/planted_errors.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir
from bench.planted.candidates import (
    STATEMENTS,
    BBox,
    Candidate,
    Statement,
    Word,
    choose_plants,
    classify_statement,
    find_candidates,
    table_figures,
)
from bench.planted.mutations import KINDS, Amount, flip_sign, group_thousands, mutate, mutations, parse_amount
from bench.planted.planting import (
    Style,
    base14_font,
    plant,
    right_edge,
    scan_document,
    span_style,
    text_width,
    verify_words,
)
from bench.planted.reporting import score_splits
from bench.planted.running import (
    SPLITS,
    VALIDATION_MARK,
    WATCHDOG_GRACE_S,
    Outcome,
    input_pdfs,
    run_all,
    split_of,
)
from bench.planted.scoring import (
    SCALES,
    TARGET_ALL,
    TARGET_FALSE_PER_100,
    TARGET_SWAP,
    carries_figure,
    catching_flag,
    flag_key,
    labelled_flags,
    mentions,
    plant_record,
    score,
)
from bench.planted.tasks import (
    CleanResult,
    EngineRun,
    EvidenceRec,
    FlagRec,
    PlantJob,
    PlantResult,
    Status,
    TaskTimeout,
    clean_task,
    flag_record,
    plant_task,
    run_engine,
    time_limit,
)

__all__ = [
    "DEFAULT_SEEDS",
    "DEFAULT_TRIES",
    "KINDS",
    "SCALES",
    "SPLITS",
    "STATEMENTS",
    "TARGET_ALL",
    "TARGET_FALSE_PER_100",
    "TARGET_SWAP",
    "TASK_TIMEOUT_S",
    "VALIDATION_MARK",
    "WATCHDOG_GRACE_S",
    "Amount",
    "BBox",
    "Candidate",
    "CleanResult",
    "EngineRun",
    "EvidenceRec",
    "FlagRec",
    "Outcome",
    "PlantJob",
    "PlantResult",
    "Statement",
    "Status",
    "Style",
    "TaskTimeout",
    "Word",
    "base14_font",
    "carries_figure",
    "catching_flag",
    "choose_plants",
    "classify_statement",
    "clean_task",
    "find_candidates",
    "flag_key",
    "flag_record",
    "flip_sign",
    "group_thousands",
    "input_pdfs",
    "labelled_flags",
    "main",
    "mentions",
    "mutate",
    "mutations",
    "parse_amount",
    "plant",
    "plant_record",
    "plant_task",
    "right_edge",
    "run_all",
    "run_engine",
    "scan_document",
    "score",
    "score_splits",
    "span_style",
    "split_of",
    "table_figures",
    "text_width",
    "time_limit",
    "verify_words",
]

DEFAULT_SEEDS = (1, 2, 3)
DEFAULT_TRIES = 8
TASK_TIMEOUT_S = 300.0


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description="Planted keying errors: catch rate and false flags.")
    parser.add_argument("inputs", nargs="*", type=Path, help="PDFs or folders (default: the corpus filings)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated error kinds")
    parser.add_argument("--seeds", default=",".join(map(str, DEFAULT_SEEDS)), help="comma-separated seeds")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--limit", type=int, help="only the first N files")
    parser.add_argument("--tries", type=int, default=DEFAULT_TRIES, help="candidates tried per plant")
    parser.add_argument("--timeout", type=float, default=TASK_TIMEOUT_S, help="seconds per task")
    parser.add_argument(
        "--split", choices=("all", *SPLITS), default="all",
        help="which corpus files (MANIFEST.tsv marks the validation split; default both, side by side)",
    )  # fmt: skip
    parser.add_argument(
        "--json", type=Path, help="write the figures (and the development files' plants and flags) here"
    )
    args = parser.parse_args(argv)

    kinds = _csv(args.kinds)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds: {', '.join(unknown)} (choose from {', '.join(KINDS)})")
    seeds = [int(s) for s in _csv(args.seeds)]
    paths = input_pdfs(args.inputs)
    splits = split_of(paths)
    if args.split != "all":
        paths = [p for p in paths if splits[p.name] == args.split]
    if args.limit is not None:
        paths = paths[: args.limit]
    if not paths:
        print(f"no PDFs found (corpus {corpus_dir()}; set TIEOUT_CORPUS or name inputs)")
        return 2
    outcome = run_all(paths, kinds, seeds, max(1, args.workers), args.tries, args.timeout)
    lines, summary = score_splits(outcome, kinds, seeds, splits)
    print("\n".join(lines))
    if args.json is not None:
        summary["command"] = " ".join(["python -m bench.planted_errors", *(argv or sys.argv[1:])])
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    # The pool's tasks and records live in ``bench.planted``, so the spawned workers import them by that name
    # however this file is run (``python -m bench.planted_errors`` or ``python bench/planted_errors.py``).
    sys.exit(main())
