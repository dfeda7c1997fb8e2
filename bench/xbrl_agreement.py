"""XBRL export against Arelle: every report loads with no error, and Arelle's sums agree with TOT001.

For each sample document and each filing of ``../shared/corpus/filings``: process it, export its
xBRL-JSON report (``adapters.xbrl.report``), load all reports in one offline Arelle child process with
Calculations 1.1 (round to nearest), and match Arelle's inconsistencies with the document's TOT001 flags
(``adapters.xbrl.agreement``). The development files are listed one by one with every disagreement and
its class; the validation split (MANIFEST.tsv) is reported as aggregates only (issue 23's rule: its flags
are for measuring, never for fixing).

With ``--plant swap,drop --seeds 1``, each filing is also run with one keying error planted per seed and
kind, as bench/planted_errors plants them (same candidates, same draw, same typesetting and check): many
more TOT001 flags to agree on than the few a clean corpus raises. ``--layouts`` adds the seven generated
layout variants of ``sample_docs.generate`` (layouts none of the files has), planted as the filings are.

Usage::

    python -m bench.xbrl_agreement [--cache DIR] [--json bench/results/xbrl_agreement.json]
        [--plant swap,drop --seeds 1,2] [--split all|development|validation] [--layouts] [FILES...]

``--cache`` keeps each processed document's result as JSON (keyed by file name and the engine's source
hash is not checked: delete the folder after changing the engine).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/xbrl_agreement.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.xbrl.agreement import Agreement, agreement
from adapters.xbrl.check import check_reports
from adapters.xbrl.report import REPORT_FILE, xbrl_report
from bench.gt import corpus_dir
from bench.planted.running import split_of
from schemas.models import DocumentResult

ROOT = Path(__file__).resolve().parents[1]
_TRIES = 8
"""Candidates tried per plant, as bench/planted_errors' default."""


@dataclass(frozen=True)
class _Job:
    """One document to process: a file, untouched (no kind) or with one planted error."""

    pdf: Path
    kind: str | None = None
    seed: int = 0

    @property
    def name(self) -> str:
        return self.pdf.name if self.kind is None else f"{self.pdf.name} [{self.kind} seed {self.seed}]"

    @property
    def stem(self) -> str:
        return self.pdf.stem if self.kind is None else f"{self.pdf.stem}.{self.kind}.{self.seed}"


def _process(job: _Job, cache: Path | None) -> str | None:
    """The document's result as JSON (from the cache when there); None when no error could be planted."""
    cached = cache / f"{job.stem}.json" if cache else None
    if cached is not None and cached.exists():
        return cached.read_text() or None
    from pipeline.engine import process_bytes

    data: bytes | None = job.pdf.read_bytes()
    if job.kind is not None and data is not None:
        data = _planted(data, job)
    text = "" if data is None else process_bytes(data, source=job.pdf.name).model_dump_json()
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(text)
    return text or None


def _planted(data: bytes, job: _Job) -> bytes | None:
    """The PDF with the first plant that verifies, drawn as bench/planted_errors draws it."""
    from bench.planted.candidates import choose_plants
    from bench.planted.planting import plant, scan_document

    assert job.kind is not None
    for cand, new in choose_plants(scan_document(data), job.seed, job.pdf.name, job.kind, _TRIES):
        if (planted := plant(data, cand, new)) is not None:
            return planted
    return None


_LAYOUT = "generated layout"
_LAYOUT_DIR = "tieout-layouts-"


