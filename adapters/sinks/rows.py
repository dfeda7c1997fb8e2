"""One projection of the records into table rows, derived from the pydantic models, for every sink.

The Parquet datasets, the PostgreSQL tables and the quality gate all read the same rows: one column per
field of :class:`~schemas.models.Fact` or :class:`~schemas.models.Flag`, in the models' order, typed the
way a data team queries them:

* amounts (``value``, ``printed_value``, ``expected``, …) are **exact decimals** — a figure printed to
  one decimal in millions is that decimal number, not the nearest double; a score (``confidence``) stays a
  float;
* a period becomes ``period_key``, ``period_kind``, ``period_label``, ``period_end`` (a **date**, when the
  period printed one), ``period_months`` and ``fiscal_year``;
* the us-gaap and ifrs-full **concept ids** are the facts' own fields;
* a bbox is ``(x0, y0, x1, y1)`` in PDF points, top-left origin; nested records (evidence) are JSON.

A field added to a model therefore appears in every sink at once; the PostgreSQL migrations must add its
column (a test compares the migrated tables with :data:`FACTS` and :data:`FLAGS`), and the Parquet schema
version names the layout.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Annotated, Any, Generic, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from adapters.sinks.base import SinkBatch
from schemas.models import BBox, DocumentChanges, Fact, Flag, Period

__all__ = [
    "CHANGES",
    "DECIMAL_PLACES",
    "DOCUMENTS",
    "FACTS",
    "FLAGS",
    "Column",
    "ColumnType",
    "M",
    "R",
    "RowLayout",
    "exact",
    "layout_of",
    "plain",
]

ColumnType = Literal[
    "text", "integer", "decimal", "real", "date", "bbox", "text_list", "integer_list", "json"
]
"""How a column is stored: each sink maps these to its own types (see the Parquet and PostgreSQL sinks)."""

DECIMAL_PLACES = 10
"""Fractional digits kept of an amount whose precision is not recorded (a computed difference)."""

_SCORES = frozenset({"confidence", "matched_share"})
"""Float fields that are scores or shares, not amounts: stored as floats."""

R = TypeVar("R")
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a row layout.

    Attributes:
        name: Column name.
        type: Storage type.
        get: The column's value for a record (Python values: ``Decimal``, ``date``, ``tuple``, …).
    """

    name: str
    type: ColumnType
    get: Callable[[Any], object]


@dataclass(frozen=True, slots=True)
class RowLayout(Generic[R]):
    """The columns of one record type, and the record's key.

    Attributes:
        name: Dataset and table name (``facts``, ``flags``, ``documents``).
        key: The column that identifies a row (replays overwrite, never add).
        columns: The columns, in order.
    """

    name: str
    key: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> list[str]:
        """Column names, in order."""
        return [c.name for c in self.columns]

    def row(self, record: R) -> dict[str, Any]:
        """One record as a row: column name → Python value."""
        return {c.name: c.get(record) for c in self.columns}

    def rows(self, records: Iterable[R]) -> list[dict[str, Any]]:
        """Records as rows, in order."""
        return [self.row(r) for r in records]


def exact(value: float | None, places: int | None = None) -> Decimal | None:
    """A float as the exact decimal it stands for.

    Args:
        value: The float (a figure in base units, or as printed).
        places: Its precision in fractional digits when known (a figure printed to one decimal in
            millions has -5 places in base units); otherwise the float's shortest repr, rounded to
            :data:`DECIMAL_PLACES`.

    Returns:
        The decimal, or None for None and for non-finite floats (no column type holds them).
    """
    if value is None or not math.isfinite(value):
        return None
    keep = DECIMAL_PLACES if places is None else min(max(places, 0), DECIMAL_PLACES)
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-keep), rounding=ROUND_HALF_EVEN)


