"""pdfplumber as a second opinion: agreement on ruled tables becomes the table's confidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import EngineConfig
from pipeline.engine import process_path
from pipeline.parse.plumber import cell_agreement


def test_cell_agreement() -> None:
    assert cell_agreement(["a", "b", "1,0 00"], ["1,000", "b", "a"]) == 1.0
    assert cell_agreement(["a", "b"], []) == 0.0
    assert 0.0 < cell_agreement(["a", "b", "c", "d"], ["a", "b"]) < 1.0


@pytest.mark.corpus
def test_ruled_tables_get_a_confidence_only_when_asked(corpus: Path) -> None:
    pdf = corpus / "table/tabula__twotables.pdf"
    plain = process_path(pdf)
    assert all(t.confidence is None for t in plain.tables)
    checked = process_path(pdf, EngineConfig(plumber_second_opinion=True))
    ruled = [t for t in checked.tables if t.method == "ruled"]
    assert ruled
    assert all(t.confidence is not None and t.confidence >= 0.9 for t in ruled), [t.confidence for t in ruled]
    # The cells themselves are tieout's, whatever pdfplumber says.
    assert [t.cells for t in checked.tables] == [t.cells for t in plain.tables]
