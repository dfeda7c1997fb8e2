"""Parquet datasets in object storage (pyarrow), partitioned by ingest date, schema versioned.

Layout: ``datasets/<name>/schema=v2/ingest_date=YYYY-MM-DD/<doc_id>.parquet`` for ``facts``, ``flags`` and
``documents``. One file per document and dataset, named by document id: a replay overwrites the same file,
so replaying a topic adds no rows. Readers use ``pyarrow.dataset`` with hive partitioning.
"""

from __future__ import annotations

import json
from io import BytesIO

import pyarrow as pa
import pyarrow.parquet as pq

from adapters.sinks.base import SinkBatch, SinkOutage, SinkRefused
from adapters.storage import StorageError, Store
from schemas.models import SCHEMA_VERSION, DocumentResult

PARQUET_SCHEMA_VERSION = "v2"

FACTS = pa.schema(
    [
        ("fact_id", pa.string()),
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("metric", pa.string()),
        ("period_key", pa.string()),
        ("period_kind", pa.string()),
        ("value", pa.float64()),
        ("printed", pa.string()),
        ("decimals", pa.int32()),
        ("scale", pa.int32()),
        ("currency", pa.string()),
        ("unit", pa.string()),
        ("page", pa.int32()),
        ("origin", pa.string()),
        ("label", pa.string()),
        ("table_id", pa.string()),
        ("context", pa.string()),
        ("printed_value", pa.float64()),
        ("scale_source", pa.string()),
        ("basis", pa.string()),
        ("statement", pa.string()),
        ("role", pa.string()),
        ("parent", pa.string()),
        ("record_schema_version", pa.string()),
    ]
)

FLAGS = pa.schema(
    [
        ("flag_id", pa.string()),
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("rule", pa.string()),
        ("kind", pa.string()),
        ("severity", pa.string()),
        ("metric", pa.string()),
        ("period_key", pa.string()),
        ("message", pa.string()),
        ("expected", pa.float64()),
        ("actual", pa.float64()),
        ("difference", pa.float64()),
        ("tolerance", pa.float64()),
        ("pages", pa.list_(pa.int32())),
        ("evidence_json", pa.string()),
        ("confidence", pa.float64()),
        ("reasons", pa.list_(pa.string())),
        ("record_schema_version", pa.string()),
    ]
)

DOCUMENTS = pa.schema(
    [
        ("doc_id", pa.string()),
        ("source", pa.string()),
        ("pipeline_version", pa.string()),
        ("pages", pa.int32()),
        ("tables", pa.int32()),
        ("facts", pa.int32()),
        ("flags", pa.int32()),
        ("errors", pa.int32()),
        ("model_stage", pa.string()),
        ("record_schema_version", pa.string()),
    ]
)


def tables_of(result: DocumentResult) -> dict[str, pa.Table]:
    """The three datasets' rows for one document, with their fixed schemas."""
    facts = [
        {
            "fact_id": f.fact_id,
            "doc_id": f.doc_id,
            "source": f.source,
            "metric": f.metric,
            "period_key": f.period.key if f.period else None,
            "period_kind": f.period.kind if f.period else None,
            "value": f.value,
            "printed": f.printed,
            "decimals": f.decimals,
            "scale": f.scale,
            "currency": f.currency,
            "unit": f.unit,
            "page": f.page,
            "origin": f.origin,
            "label": f.label,
            "table_id": f.table_id,
            "context": f.context,
            "printed_value": f.printed_value,
            "scale_source": f.scale_source,
            "basis": f.basis,
            "statement": f.statement,
            "role": f.role,
            "parent": f.parent,
            "record_schema_version": SCHEMA_VERSION,
        }
        for f in result.facts
    ]
    flags = [
        {
            "flag_id": f.flag_id,
            "doc_id": f.doc_id,
            "source": f.source,
            "rule": f.rule,
            "kind": f.kind,
            "severity": f.severity,
            "metric": f.metric,
            "period_key": f.period.key if f.period else None,
            "message": f.message,
            "expected": f.expected,
            "actual": f.actual,
            "difference": f.difference,
            "tolerance": f.tolerance,
            "pages": f.pages,
            "evidence_json": json.dumps([e.model_dump(mode="json") for e in f.evidence]),
            "confidence": f.confidence,
            "reasons": f.reasons,
            "record_schema_version": SCHEMA_VERSION,
        }
        for f in result.flags
    ]
    document = [
        {
            "doc_id": result.doc_id,
            "source": result.source,
            "pipeline_version": result.pipeline_version,
            "pages": result.stats.pages,
            "tables": len(result.tables),
            "facts": len(result.facts),
            "flags": len(result.flags),
            "errors": len(result.errors),
            "model_stage": result.model.status if result.model else "skipped",
            "record_schema_version": SCHEMA_VERSION,
        }
    ]
    return {
        "facts": pa.Table.from_pylist(facts, schema=FACTS),
        "flags": pa.Table.from_pylist(flags, schema=FLAGS),
        "documents": pa.Table.from_pylist(document, schema=DOCUMENTS),
    }


def dataset_key(name: str, ingest_date: str, doc_id: str) -> str:
    """Object key of one document's file in a dataset."""
    return f"datasets/{name}/schema={PARQUET_SCHEMA_VERSION}/ingest_date={ingest_date}/{doc_id}.parquet"


def write_parquet(store: Store, bucket: str, result: DocumentResult, ingest_date: str) -> list[str]:
    """Write the document's rows of every dataset; returns the ``s3://`` URIs written."""
    uris = []
    for name, table in tables_of(result).items():
        buf = BytesIO()
        pq.write_table(table, buf, compression="zstd")
        uris.append(
            store.put_bytes(
                bucket,
                dataset_key(name, ingest_date, result.doc_id),
                buf.getvalue(),
                "application/vnd.apache.parquet",
            )
        )
    return uris


class ParquetDatasets:
    """The Parquet datasets as a :class:`~adapters.sinks.base.Sink`."""

    name = "parquet"

    def __init__(self, store: Store, bucket: str) -> None:
        """Write into ``bucket`` of ``store``."""
        self.store = store
        self.bucket = bucket

    def write(self, batch: SinkBatch) -> list[str]:
        """One file per dataset for the document; returns their URIs."""
        try:
            return write_parquet(self.store, self.bucket, batch.result, batch.ingest_date)
        except StorageError as exc:
            if exc.transient:
                raise SinkOutage(str(exc)) from exc
            raise SinkRefused(str(exc), category="storage") from exc
