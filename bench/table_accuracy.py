"""Table-extraction accuracy: cell F1 of tieout and three baselines against the corpus ground truth.

Methods, each timed (pages/s over the pages it processed):

* ``tieout``: ``pipeline.engine.process_path`` on the whole PDF; cells are grouped by table and page, so
  a table stitched across pages is scored on its cells of the GT page only.
* ``pdfplumber_lines``: ``page.extract_tables()`` with the default (ruling-lines) strategy.
* ``pdfplumber_text``: ``extract_tables({"vertical_strategy": "text", "horizontal_strategy": "text"})``.
* ``camelot_stream``: ``camelot.read_pdf(path, pages=str(p), flavor="stream")``.

The baselines only read the pages that carry ground truth; tieout parses whole documents (that is its
API), so its pages/s counts every page of each document. A method that crashes on a file scores 0 on that
file's tables and the error is printed; the run goes on. Target: tieout mean cell F1 ≥ 0.95.

Usage::

    python -m bench.table_accuracy [--only tieout,camelot_stream] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

if __package__ in (None, ""):  # run as ``python bench/table_accuracy.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import Grid, GTTable, best_f1, corpus_dir, load_all

METHODS = ("tieout", "pdfplumber_lines", "pdfplumber_text", "camelot_stream")
TARGET_F1 = 0.95
PLUMBER_TEXT_SETTINGS = {"vertical_strategy": "text", "horizontal_strategy": "text"}

PageTables = dict[int, list[Grid]]
"""Extracted tables by 1-based page number."""
Extractor = Callable[[Path, Sequence[int]], tuple[PageTables, int]]
"""``(pdf, GT pages) -> (tables by page, pages processed)``."""


@dataclass
class MethodRun:
    """One method's outcome over the whole ground truth."""

    scores: dict[str, float] = field(default_factory=dict)
    pages: int = 0
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)
    unavailable: str | None = None

    @property
    def mean(self) -> float | None:
        """Mean cell F1 over GT tables (None when the method could not run at all)."""
        return fmean(self.scores.values()) if self.scores and self.unavailable is None else None

    @property
    def pages_per_second(self) -> float | None:
        """Throughput over the pages processed."""
        return self.pages / self.seconds if self.seconds > 0 and self.unavailable is None else None


def _grid(rows: Sequence[Sequence[object]]) -> Grid:
    """Cell texts as strings; pdfplumber returns ``None`` for empty cells."""
    return [["" if text is None else str(text) for text in row] for row in rows]


def tables_by_page(tables: Sequence[Any]) -> PageTables:
    """Split engine tables into one grid per (table, page).

    Args:
        tables: ``schemas.models.Table`` records (typed loosely so this module imports without the engine).

    Returns:
        Grids by page; a stitched table contributes one grid to each page it spans.
    """
    out: PageTables = defaultdict(list)
    for table in tables:
        per_page: dict[int, dict[tuple[int, int], str]] = defaultdict(dict)
        for cell in table.cells:
            per_page[cell.page][(cell.row, cell.col)] = cell.text
        for page, cells in sorted(per_page.items()):
            rows = sorted({row for row, _ in cells})
            cols = sorted({col for _, col in cells})
            out[page].append([[cells.get((row, col), "") for col in cols] for row in rows])
    return dict(out)


def _tieout() -> Extractor:
    # Until the engine lands this raises ImportError (reported as n/a); see parse_throughput.
    from pipeline.engine import EngineConfig, process_path  # type: ignore[import-not-found,unused-ignore]

    config = EngineConfig()

    def extract(pdf: Path, pages: Sequence[int]) -> tuple[PageTables, int]:
        result = process_path(pdf, config=config)
        fatal = [e.message for e in result.errors if e.fatal]
        if fatal:
            raise RuntimeError(f"engine failed: {fatal[0]}")
        return tables_by_page(result.tables), result.stats.pages or len(result.page_info)

    return extract


def _pdfplumber(settings: dict[str, str] | None) -> Extractor:
    import pdfplumber

    def extract(pdf: Path, pages: Sequence[int]) -> tuple[PageTables, int]:
        with pdfplumber.open(pdf) as doc:
            found = {p: [_grid(t) for t in doc.pages[p - 1].extract_tables(settings)] for p in pages}
        return found, len(pages)

    return extract


def _camelot_stream() -> Extractor:
    from camelot.io import read_pdf  # camelot's __init__ does not re-export it for mypy

    def extract(pdf: Path, pages: Sequence[int]) -> tuple[PageTables, int]:
        found: PageTables = {}
        for page in pages:
            # camelot warns "No tables found" on empty pages; the score already says so.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tables = read_pdf(str(pdf), pages=str(page), flavor="stream")
            found[page] = [_grid(t.df.values.tolist()) for t in tables]
        return found, len(pages)

    return extract


def make_extractor(method: str) -> Extractor:
    """Import a method's library and return its extractor.

    Args:
        method: One of :data:`METHODS`.

    Returns:
        The extractor.

    Raises:
        ImportError: when the method's library (or the engine) is not importable.
    """
    if method == "tieout":
        return _tieout()
    if method == "pdfplumber_lines":
        return _pdfplumber(None)
    if method == "pdfplumber_text":
        return _pdfplumber(PLUMBER_TEXT_SETTINGS)
    if method == "camelot_stream":
        return _camelot_stream()
    raise ValueError(f"unknown method {method!r}")


