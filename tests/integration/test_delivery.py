"""Delivery on the real broker: refused records abort their transaction; large ones ride as claim checks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest
from confluent_kafka import Consumer, TopicPartition

from adapters.storage import ObjectStore
from consumers.artifacts import StoreClaims
from consumers.kafka import KafkaTransport, client_options, ensure_topics
from consumers.runner import CLAIM_HEADER, Incoming, Outgoing, RecordRejected, RetryPolicy, Runner
from schemas.events import ClaimCheck
from tests.integration.conftest import Isolated

pytestmark = pytest.mark.integration

BROKER_LIMIT = 1_048_588  # the broker's message.max.bytes (Kafka's default, as infra/kafka configures it)
TWICE = b"x" * (2 * BROKER_LIMIT)


def _committed(it: Isolated, group: str, topic: str) -> int:
    c = Consumer({"bootstrap.servers": it.settings.kafka_bootstrap, "group.id": group})
    try:
        (tp,) = c.committed([TopicPartition(topic, 0)], timeout=10)
        return int(tp.offset)
    finally:
        c.close()


async def _one_message(it: Isolated, inp: str, group: str) -> tuple[KafkaTransport, Incoming]:
    await ensure_topics(client_options(it.settings), [inp, it.topic("out"), it.topic("dlq")], partitions=1)
    from aiokafka import AIOKafkaProducer

    p = AIOKafkaProducer(bootstrap_servers=it.settings.kafka_bootstrap)
    await p.start()
    try:
        await p.send_and_wait(inp, b"in", key=b"k")
    finally:
        await p.stop()
    idle = asyncio.Event()
    idle.set()  # nothing in hand: a revocation need not wait
    t = KafkaTransport(
        connection=client_options(it.settings),
        topics=[inp],
        group_id=group,
        transactional_id=f"{group}-w1",
        idle=idle,
    )
    await t.start()
    msgs: list[Incoming] = []
    for _ in range(60):
        msgs += await t.poll(1.0, 10)
        if msgs:
            break
    assert msgs, "no input message"
    return t, msgs[0]


def test_a_record_over_the_brokers_limit_aborts_the_transaction(isolated: Isolated) -> None:
    # Regression: send() only queued the record; the commit went through, the offset was committed and
    # the record reached nothing.
    it = isolated
    inp, group = it.topic("in"), f"{it.settings.topic_prefix}g"

    async def main() -> None:
        t, msg = await _one_message(it, inp, group)
        try:
            with pytest.raises(RecordRejected):
                await t.commit([Outgoing(it.topic("out"), b"k", TWICE)], [msg])
            assert _committed(it, group, inp) < 0  # nothing committed
            # The next transaction goes through on a renewed producer.
            await t.commit([Outgoing(it.topic("out"), b"k", b"small")], [msg])
        finally:
            await t.stop()

    asyncio.run(main())
    assert _committed(it, group, inp) == 1
    c = Consumer(
        {
            "bootstrap.servers": it.settings.kafka_bootstrap,
            "group.id": "reader",
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
        }
    )
    c.subscribe([it.topic("out")])
    values = []
    for _ in range(20):
        m = c.poll(0.5)
        if m is not None and not m.error():
            values.append(m.value())
    c.close()
    assert values == [b"small"]


class Big:
    stage = "test"

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        return [Outgoing(self.topic, b"k", TWICE)]

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        pass

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        pass

    def __init__(self, topic: str) -> None:
        self.topic = topic


def test_a_record_at_twice_the_brokers_limit_rides_behind_a_claim_check(isolated: Isolated) -> None:
    it = isolated
    inp, group = it.topic("in"), f"{it.settings.topic_prefix}g"
    store = ObjectStore(it.settings)
    claims = StoreClaims(store, it.settings.artifact_bucket, limit_bytes=BROKER_LIMIT // 2)

    async def main() -> None:
        t, msg = await _one_message(it, inp, group)
        runner = Runner(
            Big(it.topic("out")), t, dlq_topic=it.topic("dlq"), retry=RetryPolicy(), claims=claims
        )
        try:
            await runner.process(msg)
        finally:
            await t.stop()

    asyncio.run(main())
    (rec,) = it.read(it.topic("out"), until=lambda r: len(r) >= 1)
    check = ClaimCheck.model_validate({k: v for k, v in rec.items() if not k.startswith("_")})
    assert rec["_headers"][CLAIM_HEADER] == check.claim_check  # type: ignore[index]
    assert check.bytes == len(TWICE) and store.read_uri(check.claim_check) == TWICE
    assert _committed(it, group, inp) == 1
    assert json.loads(check.model_dump_json())["topic"] == it.topic("out")
