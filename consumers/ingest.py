"""Ways into the pipeline besides the store's own notifications: submit files.

``submit`` uploads to the landing bucket; the store's notification then announces the object. For a store
configured without notifications (``S3_NOTIFICATIONS=0``) it publishes the S3 event record itself, in the
AWS shape, so the parse service cannot tell the difference. Its keys pass the key policy the parse stage
applies (:func:`adapters.storage.readable_keys`), so it never uploads a file the parse stage would refuse.

Notifications lost while the broker was down are found by ``tieout reconcile`` (:mod:`consumers.ops`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from adapters.settings import Settings
from adapters.storage import Store, readable_keys
from consumers.kafka import publish
from consumers.runner import Outgoing
from schemas.events import ObjectRef
from schemas.topology import Topic

__all__ = ["Submitted", "publish_events", "s3_event", "upload"]


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
    await publish(
        settings, [Outgoing(settings.topic(Topic.LANDING), None, e) for e in events], timeout_s=timeout_s
    )


@dataclass(frozen=True, slots=True)
class Submitted:
    """One uploaded file."""

    path: Path
    bucket: str
    key: str
    size: int
    etag: str


def upload(settings: Settings, store: Store, files: Sequence[Path], prefix: str = "") -> list[Submitted]:
    """Upload files to the landing bucket under ``prefix``.

    Raises:
        UnsafeKey: A key the parse stage would refuse (:func:`adapters.storage.readable_keys`), such as a
            prefix that climbs out with ``..``; checked for every file before the first is uploaded.
    """
    bucket = settings.landing_bucket
    keys = [readable_keys(ObjectRef(bucket=bucket, key=f"{prefix}/{f.name}"))[0] for f in files]
    out = []
    for f, key in zip(files, keys, strict=True):
        data = f.read_bytes()
        store.put_bytes(bucket, key, data, "application/pdf")
        out.append(Submitted(f, bucket, key, len(data), hashlib.md5(data).hexdigest()))
    return out