def run_method(extract: Extractor, gts: Sequence[GTTable]) -> MethodRun:
    """Score one extractor on every GT table, one call per PDF.

    Args:
        extract: The method.
        gts: Ground-truth tables.

    Returns:
        Scores per GT table name, pages and seconds processed, and errors per PDF.
    """
    pages_by_pdf: dict[Path, set[int]] = defaultdict(set)
    for gt in gts:
        pages_by_pdf[gt.pdf].add(gt.page)
    run = MethodRun()
    found: dict[Path, PageTables] = {}
    for pdf, pages in sorted(pages_by_pdf.items()):
        start = time.perf_counter()
        try:
            found[pdf], n_pages = extract(pdf, sorted(pages))
        except Exception as exc:  # one file crashing a method must not end the run: it scores 0
            run.errors[pdf.name] = f"{type(exc).__name__}: {exc}"
            found[pdf], n_pages = {}, 0
        run.seconds += time.perf_counter() - start
        run.pages += n_pages
    for gt in gts:
        run.scores[gt.name] = best_f1(gt, found[gt.pdf].get(gt.page, []))
    return run


def evaluate(methods: Sequence[str], gts: Sequence[GTTable]) -> dict[str, MethodRun]:
    """Run every method; an unimportable one is marked unavailable rather than failing the run."""
    runs: dict[str, MethodRun] = {}
    for method in methods:
        try:
            extract = make_extractor(method)
        except ImportError as exc:
            runs[method] = MethodRun(unavailable=f"{type(exc).__name__}: {exc}")
            continue
        runs[method] = run_method(extract, gts)
    return runs


def tieout_scores(corpus: Path | None = None) -> dict[str, float]:
    """Cell F1 of the engine on every GT table of the corpus (no baselines, no timing).

    Args:
        corpus: Corpus root; defaults to :func:`bench.gt.corpus_dir`.

    Returns:
        F1 per GT table name.

    Raises:
        ImportError: when ``pipeline.engine`` is not importable yet.
    """
    return run_method(make_extractor("tieout"), load_all(corpus)).scores


def _fmt(value: float | None, spec: str = ".3f") -> str:
    return "n/a" if value is None else format(value, spec)


def _score(run: MethodRun, name: str) -> float | None:
    return None if run.unavailable else run.scores.get(name)


def report(runs: dict[str, MethodRun], gts: Sequence[GTTable]) -> list[str]:
    """Format the results as an aligned plain-text table.

    Args:
        runs: Results per method.
        gts: The GT tables (row order).

    Returns:
        Printable lines; the last one is ``mean cell F1: tieout=… …``.
    """
    methods = list(runs)
    width = max([len(gt.name) for gt in gts] + [len("pages/s")])
    colw = max([len(m) for m in methods] + [8])
    header = f"{'ground-truth table':<{width}} {'page':>4} " + " ".join(f"{m:>{colw}}" for m in methods)
    lines = [header, "-" * len(header)]
    for gt in gts:
        cells = " ".join(f"{_fmt(_score(runs[m], gt.name)):>{colw}}" for m in methods)
        lines.append(f"{gt.name:<{width}} {gt.page:>4} {cells}")
    lines.append("-" * len(header))
    lines.append(f"{'mean':<{width}} {'':>4} " + " ".join(f"{_fmt(runs[m].mean):>{colw}}" for m in methods))
    lines.append(
        f"{'pages/s':<{width}} {'':>4} "
        + " ".join(f"{_fmt(runs[m].pages_per_second, '.1f'):>{colw}}" for m in methods)
    )
    for method, run in runs.items():
        if run.unavailable:
            lines.append(f"{method}: n/a ({run.unavailable})")
        for pdf, err in sorted(run.errors.items()):
            lines.append(f"{method}: error on {pdf}: {err}")
    if "tieout" in runs:
        mean = runs["tieout"].mean
        verdict = "n/a" if mean is None else ("met" if mean >= TARGET_F1 else "NOT met")
        lines.append(f"target tieout mean cell F1 >= {TARGET_F1}: {verdict}")
    lines.append("mean cell F1: " + " ".join(f"{m}={_fmt(runs[m].mean)}" for m in methods))
    return lines


def to_json(runs: dict[str, MethodRun]) -> dict[str, Any]:
    """JSON-ready figures: per-table scores, means, pages/s and errors per method."""
    return {
        "target_f1": TARGET_F1,
        "methods": {
            method: {
                "mean_f1": run.mean,
                "pages_per_second": run.pages_per_second,
                "pages": run.pages,
                "seconds": run.seconds,
                "scores": run.scores if not run.unavailable else {},
                "errors": run.errors,
                "unavailable": run.unavailable,
            }
            for method, run in runs.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description="Table cell F1: tieout vs pdfplumber vs camelot.")
    parser.add_argument("--only", default=",".join(METHODS), help="comma-separated subset of methods")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    methods = [m.strip() for m in args.only.split(",") if m.strip()]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown method(s) {unknown}; choose from {', '.join(METHODS)}")
    gts = load_all()
    if not gts:
        print(f"no ground-truth tables under {corpus_dir() / 'table'} (set TIEOUT_CORPUS)")
        return 2
    runs = evaluate(methods, gts)
    print("\n".join(report(runs, gts)))
    if args.json is not None:
        args.json.write_text(json.dumps(to_json(runs), indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
