"""The shared runner against small fakes behind its Protocols: order of side effects, retries, DLQ."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from consumers.runner import Incoming, Outgoing, PermanentError, RetryPolicy, Runner, TransientError

FAST = RetryPolicy(attempts=3, base_s=0.001, max_s=0.002)


class FakeTransport:
    def __init__(
        self, msgs: list[Incoming], log: list[str], *, revoked: set[int] | None = None, fail_commits: int = 0
    ):
        self.msgs = msgs
        self.log = log
        self.revoked = revoked or set()
        self.fail_commits = fail_commits
        self.committed: list[tuple[list[Outgoing], int]] = []

    async def start(self) -> None:
        self.log.append("start")

    async def stop(self) -> None:
        self.log.append("stop")

    async def poll(self, timeout_s: float, max_records: int) -> list[Incoming]:
        batch, self.msgs = self.msgs[:max_records], self.msgs[max_records:]
        if not batch:
            await asyncio.sleep(0)
        return batch

    def owns(self, msg: Incoming) -> bool:
        return msg.partition not in self.revoked

    async def commit(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        if self.fail_commits:
            self.fail_commits -= 1
            raise TransientError("broker timeout")
        offsets = ",".join(f"{m.partition}:{m.offset}" for m in consumed)
        self.log.append(f"commit {offsets} ({len(outgoing)} out)")
        self.committed.append((list(outgoing), max(m.offset for m in consumed)))


class FakeHandler:
    stage = "test"

    def __init__(self, log: list[str], behaviour: dict[int, list[str]]) -> None:
        self.log = log
        self.behaviour = behaviour  # offset -> outcomes per attempt: ok | transient | permanent | boom

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        outcome = self.behaviour.get(msg.offset, ["ok"]).pop(0) if self.behaviour.get(msg.offset) else "ok"
        self.log.append(f"handle {msg.offset} {outcome}")
        if outcome == "transient":
            raise TransientError("s3 503")
        if outcome == "permanent":
            raise PermanentError("bad pdf", category="corrupt", doc_id="d" * 64, source="x.pdf")
        if outcome == "boom":
            raise ValueError("bug")
        self.log.append(f"artifact {msg.offset}")
        return [Outgoing("out", b"k", b"v%d" % msg.offset)]

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        self.log.append(f"marker {msg.offset}")


def msg(offset: int, partition: int = 0) -> Incoming:
    return Incoming("in", partition, offset, b"key", b"value", (("trace_id", b"t-1"),))


def run(transport: FakeTransport, handler: FakeHandler, batch: int = 2) -> Runner:
    runner = Runner(handler, transport, dlq_topic="dlq", retry=FAST, batch=batch)

    async def main() -> None:
        stop = asyncio.Event()

        async def stopper() -> None:
            while transport.msgs:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.01)
            stop.set()

        await asyncio.gather(runner.run(stop), stopper())

    asyncio.run(main())
    return runner


def test_artifacts_then_atomic_commit_then_marker() -> None:
    log: list[str] = []
    t = FakeTransport([msg(0), msg(1)], log)
    r = run(t, FakeHandler(log, {}))
    assert log == [
        "start",
        "handle 0 ok", "artifact 0", "commit 0:0 (1 out)", "marker 0",
        "handle 1 ok", "artifact 1", "commit 0:1 (1 out)", "marker 1",
        "stop",
    ]  # fmt: skip
    assert r.stats.processed == 2 and r.stats.published == 2


def test_transient_errors_are_retried_then_succeed() -> None:
    log: list[str] = []
    t = FakeTransport([msg(5)], log)
    r = run(t, FakeHandler(log, {5: ["transient", "transient", "ok"]}))
    assert [x for x in log if x.startswith("handle")] == [
        "handle 5 transient",
        "handle 5 transient",
        "handle 5 ok",
    ]
    assert t.committed[0][0][0].topic == "out"
    assert r.stats.retries == 2


def test_permanent_error_goes_to_dlq_with_headers_and_is_committed() -> None:
    log: list[str] = []
    t = FakeTransport([msg(7, partition=3)], log)
    run(t, FakeHandler(log, {7: ["permanent"]}))
    (out,), offset = t.committed[0]
    assert offset == 7 and out.topic == "dlq" and out.key == b"d" * 64
    headers = dict(out.headers)
    assert headers["stage"] == b"test" and headers["error_class"] == b"PermanentError"
    assert headers["original_topic"] == b"in" and headers["original_partition"] == b"3"
    assert (
        headers["original_offset"] == b"7" and headers["attempts"] == b"1" and headers["trace_id"] == b"t-1"
    )
    body = json.loads(out.value)
    assert body["category"] == "corrupt" and body["original_value"] == "value" and body["source"] == "x.pdf"


def test_exhausted_retries_and_bugs_are_dead_lettered_not_dropped() -> None:
    log: list[str] = []
    t = FakeTransport([msg(1), msg(2)], log)
    run(t, FakeHandler(log, {1: ["transient"] * 3, 2: ["boom"]}))
    cats = [json.loads(outs[0].value)["category"] for outs, _ in t.committed]
    assert cats == ["transient_exhausted", "internal"]
    assert [o for _, o in t.committed] == [1, 2]


def test_revoked_partition_is_left_to_its_new_owner() -> None:
    log: list[str] = []
    t = FakeTransport([msg(0, partition=0), msg(0, partition=1)], log, revoked={1})
    r = run(t, FakeHandler(log, {}))
    assert [o for _, o in t.committed] == [0] and r.stats.skipped_revoked == 1


def test_commit_failures_are_retried_without_handling_twice() -> None:
    log: list[str] = []
    t = FakeTransport([msg(0)], log, fail_commits=2)
    run(t, FakeHandler(log, {}))
    assert log.count("handle 0 ok") == 1 and log.count("commit 0:0 (1 out)") == 1


class SilentHandler(FakeHandler):
    async def handle(self, msg: Incoming) -> list[Outgoing]:
        self.log.append(f"handle {msg.offset}")
        return [] if msg.offset % 3 else [Outgoing("out", b"k", b"v")]


def test_messages_without_results_ride_along_with_the_next_commit() -> None:
    log: list[str] = []
    t = FakeTransport([msg(1), msg(2, partition=1), msg(3), msg(4), msg(5)], log)
    run(t, SilentHandler(log, {}), batch=10)
    commits = [x for x in log if x.startswith("commit")]
    # 1 and 2 published nothing: their offsets go with 3's transaction (3 supersedes 1 on partition 0);
    # 4 and 5 are flushed together at the end of the batch.
    assert commits == ["commit 0:3,1:2 (1 out)", "commit 0:5 (0 out)"]
