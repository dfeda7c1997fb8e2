"""The one runner every Kafka service shares.

A service is a :class:`Handler` (pure-ish logic: read one message, write artifacts, return the messages to
publish) run by :class:`Runner` over a :class:`Transport`. The order is the one that loses nothing:

1. the handler writes its artifacts (object storage, keyed by document id: idempotent);
2. the transport publishes the handler's messages **and** the consumed message's offset in one Kafka
   transaction, so a ``read_committed`` reader sees a document's results exactly when its input is
   marked done — never half of them;
3. only then ``after_commit`` runs (markers that let re-uploads of the same bytes be skipped).

Transient errors (object store 5xx, timeouts, broker hiccups) are retried with exponential backoff a
bounded number of times; permanent ones (a bad PDF, a payload that breaks its schema) go straight to the
dead-letter topic with headers saying where they came from; retries that run out go there too, so
nothing is silently dropped and the partition keeps moving.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

import structlog

from schemas.events import DeadLetter
from schemas.models import ErrorRecord

log = structlog.get_logger(__name__)


def utc_now() -> str:
    """ISO 8601 UTC timestamp."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Incoming:
    """A consumed message."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...] = ()

    def header(self, name: str) -> str | None:
        """A header's value as text, or None."""
        for k, v in self.headers:
            if k == name:
                return v.decode("utf-8", "replace")
        return None

    @property
    def trace_id(self) -> str:
        """The trace id the message carries, or a new one for messages from outside (object stores)."""
        return self.header("trace_id") or uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to publish."""

    topic: str
    key: bytes | None
    value: bytes
    headers: tuple[tuple[str, bytes], ...] = ()


class TransientError(Exception):
    """Retrying may help (storage 5xx, timeouts, connection resets)."""


class PermanentError(Exception):
    """Retrying will not help: the message goes to the dead-letter topic."""

    def __init__(
        self,
        message: str,
        *,
        category: str = "permanent",
        doc_id: str | None = None,
        source: str | None = None,
        error: ErrorRecord | None = None,
    ) -> None:
        """Describe what went wrong with this message."""
        super().__init__(message)
        self.category = category
        self.doc_id = doc_id
        self.source = source
        self.error = error


class Handler(Protocol):
    """A service's logic for one message."""

    stage: str

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        """Process one message: write artifacts, return what to publish (or raise Transient/Permanent)."""
        ...

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        """Side effects allowed only once the results are committed (idempotency markers)."""
        ...


