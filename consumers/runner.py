"""The one runner every Kafka service shares.

A service is a :class:`Handler` (pure-ish logic: read one message, write artifacts, return the messages to
publish) run by :class:`Runner` over a :class:`Transport`. A message whose value is a claim check is
resolved from object storage first; results over the record size limit are replaced by claim checks
(:class:`Claims`). The order of side effects that loses nothing is :class:`Checkpoint`'s: artifacts, then
the results and the consumed offsets in one Kafka transaction whose deliveries are all confirmed, then the
after-commit markers, so a ``read_committed`` reader sees a document's results exactly when its input is
marked done, never half of them, never an offset without its results.

Errors are sorted by whose fault they are. An outage (object store, database, model server or broker
unreachable, 5xx, timeouts, connection resets: :class:`TransientError`) is waited out: a few quick retries
in place, then the message's partition is paused and rewound and retried with capped backoff for as long
as the outage lasts, while the consumer keeps polling and so keeps its place in the group. Only an error
of the message itself (a bad PDF, a payload that breaks its schema: :class:`PermanentError`, or a bug)
goes to the dead-letter topic, with headers saying where it came from; ``tieout dlq replay`` re-drives it.

Every message is a span (:mod:`consumers.tracing`), a child of the trace context its headers carry, and
every record published carries that span's ``traceparent``; the runner counts what happened to it
(:mod:`consumers.metrics`: outcome, errors by class and category, dead letters, retries, held partitions,
transactions committed and aborted, time to handle and to commit).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Protocol, TypeVar

import structlog
from opentelemetry.trace import SpanKind, Status, StatusCode, get_current_span
from tenacity import RetryCallState

from adapters.retry import Backoff, retrying
from consumers import metrics, tracing
from schemas.events import ClaimCheck, DeadLetter
from schemas.models import ErrorRecord

__all__ = [
    "CLAIM_HEADER",
    "OUTAGE",
    "REPLAY_HEADER",
    "Checkpoint",
    "Claims",
    "Handler",
    "Incoming",
    "Outgoing",
    "PermanentError",
    "RecordRejected",
    "RetryPolicy",
    "Runner",
    "RunnerStats",
    "TransientError",
    "Transport",
    "dead_letter",
    "until_up",
    "utc_now",
    "wait_out",
]

log = structlog.get_logger(__name__)
T = TypeVar("T")


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
    """An outage, not the message's fault (storage 5xx, timeouts, connection resets): wait it out."""


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


OUTAGE: tuple[type[Exception], ...] = (TransientError, TimeoutError, ConnectionError)
"""What an outage raises: retried for as long as it lasts, never dead-lettered."""


class RecordRejected(PermanentError):
    """The broker refused a record of this message's results (too large, invalid): dead-letter the input."""


class Handler(Protocol):
    """A service's logic for one message."""

    @property
    def stage(self) -> str:
        """The stage's name (:class:`schemas.topology.Stage`): its metrics' label, its dead letters' stage."""
        ...

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        """Process one message: write artifacts, return what to publish (or raise Transient/Permanent)."""
        ...

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        """Record durably what the transaction about to commit publishes for ``msg`` (may be nothing).

        Called with the exact records of the transaction: the handler's results, or the dead letter that
        replaces them. Raises :class:`TransientError` when it cannot be recorded (the message is held).
        """
        ...

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        """Side effects allowed only once the results are committed (idempotency markers)."""
        ...


class Transport(Protocol):
    """Where messages come from and go to: Kafka in production, :mod:`consumers.memory` in unit tests."""

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
        """Atomically publish ``outgoing`` and mark each ``consumed`` message (and all before it) done.

        Every delivery is confirmed before the offsets commit. Raises :class:`TransientError` when the
        broker is unreachable and :class:`RecordRejected` when it refuses a record; either way nothing of
        the transaction is visible.
        """
        ...

    def hold(self, msg: Incoming) -> None:
        """Stop fetching the message's partition and rewind it so that ``msg`` is the next one fetched."""
        ...

    def release(self, topic: str, partition: int) -> None:
        """Fetch a held partition again (a no-op when it is no longer assigned)."""
        ...

    async def committed(self, topic: str, partition: int) -> int | None:
        """The consumer group's committed offset of a partition (the next message to consume), if any.

        Raises:
            TransientError: The broker cannot be asked.
        """
        ...

    async def lag(self) -> dict[tuple[str, int], int]:
        """Records of each assigned partition not yet handed out: the end offset minus the position.

        Raises:
            TransientError: The broker cannot be asked (the caller keeps the last figures).
        """
        ...