def _json_value(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    return value


def _period_columns(field: str) -> list[Column]:
    def part(get: Callable[[Period], object]) -> Callable[[Any], object]:
        return lambda r: None if getattr(r, field) is None else get(getattr(r, field))

    return [
        Column("period_key", "text", part(lambda p: p.key)),
        Column("period_kind", "text", part(lambda p: p.kind)),
        Column("period_label", "text", part(lambda p: p.label)),
        Column("period_end", "date", part(lambda p: p.end_day())),
        Column("period_months", "integer", part(lambda p: p.months)),
        Column("fiscal_year", "integer", part(lambda p: p.fiscal_year)),
    ]


def _places(record: Any, field: str) -> int | None:
    """Fractional digits of a fact's amount: ``decimals`` in base units, ``decimals + scale`` as printed."""
    if not isinstance(record, Fact) or record.decimals is None:
        return None
    if field == "printed_value":
        return record.decimals + (record.scale or 0)
    return record.decimals if field == "value" else None


def _strip_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _field_columns(field: str, annotation: Any) -> list[Column]:
    """The column(s) one model field becomes."""
    kind = _strip_optional(annotation)
    get: Callable[[Any], object] = lambda r: getattr(r, field)  # noqa: E731
    if kind is Period:
        return _period_columns(field)
    if field == "schema_version":
        # the record's own contract version, beside the layout's version the sink names
        return [Column("record_schema_version", "text", get)]
    if kind == BBox:
        return [Column(field, "bbox", get)]
    if kind is float:
        if field in _SCORES:
            return [Column(field, "real", get)]
        return [Column(field, "decimal", lambda r: exact(getattr(r, field), _places(r, field)))]
    if kind is int:
        return [Column(field, "integer", get)]
    if kind is str or get_origin(kind) is Literal:
        return [Column(field, "text", get)]
    if (isinstance(kind, type) and issubclass(kind, BaseModel)) or get_origin(kind) is dict:
        return [Column(field, "json", lambda r: _json_value(getattr(r, field)))]
    if get_origin(kind) is list:
        (item,) = get_args(kind)
        if get_origin(item) is Annotated:  # list[PageNo] is a list of int
            item = get_args(item)[0]
        if item is str:
            return [Column(field, "text_list", get)]
        if item is int:
            return [Column(field, "integer_list", get)]
        return [Column(field, "json", lambda r: _json_value(getattr(r, field)))]
    raise TypeError(f"no column type for field {field!r} ({annotation!r}); add one in adapters/sinks/rows.py")


def layout_of(model: type[M], name: str, key: str) -> RowLayout[M]:
    """The row layout of a record model: its fields, in order, as columns.

    Args:
        model: A record model of :mod:`schemas.models`.
        name: Dataset and table name.
        key: The field that identifies a row.

    Returns:
        The layout.

    Raises:
        TypeError: if a field has a type no column type stands for.
    """
    columns: list[Column] = []
    for field, info in model.model_fields.items():
        columns.extend(_field_columns(field, info.annotation))
    schema_version = next(c for c in columns if c.name == "record_schema_version")
    # the version last, as the sinks have always written it
    ordered = [c for c in columns if c is not schema_version] + [schema_version]
    return RowLayout(name, key, tuple(ordered))


FACTS: RowLayout[Fact] = layout_of(Fact, "facts", "fact_id")
"""One row per fact."""

FLAGS: RowLayout[Flag] = layout_of(Flag, "flags", "flag_id")
"""One row per flag; ``evidence`` is JSON (page, bbox, text, role, value per side)."""

CHANGES: RowLayout[DocumentChanges] = layout_of(DocumentChanges, "changes", "new_doc_id")
"""One row per version of a document that has an earlier one: the two doc ids and sources, the counts,
and the figure changes, the ties and the VER001 flags as JSON (one element per change, tie or flag)."""

DOCUMENTS: RowLayout[SinkBatch] = RowLayout(
    "documents",
    "doc_id",
    (
        Column("doc_id", "text", lambda b: b.result.doc_id),
        Column("source", "text", lambda b: b.result.source),
        Column("pipeline_version", "text", lambda b: b.result.pipeline_version),
        Column("pages", "integer", lambda b: b.result.stats.pages or len(b.result.page_info)),
        Column("tables", "integer", lambda b: len(b.result.tables)),
        Column("facts", "integer", lambda b: len({f.fact_id for f in b.result.facts})),
        Column("flags", "integer", lambda b: len({f.flag_id for f in b.result.flags})),
        Column("errors", "integer", lambda b: len(b.result.errors)),
        Column("model_stage", "text", lambda b: b.model_stage),
    ),
)
"""One row per document: what it is, how much came out of it and where its model stage stands. The
ingest date is each sink's partition (a Parquet directory, a PostgreSQL column), not a row field."""


def plain(row: dict[str, Any]) -> dict[str, Any]:
    """A row with decimals as floats and dates as ISO text, for dataframes (the quality gate)."""
    return {
        k: float(v) if isinstance(v, Decimal) else v.isoformat() if isinstance(v, date) else v
        for k, v in row.items()
    }