class Transport(Protocol):
    """Where messages come from and go to: Kafka in production, a fake in the runner's tests."""

    async def start(self) -> None:
        """Connect."""
        ...

    async def stop(self) -> None:
        """Disconnect, leaving no transaction open."""
        ...

    async def poll(self, timeout_s: float, max_records: int) -> list[Incoming]:
        """The next messages, in offset order per partition (empty after ``timeout_s``)."""
        ...

    def owns(self, msg: Incoming) -> bool:
        """Whether this worker still owns the message's partition (it may have been revoked)."""
        ...

    async def commit(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        """Atomically publish ``outgoing`` and mark each ``consumed`` message (and all before it) done."""
        ...


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounded exponential backoff with jitter."""

    attempts: int = 5
    base_s: float = 0.5
    max_s: float = 15.0

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt + 1``."""
        return float(min(self.max_s, self.base_s * 2 ** (attempt - 1)) * (0.75 + 0.5 * random.random()))


@dataclass
class RunnerStats:
    """Counters for logs and tests."""

    processed: int = 0
    published: int = 0
    dead_lettered: int = 0
    retries: int = 0
    skipped_revoked: int = 0
    started: float = field(default_factory=time.monotonic)


def dead_letter(
    msg: Incoming,
    *,
    stage: str,
    error_class: str,
    category: str,
    message: str,
    attempts: int,
    dlq_topic: str,
    doc_id: str | None = None,
    source: str | None = None,
    error: ErrorRecord | None = None,
) -> Outgoing:
    """The dead-letter message for ``msg``, with the routing facts in headers as well as in the value."""
    trace_id = msg.trace_id
    body = DeadLetter(
        stage=stage,
        error_class=error_class,
        category=category,
        message=message,
        attempts=attempts,
        original_topic=msg.topic,
        original_partition=msg.partition,
        original_offset=msg.offset,
        original_key=msg.key.decode("utf-8", "replace") if msg.key is not None else None,
        original_value=(msg.value or b"").decode("utf-8", "replace"),
        doc_id=doc_id,
        trace_id=trace_id,
        source=source,
        error=error,
        produced_at=utc_now(),
    )
    headers = (
        ("stage", stage.encode()),
        ("error_class", error_class.encode()),
        ("category", category.encode()),
        ("attempts", str(attempts).encode()),
        ("original_topic", msg.topic.encode()),
        ("original_partition", str(msg.partition).encode()),
        ("original_offset", str(msg.offset).encode()),
        ("trace_id", trace_id.encode()),
    )
    key = doc_id.encode() if doc_id else msg.key
    return Outgoing(dlq_topic, key, body.model_dump_json().encode(), headers)


class Runner:
    """Consume, handle, publish-and-commit, one message at a time (backpressure by construction)."""

    def __init__(
        self,
        handler: Handler,
        transport: Transport,
        *,
        dlq_topic: str,
        retry: RetryPolicy | None = None,
        batch: int = 16,
        poll_timeout_s: float = 1.0,
        idle: asyncio.Event | None = None,
    ) -> None:
        """Wire a handler to a transport; ``idle`` is shared with the transport's revocation listener."""
        self.handler = handler
        self.transport = transport
        self.dlq_topic = dlq_topic
        self.retry = retry or RetryPolicy()
        self.batch = batch
        self.poll_timeout_s = poll_timeout_s
        self.stats = RunnerStats()
        self.idle = idle or asyncio.Event()
        self.idle.set()
        self._pending: dict[tuple[str, int], Incoming] = {}

    async def run(self, stop: asyncio.Event) -> None:
        """Process messages until ``stop`` is set; the message in hand is always finished first."""
        await self.transport.start()
        try:
            while not stop.is_set():
                msgs = await self.transport.poll(self.poll_timeout_s, self.batch)
                for msg in msgs:
                    if stop.is_set():
                        break
                    if not self.transport.owns(msg):
                        # Revoked during this batch: the new owner will process it from the committed offset.
                        self.stats.skipped_revoked += 1
                        continue
                    await self.process(msg)
                await self._flush_pending()
        finally:
            try:
                await self._flush_pending()
            finally:
                await self.transport.stop()

    async def _flush_pending(self) -> None:
        """Commit the offsets of messages that published nothing, in one transaction."""
        pending = [m for m in self._pending.values() if self.transport.owns(m)]
        self._pending.clear()
        if pending:
            await self._commit_with_retries([], pending)

    async def process(self, msg: Incoming) -> None:
        """Handle one message with bounded retries, then publish its results and commit it atomically."""
        self.idle.clear()
        try:
            with structlog.contextvars.bound_contextvars(
                stage=self.handler.stage,
                topic=msg.topic,
                partition=msg.partition,
                offset=msg.offset,
                trace_id=msg.trace_id,
            ):
                t0 = time.monotonic()
                outgoing = await self._handle_with_retries(msg)
                t1 = time.monotonic()
                if not outgoing:
                    # Nothing to publish (an event for another bucket, a document already done): its offset
                    # rides along with the next commit instead of costing a transaction of its own.
                    self._pending[(msg.topic, msg.partition)] = msg
                    self.stats.processed += 1
                    return
                consumed = [msg, *(m for k, m in self._pending.items() if k != (msg.topic, msg.partition))]
                self._pending.clear()
                await self._commit_with_retries(outgoing, consumed)
                self.stats.processed += 1
                self.stats.published += len(outgoing)
                log.info(
                    "message done",
                    published=len(outgoing),
                    handle_ms=round((t1 - t0) * 1000, 1),
                    commit_ms=round((time.monotonic() - t1) * 1000, 1),
                )
                try:
                    await self.handler.after_commit(msg, outgoing)
                except Exception as exc:  # markers are an optimisation: never fail a committed message
                    log.warning("after-commit step failed", error=str(exc))
        finally:
            self.idle.set()

    async def _handle_with_retries(self, msg: Incoming) -> list[Outgoing]:
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self.handler.handle(msg)
            except PermanentError as exc:
                log.warning("permanent error: dead-lettering", error=str(exc), category=exc.category)
                return self._dead(msg, exc, attempt, exc.category, exc)
            except Exception as exc:
                transient = isinstance(exc, TransientError | TimeoutError | ConnectionError)
                if not transient or attempt >= self.retry.attempts:
                    why = "retries exhausted" if transient else "unexpected error"
                    log.error(
                        f"{why}: dead-lettering", error=f"{type(exc).__name__}: {exc}", attempts=attempt
                    )
                    return self._dead(msg, exc, attempt, "transient_exhausted" if transient else "internal")
                self.stats.retries += 1
                delay = self.retry.delay(attempt)
                log.info(
                    "transient error: retrying", error=str(exc), attempt=attempt, delay_s=round(delay, 2)
                )
                await asyncio.sleep(delay)

    def _dead(
        self, msg: Incoming, exc: Exception, attempts: int, category: str, perm: PermanentError | None = None
    ) -> list[Outgoing]:
        self.stats.dead_lettered += 1
        return [
            dead_letter(
                msg,
                stage=self.handler.stage,
                error_class=type(exc).__name__,
                category=category,
                message=str(exc),
                attempts=attempts,
                dlq_topic=self.dlq_topic,
                doc_id=perm.doc_id if perm else None,
                source=perm.source if perm else None,
                error=perm.error if perm else None,
            )
        ]

    async def _commit_with_retries(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        attempt = 0
        while True:
            attempt += 1
            try:
                await self.transport.commit(outgoing, consumed)
                return
            except (TransientError, TimeoutError, ConnectionError) as exc:
                if attempt >= self.retry.attempts:
                    raise
                delay = self.retry.delay(attempt)
                log.warning(
                    "commit failed: retrying", error=str(exc), attempt=attempt, delay_s=round(delay, 2)
                )
                await asyncio.sleep(delay)
