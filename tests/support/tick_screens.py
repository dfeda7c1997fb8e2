"""The tick-and-tie screenshots in ``docs/``: one annotated page at 75 %, 100 % and 150 %.

The page is the financial highlights of the Halvorsen sample (page 2), whose cross-reference break an
analyst dismissed (its balance-identity break, on other pages, is confirmed). Each image is the whole page
rendered by PyMuPDF at the zoom (100 %: 72 pixels an inch, a point a pixel).

Regenerate::

    python -m tests.support.tick_screens [OUT]   # default docs/
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

import pymupdf

from adapters.review.tickmarks import annotate_pdf
from pipeline.engine import process_bytes
from pipeline.rewards.regressions import standing
from tests.support.review import decision

REPO = Path(__file__).resolve().parents[2]
PDF = REPO / "sample_docs" / "halvorsen_2025_form_10k.pdf"
PAGE = 2
ZOOMS = (75, 100, 150)


def screens(out: Path) -> list[Path]:
    """Write the page at each zoom into ``out``; returns the files written."""
    data = PDF.read_bytes()
    result = process_bytes(data, source=PDF.name)
    xref, bal = result.flags
    at = datetime(2026, 12, 1, 9, 5, tzinfo=UTC)
    dismissed = decision(xref, "dismiss", "alice", at, reason="different_basis")
    decisions = standing([dismissed, decision(bal, "confirm", "bob", at.replace(minute=12))])
    marked = annotate_pdf(data, result, decisions)
    written = []
    with pymupdf.open(stream=marked.pdf, filetype="pdf") as doc:
        page = doc[marked.counts.summary_pages + PAGE - 1]
        for zoom in ZOOMS:
            path = out / f"tick-and-tie-{zoom}.png"
            page.get_pixmap(matrix=pymupdf.Matrix(zoom / 100, zoom / 100)).save(path)
            written.append(path)
    return written


def main(argv: list[str]) -> None:
    """Write the screenshots into ``argv[0]`` (default ``docs/``)."""
    out = Path(argv[0]) if argv else REPO / "docs"
    out.mkdir(parents=True, exist_ok=True)
    for path in screens(out):
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
