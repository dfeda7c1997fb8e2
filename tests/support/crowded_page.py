"""A real filing page with no margin to write in, for the tick-and-tie labels' placement tests.

``tests/data/ebay_2020_10k_p79.pdf`` is page 79 of eBay's 2020 annual report on Form 10-K (FinanceBench
corpus, development split: ``filings/financebench__EBAY_2020_10K.pdf``), as filed: two balance-sheet
tables of discontinued operations and assets held for sale whose text runs from 17 pt to 590 pt of the
612 pt page, so a label in the right margin would cover the figures of the last column.

Regenerate (needs the shared corpus)::

    python -m tests.support.crowded_page [CORPUS]
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.planted_filing import cut

SOURCE = "filings/financebench__EBAY_2020_10K.pdf"
PAGE = 79
TARGET = Path(__file__).resolve().parents[1] / "data" / "ebay_2020_10k_p79.pdf"


def main(argv: list[str]) -> None:
    """Write the test PDF from the corpus (``argv[0]``, default ``../shared/corpus``)."""
    corpus = Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "shared" / "corpus"
    TARGET.write_bytes(cut(corpus / SOURCE, (PAGE, PAGE)))
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1:])
