"""Consecutive years of one issuer: each year's report prints that year and the one before, and the figures
of a year two reports share are the same (one model of the issuer's business), as real filings are.

``python -m sample_docs.years OUT [--last 2025] [--count 2]`` writes ``<issuer>_<year>_form_10k.pdf`` for
each year into ``OUT``; :func:`consecutive_years` gives the documents to tests and benches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sample_docs.generate import LAYOUT_VARIANTS, DocConfig, Injection, render_document

__all__ = ["YEARS_BASE", "consecutive_years", "main"]

YEARS_BASE = next(c for c in LAYOUT_VARIANTS if c.file.startswith("brightwater_"))
"""A US issuer with a December year end and a cover that says so."""


def _for_year(base: DocConfig, year: int) -> DocConfig:
    """The base issuer's report for fiscal ``year``: that year and the one before, its cover re-dated."""
    was = str(max(base.years))
    return replace(
        base,
        file=base.file.replace(was, str(year)),
        title=base.title.replace(was, str(year)),
        cover_lines=tuple(line.replace(was, str(year)) for line in base.cover_lines),
        years=(year, year - 1),
    )


def consecutive_years(
    last: int = 2025,
    count: int = 2,
    base: DocConfig = YEARS_BASE,
    injections: dict[int, tuple[Injection, ...]] | None = None,
) -> list[tuple[str, bytes, dict[str, Any]]]:
    """The issuer's reports of ``count`` consecutive years ending with ``last``, oldest first.

    Args:
        last: The latest fiscal year.
        count: How many reports.
        base: The issuer (a :class:`DocConfig` whose largest year is replaced by each report's year).
        injections: Errors to plant, by report year (see :class:`sample_docs.generate.Injection`).

    Returns:
        ``(file name, PDF bytes, truth)`` per report.
    """
    first = last - count + 1
    model_years = tuple(range(first - 1, last + 1))
    out = []
    for year in range(first, last + 1):
        cfg = replace(_for_year(base, year), injections=(injections or {}).get(year, ()))
        data, truth = render_document(cfg, model_years)
        out.append((cfg.file, data, truth))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Write the reports into a folder."""
    ap = argparse.ArgumentParser(description="Consecutive years of one generated issuer.")
    ap.add_argument("out", type=Path)
    ap.add_argument("--last", type=int, default=2025)
    ap.add_argument("--count", type=int, default=2)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data, _ in consecutive_years(args.last, args.count):
        (args.out / name).write_bytes(data)
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
