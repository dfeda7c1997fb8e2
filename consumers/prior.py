"""The sink's prior-period checks (issue 27): each gated document into its issuer's history, and its flags.

After the quality gate passes, the sink puts the document's published figures in the history
(:class:`~adapters.history.store.HistoryStore`: PostgreSQL in the services) and compares it with its
issuer's documents whose period ends earlier: its PRI001/PRI002 flags join the document's other flags, so
they reach every sink and the ``flags`` topic with them. A document whose period ends before documents
already in the history (last year's report landing after this year's) is also what those later documents'
comparatives are checked against: they are checked again, and their flags published in the same
transaction (keyed by their own document; a flag's id is stable, so publishing it again adds nothing).

A history that cannot be reached is an outage like a sink's: the partition is held and the document
handled again once it answers; nothing is committed before its results are durable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

from adapters.history.published import check_against_history, record_document
from adapters.history.store import HistoryStore
from adapters.sinks.base import SinkOutage
from adapters.sinks.postgres import database_transient
from consumers.runner import TransientError
from schemas.models import DocumentResult, Flag

__all__ = ["AddsFlags", "PriorFlags", "PriorPeriods", "add_flags"]

T = TypeVar("T")


@runtime_checkable
class AddsFlags(Protocol):
    """A sink that can add flags to documents it already holds (PostgreSQL's ``flags`` table)."""

    def add_flags(self, flags: Sequence[Flag]) -> None:
        """Upsert the flags, keeping the documents' other rows."""
        ...


async def add_flags(sinks: Iterable[object], flags: Sequence[Flag]) -> None:
    """Add later documents' flags to every sink that holds flags by row (before the topics: durable first).

    Raises:
        TransientError: A sink cannot be reached (the message is handled again later).
    """
    for sink in sinks:
        if flags and isinstance(sink, AddsFlags):
            try:
                await asyncio.to_thread(sink.add_flags, flags)
            except SinkOutage as exc:
                raise TransientError(str(exc)) from exc


@dataclass(frozen=True)
class PriorFlags:
    """What one document's landing raises: its own PRI flags, and those of its issuer's later documents."""

    flags: list[Flag] = field(default_factory=list)
    later: dict[str, list[Flag]] = field(default_factory=dict)
    """By document id: the flags of documents whose period ends after this one's, checked again."""


class PriorPeriods:
    """The history behind the sink: record, compare, and check the later documents again."""

    def __init__(self, history: HistoryStore) -> None:
        """Check against ``history`` (its calls are blocking: they run in a thread)."""
        self.history = history

    async def check(self, result: DocumentResult) -> PriorFlags:
        """Record a gated document in its issuer's history; its PRI flags and its later documents'.

        A document that prints no issuer or period end is compared with nothing (and raises nothing).

        Raises:
            TransientError: The history cannot be reached (the message is handled again later).
        """
        return await asyncio.to_thread(self._outage_is_transient, lambda: self._check(result))

    def _check(self, result: DocumentResult) -> PriorFlags:
        document = record_document(self.history, result)
        if document is None:
            return PriorFlags()
        _, flags = check_against_history(self.history, document)
        later = {
            doc.doc_id: check_against_history(self.history, doc)[1] for doc in self.history.later(document)
        }
        return PriorFlags(flags, {doc_id: found for doc_id, found in later.items() if found})

    @staticmethod
    def _outage_is_transient(call: Callable[[], T]) -> T:
        try:
            return call()
        except Exception as exc:
            if database_transient(exc):
                raise TransientError(f"history: {type(exc).__name__}: {exc}") from exc
            raise