class Claims(Protocol):
    """Claim checks: a record too large for the broker rides in object storage, the event carries the URI."""

    limit_bytes: int

    async def put(self, topic: str, value: bytes) -> str:
        """Store ``value`` (content-addressed, so idempotent) and return its URI."""
        ...

    async def get(self, uri: str) -> bytes:
        """The value a claim check points at."""
        ...


CLAIM_HEADER = "claim_check"
REPLAY_HEADER = "replay"
"""Set by ``tieout reconcile`` and ``tieout dlq replay``: a stage that did its part re-publishes it."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Capped exponential backoff with jitter (:class:`adapters.retry.Backoff`).

    The first ``in_place`` attempts retry at once in place (a blip); after that the partition is held and
    retried every :meth:`delay` seconds, without a limit, for as long as the outage lasts.
    """

    in_place: int = 3
    base_s: float = 0.5
    max_s: float = 30.0

    @property
    def backoff(self) -> Backoff:
        """The waits between attempts."""
        return Backoff(self.base_s, self.max_s)

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt ``attempt + 1``."""
        return self.backoff.delay(attempt)


@dataclass
class RunnerStats:
    """Counters for logs and tests."""

    processed: int = 0
    published: int = 0
    dead_lettered: int = 0
    retries: int = 0
    holds: int = 0
    claim_checks: int = 0
    skipped_revoked: int = 0
    started: float = field(default_factory=time.monotonic)


async def wait_out(
    call: Callable[[], Awaitable[T]],
    *,
    what: str,
    stop: asyncio.Event,
    policy: RetryPolicy,
    retry_on: tuple[type[Exception], ...] = OUTAGE,
    on_retry: Callable[[], None] | None = None,
) -> T:
    """``call`` until it succeeds, with capped backoff between attempts, for as long as it takes.

    Errors outside ``retry_on`` propagate at once; once ``stop`` is set (at a failure or during the wait,
    which it cuts short) the last error propagates, so that a stopping service does not keep trying.
    """

    def waiting(state: RetryCallState) -> None:
        if on_retry is not None:
            on_retry()
        exc = state.outcome.exception() if state.outcome is not None else None
        log.warning(
            f"{what}: waiting",
            error=f"{type(exc).__name__}: {exc}",
            attempt=state.attempt_number,
            retry_in_s=round(state.upcoming_sleep, 2),
        )

    return await retrying(call, policy.backoff, on=retry_on, stop=stop, before_sleep=waiting)


async def until_up(
    what: str, call: Callable[[], Awaitable[T]], stop: asyncio.Event, policy: RetryPolicy
) -> T:
    """A start-up call, waited out like an outage; at start-up any failure to reach a dependency counts."""
    return await wait_out(call, what=f"{what} not ready", stop=stop, policy=policy, retry_on=(Exception,))


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


class Checkpoint:
    """The messages handled since the last commit: the highest of each partition (Quix Streams' model).

    Its offsets go into the next transaction, in this order:

    1. the handler's artifacts are already written (object storage, keyed by document id), and its
       record of what this transaction publishes (:meth:`Handler.before_commit`);
    2. the transaction begins and the results of the message in hand are produced;
    3. every delivery report is awaited (a refused record aborts here);
    4. the next offset of every partition in the checkpoint joins the transaction;
    5. the transaction commits and the checkpoint is cleared;
    6. only then the handler's after-commit markers are written.

    Messages that publish nothing only add their offset, which rides along with the next commit (or the
    end-of-batch flush) instead of costing a transaction of its own.
    """

    def __init__(self) -> None:
        """An empty checkpoint."""
        self._last: dict[tuple[str, int], Incoming] = {}

    def add(self, msg: Incoming) -> None:
        """Record that ``msg`` (and everything before it in its partition) is handled."""
        key = (msg.topic, msg.partition)
        if key not in self._last or msg.offset > self._last[key].offset:
            self._last[key] = msg

    def consumed(self, owns: Callable[[Incoming], bool]) -> list[Incoming]:
        """The last handled message of each partition still owned."""
        return [m for m in self._last.values() if owns(m)]

    def clear(self) -> None:
        """Forget everything (after a commit, or when the partitions were taken away)."""
        self._last.clear()


class _Held(Exception):
    """The message's partition is held: the outage outlasted the in-place retries."""


class Runner:
    """Consume, handle, publish-and-commit, one message at a time (backpressure by construction)."""

    def __init__(
        self,
        handler: Handler,
        transport: Transport,
        *,
        dlq_topic: str,
        retry: RetryPolicy | None = None,
        claims: Claims | None = None,
        batch: int = 16,
        poll_timeout_s: float = 1.0,
        idle: asyncio.Event | None = None,
    ) -> None:
        """Wire a handler to a transport; ``idle`` is shared with the transport's revocation listener."""
        self.handler = handler
        self.transport = transport
        self.dlq_topic = dlq_topic
        self.retry = retry or RetryPolicy()
        self.claims = claims
        self.batch = batch
        self.poll_timeout_s = poll_timeout_s
        self.stats = RunnerStats()
        self.idle = idle or asyncio.Event()
        self.idle.set()
        self.checkpoint = Checkpoint()
        # Held partitions: when to fetch them again and the offset they were rewound to; attempts per message.
        self._held: dict[tuple[str, int], tuple[float, int]] = {}
        self._attempts: dict[tuple[str, int, int], int] = {}

    async def run(self, stop: asyncio.Event) -> None:
        """Process messages until ``stop`` is set; the message in hand is always finished first."""
        if not await self.start(stop):
            return
        try:
            while not stop.is_set():
                self._release_due()
                msgs = await self.transport.poll(self.poll_timeout_s, self.batch)
                for msg in msgs:
                    if stop.is_set():
                        break
                    if (msg.topic, msg.partition) in self._held:
                        self._skip_held(msg)
                        continue
                    if not self.transport.owns(msg):
                        # Revoked during this batch: the new owner will process it from the committed offset.
                        self.stats.skipped_revoked += 1
                        continue
                    await self.process(msg, stop)
                await self._flush(stop)
        finally:
            try:
                await self._flush(stop)
            finally:
                await self.transport.stop()

    async def start(self, stop: asyncio.Event) -> bool:
        """Start the transport, waiting out an unreachable broker; False when stopped before it started."""
        if stop.is_set():
            return False
        try:
            await wait_out(self.transport.start, what="transport not ready", stop=stop, policy=self.retry)
        except OUTAGE:
            return False  # stopped while the broker was away
        return True

    @property
    def held(self) -> int:
        """How many partitions are waiting out an outage."""
        return len(self._held)

    def _skip_held(self, msg: Incoming) -> None:
        """A message of a held partition: it comes again once the partition is released.

        Messages after the one held were fetched before the pause. One at or before it means the partition
        was fetched afresh (revoked and assigned back, which unpauses it): hold it again from there.
        """
        until, offset = self._held[(msg.topic, msg.partition)]
        if msg.offset <= offset:
            self.transport.hold(msg)
            self._held[(msg.topic, msg.partition)] = (until, msg.offset)

    def _release_due(self) -> None:
        now = time.monotonic()
        for (topic, partition), (until, _offset) in list(self._held.items()):
            if until <= now:
                del self._held[(topic, partition)]
                self.transport.release(topic, partition)
        self._paused_changed()

    def _paused_changed(self) -> None:
        metrics.PAUSED_PARTITIONS.labels(self.handler.stage).set(len(self._held))

    async def _flush(self, stop: asyncio.Event) -> None:
        """Commit the checkpoint's offsets of messages that published nothing, in one transaction."""
        consumed = self.checkpoint.consumed(self.transport.owns)
        self.checkpoint.clear()
        if consumed:
            await self._commit_until_done([], consumed, stop)

    async def process(self, msg: Incoming, stop: asyncio.Event | None = None) -> None:
        """Handle one message, then publish its results and commit it atomically.

        An outage that outlasts the in-place retries holds the partition (see :class:`RetryPolicy`);
        the message is handled again when it is released. The message gets a span, a child of the trace
        context its headers carry (a new trace when they carry none); the handler sees the message with
        that span's ``traceparent`` and trace id in its headers, and every record published carries them.
        """
        stop = stop or asyncio.Event()
        service = self.handler.stage
        self.idle.clear()
        in_flight = metrics.IN_FLIGHT.labels(service)
        in_flight.inc()
        try:
            with tracing.span(
                f"{service} {msg.topic}",
                context=tracing.extract(msg.headers),
                # A message from outside (a store's notification) starts the trace: one id for all its
                # attempts (held, redelivered), so they show as one trace.
                root_trace_id=tracing.derived_trace_id(f"{msg.topic}/{msg.partition}/{msg.offset}"),
                kind=SpanKind.CONSUMER,
                attributes={
                    "tieout.service": service,
                    "messaging.system": "kafka",
                    "messaging.operation.type": "process",
                    "messaging.destination.name": msg.topic,
                    "messaging.destination.partition.id": str(msg.partition),
                    "messaging.kafka.offset": msg.offset,
                },
            ):
                upstream = msg.header("trace_id")
                msg = replace(msg, headers=tracing.inject(msg.headers))
                if upstream is not None and upstream != msg.trace_id:
                    # Not a W3C trace id (another system's): keep it findable on the new trace.
                    get_current_span().set_attribute("tieout.upstream_trace_id", upstream)
                with structlog.contextvars.bound_contextvars(
                    stage=service,
                    topic=msg.topic,
                    partition=msg.partition,
                    offset=msg.offset,
                    trace_id=msg.trace_id,
                ):
                    await self._process(msg, stop)
        finally:
            in_flight.dec()
            self.idle.set()

    async def _process(self, msg: Incoming, stop: asyncio.Event) -> None:
        service = self.handler.stage
        t0 = time.monotonic()
        span = get_current_span()
        try:
            outgoing = await self._handle_with_retries(msg)
        except _Held:
            span.set_attribute(tracing.OUTCOME, "held")
            return
        t1 = time.monotonic()
        metrics.MESSAGE_SECONDS.labels(service).observe(t1 - t0)
        if not outgoing:
            # Nothing to publish (an event for another bucket, a document already done).
            self.checkpoint.add(msg)
            self.stats.processed += 1
            metrics.DOCUMENTS.labels(service, "skipped").inc()
            span.set_attribute(tracing.OUTCOME, "skipped")
            return
        try:
            outgoing = await self._check_claims(outgoing)
        except OUTAGE as exc:
            self._hold(msg, exc)
            span.set_attribute(tracing.OUTCOME, "held")
            return
        outgoing = [replace(o, headers=tracing.inject(o.headers)) for o in outgoing]
        try:
            await self.handler.before_commit(msg, outgoing)
        except OUTAGE as exc:
            self._hold(msg, exc)
            span.set_attribute(tracing.OUTCOME, "held")
            return
        self.checkpoint.add(msg)
        consumed = self.checkpoint.consumed(self.transport.owns)
        try:
            await self._commit_until_done(outgoing, consumed, stop)
        except RecordRejected as exc:
            log.error("broker refused a result record: dead-lettering", error=str(exc))
            outgoing = [
                replace(o, headers=tracing.inject(o.headers))
                for o in self._dead(msg, exc, 1, exc.category, exc)
            ]
            # The message is in the checkpoint now, so an outage here is waited out, not held.
            await wait_out(
                lambda: self.handler.before_commit(msg, outgoing),
                what="before-commit step failed",
                stop=stop,
                policy=self.retry,
                on_retry=lambda: self._count_retry("before_commit"),
            )
            await self._commit_until_done(outgoing, consumed, stop)
        self.checkpoint.clear()
        self._attempts.pop((msg.topic, msg.partition, msg.offset), None)
        self.stats.processed += 1
        self.stats.published += len(outgoing)
        self._count_committed(outgoing)
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

    def _count_committed(self, outgoing: Sequence[Outgoing]) -> None:
        """Count a committed message by outcome, and its dead letters (whoever built them) by category."""
        service = self.handler.stage
        letters = [o for o in outgoing if o.topic == self.dlq_topic]
        for letter in letters:
            headers = dict(letter.headers)
            category = headers.get("category", b"unknown").decode("utf-8", "replace")
            error_class = headers.get("error_class", b"unknown").decode("utf-8", "replace")
            metrics.DLQ_RECORDS.labels(service, category).inc()
            metrics.ERRORS.labels(service, error_class, category).inc()
            get_current_span().set_status(Status(StatusCode.ERROR, f"dead-lettered: {category}"))
        outcome = "dead_lettered" if letters else "published"
        metrics.DOCUMENTS.labels(service, outcome).inc()
        get_current_span().set_attribute(tracing.OUTCOME, outcome)

    def _hold(self, msg: Incoming, exc: BaseException) -> _Held:
        """Pause and rewind the message's partition; the backoff grows with the message's attempts."""
        key = (msg.topic, msg.partition, msg.offset)
        attempt = self._attempts.get(key, self.retry.in_place) + 1
        self._attempts[key] = attempt
        delay = self.retry.delay(attempt - self.retry.in_place)
        self.transport.hold(msg)
        self._held[(msg.topic, msg.partition)] = (time.monotonic() + delay, msg.offset)
        self.stats.holds += 1
        self._count_outage(exc, "hold")
        self._paused_changed()
        log.warning(
            "outage: partition held",
            error=f"{type(exc).__name__}: {exc}",
            attempt=attempt,
            retry_in_s=round(delay, 2),
        )
        return _Held()

    async def _resolve(self, msg: Incoming) -> Incoming:
        uri = msg.header(CLAIM_HEADER)
        if uri is None:
            return msg
        if self.claims is None:
            raise PermanentError(
                f"claim check {uri} but no object store to resolve it", category="claim_check"
            )
        return replace(msg, value=await self.claims.get(uri))

    async def _check_claims(self, outgoing: Sequence[Outgoing]) -> list[Outgoing]:
        """Replace every record over the size limit by a claim check pointing at object storage."""
        claims = self.claims
        if claims is None:
            return list(outgoing)
        out = []
        for o in outgoing:
            if len(o.value) <= claims.limit_bytes:
                out.append(o)
                continue
            uri = await self._with_retries(lambda o=o: claims.put(o.topic, o.value))  # type: ignore[misc]
            check = ClaimCheck(claim_check=uri, bytes=len(o.value), topic=o.topic)
            headers = (*o.headers, (CLAIM_HEADER, uri.encode()))
            out.append(Outgoing(o.topic, o.key, check.model_dump_json().encode(), headers))
            self.stats.claim_checks += 1
            log.info("record stored behind a claim check", bytes=len(o.value), uri=uri)
        return out

    async def _with_retries(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call`` with the in-place retries; an outage beyond them propagates (and holds the partition)."""
        return await retrying(
            call,
            self.retry.backoff,
            on=OUTAGE,
            attempts=self.retry.in_place,
            before_sleep=self._count_in_place_retry,
        )

    async def _handle_with_retries(self, msg: Incoming) -> list[Outgoing]:
        key = (msg.topic, msg.partition, msg.offset)
        attempt = self._attempts.get(key, 0)
        try:
            resolved = await self._with_retries(lambda: self._resolve(msg))
            return await self._with_retries(lambda: self.handler.handle(resolved))
        except PermanentError as exc:
            log.warning("permanent error: dead-lettering", error=str(exc), category=exc.category)
            return self._dead(msg, exc, attempt + 1, exc.category, exc)
        except OUTAGE as exc:
            raise self._hold(msg, exc) from exc
        except Exception as exc:
            log.error("unexpected error: dead-lettering", error=f"{type(exc).__name__}: {exc}")
            return self._dead(msg, exc, attempt + 1, "internal")

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

    async def _commit_until_done(
        self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming], stop: asyncio.Event
    ) -> None:
        """Commit, retrying an unreachable broker with capped backoff until it answers or we are stopped.

        The handler is not run again: its artifacts are written and the results are in hand. Stopping
        gives up the commit; the next owner of the partition redoes the message (outputs are idempotent).
        """
        await wait_out(
            lambda: self._commit_once(outgoing, consumed),
            what="commit failed",
            stop=stop,
            policy=self.retry,
            on_retry=lambda: self._count_retry("commit"),
        )

    async def _commit_once(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        """One transaction attempt, timed and counted as committed or aborted."""
        service = self.handler.stage
        t0 = time.monotonic()
        # A commit of offsets alone (the end-of-batch flush) belongs to no message: it starts no trace.
        in_message = get_current_span().get_span_context().is_valid
        with (
            tracing.span(
                "commit", attributes={"tieout.records": len(outgoing), "tieout.offsets": len(consumed)}
            )
            if in_message
            else contextlib.nullcontext()
        ):
            try:
                await self.transport.commit(outgoing, consumed)
            except Exception as exc:
                metrics.TRANSACTIONS.labels(service, "aborted").inc()
                if isinstance(exc, OUTAGE):
                    self._count_outage(exc, None)
                raise
        metrics.TRANSACTIONS.labels(service, "committed").inc()
        metrics.COMMIT_SECONDS.labels(service).observe(time.monotonic() - t0)

    def _count_in_place_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        if exc is not None:
            self._count_outage(exc, None)
        self._count_retry("in_place")

    def _count_retry(self, kind: str) -> None:
        self.stats.retries += 1
        metrics.RETRIES.labels(self.handler.stage, kind).inc()

    def _count_outage(self, exc: BaseException, retry: str | None) -> None:
        """An attempt failed by an outage: an error of category ``outage`` (and a retry of kind ``retry``)."""
        metrics.ERRORS.labels(self.handler.stage, type(exc).__name__, "outage").inc()
        if retry is not None:
            metrics.RETRIES.labels(self.handler.stage, retry).inc()
