"""The sinks' row projection (adapters/sinks/rows.py): derived from the records, typed for data teams."""

from __future__ import annotations

import io
import json
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pydantic import BaseModel

from adapters.sinks.base import SinkBatch
from adapters.sinks.parquet import arrow_schema, tables_of
from adapters.sinks.rows import DOCUMENTS, FACTS, FLAGS, RowLayout, exact, layout_of
from pipeline.checks.stage import verify
from pipeline.engine import process_path
from schemas.models import DocumentResult, Evidence, Fact, Flag, Period
from tests.support.records import fact

SAMPLE = Path(__file__).resolve().parents[1] / "sample_docs" / "kaizen_fy2025_annual_report.pdf"


@pytest.fixture(scope="module")
def result() -> DocumentResult:
    r = verify(process_path(SAMPLE))
    assert r.facts and r.flags, "the sample needs facts and flags to test their rows"
    return r


@pytest.mark.parametrize(("model", "layout"), [(Fact, FACTS), (Flag, FLAGS)])
def test_every_field_of_the_record_is_a_column(model: type[BaseModel], layout: RowLayout[Any]) -> None:
    names = set(layout.names)
    for field in model.model_fields:
        expected = {"period": "period_key", "schema_version": "record_schema_version"}.get(field, field)
        assert expected in names, field


def test_amounts_are_the_exact_decimals_printed() -> None:
    row = FACTS.row(fact())
    assert row["value"] == Decimal("2031700000") and isinstance(row["value"], Decimal)
    assert row["printed_value"] == Decimal("2031.7")
    assert row["period_end"] == date(2025, 12, 31)
    assert row["bbox"] == (1.0, 2.0, 3.0, 4.0)
    unknown = FACTS.row(fact(value=None, decimals=None, scale=None, scale_source=None))
    assert unknown["value"] is None and unknown["printed_value"] == Decimal("2031.7")


def test_a_period_printed_without_its_day_ends_on_the_last_day_of_its_month() -> None:
    # "Year ended December 2016" (a Corning 10-K's level-3 tables): the period reader keeps end_date
    # "2016-12"; the row projection parsed it as a full ISO date and raised, losing the batch.
    month = Period(
        kind="duration", key="FY2016", label="Year ended December 2016", months=12, end_date="2016-12"
    )
    assert FACTS.row(fact(period=month))["period_end"] == date(2016, 12, 31)
    feb = month.model_copy(update={"end_date": "2024-02"})
    assert feb.end_day() == date(2024, 2, 29)
    assert month.model_copy(update={"end_date": None}).end_day() is None


def test_computed_amounts_keep_ten_places_and_non_finite_ones_are_null() -> None:
    assert exact(0.1 + 0.2) == Decimal("0.3000000000")
    assert exact(float("nan")) is None and exact(float("inf")) is None and exact(None) is None
    assert exact(1234.5, places=-3) == Decimal("1234")  # precision above units keeps whole units


def test_a_field_without_a_column_type_is_refused() -> None:
    class Odd(BaseModel):
        schema_version: str = "1"
        when: complex

    with pytest.raises(TypeError, match="when"):
        layout_of(Odd, "odd", "when")


def test_parquet_rows_round_trip(result: DocumentResult) -> None:
    batch = SinkBatch(result, ingest_date="2026-11-30", model_stage="skipped")
    tables = tables_of(batch)
    for layout, records in ((FACTS, result.facts), (FLAGS, result.flags), (DOCUMENTS, [batch])):
        buf = io.BytesIO()
        pq.write_table(tables[layout.name], buf)
        back = pq.read_table(io.BytesIO(buf.getvalue()))
        assert back.schema == arrow_schema(layout)
        assert back.num_rows == len(records)
    facts = pq.read_table(io.BytesIO(_parquet(tables["facts"]))).to_pylist()
    for row, f in zip(facts, result.facts, strict=True):
        assert row["fact_id"] == f.fact_id and row["concept_us_gaap"] == f.concept_us_gaap
        if f.value is not None and f.scale is not None:
            assert row["value"] == Decimal(repr(f.printed_value)).scaleb(f.scale)
        assert (row["bbox"] is None) == (f.bbox is None)
        if f.bbox is not None:
            assert tuple(row["bbox"].values()) == f.bbox
    flags = pq.read_table(io.BytesIO(_parquet(tables["flags"]))).to_pylist()
    for row, g in zip(flags, result.flags, strict=True):
        assert [Evidence.model_validate(e) for e in json.loads(row["evidence"])] == g.evidence
        assert row["pages"] == g.pages and row["reasons"] == g.reasons
    (document,) = pq.read_table(io.BytesIO(_parquet(tables["documents"]))).to_pylist()
    assert document["facts"] == len(result.facts) and document["model_stage"] == "skipped"


def _parquet(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()
