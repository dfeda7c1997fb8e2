"""Ways into the pipeline besides the store's own notifications: submit files, and backfill a prefix.

``submit`` uploads to the landing bucket; the store's notification then announces the object. For a store
configured without notifications (``S3_NOTIFICATIONS=0``) it publishes the S3 event record itself, in the
AWS shape, so the parse service cannot tell the difference.

``backfill`` reconciles after lost notifications (the local gateway drops events while Kafka is down):
it lists a prefix and re-announces every PDF whose bytes have no parse marker for this pipeline version.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from aiokafka import AIOKafkaProducer

from pipeline.config import PIPELINE_VERSION
from pipeline.settings import Settings
from pipeline.storage import ObjectStore, marker_key, split_uri


def s3_event(bucket: str, key: str, size: int, etag: str, name: str = "ObjectCreated:Put") -> bytes:
    """An S3 event notification in the AWS shape for one object."""
    record = {
        "eventVersion": "2.1",
        "eventSource": "tieout:submit",
        "eventName": name,
        "s3": {"bucket": {"name": bucket}, "object": {"key": key, "size": size, "eTag": etag}},
    }
    return json.dumps({"Records": [record]}).encode()


async def publish_events(settings: Settings, events: Sequence[bytes], *, timeout_s: float = 30.0) -> None:
    """Publish S3 event records to the landing topic and wait until the broker has them."""
    producer = AIOKafkaProducer(
        bootstrap_servers=settings.kafka_bootstrap, acks="all", request_timeout_ms=int(timeout_s * 1000)
    )
    await asyncio.wait_for(producer.start(), timeout_s)
    try:
        for e in events:
            await asyncio.wait_for(producer.send(settings.topic("landing"), value=e), timeout_s)
        await asyncio.wait_for(producer.flush(), timeout_s)
    finally:
        await producer.stop()


@dataclass(frozen=True, slots=True)
class Submitted:
    """One uploaded file."""

    path: Path
    bucket: str
    key: str
    size: int
    etag: str


def upload(
    settings: Settings, store: ObjectStore, files: Sequence[Path], prefix: str = ""
) -> list[Submitted]:
    """Upload files to the landing bucket under ``prefix``."""
    out = []
    for f in files:
        key = f"{prefix.strip('/')}/{f.name}" if prefix.strip("/") else f.name
        data = f.read_bytes()
        store.put_bytes(settings.landing_bucket, key, data, "application/pdf")
        out.append(Submitted(f, settings.landing_bucket, key, len(data), hashlib.md5(data).hexdigest()))
    return out


def unprocessed(
    settings: Settings, store: ObjectStore, uri: str, *, progress: Callable[[str], None] | None = None
) -> list[tuple[str, str, int, str]]:
    """PDFs under ``s3://bucket/prefix`` whose bytes have no parse marker: ``(bucket, key, size, etag)``."""
    bucket, prefix = split_uri(uri)
    todo = []
    for obj in store.list_objects(bucket, prefix):
        if not obj.key.lower().endswith(".pdf"):
            continue
        if progress is not None:
            progress(obj.key)
        _, data = store.get_bytes(bucket, [obj.key], max_bytes=1 << 31)
        doc_id = hashlib.sha256(data).hexdigest()
        if not store.exists(settings.artifact_bucket, marker_key("parsed", PIPELINE_VERSION, doc_id)):
            todo.append((bucket, obj.key, obj.size, obj.etag))
    return todo
