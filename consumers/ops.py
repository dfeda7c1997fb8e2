"""Operator tools: reconcile the landing bucket with the sink, and re-drive dead letters.

``reconcile`` is the answer to "is anything missing?" whatever went wrong: a notification lost while the
broker was down, a document dead-lettered by an older version, a stage that never finished. It lists the
landing bucket and sorts the PDFs into

* ``refused``: the key policy (:func:`adapters.storage.readable_keys`, the one the parse stage applies to
  the keys S3 events announce) refuses the object's key, say a newline or a ``..%2F..%2F``; or the parse
  stage refused the key it was announced under, which the store shortened (``in/a/../b.pdf`` is kept as
  ``in/b.pdf``), and left a refused-key marker for it. Such objects are reported with the reason, never
  read and never announced, so running reconcile again adds no dead letter; re-upload the file under a
  plain key to have it processed;
* ``done``: the sink's manifest exists (final results are published); the PDF is hashed into its document
  id to find it;
* ``rejected``: the parse stage dead-lettered the bytes (the DLQ says why; ``dlq replay`` re-drives);
* ``missing``: anything else, whatever stage it stopped at. Missing documents are announced again with a
  ``replay`` header, so a stage that already did its part publishes it again from its artifact instead of
  skipping, and the sink, which deduplicates against its manifest, publishes what is not yet published.

``dlq list`` and ``dlq replay`` read the dead-letter topic (``read_committed``) and send each chosen
record's original payload back to its original topic; a replay group remembers what was re-driven.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError, UnknownTopicOrPartitionError
from pydantic import ValidationError

from adapters.settings import Settings
from adapters.storage import (
    ListedObject,
    RefusedObject,
    Store,
    UnsafeKey,
    manifest_key,
    marker_key,
    readable_keys,
    refused_key,
    split_uri,
)
from consumers.artifacts import REJECTED
from consumers.ingest import s3_event
from consumers.kafka import client_options, incoming, publish
from consumers.runner import CLAIM_HEADER, REPLAY_HEADER, Incoming, Outgoing
from pipeline.config import PIPELINE_VERSION
from schemas.events import ClaimCheck, DeadLetter, ObjectRef
from schemas.topology import DLQ_REPLAY_GROUP, Topic

__all__ = [
    "DeadRecord",
    "ReconcileReport",
    "announcements",
    "parse_dead",
    "partitions",
    "read_dlq",
    "reconcile",
    "refused_as",
    "replay",
    "replay_message",
    "select",
    "summary",
]


@dataclass
class ReconcileReport:
    """What ``reconcile`` found, by document state."""

    done: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    missing: list[tuple[str, str, int, str]] = field(default_factory=list)  # bucket, key, size, etag
    refused: list[tuple[str, str]] = field(default_factory=list)  # key, why


def reconcile(
    settings: Settings,
    store: Store,
    uri: str | None = None,
    *,
    progress: Callable[[str], None] | None = None,
    max_bytes: int = 1 << 31,
) -> ReconcileReport:
    """Sort the PDFs under ``uri`` (default: the landing bucket) into refused, done, rejected and missing."""
    bucket, prefix = split_uri(uri) if uri else (settings.landing_bucket, "")
    report = ReconcileReport()
    with tempfile.TemporaryDirectory(prefix="tieout-reconcile-") as tmp:
        for obj in store.list_objects(bucket, prefix):
            if not obj.key.lower().endswith(".pdf"):
                continue
            if progress is not None:
                progress(obj.key)
            try:
                readable_keys(ObjectRef(bucket=bucket, key=obj.key))
            except UnsafeKey as exc:  # not read, as the parse stage would not read it
                report.refused.append((obj.key, str(exc)))
                continue
            doc_id = store.download(bucket, [obj.key], Path(tmp) / "doc", max_bytes=max_bytes).doc_id
            if store.exists(settings.artifact_bucket, manifest_key(PIPELINE_VERSION, doc_id)):
                report.done.append(obj.key)
            elif store.exists(settings.artifact_bucket, marker_key(REJECTED, PIPELINE_VERSION, doc_id)):
                report.rejected.append(obj.key)
            elif (why := refused_as(settings, store, bucket, obj)) is not None:
                report.refused.append((obj.key, why))
            else:
                report.missing.append((bucket, obj.key, obj.size, obj.etag))
    return report


def refused_as(settings: Settings, store: Store, bucket: str, obj: ListedObject) -> str | None:
    """Why the parse stage refused ``obj``'s bytes under the key it was announced with, if it did."""
    marker = refused_key(PIPELINE_VERSION, bucket, obj.key)
    if not store.exists(settings.artifact_bucket, marker):
        return None
    _, raw = store.get_bytes(settings.artifact_bucket, [marker], max_bytes=1 << 20)
    refused = RefusedObject.model_validate_json(raw)
    return f"announced as {refused.key!r}: {refused.reason}" if refused.covers(obj) else None


def announcements(settings: Settings, report: ReconcileReport) -> list[Outgoing]:
    """The re-announcements of missing documents, marked as replays."""
    return [
        Outgoing(
            settings.topic(Topic.LANDING),
            None,
            s3_event(b, k, n, e, name="ObjectCreated:Reconcile"),
            ((REPLAY_HEADER, b"reconcile"),),
        )
        for b, k, n, e in report.missing
    ]


@dataclass(frozen=True, slots=True)
class DeadRecord:
    """One dead letter with its position in the DLQ."""

    partition: int
    offset: int
    letter: DeadLetter


