"""Parse throughput of the engine against PyMuPDF text extraction and pdfplumber table extraction.

For every FinanceBench filing in ``<corpus>/financial`` the first 40 pages are copied into an in-memory
PDF, and three methods are timed on the same bytes, each in its own child process (so one library's
imports and memory do not slow down or inflate another's, and peak RSS is per method):

a. tieout: ``pipeline.engine.process_bytes`` (full parse), best of ``--reps`` repetitions;
b. PyMuPDF: ``page.get_text("dict")`` on every page, best of ``--reps``;
c. pdfplumber: ``page.extract_tables()`` on the first ``--plumber-pages`` pages, one repetition (it is
   about two orders of magnitude slower; pages/s is what is compared).

Each child imports its library and processes one warm-up document before timing. Targets: a/b ≥ 0.33 and
a/c ≥ 10 (total pages/s).

Usage::

    python -m bench.parse_throughput [--pages 40] [--reps 2] [--plumber-pages 10] [--json OUT]
    python -m bench.parse_throughput --whole [--json OUT]   # whole filings, process start included
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as ``python bench/parse_throughput.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir, open_pdf
from bench.meta import run_meta
from bench.peak_rss import peak_rss_mb, run_json_child

METHODS = ("tieout", "pymupdf", "pdfplumber")
TARGET_A_OVER_B = 0.33
TARGET_A_OVER_C = 10.0
CHILD_TIMEOUT_S = 900.0


@dataclass(frozen=True)
class Doc:
    """A benchmark document: the first pages of a filing, as PDF bytes."""

    name: str
    data: bytes
    pages: int


def financebench_pdfs(corpus: Path | None = None) -> list[Path]:
    """The FinanceBench filings of the corpus, sorted by name (empty when the corpus is absent)."""
    return sorted(((corpus or corpus_dir()) / "financial").glob("financebench__*.pdf"))


def first_pages(path: Path, n_pages: int) -> Doc:
    """Copy the first ``n_pages`` pages of ``path`` into a new in-memory PDF.

    Args:
        path: Source PDF.
        n_pages: Maximum number of pages to keep.

    Returns:
        The new document's bytes and its page count.
    """
    with open_pdf(path) as src, open_pdf() as out:
        last = min(n_pages, src.page_count) - 1
        out.insert_pdf(src, from_page=0, to_page=last)
        return Doc(path.name, out.tobytes(), int(out.page_count))


def _time_tieout() -> Callable[[Doc], int]:
    # The engine is being written alongside this benchmark: until it lands the import fails (the
    # caller reports n/a) and mypy cannot see it; ``unused-ignore`` keeps mypy quiet once it can.
    from pipeline.engine import EngineConfig, process_bytes  # type: ignore[import-not-found,unused-ignore]

    config = EngineConfig()

    def run(doc: Doc) -> int:
        result = process_bytes(doc.data, source=doc.name, config=config)
        if result.failed:  # a fast failure is not throughput
            raise RuntimeError(f"engine failed on {doc.name}: {result.errors[0].message}")
        return doc.pages

    return run


def _time_pymupdf() -> Callable[[Doc], int]:
    import pymupdf  # noqa: F401  (imported before timing: the import is not part of a parse)

    def run(doc: Doc) -> int:
        with open_pdf(stream=doc.data, filetype="pdf") as pdf:
            for page in pdf:
                page.get_text("dict")
        return doc.pages

    return run


def _time_pdfplumber(max_pages: int) -> Callable[[Doc], int]:
    import pdfplumber

    def run(doc: Doc) -> int:
        with pdfplumber.open(io.BytesIO(doc.data)) as pdf:
            pages = pdf.pages[:max_pages]
            for page in pages:
                page.extract_tables()
            return len(pages)

    return run


def _runner(method: str, plumber_pages: int) -> Callable[[Doc], int]:
    if method == "tieout":
        return _time_tieout()
    if method == "pymupdf":
        return _time_pymupdf()
    if method == "pdfplumber":
        return _time_pdfplumber(plumber_pages)
    raise ValueError(f"unknown method {method!r}")


def _best_time(run: Callable[[Doc], int], doc: Doc, reps: int) -> tuple[int, float]:
    """Best wall time of ``reps`` runs (the least-disturbed one on a shared machine) and pages processed."""
    best = float("inf")
    pages = 0
    for _ in range(reps):
        start = time.perf_counter()
        pages = run(doc)
        best = min(best, time.perf_counter() - start)
    return pages, best


def worker(method: str, n_pages: int, reps: int, plumber_pages: int) -> dict[str, Any]:
    """Child side: warm up, then time ``method`` on every document.

    Args:
        method: One of :data:`METHODS`.
        n_pages: Pages kept from each filing.
        reps: Repetitions per document (best is kept); pdfplumber always uses one.
        plumber_pages: Pages per document timed for pdfplumber.

    Returns:
        ``{"docs": {name: {"pages", "seconds"}}, "peak_rss_mb": float}`` or with an ``"error"`` key.
    """
    docs = [first_pages(path, n_pages) for path in financebench_pdfs()]
    if not docs:
        return {"error": f"no FinanceBench PDFs under {corpus_dir()}"}
    try:
        run = _runner(method, plumber_pages)
        run(docs[0])  # warm-up: lazy imports, font caches, JIT-like first-call costs
        if method == "pdfplumber":
            reps = 1
        results: dict[str, dict[str, float]] = {}
        for doc in docs:
            pages, seconds = _best_time(run, doc, reps)
            results[doc.name] = {"pages": pages, "seconds": seconds}
    except Exception as exc:  # one broken method must not stop the whole benchmark
        return {"error": f"{type(exc).__name__}: {exc}", "peak_rss_mb": peak_rss_mb()}
    return {"docs": results, "peak_rss_mb": peak_rss_mb()}


def pages_per_second(pages: float, seconds: float) -> float:
    """Throughput, 0.0 when nothing was timed."""
    return pages / seconds if seconds > 0 else 0.0


def totals(result: dict[str, Any]) -> float | None:
    """Total pages/s of a method's result (None when it failed)."""
    docs = result.get("docs")
    if not docs:
        return None
    pages = sum(float(d["pages"]) for d in docs.values())
    seconds = sum(float(d["seconds"]) for d in docs.values())
    return pages_per_second(pages, seconds)


