"""The ``reviews`` topic: analysts' decisions published from the review store's log (an outbox).

The console commits each decision to its store (SQLite or PostgreSQL) and nothing else; this publisher
reads the store's log and publishes it, so a broker outage never loses or blocks a decision. One round:

1. read the decisions after this publisher's cursor (``decisions_since``), in commit order;
2. publish them, each keyed by its flag id (one flag's decisions keep their order on one partition), and
   wait for every delivery;
3. advance the cursor to the last one published.

A failure before step 3 leaves the cursor where it was: the next round publishes the same decisions again
(at least once). A reader drops repeats by ``review_id``, which the record and a header carry.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import structlog
from aiokafka.errors import KafkaError
from tenacity import RetryCallState

from adapters.retry import Backoff, retrying
from adapters.settings import Settings
from consumers import kafka
from consumers.runner import Outgoing, TransientError
from schemas.reviews import ReviewDecision
from schemas.topology import Topic

__all__ = ["CURSOR", "DecisionLog", "Publish", "ReviewPublisher", "decision_message", "kafka_publish"]

log = structlog.get_logger(__name__)

CURSOR = f"topic:{Topic.REVIEWS}"
"""The publisher's cursor name in the review store."""


class DecisionLog(Protocol):
    """What the publisher needs of a review store."""

    def decisions_since(self, seq: int = 0, limit: int = 1000) -> list[tuple[int, ReviewDecision]]:
        """``(seq, decision)`` after ``seq``, in commit order."""
        ...

    def cursor(self, name: str) -> int:
        """The last sequence number ``name`` has durably handled (0 if none)."""
        ...

    def advance_cursor(self, name: str, seq: int) -> None:
        """Record that ``name`` has handled everything up to ``seq`` (never backwards)."""
        ...


Publish = Callable[[Sequence[Outgoing]], Awaitable[None]]
"""Sends messages and returns once every delivery is confirmed (raises otherwise)."""


def decision_message(topic: str, decision: ReviewDecision) -> Outgoing:
    """A decision as a message of the reviews topic: keyed by flag id, its ids in headers."""
    return Outgoing(
        topic=topic,
        key=decision.flag_id.encode(),
        value=decision.model_dump_json().encode(),
        headers=(
            ("review_id", decision.review_id.encode()),
            ("doc_id", decision.doc_id.encode()),
            ("schema_version", decision.schema_version.encode()),
        ),
    )


class ReviewPublisher:
    """Publishes a review store's decisions to the reviews topic, at least once, in commit order."""

    def __init__(
        self,
        store: DecisionLog,
        publish: Publish,
        topic: str,
        *,
        batch: int = 500,
        interval_s: float = 1.0,
        backoff: Backoff | None = None,
    ) -> None:
        """Publish ``store``'s decisions to ``topic`` through ``publish``.

        Args:
            store: The review store.
            publish: Sends a batch and confirms every delivery (Kafka, or an in-memory broker in tests).
            topic: The full topic name (with its prefix).
            batch: Decisions per round at most.
            interval_s: Pause between rounds when there is nothing new.
            backoff: Waits after a failed round (the broker or the store is down).
        """
        self.store = store
        self.publish = publish
        self.topic = topic
        self.batch = batch
        self.interval_s = interval_s
        self.backoff = backoff or Backoff(base_s=1.0, max_s=30.0)

    async def publish_once(self) -> int:
        """One round (steps 1-3 above); returns how many decisions it published."""
        start = await asyncio.to_thread(self.store.cursor, CURSOR)
        rows = await asyncio.to_thread(self.store.decisions_since, start, self.batch)
        if not rows:
            return 0
        await self.publish([decision_message(self.topic, d) for _, d in rows])
        await asyncio.to_thread(self.store.advance_cursor, CURSOR, rows[-1][0])
        log.info("reviews published", count=len(rows), through=rows[-1][0], topic=self.topic)
        return len(rows)

    async def run(self, stop: asyncio.Event) -> None:
        """Publish until ``stop`` is set, waiting out outages of the broker or the store.

        Any failure of a round is waited out and retried: a decision is never skipped, and the console
        keeps working while the broker is away (its decisions wait in the store's log).
        """

        def waiting(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome is not None else None
            log.warning(
                "reviews not published yet; retrying",
                topic=self.topic,
                error=f"{type(error).__name__}: {error}",
                wait_s=round(state.upcoming_sleep, 1),
            )

        while not stop.is_set():
            try:
                published = await retrying(
                    self.publish_once, self.backoff, on=(Exception,), stop=stop, before_sleep=waiting
                )
            except Exception:
                return  # stopped during an outage: the cursor still points at what is unpublished
            if published < self.batch:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.interval_s)


def kafka_publish(settings: Settings, *, timeout_s: float = 30.0) -> Publish:
    """A :data:`Publish` to the Kafka cluster of ``settings`` (a broker error is an outage).

    The topic is created on first use when missing, as the services create theirs.
    """
    ready: set[str] = set()

    async def publish(messages: Sequence[Outgoing]) -> None:
        try:
            topics = sorted({m.topic for m in messages} - ready)
            if topics:
                await kafka.ensure_topics(kafka.client_options(settings), topics, timeout_s=timeout_s)
                ready.update(topics)
            await kafka.publish(settings, messages, timeout_s=timeout_s)
        except (KafkaError, OSError, TimeoutError) as exc:
            raise TransientError(f"cannot publish to Kafka: {type(exc).__name__}: {exc}") from exc

    return publish