def _layouts(folder: Path) -> list[Path]:
    """The generated layout variants, written into ``folder``: layouts no sample and no filing has."""
    from sample_docs.generate import generate_variants

    generate_variants(folder)
    return sorted(folder.glob("*.pdf"))


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the table (and write it as JSON)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="PDFs (default: the samples and the shared filings)")
    ap.add_argument("--cache", type=Path, help="keep processed results here (JSON per file)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--plant", default="", help="error kinds to plant too, e.g. swap,drop (none: clean files)"
    )
    ap.add_argument("--seeds", default="1", help="seeds of the plants, e.g. 1,2")
    ap.add_argument("--split", choices=("all", "development", "validation"), default="all")
    ap.add_argument(
        "--layouts",
        action="store_true",
        help="also the generated layout variants (sample_docs.generate.layout_variants), planted too",
    )
    args = ap.parse_args(argv)
    pdfs = args.files or sorted((ROOT / "sample_docs").glob("*.pdf")) + sorted(
        (corpus_dir() / "filings").glob("*.pdf")
    )
    layouts = tempfile.TemporaryDirectory(prefix=_LAYOUT_DIR) if args.layouts else None
    if layouts is not None:
        pdfs += _layouts(Path(layouts.name))
    splits = split_of(pdfs)
    pdfs = [p for p in pdfs if args.split == "all" or splits.get(p.name, "development") == args.split]
    jobs = [_Job(p) for p in pdfs]
    planted_kinds = [k for k in args.plant.split(",") if k]
    seeds = [int(s) for s in args.seeds.split(",") if s]
    jobs += [
        _Job(p, k, seed)
        for p in pdfs
        if p.parent.name != "sample_docs"
        for k in planted_kinds
        for seed in seeds
    ]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        texts = list(pool.map(_process, jobs, [args.cache] * len(jobs)))
    done = [(j, DocumentResult.model_validate_json(t)) for j, t in zip(jobs, texts, strict=True) if t]
    files = [j for j, _ in done]
    results = [r for _, r in done]
    processed = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="tieout-xbrl-bench-") as tmp:
        reports = []
        for r in results:
            report = xbrl_report(r)
            folder = Path(tmp) / r.doc_id
            folder.mkdir(exist_ok=True)
            for name, data in report.files.items():
                (folder / name).write_bytes(data)
            reports.append((r, report, folder / REPORT_FILE))
        t1 = time.perf_counter()
        checks = check_reports([p for *_, p in reports], timeout=3600)
        checked = time.perf_counter() - t1
    rows: dict[str, Counter[str]] = {}
    classes: dict[str, Counter[str]] = {}
    for (r, report, _), check, job in zip(reports, checks, files, strict=True):
        pdf = job.pdf
        split = "sample" if pdf.parent.name == "sample_docs" else splits.get(pdf.name, "development")
        split = _LAYOUT if pdf.parent.name.startswith(_LAYOUT_DIR) else split
        if job.kind is not None:
            split += ", planted"
        assert report.selection is not None
        a: Agreement = agreement(r, report.selection, check)
        row = rows.setdefault(split, Counter())
        row.update(
            reports=1,
            facts=len(report.published),
            summations=len(report.selection.summations),
            arelle_errors=len(check.errors),
            arelle_inconsistencies=a.inconsistencies,
            tot001=a.flags,
            matched=a.matched,
            one_to_one=int(a.one_to_one),
        )
        kinds = classes.setdefault(split, Counter())
        kinds.update(f"TOT001 only: {c}" for _, c in a.flag_only)
        kinds.update(f"Arelle only: {c}" for _, c in a.arelle_only)
        if not split.startswith("validation"):
            for code in {m.code for m in check.errors}:
                print(f"{job.name}: Arelle error {code}")
            for flag_id, c in a.flag_only:
                print(f"{job.name}: TOT001 only ({c}): {flag_id}")
            for text, c in a.arelle_only:
                print(f"{job.name}: Arelle only ({c}): {text[:160]}")
    cols = ["reports", "facts", "summations", "arelle_errors", "arelle_inconsistencies", "tot001", "matched"]
    print(f"\n{'split':<12}" + "".join(f"{c:>24}" for c in [*cols, "one_to_one"]))
    for split, row in rows.items():
        print(f"{split:<12}" + "".join(f"{row[c]:>24}" for c in [*cols, "one_to_one"]))
    for split, kinds in classes.items():
        for kind, n in sorted(kinds.items()):
            print(f"  {split}: {n} x {kind}")
    print(f"\nprocessed {len(jobs)} documents in {processed:.0f} s; Arelle checked them in {checked:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        out = {
            "rows": {s: dict(r) for s, r in rows.items()},
            "classes": {s: dict(k) for s, k in classes.items()},
            "seconds": {"process": round(processed, 1), "arelle": round(checked, 1)},
        }
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    if layouts is not None:
        layouts.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