def _fmt(value: float | None, spec: str = ".1f") -> str:
    return "n/a" if value is None else format(value, spec)


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def _verdict(value: float | None, target: float) -> str:
    if value is None:
        return "n/a"
    return "met" if value >= target else "NOT met"


def report(results: dict[str, dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    """Format the per-document table, totals, ratios and targets.

    Args:
        results: Worker output per method.

    Returns:
        Printable lines and a JSON-ready summary.
    """
    names = sorted({name for r in results.values() for name in r.get("docs", {})})
    header = f"{'document':<48} {'pages':>5} " + " ".join(f"{m + ' p/s':>15}" for m in METHODS)
    lines = [header, "-" * len(header)]
    for name in names:
        cells = []
        pages = 0
        for method in METHODS:
            doc = results[method].get("docs", {}).get(name)
            if doc is None:
                cells.append(f"{'n/a':>15}")
                continue
            if method != "pdfplumber":
                pages = int(doc["pages"])
            cells.append(f"{pages_per_second(doc['pages'], doc['seconds']):>15.1f}")
        lines.append(f"{name:<48} {pages:>5} " + " ".join(cells))
    tot = {method: totals(results[method]) for method in METHODS}
    lines.append(f"{'TOTAL':<48} {'':>5} " + " ".join(f"{_fmt(tot[m]):>15}" for m in METHODS))
    lines.append("")
    for method in METHODS:
        err = results[method].get("error")
        # A failed child's high-water mark says nothing about the method: show n/a instead.
        rss = None if err else results[method].get("peak_rss_mb")
        note = f"  error: {err}" if err else ""
        lines.append(f"peak RSS {method:<11} {_fmt(rss):>8} MB{note}")
    a_b = _ratio(tot["tieout"], tot["pymupdf"])
    a_c = _ratio(tot["tieout"], tot["pdfplumber"])
    lines.append(
        f"a/b (tieout / pymupdf)    = {_fmt(a_b, '.3f')}  target >= {TARGET_A_OVER_B}: "
        f"{_verdict(a_b, TARGET_A_OVER_B)}"
    )
    lines.append(
        f"a/c (tieout / pdfplumber) = {_fmt(a_c, '.2f')}  target >= {TARGET_A_OVER_C:g}: "
        f"{_verdict(a_c, TARGET_A_OVER_C)}"
    )
    summary = {
        "pages_per_second": tot,
        "ratios": {"a_over_b": a_b, "a_over_c": a_c},
        "targets": {"a_over_b": TARGET_A_OVER_B, "a_over_c": TARGET_A_OVER_C},
        "methods": results,
    }
    return lines, summary


# --- whole filings, process start included ------------------------------------------------------------

WHOLE_METHODS = ("tieout", "pymupdf")


def all_filings(corpus: Path | None = None) -> list[Path]:
    """Every FinanceBench filing of the corpus (``financial/`` and ``filings/``), sorted by name."""
    root = corpus or corpus_dir()
    return sorted([*root.glob("financial/financebench__*.pdf"), *root.glob("filings/financebench__*.pdf")])


def doc_worker(method: str, path: Path) -> dict[str, Any]:
    """Child side of ``--whole``: import the method's library and process one whole filing.

    The parent times the child from its start to its exit, so interpreter start-up and imports count.
    """
    data = path.read_bytes()
    with open_pdf(stream=data, filetype="pdf") as pdf:
        pages = int(pdf.page_count)
    run = _runner(method, 0)
    run(Doc(path.name, data, pages))
    return {"pages": pages, "peak_rss_mb": peak_rss_mb()}


def whole(paths: list[Path]) -> tuple[list[str], dict[str, Any]]:
    """Time the full parse and PyMuPDF's ``get_text("dict")`` on whole filings, a fresh process each."""
    results: dict[str, dict[str, dict[str, float]]] = {m: {} for m in WHOLE_METHODS}
    peaks: dict[str, float] = dict.fromkeys(WHOLE_METHODS, 0.0)
    for path in paths:
        for method in WHOLE_METHODS:
            start = time.perf_counter()
            out = run_json_child(
                "bench.parse_throughput", ["--doc-worker", method, "--doc", str(path)], CHILD_TIMEOUT_S
            )
            seconds = time.perf_counter() - start
            if "error" in out:
                raise RuntimeError(f"{method} failed on {path.name}: {out['error']}")
            results[method][path.name] = {"pages": float(out["pages"]), "seconds": seconds}
            peaks[method] = max(peaks[method], float(out.get("peak_rss_mb", 0.0)))
        print(f"{path.name}: done", file=sys.stderr)
    header = f"{'document':<48} {'pages':>5} " + " ".join(f"{m + ' p/s':>15}" for m in WHOLE_METHODS)
    lines = [header, "-" * len(header)]
    for path in paths:
        t, m = results["tieout"][path.name], results["pymupdf"][path.name]
        lines.append(
            f"{path.name:<48} {int(t['pages']):>5} {pages_per_second(t['pages'], t['seconds']):>15.1f} "
            f"{pages_per_second(m['pages'], m['seconds']):>15.1f}"
        )
    tot = {method: totals({"docs": results[method]}) for method in WHOLE_METHODS}
    lines.append(f"{'TOTAL':<48} {'':>5} " + " ".join(f"{_fmt(tot[m]):>15}" for m in WHOLE_METHODS))
    ratio = _ratio(tot["tieout"], tot["pymupdf"])
    lines.append(
        f"peak RSS: tieout {peaks['tieout']:.0f} MB, pymupdf {peaks['pymupdf']:.0f} MB (largest filing)"
    )
    lines.append(
        f"a/b (tieout / pymupdf), whole filings, process start included = {_fmt(ratio, '.3f')}  "
        f"target >= {TARGET_A_OVER_B}: {_verdict(ratio, TARGET_A_OVER_B)}"
    )
    summary = {"pages_per_second": tot, "ratio": ratio, "target": TARGET_A_OVER_B, "peak_rss_mb": peaks}
    return lines, {**summary, "docs": results}


def main(argv: list[str] | None = None) -> int:
    """CLI entry point (also the child-process worker with ``--worker``)."""
    parser = argparse.ArgumentParser(description="Parse throughput: tieout vs PyMuPDF vs pdfplumber.")
    parser.add_argument("--pages", type=int, default=40, help="pages kept from each filing")
    parser.add_argument("--reps", type=int, default=2, help="repetitions for tieout and PyMuPDF (best kept)")
    parser.add_argument("--plumber-pages", type=int, default=10, help="pages per doc timed for pdfplumber")
    parser.add_argument("--only", default=",".join(METHODS), help="comma-separated subset of methods")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="whole filings (financial/ and filings/), one fresh process per document and method",
    )
    parser.add_argument("--worker", choices=METHODS, help=argparse.SUPPRESS)
    parser.add_argument("--doc-worker", choices=WHOLE_METHODS, help=argparse.SUPPRESS)
    parser.add_argument("--doc", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.doc_worker is not None:
        args.worker_out.write_text(json.dumps(doc_worker(args.doc_worker, args.doc)), encoding="utf-8")
        return 0
    if args.whole:
        paths = all_filings()
        if not paths:
            print(f"no FinanceBench PDFs under {corpus_dir()} (set TIEOUT_CORPUS)")
            return 2
        meta = run_meta()  # before the run: its load average is the one the run started under
        lines, summary = whole(paths)
        print("\n".join(lines))
        if args.json is not None:
            args.json.write_text(json.dumps({"meta": meta, **summary}, indent=2), encoding="utf-8")
        return 0

    if args.worker is not None:
        out = worker(args.worker, args.pages, args.reps, args.plumber_pages)
        args.worker_out.write_text(json.dumps(out), encoding="utf-8")
        return 0

    if not financebench_pdfs():
        print(f"no FinanceBench PDFs under {corpus_dir()} (set TIEOUT_CORPUS)")
        return 2
    selected = {m.strip() for m in args.only.split(",") if m.strip()}
    meta = run_meta()
    results: dict[str, dict[str, Any]] = {}
    for method in METHODS:
        if method not in selected:
            results[method] = {"error": "not run (--only)"}
            continue
        # Sequential children: on 2 shared cores, running them side by side would skew every figure.
        child_args = ["--worker", method, "--pages", str(args.pages), "--reps", str(args.reps)]
        child_args += ["--plumber-pages", str(args.plumber_pages)]
        results[method] = run_json_child("bench.parse_throughput", child_args, CHILD_TIMEOUT_S)
        print(f"{method}: done", file=sys.stderr)
    lines, summary = report(results)
    print("\n".join(lines))
    if args.json is not None:
        args.json.write_text(json.dumps({"meta": meta, **summary}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
