"""The Kafka transport: an aiokafka consumer in a group and a transactional producer.

Each message's results and its input offset are committed in one transaction (``read_committed``
consumers downstream never see half a document). The transactional id is stable per worker
(``<prefix><stage>-<worker id>``): a worker restarted after a crash fences its predecessor, whose open
transaction is aborted at once instead of blocking readers until it times out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import KafkaError, KafkaTimeoutError, TopicAlreadyExistsError

from consumers.runner import Incoming, Outgoing, TransientError

log = structlog.get_logger(__name__)


class _WaitForIdle(ConsumerRebalanceListener):  # type: ignore[misc]
    """On revocation, let the message in hand finish (its commit includes its offset) before giving up."""

    def __init__(self, idle: asyncio.Event, timeout_s: float) -> None:
        self.idle = idle
        self.timeout_s = timeout_s

    async def on_partitions_revoked(self, revoked: list[TopicPartition]) -> None:
        try:
            await asyncio.wait_for(self.idle.wait(), self.timeout_s)
        except TimeoutError:
            log.warning("partitions revoked while a message is still in progress", partitions=len(revoked))

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        log.info("partitions assigned", partitions=sorted(f"{tp.topic}-{tp.partition}" for tp in assigned))


class KafkaTransport:
    """Implements :class:`consumers.runner.Transport` on Apache Kafka."""

    def __init__(
        self,
        *,
        bootstrap: str,
        topics: Sequence[str],
        group_id: str,
        transactional_id: str,
        idle: asyncio.Event,
        max_processing_s: float = 600.0,
        request_timeout_s: float = 30.0,
    ) -> None:
        """Configure (not connect) the consumer and producer."""
        self.group_id = group_id
        self.topics = list(topics)
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group_id,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            isolation_level="read_committed",
            # Processing happens between polls; the bound is the document time budget plus margin.
            max_poll_interval_ms=int((max_processing_s + 120) * 1000),
            session_timeout_ms=30_000,
            heartbeat_interval_ms=3_000,
            request_timeout_ms=int(request_timeout_s * 1000) + 10_000,
            rebalance_timeout_ms=int((max_processing_s + 60) * 1000),
        )
        self.producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap,
            transactional_id=transactional_id,
            enable_idempotence=True,
            acks="all",
            request_timeout_ms=int(request_timeout_s * 1000),
            transaction_timeout_ms=int((max_processing_s + 60) * 1000),
            max_request_size=8 * 1024 * 1024,
            # After a commit the broker answers CONCURRENT_TRANSACTIONS until its markers are written;
            # the default 100 ms backoff would add that to every document.
            retry_backoff_ms=10,
        )
        self._listener = _WaitForIdle(idle, max_processing_s)
        self._started = False

    async def start(self, timeout_s: float = 60.0) -> None:
        """Connect the producer (initialising its transactions) and join the consumer group."""
        await asyncio.wait_for(self.producer.start(), timeout_s)
        self.consumer.subscribe(self.topics, listener=self._listener)
        await asyncio.wait_for(self.consumer.start(), timeout_s)
        self._started = True

    async def stop(self) -> None:
        """Leave the group and close both clients."""
        if not self._started:
            return
        self._started = False
        try:
            await self.consumer.stop()
        finally:
            await self.producer.stop()

    async def poll(self, timeout_s: float, max_records: int) -> list[Incoming]:
        """Fetch up to ``max_records`` messages, in offset order per partition."""
        batch = await self.consumer.getmany(timeout_ms=int(timeout_s * 1000), max_records=max_records)
        out: list[Incoming] = []
        for _tp, records in batch.items():
            for r in records:
                out.append(
                    Incoming(
                        topic=r.topic,
                        partition=r.partition,
                        offset=r.offset,
                        key=r.key,
                        value=r.value,
                        headers=tuple((k, bytes(v)) for k, v in (r.headers or ())),
                    )
                )
        return out

    def owns(self, msg: Incoming) -> bool:
        """Whether the partition is still assigned to this worker."""
        return TopicPartition(msg.topic, msg.partition) in self.consumer.assignment()

    async def commit(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        """Publish ``outgoing`` and commit each consumed partition's next offset in one transaction."""
        offsets: dict[TopicPartition, int] = {}
        for m in consumed:
            tp = TopicPartition(m.topic, m.partition)
            offsets[tp] = max(offsets.get(tp, 0), m.offset + 1)
        try:
            async with self.producer.transaction():
                for o in outgoing:
                    await self.producer.send(o.topic, value=o.value, key=o.key, headers=list(o.headers))
                await self.producer.send_offsets_to_transaction(offsets, self.group_id)
        except KafkaTimeoutError as exc:
            raise TransientError(f"transaction timed out: {exc}") from exc


async def ensure_topics(
    bootstrap: str, topics: Sequence[str], *, partitions: int = 4, timeout_s: float = 30.0
) -> None:
    """Create missing topics (``partitions`` each, replication 1 for the local stack)."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=int(timeout_s * 1000))
    await asyncio.wait_for(admin.start(), timeout_s)
    try:
        existing = set(await asyncio.wait_for(admin.list_topics(), timeout_s))
        missing = [t for t in topics if t not in existing]
        if missing:
            try:
                await asyncio.wait_for(
                    admin.create_topics([NewTopic(t, partitions, 1) for t in missing]), timeout_s
                )
            except TopicAlreadyExistsError:
                pass
            except KafkaError as exc:
                if "TOPIC_ALREADY_EXISTS" not in str(exc).upper():
                    raise
    finally:
        await admin.close()
