"""Contracts of the Kafka topics.

Every topic's payload is a model (here, or a record of ``schemas.models``, ``schemas.rewards`` and
``schemas.reviews``) with a checked-in JSON Schema under ``schemas/json/topics/``; which topic carries
which is :data:`schemas.topology.TOPOLOGY`.

Messages are keyed by ``doc_id`` (the sha256 of the document's bytes) so that one document stays on one
partition, and carry ``trace_id`` in the payload and in the ``trace_id`` header. Large payloads — a parsed
document — go to object storage; the event carries the pointer.

The landing topic is written by object stores, not by tieout, so its models accept the shapes those
stores send (AWS S3 and versitygw ``{"Records": [...]}``, MinIO's ``{"EventName", "Key", "Records"}``
wrapper) and ignore fields they do not need.
"""

from __future__ import annotations

import json
from typing import Literal
from urllib.parse import unquote_plus

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from schemas.models import DocumentIdentity, DocumentStats, ErrorRecord, Record

__all__ = [
    "ClaimCheck",
    "DeadLetter",
    "DocumentSummary",
    "EventBase",
    "LandingError",
    "ObjectRef",
    "ParsedEvent",
    "S3Bucket",
    "S3Entity",
    "S3EventNotification",
    "S3EventRecord",
    "S3Object",
    "VerifiedEvent",
    "parse_landing",
]


# ---------------------------------------------------------------------------------------------------------
# landing: S3 event notification records


class _Lenient(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)


class S3Bucket(_Lenient):
    """``Records[].s3.bucket``."""

    name: str


class S3Object(_Lenient):
    """``Records[].s3.object``; the key is URL-encoded as S3 sends it."""

    key: str
    size: int | None = None
    etag: str | None = Field(default=None, alias="eTag")
    version_id: str | None = Field(default=None, alias="versionId")
    sequencer: str | None = None


class S3Entity(_Lenient):
    """``Records[].s3``."""

    bucket: S3Bucket
    object: S3Object


class S3EventRecord(_Lenient):
    """One record of an S3 event notification."""

    event_name: str = Field(alias="eventName")
    event_time: str | None = Field(default=None, alias="eventTime")
    s3: S3Entity


class S3EventNotification(_Lenient):
    """The message on the landing topic: ``{"Records": [...]}`` (MinIO adds ``EventName`` and ``Key``)."""

    records: list[S3EventRecord] = Field(default_factory=list, alias="Records")
    event_name: str | None = Field(default=None, alias="EventName")
    key: str | None = Field(default=None, alias="Key")


class ObjectRef(Record):
    """An object in the store as the notification named it.

    AWS URL-encodes keys in notifications ("Annual+Report.pdf"); versitygw and others send them as is
    ("Annual Report +final.pdf"), and nothing in the record says which. ``key_candidates`` lists both
    readings; the reader of the object tries them in turn.
    """

    bucket: str
    key: str
    size: int | None = None
    etag: str | None = None
    version_id: str | None = None
    sequencer: str | None = None

    @property
    def uri(self) -> str:
        """``s3://bucket/key``."""
        return f"s3://{self.bucket}/{self.key}"

    def key_candidates(self) -> list[str]:
        """The key as sent, then its URL-decoded reading when that differs."""
        decoded = unquote_plus(self.key)
        return [self.key] if decoded == self.key else [self.key, decoded]


class LandingError(ValueError):
    """A landing message that is not an S3 event notification (a permanent error: dead-lettered)."""


def parse_landing(raw: bytes) -> list[ObjectRef]:
    """The created objects an S3 event notification announces.

    Test events (versitygw and AWS send one when notifications are set up), deletions and other event
    types yield nothing. Keys are kept as sent (see :meth:`ObjectRef.key_candidates`).

    Raises:
        LandingError: When the payload is not JSON or not an S3 event notification.
    """
    try:
        doc = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LandingError(f"not JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise LandingError("not a JSON object")
    if "Records" not in doc:
        if doc.get("Event") == "s3:TestEvent" or doc.get("Service") == "Amazon S3":
            return []
        raise LandingError("no Records in the event")
    try:
        note = S3EventNotification.model_validate(doc)
    except ValidationError as exc:
        raise LandingError(f"not an S3 event notification: {exc.errors()[0]['msg']}") from exc
    out = []
    for r in note.records:
        name = r.event_name.removeprefix("s3:")
        if not name.startswith("ObjectCreated"):
            continue
        o = r.s3.object
        out.append(
            ObjectRef(
                bucket=r.s3.bucket.name,
                key=o.key,
                size=o.size,
                etag=o.etag.strip('"') if o.etag else None,
                version_id=o.version_id,
                sequencer=o.sequencer,
            )
        )
    return out


# ---------------------------------------------------------------------------------------------------------
# tieout's own events


class EventBase(Record):
    """Fields every tieout event carries."""

    doc_id: str
    trace_id: str
    source: str = Field(description="Object key (or file name) of the document.")
    pipeline_version: str
    produced_at: str = Field(description="ISO 8601 UTC time the event was produced.")


class ParsedEvent(EventBase):
    """A document was parsed: its tables, chunks and facts are in object storage at ``artifact``."""

    object: ObjectRef
    artifact: str = Field(description="s3:// URI of the parsed DocumentResult JSON.")
    stats: DocumentStats
    errors: list[ErrorRecord] = Field(default_factory=list, description="Per-page problems (not fatal).")


class VerifiedEvent(EventBase):
    """A document was checked; its facts and flags were published in the same transaction."""

    artifact: str = Field(description="s3:// URI of the verified DocumentResult JSON.")
    facts: int
    flags: int
    model_stage: Literal["done", "skipped", "pending", "partial"] = "skipped"


class DocumentSummary(EventBase):
    """Per-document summary on the ``summaries`` topic, published by the sink after the quality gate."""

    pages: int
    tables: int
    facts: int
    flags: int
    errors: int
    model_stage: Literal["done", "skipped", "pending", "partial"]
    datasets: list[str] = Field(
        default_factory=list,
        description="s3:// URIs of the objects the sinks wrote: Parquet files and the xBRL report's files.",
    )
    identity: DocumentIdentity | None = Field(
        default=None, description="The document's issuer, form and period end, as its result has them."
    )


class DeadLetter(Record):
    """A message that could not be processed, with why; the original message rides along.

    The same facts are in the Kafka headers (``stage``, ``error_class``, ``attempts``, ``original_topic``,
    ``original_partition``, ``original_offset``) so that tools can route without parsing the value.
    """

    stage: str
    error_class: str
    category: str
    message: str
    attempts: int
    original_topic: str
    original_partition: int
    original_offset: int
    original_key: str | None = None
    original_value: str = Field(description="The original payload, decoded as UTF-8 with replacement.")
    doc_id: str | None = None
    trace_id: str | None = None
    source: str | None = None
    error: ErrorRecord | None = None
    produced_at: str


class ClaimCheck(Record):
    """Stands in for a record larger than the broker accepts; the record itself is in object storage.

    Any topic may carry one: the message then has a ``claim_check`` header with the same URI, so a reader
    can tell without parsing. Read the object at ``claim_check`` to get the record the topic's schema
    describes. Objects are content-addressed, so a replay points at the same one.
    """

    claim_check: str = Field(description="s3:// URI of the record's bytes.")
    bytes: int = Field(ge=0, description="Size of the stored record.")
    topic: str = Field(description="The topic whose schema the stored record follows.")
