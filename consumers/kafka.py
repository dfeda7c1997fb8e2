"""The Kafka transport: an aiokafka consumer in a group and a transactional producer.

Each message's results and its input offset are committed in one transaction (``read_committed``
consumers downstream never see half a document), and every record's delivery is awaited before the
offsets are added: a record the broker refuses aborts the transaction instead of vanishing. The
transactional id is stable per worker (``<prefix><stage>-<worker id>``): a worker restarted after a crash
fences its predecessor, whose open transaction is aborted at once instead of blocking readers until it
times out. The same id is the consumer's static group membership, so the restarted worker takes its
partitions back without a rebalance.

With a schema registry configured (``SCHEMA_REGISTRY_URL``), every record the services publish leaves in
the registry's wire format (:mod:`adapters.registry`), framed here and nowhere else, and every record they
read is unframed here (framed or plain JSON alike), so handlers only ever see JSON.

Broker errors that retrying can cure (connection lost, leader moved, timeouts) become
:class:`~consumers.runner.TransientError`; after one the producer is rebuilt before the next transaction,
because a transaction that failed half-way leaves it in a state only a new producer id clears.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import (
    KafkaError,
    MessageSizeTooLargeError,
    ProducerFenced,
    RecordTooLargeError,
    TopicAlreadyExistsError,
)
from aiokafka.helpers import create_ssl_context

from adapters.registry import FramingError, TopicEncoder, topic_encoder, unframe
from adapters.settings import Settings
from consumers.runner import CLAIM_HEADER, Incoming, Outgoing, RecordRejected, TransientError

__all__ = [
    "KafkaTransport",
    "TransactionalProducer",
    "client_options",
    "ensure_topics",
    "incoming",
    "publish",
    "wire_value",
]

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


def incoming(record: Any) -> Incoming:
    """An aiokafka ``ConsumerRecord`` as the runner's :class:`~consumers.runner.Incoming`.

    A value in the schema registry's wire format is unframed to its JSON; plain JSON passes as it is.
    """
    headers = tuple((k, bytes(v)) for k, v in (record.headers or ()))
    value = record.value
    if value:
        # A truncated frame is left as it came: the handler's schema check dead-letters it, where an
        # error here would fail poll() over and over.
        with contextlib.suppress(FramingError):
            value = unframe(value).payload
    return Incoming(record.topic, record.partition, record.offset, record.key, value, headers)


def wire_value(o: Outgoing, encoder: TopicEncoder | None) -> bytes:
    """The bytes ``o`` goes on the wire as: framed for the registry when an encoder is set.

    A claim check stays plain JSON: it is not a record of the topic's schema but a pointer to one in
    object storage, and its ``claim_check`` header says so to any reader.
    """
    if encoder is None or any(k == CLAIM_HEADER for k, _ in o.headers):
        return o.value
    return encoder.encode(o.topic, o.value)


def client_options(settings: Settings) -> dict[str, Any]:
    """Connection options every aiokafka client of a service shares: bootstrap servers and security.

    ``KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT`` or ``SASL_SSL`` with ``KAFKA_USERNAME``/``KAFKA_PASSWORD``
    authenticates with ``KAFKA_SASL_MECHANISM`` (SCRAM-SHA-512 by default); ``SSL``/``SASL_SSL`` verify
    the broker against ``KAFKA_CA_FILE`` or the system's CAs.

    Raises:
        ValueError: A SASL protocol without a username and password.
    """
    opts: dict[str, Any] = {"bootstrap_servers": settings.kafka_bootstrap}
    protocol = settings.kafka_security_protocol
    if protocol == "PLAINTEXT":
        return opts
    opts["security_protocol"] = protocol
    if protocol.startswith("SASL_"):
        if not (settings.kafka_username and settings.kafka_password):
            raise ValueError(f"KAFKA_SECURITY_PROTOCOL={protocol} needs KAFKA_USERNAME and KAFKA_PASSWORD")
        opts["sasl_mechanism"] = settings.kafka_sasl_mechanism
        opts["sasl_plain_username"] = settings.kafka_username
        opts["sasl_plain_password"] = settings.kafka_password
    if protocol.endswith("SSL"):
        opts["ssl_context"] = create_ssl_context(cafile=settings.kafka_ca_file)
    return opts


async def publish(settings: Settings, messages: Sequence[Outgoing], *, timeout_s: float = 30.0) -> None:
    """Send messages outside any transaction (tools: submit, reconcile, DLQ replay) and wait for each.

    With ``SCHEMA_REGISTRY_URL`` set they are framed like the services' records.
    """
    encoder = await asyncio.wait_for(topic_encoder(settings, timeout_s=timeout_s), 4 * timeout_s)
    producer = AIOKafkaProducer(
        **client_options(settings),
        acks="all",
        enable_idempotence=True,
        request_timeout_ms=int(timeout_s * 1000),
    )
    await asyncio.wait_for(producer.start(), timeout_s)
    try:
        for m in messages:
            await asyncio.wait_for(
                producer.send_and_wait(m.topic, wire_value(m, encoder), key=m.key, headers=list(m.headers)),
                timeout_s,
            )
    finally:
        await producer.stop()


class TransactionalProducer:
    """A transactional producer that confirms every delivery and renews itself after a failure.

    One transaction, in order:

    1. begin;
    2. send every record and await each delivery report (``send`` only queues the record);
    3. add the consumed offsets, if any, for the consumer group;
    4. commit. A failure before 4 aborts, and nothing of the transaction is visible.

    A transaction that failed half-way leaves aiokafka's producer in a state only a new producer id
    clears, so the next transaction starts on a new producer with the same transactional id (which also
    fences and aborts whatever an earlier incarnation left open).
    """

    def __init__(
        self,
        connection: Mapping[str, Any],
        transactional_id: str,
        *,
        transaction_timeout_s: float = 660.0,
        request_timeout_s: float = 30.0,
        encoder: TopicEncoder | None = None,
    ) -> None:
        """Configure (not connect) the producer; ``encoder`` frames values for a schema registry."""
        self.encoder = encoder
        self._kwargs: dict[str, object] = dict(
            **connection,
            transactional_id=transactional_id,
            enable_idempotence=True,
            acks="all",
            request_timeout_ms=int(request_timeout_s * 1000),
            transaction_timeout_ms=int(transaction_timeout_s * 1000),
            max_request_size=8 * 1024 * 1024,
            # After a commit the broker answers CONCURRENT_TRANSACTIONS until its markers are written;
            # the default 100 ms backoff would add that to every document.
            retry_backoff_ms=10,
        )
        # Built by start(): aiokafka clients cannot start twice, and an unstarted one warns when collected.
        self.producer: AIOKafkaProducer | None = None
        self._broken = False
        self._start_timeout_s = 60.0
        self._timeout_s = 2 * request_timeout_s + 10

    async def start(self) -> None:
        """Connect and initialise transactions (a new producer each time)."""
        producer = AIOKafkaProducer(**self._kwargs)
        try:
            await asyncio.wait_for(producer.start(), self._start_timeout_s)
        except (KafkaError, OSError, TimeoutError) as exc:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(producer.stop(), 10)
            raise TransientError(f"cannot start the producer: {type(exc).__name__}: {exc}") from exc
        self.producer = producer
        self._broken = False

    async def stop(self) -> None:
        """Close the producer (an open transaction is aborted by the broker or the next incarnation)."""
        producer, self.producer = self.producer, None
        if producer is not None:
            await producer.stop()

    async def publish(
        self,
        outgoing: Sequence[Outgoing],
        offsets: Mapping[TopicPartition, int] | None = None,
        group_id: str | None = None,
    ) -> None:
        """Publish ``outgoing`` (and commit ``offsets`` for ``group_id``) in one transaction.

        Raises:
            RecordRejected: The broker refused a record (larger than ``message.max.bytes``, invalid).
            TransientError: The broker is unreachable or the transaction timed out.
        """
        if self._broken or self.producer is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.stop(), 10)
            await self.start()
            log.warning("producer restarted after a failed transaction")
        try:
            await asyncio.wait_for(self._transaction(outgoing, offsets, group_id), self._timeout_s)
        except ProducerFenced:
            raise  # another process has this worker's identity: stopping is the only safe move
        except (MessageSizeTooLargeError, RecordTooLargeError) as exc:
            self._broken = True
            raise RecordRejected(f"broker refused a record: {exc}", category="record_too_large") from exc
        except (KafkaError, OSError, TimeoutError) as exc:
            self._broken = True
            raise TransientError(f"transaction failed: {type(exc).__name__}: {exc}") from exc

    async def _transaction(
        self,
        outgoing: Sequence[Outgoing],
        offsets: Mapping[TopicPartition, int] | None,
        group_id: str | None,
    ) -> None:
        producer = self.producer
        assert producer is not None  # publish() starts it
        async with producer.transaction():
            deliveries = [
                await producer.send(
                    o.topic, value=wire_value(o, self.encoder), key=o.key, headers=list(o.headers)
                )
                for o in outgoing
            ]
            for delivery in deliveries:
                await delivery
            if offsets:
                await producer.send_offsets_to_transaction(dict(offsets), group_id)


class KafkaTransport:
    """Implements :class:`consumers.runner.Transport` on Apache Kafka."""

    def __init__(
        self,
        *,
        connection: Mapping[str, Any],
        topics: Sequence[str],
        group_id: str,
        transactional_id: str,
        idle: asyncio.Event,
        group_instance_id: str | None = None,
        max_processing_s: float = 600.0,
        request_timeout_s: float = 30.0,
        encoder: TopicEncoder | None = None,
    ) -> None:
        """Configure (not connect) the consumer and producer; ``encoder`` frames values for a registry."""
        self.group_id = group_id
        self.topics = list(topics)
        self._consumer_kwargs: dict[str, object] = dict(
            **connection,
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
            group_instance_id=group_instance_id,
        )
        self.producer = TransactionalProducer(
            connection,
            transactional_id,
            transaction_timeout_s=max_processing_s + 60,
            request_timeout_s=request_timeout_s,
            encoder=encoder,
        )
        self._listener = _WaitForIdle(idle, max_processing_s)
        self.consumer: AIOKafkaConsumer | None = None  # built by start(), like the producer

    async def start(self, timeout_s: float = 60.0) -> None:
        """Connect the producer (initialising its transactions) and join the consumer group.

        Raises:
            TransientError: The broker cannot be reached; both clients are closed and can start again.
        """
        await self.producer.start()
        consumer = AIOKafkaConsumer(**self._consumer_kwargs)
        try:
            consumer.subscribe(self.topics, listener=self._listener)
            await asyncio.wait_for(consumer.start(), timeout_s)
        except (KafkaError, OSError, TimeoutError) as exc:
            for client in (consumer, self.producer):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(client.stop(), 10)
            raise TransientError(f"cannot start the Kafka consumer: {type(exc).__name__}: {exc}") from exc
        self.consumer = consumer

    async def stop(self) -> None:
        """Leave the group and close both clients."""
        consumer, self.consumer = self.consumer, None
        if consumer is None:
            return
        try:
            await consumer.stop()
        finally:
            await self.producer.stop()

    async def poll(self, timeout_s: float, max_records: int) -> list[Incoming]:
        """Up to ``max_records`` messages, in offset order per partition (none while the broker is away)."""
        assert self.consumer is not None  # the runner polls only after start()
        try:
            batch = await self.consumer.getmany(timeout_ms=int(timeout_s * 1000), max_records=max_records)
        except KafkaError as exc:
            log.warning("poll failed: broker unreachable?", error=f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(timeout_s)
            return []
        return [incoming(r) for records in batch.values() for r in records]

    def _owner(self, tp: TopicPartition) -> AIOKafkaConsumer | None:
        """The consumer, when ``tp`` is assigned to it."""
        consumer = self.consumer
        return consumer if consumer is not None and tp in consumer.assignment() else None

    def owns(self, msg: Incoming) -> bool:
        """Whether the partition is still assigned to this worker."""
        return self._owner(TopicPartition(msg.topic, msg.partition)) is not None

    def hold(self, msg: Incoming) -> None:
        """Pause the partition and seek back to ``msg`` (a no-op when the partition is not assigned)."""
        tp = TopicPartition(msg.topic, msg.partition)
        if (consumer := self._owner(tp)) is not None:
            consumer.pause(tp)
            consumer.seek(tp, msg.offset)

    def release(self, topic: str, partition: int) -> None:
        """Resume fetching a held partition."""
        tp = TopicPartition(topic, partition)
        if (consumer := self._owner(tp)) is not None:
            consumer.resume(tp)

    async def lag(self, timeout_s: float = 10.0) -> dict[tuple[str, int], int]:
        """Per assigned partition: the broker's end offset minus the consumer's position.

        Under ``read_committed`` the end offset is the last stable offset, so records of a transaction
        still open upstream do not count yet. A held partition's position is rewound to the held message,
        so its lag includes what it waits to redo.

        Raises:
            TransientError: The broker did not answer within ``timeout_s``.
        """
        consumer = self.consumer
        if consumer is None:
            return {}
        tps = sorted(consumer.assignment())
        if not tps:
            return {}
        try:
            ends = await asyncio.wait_for(consumer.end_offsets(tps), timeout_s)
            positions = {tp: await asyncio.wait_for(consumer.position(tp), timeout_s) for tp in tps}
        except (KafkaError, OSError, TimeoutError) as exc:
            raise TransientError(f"cannot read end offsets: {type(exc).__name__}: {exc}") from exc
        return {(tp.topic, tp.partition): max(0, ends[tp] - positions[tp]) for tp in tps if tp in ends}

    async def committed(self, topic: str, partition: int, timeout_s: float = 10.0) -> int | None:
        """The group's committed offset of any partition of its topics, asked of the coordinator.

        Raises:
            TransientError: The broker did not answer within ``timeout_s``.
        """
        consumer = self.consumer
        if consumer is None:
            raise TransientError("the consumer has not started")
        try:
            offset = await asyncio.wait_for(consumer.committed(TopicPartition(topic, partition)), timeout_s)
        except (KafkaError, OSError, TimeoutError) as exc:
            raise TransientError(f"cannot read the committed offset: {type(exc).__name__}: {exc}") from exc
        return int(offset) if offset is not None else None

    async def reachable(self, timeout_s: float = 5.0) -> bool:
        """Whether the broker answers a metadata request now (False before the consumer has started)."""
        consumer = self.consumer
        if consumer is None:
            return False
        try:
            await asyncio.wait_for(consumer.topics(), timeout_s)
        except (KafkaError, OSError, TimeoutError):
            return False
        return True

    async def commit(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        """Publish ``outgoing`` and commit each consumed partition's next offset in one transaction.

        See :class:`TransactionalProducer` for the order of the steps and the errors raised.
        """
        offsets: dict[TopicPartition, int] = {}
        for m in consumed:
            tp = TopicPartition(m.topic, m.partition)
            offsets[tp] = max(offsets.get(tp, 0), m.offset + 1)
        await self.producer.publish(outgoing, offsets, self.group_id)


async def ensure_topics(
    connection: Mapping[str, Any], topics: Sequence[str], *, partitions: int = 4, timeout_s: float = 30.0
) -> None:
    """Create missing topics (``partitions`` each, replication 1 for the local stack)."""
    admin = AIOKafkaAdminClient(**connection, request_timeout_ms=int(timeout_s * 1000))
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
