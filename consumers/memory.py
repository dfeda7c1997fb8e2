"""An in-memory broker behind the :class:`~consumers.runner.Transport` protocol, for tests without servers.

It keeps what matters to the runner's guarantees and nothing else: partitions with offsets, a committed
offset per group, transactions that publish all of their records and offsets or none, a record size limit
(records over it are refused, as ``message.max.bytes`` makes Kafka refuse them), pause and seek, revoked
partitions, and outages on demand. FastStream's ``TestKafkaBroker`` is the model: handlers and the runner
are exercised in memory here, and the same behaviour again against a real broker in the integration tier.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from consumers.runner import Incoming, Outgoing, RecordRejected, TransientError

__all__ = ["MemoryBroker", "MemoryTransport"]


@dataclass
class MemoryBroker:
    """Topics of ``partitions`` partitions each, committed offsets per group, faults on demand."""

    partitions: int = 1
    max_message_bytes: int = 1_048_588  # Kafka's default message.max.bytes
    down: bool = False
    fail_commits: int = 0
    logs: dict[str, list[list[Incoming]]] = field(default_factory=dict)
    committed: dict[tuple[str, str, int], int] = field(default_factory=dict)
    transactions: int = 0

    def topic(self, name: str) -> list[list[Incoming]]:
        """The partitions of ``name`` (created on first use)."""
        return self.logs.setdefault(name, [[] for _ in range(self.partitions)])

    def produce(
        self,
        topic: str,
        value: bytes,
        key: bytes | None = None,
        headers: tuple[tuple[str, bytes], ...] = (),
        partition: int | None = None,
    ) -> Incoming:
        """Append one record (outside any transaction: what an outside producer such as a store does)."""
        parts = self.topic(topic)
        p = partition if partition is not None else (zlib.crc32(key) % len(parts) if key else 0)
        rec = Incoming(topic, p, len(parts[p]), key, value, headers)
        parts[p].append(rec)
        return rec

    def records(self, topic: str) -> list[Incoming]:
        """Every committed record of ``topic``, partition by partition."""
        return [r for part in self.topic(topic) for r in part]

    def values(self, topic: str) -> list[bytes]:
        """The values of :meth:`records`."""
        return [r.value or b"" for r in self.records(topic)]


class MemoryTransport:
    """One consumer in ``group`` that owns every partition of ``topics`` (minus ``revoked``)."""

    def __init__(
        self,
        broker: MemoryBroker,
        topics: Sequence[str],
        group: str,
        *,
        revoked: set[int] | None = None,
        log: list[str] | None = None,
    ) -> None:
        """Attach to ``broker``; ``log`` receives one line per start, commit and stop."""
        self.broker = broker
        self.topics = list(topics)
        self.group = group
        self.revoked = revoked or set()
        self.log = log if log is not None else []
        self.paused: set[tuple[str, int]] = set()
        self.position: dict[tuple[str, int], int] = {}

    async def start(self) -> None:
        """Start each partition at the group's committed offset (fails while the broker is down)."""
        if self.broker.down:
            raise TransientError("broker unreachable")
        for t in self.topics:
            for p in range(len(self.broker.topic(t))):
                self.position[(t, p)] = self.broker.committed.get((self.group, t, p), 0)
        self.log.append("start")

    async def stop(self) -> None:
        """Nothing to close."""
        self.log.append("stop")

    async def poll(self, timeout_s: float, max_records: int) -> list[Incoming]:
        """Records from unpaused partitions at their positions (none while the broker is down)."""
        out: list[Incoming] = []
        if not self.broker.down:
            for (t, p), pos in self.position.items():
                if (t, p) in self.paused:
                    continue
                part = self.broker.topic(t)[p]
                take = part[pos : pos + max_records - len(out)]
                out.extend(take)
                self.position[(t, p)] = pos + len(take)
                if len(out) >= max_records:
                    break
        if not out:
            await asyncio.sleep(min(timeout_s, 0.001))
        return out

    def owns(self, msg: Incoming) -> bool:
        """Whether the partition is assigned here."""
        return msg.partition not in self.revoked

    def hold(self, msg: Incoming) -> None:
        """Pause the partition and rewind it to ``msg``."""
        self.paused.add((msg.topic, msg.partition))
        self.position[(msg.topic, msg.partition)] = msg.offset

    def release(self, topic: str, partition: int) -> None:
        """Resume a held partition."""
        self.paused.discard((topic, partition))

    async def lag(self) -> dict[tuple[str, int], int]:
        """Records of each owned partition after its position (fails while the broker is down)."""
        if self.broker.down:
            raise TransientError("broker unreachable")
        return {
            (t, p): len(self.broker.topic(t)[p]) - pos
            for (t, p), pos in self.position.items()
            if p not in self.revoked
        }

    async def committed(self, topic: str, partition: int) -> int | None:
        """The group's committed offset (fails while the broker is down)."""
        if self.broker.down:
            raise TransientError("broker unreachable")
        return self.broker.committed.get((self.group, topic, partition))

    async def commit(self, outgoing: Sequence[Outgoing], consumed: Sequence[Incoming]) -> None:
        """All records and offsets, or nothing."""
        if self.broker.down or self.broker.fail_commits:
            self.broker.fail_commits = max(0, self.broker.fail_commits - 1)
            raise TransientError("broker unreachable")
        for o in outgoing:
            if len(o.value) > self.broker.max_message_bytes:
                raise RecordRejected(
                    f"record of {len(o.value)} bytes to {o.topic} exceeds {self.broker.max_message_bytes}",
                    category="record_too_large",
                )
        for o in outgoing:
            self.broker.produce(o.topic, o.value, o.key, o.headers)
        for m in consumed:
            k = (self.group, m.topic, m.partition)
            self.broker.committed[k] = max(self.broker.committed.get(k, 0), m.offset + 1)
        self.broker.transactions += 1
        offsets = ",".join(f"{m.partition}:{m.offset}" for m in consumed)
        self.log.append(f"commit {offsets} ({len(outgoing)} out)")