def parse_dead(records: Sequence[Incoming]) -> tuple[list[DeadRecord], int]:
    """The dead letters among ``records``, and how many records were not dead letters at all."""
    out: list[DeadRecord] = []
    bad = 0
    for r in records:
        try:
            out.append(DeadRecord(r.partition, r.offset, DeadLetter.model_validate_json(r.value or b"")))
        except ValidationError:
            bad += 1
    return out, bad


def select(
    dead: Sequence[DeadRecord], *, category: str | None = None, stage: str | None = None
) -> list[DeadRecord]:
    """Dead letters of one category and/or stage."""
    return [
        d
        for d in dead
        if (category is None or d.letter.category == category) and (stage is None or d.letter.stage == stage)
    ]


def summary(dead: Sequence[DeadRecord]) -> Counter[tuple[str, str]]:
    """How many dead letters per (stage, category)."""
    return Counter((d.letter.stage, d.letter.category) for d in dead)


def replay_message(d: DeadRecord) -> Outgoing:
    """The original message of a dead letter, to send back to its original topic."""
    letter = d.letter
    headers: list[tuple[str, bytes]] = [(REPLAY_HEADER, f"dlq:{d.partition}:{d.offset}".encode())]
    if letter.trace_id:
        headers.append(("trace_id", letter.trace_id.encode()))
    value = letter.original_value.encode()
    with contextlib.suppress(ValidationError):  # the original was a claim check: its header goes back
        headers.append((CLAIM_HEADER, ClaimCheck.model_validate_json(value).claim_check.encode()))
    key = letter.original_key.encode() if letter.original_key is not None else None
    return Outgoing(letter.original_topic, key, value, tuple(headers))


def _kafka_common(settings: Settings, timeout_s: float) -> dict[str, object]:
    return {**client_options(settings), "request_timeout_ms": int(timeout_s * 1000)}


async def read_dlq(
    settings: Settings, *, group: str | None = None, timeout_s: float = 30.0
) -> tuple[list[Incoming], AIOKafkaConsumer]:
    """Every committed record of the DLQ after ``group``'s position (all of them without a group).

    Returns the records and the (started) consumer, so that the caller can commit what it re-drove.
    """
    topic = settings.topic(Topic.DLQ)
    consumer = AIOKafkaConsumer(
        **_kafka_common(settings, timeout_s),
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        isolation_level="read_committed",
    )
    await asyncio.wait_for(consumer.start(), timeout_s)
    try:
        return await _read_to_end(settings, consumer, topic, timeout_s), consumer
    except BaseException:
        await consumer.stop()
        raise


async def partitions(settings: Settings, topic: str, *, timeout_s: float = 30.0) -> list[int]:
    """The partitions of ``topic`` as the broker describes them (none when the topic does not exist).

    Asked of the admin client: a consumer's ``partitions_for_topic`` only knows topics it subscribed to or
    was assigned (aiokafka's ``topics()`` fetches metadata into a cluster object of its own), so it said
    ``None`` for the DLQ and ``dlq list`` showed nothing.
    """
    admin = AIOKafkaAdminClient(**_kafka_common(settings, timeout_s))
    await asyncio.wait_for(admin.start(), timeout_s)
    try:
        described = await asyncio.wait_for(admin.describe_topics([topic]), timeout_s)
    finally:
        await asyncio.wait_for(admin.close(), timeout_s)
    found = [t for t in described if t["topic"] == topic]
    if not found or found[0]["error_code"] == UnknownTopicOrPartitionError.errno:
        return []
    if found[0]["error_code"]:
        raise KafkaError(f"describing {topic}: error code {found[0]['error_code']}")
    return sorted(p["partition"] for p in found[0]["partitions"])


async def _read_to_end(
    settings: Settings, consumer: AIOKafkaConsumer, topic: str, timeout_s: float
) -> list[Incoming]:
    tps = [TopicPartition(topic, p) for p in await partitions(settings, topic, timeout_s=timeout_s)]
    if not tps:
        return []
    # Without a group every record is read; with one, reading starts after what it committed.
    consumer.assign(tps)
    end = await asyncio.wait_for(consumer.end_offsets(tps), timeout_s)
    out: list[Incoming] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while [tp for tp in tps if await asyncio.wait_for(consumer.position(tp), timeout_s) < end[tp]]:
        if loop.time() > deadline:
            raise TimeoutError(f"reading {topic} did not reach its end within {timeout_s:.0f}s")
        batch = await consumer.getmany(timeout_ms=500)
        out.extend(incoming(r) for records in batch.values() for r in records)
    return out


async def replay(
    settings: Settings,
    *,
    category: str | None = None,
    stage: str | None = None,
    dry_run: bool = False,
    timeout_s: float = 30.0,
) -> tuple[list[DeadRecord], int]:
    """Send chosen dead letters back to their topics; returns them and the DLQ records skipped.

    The replay group's offsets move past every record read (chosen or not) once the chosen ones are on
    the broker, so running replay twice does not re-drive the same letter twice.
    """
    group = f"{settings.topic_prefix}{DLQ_REPLAY_GROUP}"
    records, consumer = await read_dlq(settings, group=group, timeout_s=timeout_s)
    try:
        dead, _bad = parse_dead(records)
        chosen = select(dead, category=category, stage=stage)
        if dry_run or not records:
            return chosen, len(records) - len(chosen)
        await publish(settings, [replay_message(d) for d in chosen], timeout_s=timeout_s)
        offsets: dict[TopicPartition, int] = {}
        for r in records:
            tp = TopicPartition(r.topic, r.partition)
            offsets[tp] = max(offsets.get(tp, 0), r.offset + 1)
        await asyncio.wait_for(consumer.commit(offsets), timeout_s)
        return chosen, len(records) - len(chosen)
    finally:
        await consumer.stop()
