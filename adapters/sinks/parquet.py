"""Parquet datasets in object storage (pyarrow), partitioned by ingest date, schema versioned.

Layout: ``datasets/<name>/schema=v4/ingest_date=YYYY-MM-DD/<doc_id>.parquet`` for ``facts``, ``flags`` and
``documents``, and ``changes`` for a document that has an earlier version. One file per document and
dataset, named by document id: a replay overwrites the same file, so replaying a topic adds no rows.
Readers use ``pyarrow.dataset`` with hive partitioning.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from io import BytesIO
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from adapters.sinks.base import BucketSink, SinkBatch, store_errors
from adapters.sinks.rows import CHANGES, DECIMAL_PLACES, DOCUMENTS, FACTS, FLAGS, ColumnType, RowLayout
from adapters.storage import Store, dataset_key

__all__ = ["PARQUET_SCHEMA_VERSION", "ParquetDatasets", "arrow_schema", "tables_of", "write_parquet"]

PARQUET_SCHEMA_VERSION = "v4"
"""v4: facts carry ``provenance`` (taxonomy, or mapped by the model and corroborated or not); the ``changes``
dataset was added later at v4 (a new dataset, no existing layout changed).
v3: the columns derived from the records (:mod:`adapters.sinks.rows`): exact decimal amounts, period
dates, concept ids, bbox structs, evidence as JSON."""

_BBOX = pa.struct([("x0", pa.float64()), ("y0", pa.float64()), ("x1", pa.float64()), ("y1", pa.float64())])

_TYPES: dict[ColumnType, pa.DataType] = {
    "text": pa.string(),
    "integer": pa.int32(),
    "decimal": pa.decimal128(38, DECIMAL_PLACES),
    "real": pa.float64(),
    "date": pa.date32(),
    "bbox": _BBOX,
    "text_list": pa.list_(pa.string()),
    "integer_list": pa.list_(pa.int32()),
    "json": pa.string(),
}


def arrow_schema(layout: RowLayout[Any]) -> pa.Schema:
    """The Arrow schema of a row layout."""
    return pa.schema([(c.name, _TYPES[c.type]) for c in layout.columns])


def _arrow_value(kind: ColumnType, value: object) -> object:
    if value is None:
        return None
    if kind == "bbox":
        return dict(zip(("x0", "y0", "x1", "y1"), value, strict=True))  # type: ignore[call-overload]
    if kind == "json":
        return json.dumps(value, ensure_ascii=False)
    return value


def _table(layout: RowLayout[Any], records: Sequence[Any]) -> pa.Table:
    rows = [
        {c.name: _arrow_value(c.type, value) for c, value in zip(layout.columns, row.values(), strict=True)}
        for row in layout.rows(records)
    ]
    return pa.Table.from_pylist(rows, schema=arrow_schema(layout))


def tables_of(batch: SinkBatch) -> dict[str, pa.Table]:
    """The datasets' rows for one document, with their fixed schemas (``changes`` only when it has some)."""
    tables = {
        FACTS.name: _table(FACTS, batch.result.facts),
        FLAGS.name: _table(FLAGS, batch.result.flags),
        DOCUMENTS.name: _table(DOCUMENTS, [batch]),
    }
    if batch.changes is not None:
        tables[CHANGES.name] = _table(CHANGES, [batch.changes])
    return tables


def write_parquet(store: Store, bucket: str, batch: SinkBatch) -> list[str]:
    """Write the document's rows of every dataset; returns the ``s3://`` URIs written."""
    uris = []
    for name, table in tables_of(batch).items():
        buf = BytesIO()
        pq.write_table(table, buf, compression="zstd")
        uris.append(
            store.put_bytes(
                bucket,
                dataset_key(name, PARQUET_SCHEMA_VERSION, batch.ingest_date, batch.result.doc_id),
                buf.getvalue(),
                "application/vnd.apache.parquet",
            )
        )
    return uris


class ParquetDatasets(BucketSink):
    """The Parquet datasets as a :class:`~adapters.sinks.base.Sink`."""

    name = "parquet"

    def write(self, batch: SinkBatch) -> list[str]:
        """One file per dataset for the document; returns their URIs."""
        with store_errors():
            return write_parquet(self.store, self.bucket, batch)
