"""The shared runner on the in-memory broker: order of side effects, outages, dead letters, claim checks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from adapters.storage import MemoryStore
from consumers.artifacts import StoreClaims
from consumers.memory import MemoryBroker, MemoryTransport
from consumers.runner import (
    CLAIM_HEADER,
    Incoming,
    Outgoing,
    PermanentError,
    RetryPolicy,
    Runner,
    TransientError,
)
from schemas.events import ClaimCheck

FAST = RetryPolicy(in_place=3, base_s=0.001, max_s=0.004)
TRACE = b"4bf92f3577b34da6a3ce929d0e0e4736"  # a W3C trace id, as upstream services write them


class FakeHandler:
    stage = "test"

    def __init__(self, log: list[str], behaviour: dict[int, list[str]], *, size: int = 2) -> None:
        self.log = log
        self.behaviour = behaviour  # offset -> outcomes per attempt: ok | transient | permanent | boom | big
        self.size = size

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        todo = self.behaviour.get(msg.offset)
        outcome = todo.pop(0) if todo else "ok"
        self.log.append(f"handle {msg.partition}:{msg.offset} {outcome}")
        if outcome == "transient":
            raise TransientError("s3 503")
        if outcome == "connection":
            raise ConnectionResetError("connection reset by peer")
        if outcome == "permanent":
            raise PermanentError("bad pdf", category="corrupt", doc_id="d" * 64, source="x.pdf")
        if outcome == "boom":
            raise ValueError("bug")
        self.log.append(f"artifact {msg.offset}")
        value = b"x" * 5000 if outcome == "big" else b"v%d" % msg.offset
        return [Outgoing("out", b"k", value)]

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        pass

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        self.log.append(f"marker {msg.offset}")


def seed(broker: MemoryBroker, *offsets_by_partition: tuple[int, int]) -> None:
    """Records on topic ``in`` so that each (partition, offset) exists (earlier offsets filled in)."""
    for partition, offset in offsets_by_partition:
        part = broker.topic("in")[partition]
        while len(part) <= offset:
            broker.produce("in", b"value", b"key", (("trace_id", TRACE),), partition=partition)


def run(
    broker: MemoryBroker,
    handler: FakeHandler,
    *,
    batch: int = 2,
    log: list[str] | None = None,
    revoked: set[int] | None = None,
    claims: StoreClaims | None = None,
    during: object = None,
) -> Runner:
    transport = MemoryTransport(broker, ["in"], "g", revoked=revoked, log=log)
    runner = Runner(handler, transport, dlq_topic="dlq", retry=FAST, batch=batch, claims=claims)

    async def main() -> None:
        stop = asyncio.Event()

        async def stopper() -> None:
            # Done when every input offset is committed (or revoked) and nothing is held.
            def done() -> bool:
                for p, part in enumerate(broker.topic("in")):
                    if p in (revoked or set()):
                        continue
                    if broker.committed.get(("g", "in", p), 0) < len(part):
                        return False
                return runner.held == 0

            for _ in range(5000):
                if done():
                    break
                await asyncio.sleep(0.001)
            stop.set()

        await asyncio.gather(runner.run(stop), stopper())

    asyncio.run(main())
    return runner


def test_artifacts_then_atomic_commit_then_marker() -> None:
    log: list[str] = []
    broker = MemoryBroker()
    seed(broker, (0, 1))
    r = run(broker, FakeHandler(log, {}), log=log)
    assert log == [
        "start",
        "handle 0:0 ok", "artifact 0", "commit 0:0 (1 out)", "marker 0",
        "handle 0:1 ok", "artifact 1", "commit 0:1 (1 out)", "marker 1",
        "stop",
    ]  # fmt: skip
    assert r.stats.processed == 2 and r.stats.published == 2


def test_transient_errors_are_retried_in_place_then_succeed() -> None:
    log: list[str] = []
    broker = MemoryBroker()
    seed(broker, (0, 5))
    r = run(broker, FakeHandler(log, {5: ["transient", "connection", "ok"]}))
    assert [x for x in log if x.startswith("handle 0:5")] == [
        "handle 0:5 transient",
        "handle 0:5 connection",
        "handle 0:5 ok",
    ]
    assert broker.values("out")[-1] == b"v5" and broker.values("dlq") == []
    assert r.stats.retries == 2 and r.stats.holds == 0


def test_an_outage_longer_than_the_retries_is_waited_out_not_dead_lettered() -> None:
    # Regression: five attempts, then the message went to the DLQ as transient_exhausted (lost for good).
    log: list[str] = []
    broker = MemoryBroker(partitions=2)
    seed(broker, (0, 0), (1, 0))
    r = run(broker, FakeHandler(log, {0: ["transient"] * 20}), batch=1)
    assert broker.values("dlq") == []
    assert sorted(broker.values("out")) == [b"v0", b"v0"]  # both partitions' offset 0, each once
    assert r.stats.holds >= 5
    # Held partitions are rewound, not skipped: each offset 0 is handled again until it succeeds.
    assert log.count("handle 0:0 ok") == 1 and log.count("handle 1:0 ok") == 1
    assert sum(x.endswith("transient") for x in log) == 20


def test_permanent_error_goes_to_dlq_with_headers_and_is_committed() -> None:
    log: list[str] = []
    broker = MemoryBroker(partitions=4)
    seed(broker, (3, 7))
    run(broker, FakeHandler(log, {7: ["permanent"]}))
    (out,) = broker.records("dlq")
    assert out.key == b"d" * 64 and broker.committed[("g", "in", 3)] == 8
    headers = dict(out.headers)
    assert headers["stage"] == b"test" and headers["error_class"] == b"PermanentError"
    assert headers["original_topic"] == b"in" and headers["original_partition"] == b"3"
    assert headers["original_offset"] == b"7" and headers["attempts"] == b"1" and headers["trace_id"] == TRACE
    body = json.loads(out.value or b"")
    assert body["category"] == "corrupt" and body["original_value"] == "value" and body["source"] == "x.pdf"


def test_bugs_are_dead_lettered_not_dropped() -> None:
    log: list[str] = []
    broker = MemoryBroker()
    seed(broker, (0, 2))
    run(broker, FakeHandler(log, {2: ["boom"]}))
    assert [json.loads(v)["category"] for v in broker.values("dlq")] == ["internal"]
    assert broker.committed[("g", "in", 0)] == 3


def test_revoked_partition_is_left_to_its_new_owner() -> None:
    log: list[str] = []
    broker = MemoryBroker(partitions=2)
    seed(broker, (0, 0), (1, 0))
    r = run(broker, FakeHandler(log, {}), revoked={1})
    assert ("g", "in", 1) not in broker.committed and r.stats.skipped_revoked == 1


def test_a_broker_outage_at_commit_is_waited_out_without_handling_twice() -> None:
    # Regression: a connection error from the commit path escaped and the sink stayed dead.
    log: list[str] = []
    broker = MemoryBroker(fail_commits=12)
    seed(broker, (0, 0))
    r = run(broker, FakeHandler(log, {}), log=log)
    assert log.count("handle 0:0 ok") == 1 and log.count("commit 0:0 (1 out)") == 1
    assert broker.values("out") == [b"v0"] and r.stats.retries == 12


class SilentHandler(FakeHandler):
    async def handle(self, msg: Incoming) -> list[Outgoing]:
        self.log.append(f"handle {msg.offset}")
        return [] if msg.offset % 3 else [Outgoing("out", b"k", b"v")]


def test_messages_without_results_ride_along_with_the_next_commit() -> None:
    log: list[str] = []
    broker = MemoryBroker(partitions=2)
    seed(broker, (0, 5), (1, 2))
    run(broker, SilentHandler(log, {}), batch=10, log=log)
    commits = [x for x in log if x.startswith("commit")]
    # Offsets 1, 2 publish nothing: 3's transaction supersedes them; 4, 5 ride along with partition 1's
    # offset 0; partition 1's 1, 2 are flushed on their own at the end of the batch.
    assert commits == [
        "commit 0:0 (1 out)",
        "commit 0:3 (1 out)",
        "commit 0:5,1:0 (1 out)",
        "commit 1:2 (0 out)",
    ]
    assert broker.committed[("g", "in", 0)] == 6 and broker.committed[("g", "in", 1)] == 3


def test_a_record_over_the_limit_rides_in_object_storage_behind_a_claim_check() -> None:
    log: list[str] = []
    broker = MemoryBroker(max_message_bytes=2500)
    store = MemoryStore()
    claims = StoreClaims(store, "artifacts", limit_bytes=2000)
    seed(broker, (0, 0))
    r = run(broker, FakeHandler(log, {0: ["big"]}), claims=claims)
    (rec,) = broker.records("out")
    check = ClaimCheck.model_validate_json(rec.value or b"")
    assert rec.header(CLAIM_HEADER) == check.claim_check and check.bytes == 5000
    assert store.read_uri(check.claim_check) == b"x" * 5000 and r.stats.claim_checks == 1

    # The next stage's runner resolves the claim check before its handler sees the message.
    seen: list[bytes] = []

    class Reader(FakeHandler):
        async def handle(self, msg: Incoming) -> list[Outgoing]:
            seen.append(msg.value or b"")
            return []

    downstream = MemoryTransport(broker, ["out"], "g2")
    runner = Runner(Reader([], {}), downstream, dlq_topic="dlq", retry=FAST, claims=claims)

    async def once() -> None:
        await downstream.start()
        for m in await downstream.poll(0.01, 10):
            await runner.process(m)

    asyncio.run(once())
    assert seen == [b"x" * 5000]


def test_a_record_the_broker_refuses_dead_letters_its_input_instead_of_vanishing() -> None:
    # Regression: the delivery result of send() was never awaited; an oversized record was logged as
    # published, its offset committed, and it reached neither its topic nor the DLQ.
    log: list[str] = []
    broker = MemoryBroker(max_message_bytes=2500)
    seed(broker, (0, 0), (0, 1))
    run(broker, FakeHandler(log, {0: ["big"]}))
    (dead,) = [json.loads(v) for v in broker.values("dlq")]
    assert dead["category"] == "record_too_large" and dead["original_offset"] == 0
    assert broker.values("out") == [b"v1"] and broker.committed[("g", "in", 0)] == 2


def test_claim_check_objects_are_written_again_after_a_store_outage() -> None:
    log: list[str] = []
    broker = MemoryBroker()
    store = MemoryStore()
    store.fail_next = 7  # more than the in-place retries: the partition is held, then retried
    claims = StoreClaims(store, "artifacts", limit_bytes=2000)
    seed(broker, (0, 0))
    r = run(broker, FakeHandler(log, {0: ["big"] * 10}), claims=claims)
    (rec,) = broker.records("out")
    assert rec.header(CLAIM_HEADER) and broker.values("dlq") == [] and r.stats.holds >= 1


def test_a_service_started_while_the_broker_is_down_waits_for_it() -> None:
    log: list[str] = []
    broker = MemoryBroker(down=True)
    seed(broker, (0, 0))
    transport = MemoryTransport(broker, ["in"], "g", log=log)
    runner = Runner(FakeHandler(log, {}), transport, dlq_topic="dlq", retry=FAST)

    async def main() -> None:
        stop = asyncio.Event()

        async def outage() -> None:
            await asyncio.sleep(0.05)
            broker.down = False
            while broker.committed.get(("g", "in", 0), 0) < 1:
                await asyncio.sleep(0.001)
            stop.set()

        await asyncio.gather(runner.run(stop), outage())

    asyncio.run(main())
    assert broker.values("out") == [b"v0"] and log[0] == "start"
