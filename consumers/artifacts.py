"""What the services keep in the object store: artifacts, markers, manifests' JSON and claim checks.

A stage keeps a document's artifact under the name of the topic whose event points at it (``parsed/``,
``verified/``), and marks a document once its results are committed: with that name, or
:data:`REJECTED` when the parse stage dead-lettered it. Every call maps the store's errors to the
runner's: an outage is waited out, anything else dead-letters the message (:func:`store_call`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from adapters.settings import Settings
from adapters.storage import StorageError, Store, artifact_key, claim_key, marker_key
from consumers.runner import Outgoing, PermanentError, TransientError
from pipeline.config import PIPELINE_VERSION
from schemas.models import DocumentResult

__all__ = [
    "REJECTED",
    "StoreClaims",
    "artifact_uri",
    "load_artifact",
    "mark_committed",
    "read_json",
    "store_call",
]

P = ParamSpec("P")
T = TypeVar("T")

REJECTED = "rejected"
"""The marker of a document the parse stage dead-lettered (``tieout reconcile`` reports it as rejected)."""


async def store_call(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run a blocking storage call in a thread, mapping its errors to the runner's."""
    try:
        return await asyncio.to_thread(call, *args, **kwargs)
    except StorageError as exc:
        if exc.transient:
            raise TransientError(str(exc)) from exc
        raise PermanentError(str(exc), category="storage") from exc


def artifact_uri(settings: Settings, kind: str, doc_id: str) -> str:
    """Where a document's artifact of ``kind`` (the topic announcing it) is kept for this pipeline version."""
    return f"s3://{settings.artifact_bucket}/{artifact_key(kind, PIPELINE_VERSION, doc_id)}"


async def load_artifact(store: Store, settings: Settings, kind: str, doc_id: str) -> DocumentResult:
    """A document's stored artifact of ``kind`` (for replays and the pending model stage)."""
    return DocumentResult.model_validate_json(
        await store_call(store.read_uri, artifact_uri(settings, kind, doc_id))
    )


async def read_json(store: Store, bucket: str, key: str) -> Any:
    """A JSON object from the store, or None when there is none."""
    if not await store_call(store.exists, bucket, key):
        return None
    return json.loads(await store_call(store.read_uri, f"s3://{bucket}/{key}"))


async def mark_committed(
    store: Store, settings: Settings, kind: str, published: Sequence[Outgoing], topic: str
) -> None:
    """Mark ``kind`` done for every document a committed record on ``topic`` (a full name) was keyed by."""
    for o in published:
        if o.topic == topic and o.key:
            doc_id = o.key.decode()
            await asyncio.to_thread(
                store.put_bytes,
                settings.artifact_bucket,
                marker_key(kind, PIPELINE_VERSION, doc_id),
                b"",
                "text/plain",
            )


class StoreClaims:
    """Claim checks in the artifact bucket (:class:`consumers.runner.Claims`)."""

    def __init__(self, store: Store, bucket: str, limit_bytes: int) -> None:
        """Keep records over ``limit_bytes`` in ``bucket``."""
        self.store = store
        self.bucket = bucket
        self.limit_bytes = limit_bytes

    async def put(self, topic: str, value: bytes) -> str:
        """Store a record; its key is its digest."""
        key = claim_key(topic, hashlib.sha256(value).hexdigest())
        return await store_call(self.store.put_bytes, self.bucket, key, value)

    async def get(self, uri: str) -> bytes:
        """The record a claim check points at."""
        return await store_call(self.store.read_uri, uri)
