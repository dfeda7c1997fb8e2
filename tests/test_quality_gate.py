"""The GX quality gate: real documents pass, planted violations are named."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from adapters.sinks.quality import QualityGate
from pipeline.config import EngineConfig
from pipeline.engine import process_path
from schemas.models import DocumentResult

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "sample_docs").glob("*.pdf"))


@cache
def gate() -> QualityGate:
    return QualityGate()


@cache
def sample(i: int) -> DocumentResult:
    return process_path(SAMPLES[i])


@pytest.mark.parametrize("i", range(len(SAMPLES)))
def test_sample_documents_pass(i: int) -> None:
    res = gate().check(sample(i))
    assert res.success, res.failed
    assert res.evaluated >= 15


@pytest.mark.corpus
def test_real_filings_pass(corpus: Path) -> None:
    for pdf in sorted((corpus / "financial").glob("financebench__*.pdf"))[:4]:
        res = gate().check(process_path(pdf, EngineConfig(first_pages=25)))
        assert res.success, (pdf.name, res.failed)


def test_planted_violations_are_named() -> None:
    doc = sample(0)
    f0, f1, *rest = doc.facts
    bad = doc.model_copy(
        update={
            "facts": [
                f0.model_copy(update={"metric": "not_a_metric"}),
                f1.model_copy(update={"currency": "dollars", "value": 5e17}),
                f1,  # the same fact twice
                *rest,
            ]
        }
    )
    res = gate().check(bad)
    assert not res.success
    assert set(res.failed) >= {
        "facts:expect_column_values_to_be_in_set(metric)",
        "facts:expect_column_values_to_match_regex(currency)",
        "facts:expect_column_values_to_be_between(value)",
        "facts:expect_column_values_to_be_unique(fact_id)",
    }


def test_empty_document_has_nothing_to_gate() -> None:
    empty = sample(0).model_copy(update={"facts": [], "tables": []})
    res = gate().check(empty)
    assert res.success and res.evaluated == 0


def test_a_value_in_units_needs_a_scale_source() -> None:
    """A figure whose scale nobody established never reaches a sink as if it were in units."""
    doc = sample(0)
    f0, f1, *rest = doc.facts
    unscaled = f0.model_copy(update={"scale": None, "scale_source": None})  # value still set: as units
    res = gate().check(doc.model_copy(update={"facts": [unscaled, f1, *rest]}))
    assert not res.success
    assert "facts:expect_column_values_to_not_be_null(scale_source)" in res.failed
    assert "facts:expect_column_values_to_be_null(value)" in res.failed


def test_a_figure_of_unknown_scale_passes_as_printed() -> None:
    doc = sample(0)
    f0, *rest = doc.facts
    unknown = f0.model_copy(update={"scale": None, "scale_source": None, "value": None, "decimals": None})
    res = gate().check(doc.model_copy(update={"facts": [unknown, *rest]}))
    assert res.success, res.failed


@pytest.mark.parametrize("i", range(len(SAMPLES)))
def test_every_sample_fact_has_a_scale_source(i: int) -> None:
    assert all(f.scale_source is not None for f in sample(i).facts)
