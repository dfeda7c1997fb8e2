"""The one interface every sink implements: ``write(batch)``, idempotent, keyed by document id.

A sink says whose fault a failure is by the exception it raises: :class:`SinkOutage` when its backend
cannot be reached (the service holds the partition and retries until it can), :class:`SinkRefused` when
the backend refuses this batch (the document is dead-lettered). Anything else is a bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from schemas.models import DocumentResult

__all__ = ["Sink", "SinkBatch", "SinkOutage", "SinkRefused"]


@dataclass(frozen=True, slots=True)
class SinkBatch:
    """One document's checked results, as every sink receives them."""

    result: DocumentResult
    ingest_date: str  # YYYY-MM-DD, the partition date
    model_stage: str = "skipped"


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
