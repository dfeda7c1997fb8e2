"""pdfplumber as a second opinion on ruled tables.

pdfplumber's lattice reading of ruled tables is good but costs ~200 ms a page, so it is not the primary
finder. On the few pages where tieout found a ruled table, it re-reads the page and the agreement between
the two readings (F1 over the multiset of cell texts) becomes the table's ``confidence``: 1.0 when both
agree exactly, 0.5 when pdfplumber finds nothing comparable. It never changes cells.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Sequence

import structlog

from pipeline.failures import raise_if_out_of_memory
from schemas.models import Table

__all__ = ["cell_agreement", "second_opinion"]

log = structlog.get_logger(__name__)

_WS = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _WS.sub("", text).casefold()


def cell_agreement(ours: Sequence[str], theirs: Sequence[str]) -> float:
    """F1 of two multisets of normalised non-empty cell texts."""
    a = Counter(n for n in map(_norm, ours) if n)
    b = Counter(n for n in map(_norm, theirs) if n)
    if not a or not b:
        return 0.0
    common = sum((a & b).values())
    if common == 0:
        return 0.0
    p, r = common / sum(b.values()), common / sum(a.values())
    return 2 * p * r / (p + r)


def second_opinion(data: bytes, tables: list[Table], *, max_pages: int) -> list[Table]:
    """Return ``tables`` with ``confidence`` set on ruled tables from pdfplumber's agreement."""
    ruled_pages = sorted({t.page for t in tables if t.method == "ruled"})[:max_pages]
    if not ruled_pages:
        return tables
    theirs_by_page: dict[int, list[list[str]]] = {}
    try:
        import pdfplumber  # imported lazily: most documents never need it

        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for pno in ruled_pages:
                try:
                    found = pdf.pages[pno - 1].extract_tables()
                except Exception as exc:  # pdfminer fails on some streams MuPDF reads fine
                    raise_if_out_of_memory(exc)
                    log.debug("pdfplumber page failed", page=pno, error=str(exc))
                    continue
                theirs_by_page[pno] = [[c or "" for row in t for c in row] for t in found]
    except Exception as exc:
        raise_if_out_of_memory(exc)
        log.debug("pdfplumber unavailable for document", error=str(exc))
        return tables
    out: list[Table] = []
    for t in tables:
        if t.method != "ruled" or t.page not in theirs_by_page:
            out.append(t)
            continue
        ours = [c.text for c in t.cells if c.page == t.page]
        best = max((cell_agreement(ours, th) for th in theirs_by_page[t.page]), default=0.0)
        out.append(t.model_copy(update={"confidence": round(0.5 + 0.5 * best, 3)}))
    return out
