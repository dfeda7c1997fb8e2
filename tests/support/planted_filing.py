"""The real filing of the annotation tests: three statement pages of a public earnings release, one figure
re-keyed.

``tests/data/ulta_2023q4_statements_planted.pdf`` is pages 6-8 of Ulta Beauty's fiscal 2022 fourth-quarter
earnings release (FinanceBench corpus: ``financial/financebench__ULTABEAUTY_2023Q4_EARNINGS.pdf``): the
statements of income, the balance sheet and the statement of cash flows. On the balance sheet, cash and
cash equivalents at January 28, 2023 is re-keyed from 737,877 to 737,787 (two adjacent digits swapped) with
the planted-errors benchmark's typesetting (:func:`bench.planted_errors.plant`), so that total current
assets no longer adds up (TOT001) and the balance sheet disagrees with the cash-flow statement's closing
cash on the next page (XST001). Everything else is as filed.

Regenerate (needs the shared corpus)::

    python -m tests.support.planted_filing [CORPUS]
"""

from __future__ import annotations

import sys
from pathlib import Path

import pymupdf

from bench.planted_errors import Candidate, plant

SOURCE = "financial/financebench__ULTABEAUTY_2023Q4_EARNINGS.pdf"
PAGES = (6, 8)  # first and last page kept, 1-based
TARGET = Path(__file__).resolve().parents[1] / "data" / "ulta_2023q4_statements_planted.pdf"
OLD, NEW = "737,877", "737,787"
PLANTED_PAGE = 2  # the balance sheet, in the cut


def cut(source: Path, pages: tuple[int, int] = PAGES) -> bytes:
    """The kept pages of the filing (first and last, 1-based), as a PDF of their own."""
    with pymupdf.open(source) as doc, pymupdf.open() as out:
        out.insert_pdf(doc, from_page=pages[0] - 1, to_page=pages[1] - 1)
        data: bytes = out.tobytes(garbage=3, deflate=True)
    return data


def planted(data: bytes) -> bytes:
    """The cut with the balance sheet's cash re-keyed; raises when the figure is not where expected."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        words = doc[PLANTED_PAGE - 1].get_text("words")
    word = next(w for w in words if w[4] == OLD)
    out = plant(data, Candidate(PLANTED_PAGE, tuple(word[:4]), OLD), NEW)
    if out is None:
        raise RuntimeError("the plant did not verify")
    return out


def main(argv: list[str]) -> None:
    """Write the test PDF from the corpus (``argv[0]``, default ``../shared/corpus``)."""
    corpus = Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "shared" / "corpus"
    TARGET.write_bytes(planted(cut(corpus / SOURCE)))
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
