"""Structure of the sample documents: stitched statements, typed periods, chunks with provenance."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from pipeline.engine import process_path
from schemas.models import DocumentResult

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
PDFS = sorted(p.name for p in SAMPLES.glob("*.pdf"))


@cache
def result(name: str) -> DocumentResult:
    return process_path(SAMPLES / name)


@pytest.mark.parametrize("name", PDFS)
def test_balance_sheet_is_stitched_across_the_page_break(name: str) -> None:
    r = result(name)
    stitched = [t for t in r.tables if t.continued]
    assert len(stitched) == 1, [(t.title, t.pages) for t in r.tables]
    t = stitched[0]
    assert len(t.pages) == 2 and t.pages[1] == t.pages[0] + 1
    assert t.row_pages[0] == t.pages[0] and t.row_pages[-1] == t.pages[1]
    assert t.row_pages == sorted(t.row_pages)
    # The repeated header of the continuation page is not a body row.
    header = [c.text for c in t.cells if c.is_header]
    body_labels = [c.text for c in t.cells if not c.is_header]
    assert not set(header) & set(body_labels)
    # Balance sheet figures are instants.
    kinds = {c.number.period.kind for c in t.cells if c.number and c.number.period}
    assert kinds == {"instant"}


@pytest.mark.parametrize("name", PDFS)
def test_every_fact_and_chunk_points_at_a_real_page(name: str) -> None:
    r = result(name)
    n = r.stats.pages
    assert all(1 <= f.page <= n for f in r.facts)
    assert all(1 <= p <= n for c in r.chunks for p in c.pages)
    assert all(p in c.pages for c in r.chunks for p in [c.page])
    assert any(c.kind == "table" for c in r.chunks) and any(c.kind == "text" for c in r.chunks)
    assert not r.errors


@pytest.mark.parametrize("name", PDFS)
def test_cells_built_without_validation_are_valid(name: str) -> None:
    from schemas.models import Cell

    for t in result(name).tables:
        for c in t.cells:
            assert Cell.model_validate(c.model_dump()) == c
