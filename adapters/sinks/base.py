"""The one interface every sink implements: ``write(batch)``, idempotent, keyed by document id.

A sink says whose fault a failure is by the exception it raises: :class:`SinkOutage` when its backend
cannot be reached (the service holds the partition and retries until it can), :class:`SinkRefused` when
the backend refuses this batch (the document is dead-lettered). Anything else is a bug.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from adapters.storage import StorageError, Store
from schemas.models import DocumentChanges, DocumentResult

__all__ = ["BucketSink", "Sink", "SinkBatch", "SinkOutage", "SinkRefused", "store_errors"]


@dataclass(frozen=True, slots=True)
class SinkBatch:
    """One document's checked results, as every sink receives them."""

    result: DocumentResult
    ingest_date: str  # YYYY-MM-DD, the partition date
    model_stage: str = "skipped"
    changes: DocumentChanges | None = None  # since the document's previous version, when there is one


class SinkOutage(Exception):
    """The sink's backend is unreachable or overloaded: retrying later will help."""


class SinkRefused(Exception):
    """The sink's backend refused this batch: retrying will not help."""

    def __init__(self, message: str, *, category: str) -> None:
        """Say why, with the dead-letter category."""
        super().__init__(message)
        self.category = category


class Sink(Protocol):
    """A destination of checked results."""

    name: str

    def write(self, batch: SinkBatch) -> list[str]:
        """Write the batch, replacing the document's earlier rows; return where it went.

        Raises:
            SinkOutage: The backend is unreachable.
            SinkRefused: The backend refused the batch.
        """
        ...


class BucketSink:
    """A sink whose objects go into one bucket of the object store (its ``write`` says which objects)."""

    name: str

    def __init__(self, store: Store, bucket: str) -> None:
        """Write into ``bucket`` of ``store``."""
        self.store = store
        self.bucket = bucket


@contextmanager
def store_errors() -> Iterator[None]:
    """The object store's failures inside the block as a sink's: the one rule of the sinks writing there.

    Raises:
        SinkOutage: A transient :class:`~adapters.storage.StorageError` (unreachable, throttled, 5xx).
        SinkRefused: A permanent one (access denied, a refused key), with category ``storage``.
    """
    try:
        yield
    except StorageError as exc:
        if exc.transient:
            raise SinkOutage(str(exc)) from exc
        raise SinkRefused(str(exc), category="storage") from exc
