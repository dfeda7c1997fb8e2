"""Fixtures for tests against the real local stack (Kafka broker + S3 gateway) started by infra/stack.sh.

Each test gets its own buckets and topic prefix, so tests never see each other's documents; the landing
topic is the one the gateway publishes to (``LANDING_TOPIC`` in ``.tieout/stack.env``) and the parse
service ignores notifications for other buckets.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from confluent_kafka import Consumer, Message
from psycopg.conninfo import make_conninfo

from adapters.registry import unframe
from adapters.settings import Settings, read_env_file
from adapters.storage import ObjectStore
from schemas.events import parse_landing
from schemas.topology import Topic

REPO = Path(__file__).resolve().parents[2]
ENV_FILE = Path(os.environ.get("TIEOUT_ENV_FILE", REPO / ".tieout" / "stack.env"))
TIEOUT = REPO / ".venv" / "bin" / "tieout"
PG_ENV = Path(os.environ.get("TIEOUT_PG_ENV", REPO / ".tieout" / "pg.env"))
MODEL_ENV = Path(os.environ.get("TIEOUT_MODEL_ENV", REPO / ".tieout" / "model.env"))
REGISTRY_ENV = Path(os.environ.get("TIEOUT_REGISTRY_ENV", REPO / ".tieout" / "registry.env"))
LIVENESS_S = 240.0
"""The liveness bound of a wait for real work (a record, a rebalance, a restart): minutes, so that a loaded
2-core machine does not fail a healthy run, and under pytest-timeout's 300 s so that a failure shows the
services' logs. Never the claim of a test: how long things take is measured in bench/."""


def eventually(
    what: str, check: Callable[[], bool], *, timeout_s: float = LIVENESS_S, logs: Callable[[], str] = str
) -> float:
    """Poll ``check`` until it holds; the seconds it took. ``timeout_s`` is a liveness bound, not a claim.

    Raises:
        AssertionError: ``check`` did not hold within ``timeout_s`` (the message ends with ``logs()``).
    """
    t0 = time.monotonic()
    while not check():
        if time.monotonic() - t0 > timeout_s:
            raise AssertionError(f"liveness bound: not within {timeout_s:.0f}s: {what}\n{logs()[-4000:]}")
        time.sleep(0.5)
    return time.monotonic() - t0


def started(env_file: Path, key: str, what: str, up: str) -> dict[str, str]:
    """The env file a project script wrote for a running server; without ``key`` in it, a failure under CI
    (where the Makefile started everything) and a skip elsewhere."""
    env = read_env_file(env_file)
    if not env.get(key):
        msg = f"{what} not running ({env_file} has no {key}): run `{up}`"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return env


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    return started(PG_ENV, "PG_DSN", "local PostgreSQL", "bash infra/postgres.sh up")["PG_DSN"]


@pytest.fixture
def db_dsn(pg_dsn: str) -> Iterator[str]:
    """A fresh, empty database for this test; dropped (even with open sessions) afterwards."""
    name = f"it_{uuid.uuid4().hex}"
    with psycopg.connect(pg_dsn, autocommit=True, connect_timeout=10) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    try:
        yield make_conninfo(pg_dsn, dbname=name)
    finally:
        with psycopg.connect(pg_dsn, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())


@pytest.fixture(scope="session")
def registry_url() -> str:
    """The API root of the schema registry ``infra/registry.sh up`` started."""
    env = started(REGISTRY_ENV, "SCHEMA_REGISTRY_URL", "schema registry", "bash infra/registry.sh up")
    return env["SCHEMA_REGISTRY_URL"]


@pytest.fixture(scope="session")
def stack_env() -> dict[str, str]:
    return started(ENV_FILE, "KAFKA_BOOTSTRAP", "local stack", "bash infra/stack.sh up")


def stop_processes(procs: Iterable[subprocess.Popen[bytes]], *, timeout_s: float) -> None:
    """SIGTERM to every process at once, then each has ``timeout_s`` to exit before SIGKILL."""
    procs = list(procs)
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)


@dataclass
class Services:
    """tieout consume … processes with their logs; stopped with SIGTERM at the end of the test."""

    env: dict[str, str]
    log_dir: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start(self, stage: str, worker: str) -> subprocess.Popen[bytes]:
        name = f"{stage}-{worker}"
        log = (self.log_dir / f"{name}.log").open("ab")
        p = subprocess.Popen(
            [str(TIEOUT), "consume", stage, "--worker-id", worker],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        self.procs[name] = p
        return p

    def stop(self, stage: str, worker: str) -> None:
        """SIGTERM to one worker, which finishes its batch and leaves its group (SIGKILL after 30 s)."""
        stop_processes([self.procs.pop(f"{stage}-{worker}")], timeout_s=30)

    def kill(self, stage: str, worker: str) -> None:
        p = self.procs.pop(f"{stage}-{worker}")
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)

    def stop_all(self) -> None:
        stop_processes(self.procs.values(), timeout_s=30)
        self.procs.clear()

    def assignment(self, stage: str, worker: str) -> set[str]:
        """The partitions the worker was last assigned, from its log."""
        path = self.log_dir / f"{stage}-{worker}.log"
        latest: set[str] = set()
        if path.exists():
            for line in path.read_text(errors="replace").splitlines():
                if '"partitions assigned"' in line:
                    latest = set(json.loads(line).get("partitions", []))
        return latest

    def logs(self) -> str:
        return "\n".join(f.read_text(errors="replace") for f in sorted(self.log_dir.glob("*.log")))


@dataclass
class Isolated:
    """One test's slice of the stack."""

    settings: Settings
    env: dict[str, str]
    services: Services

    def topic(self, name: str) -> str:
        return self.settings.topic(name)

    def start_pipeline(self, registry_url: str | None = None) -> None:
        """The three services (parse, verify, sink), one worker each; framing for the registry if given."""
        if registry_url is not None:
            self.services.env["SCHEMA_REGISTRY_URL"] = registry_url
        for stage in ("parse", "verify", "sink"):
            self.services.start(stage, "w1")

    def read(
        self,
        topic: str,
        *,
        until: Callable[[list[dict[str, object]]], bool],
        timeout_s: float = LIVENESS_S,
        committed: bool = True,
    ) -> list[dict[str, object]]:
        """Read ``topic`` from the start with confluent-kafka until ``until(records)`` or the deadline.

        ``timeout_s`` is a liveness bound (minutes): a wait for real work, never a claim about its speed.
        """
        c = reader(self.settings, topic, committed=committed)
        out: list[dict[str, object]] = []
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is None:
                    if until(out):
                        return out
                    continue
                if m.error():
                    continue
                out.append(_record(m))
                if until(out):
                    # drain what is already there, so duplicates would show
                    end = time.monotonic() + 2.0
                    while time.monotonic() < end:
                        m = c.poll(0.2)
                        if m is not None and not m.error():
                            out.append(_record(m))
                    return out
        finally:
            c.close()
        raise AssertionError(
            f"liveness bound: {timeout_s:.0f}s reading {topic}: got {len(out)} records\n{self.diagnosis()}"
        )

    def diagnosis(self) -> str:
        """What a stuck wait needs to be told apart: a notification the gateway never delivered, a service
        that stopped, a worker that is stuck. Each service's log tail, and the gateway's errors."""
        landed: list[str] = []
        with contextlib.suppress(Exception):
            c = reader(self.settings, self.settings.topic(Topic.LANDING), committed=False)
            try:
                until = time.monotonic() + 60.0  # other tests' uploads may keep the topic busy
                while time.monotonic() < until and (m := c.poll(2.0)) is not None:
                    if not m.error():
                        refs = parse_landing(m.value() or b"")
                        landed += [r.key for r in refs if r.bucket == self.settings.landing_bucket]
            finally:
                c.close()
        parts = [f"notifications for {self.settings.landing_bucket}: {len(landed)} {sorted(landed)[:20]}"]
        for name, p in sorted(self.services.procs.items()):
            parts.append(f"{name}: {'running' if p.poll() is None else f'exited {p.returncode}'}")
        for log in sorted(self.services.log_dir.glob("*.log")):
            parts.append(f"--- {log.name} (tail)\n{log.read_text(errors='replace')[-2500:]}")
        gateway = Path(self.env.get("TIEOUT_STATE", REPO / ".tieout")) / "logs" / "versitygw.log"
        if gateway.exists():
            parts.append(f"--- {gateway} (tail)\n{gateway.read_text(errors='replace')[-1500:]}")
        return "\n".join(parts)


def reader(settings: Settings, topic: str, *, committed: bool = True) -> Consumer:
    """A confluent-kafka consumer of ``topic`` from its start in a group of its own (the caller closes it)."""
    c = Consumer(
        {
            "bootstrap.servers": settings.kafka_bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed" if committed else "read_uncommitted",
        }
    )
    c.subscribe([topic])
    return c


def _record(m: Message) -> dict[str, object]:
    """A consumed message as its JSON value plus ``_key``, ``_headers`` and ``_partition``."""
    value = m.value()
    key = m.key()
    # Framed (registry wire format) when the services run with SCHEMA_REGISTRY_URL, else plain JSON.
    rec: dict[str, object] = json.loads(unframe(value).payload if isinstance(value, bytes) else b"null")
    rec["_key"] = key.decode() if isinstance(key, bytes) else key
    headers: dict[str, str] = {}
    for item in m.headers() or []:
        k, v = item[0], item[1]
        headers[str(k)] = v.decode() if isinstance(v, bytes) else str(v)
    rec["_headers"] = headers
    rec["_partition"] = m.partition()
    return rec


@pytest.fixture
def isolated(stack_env: dict[str, str], tmp_path: Path) -> Iterator[Isolated]:
    tag = uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        **stack_env,
        "TOPIC_PREFIX": f"it{tag}.",
        "LANDING_TOPIC": stack_env.get("LANDING_TOPIC", "tieout.landing"),
        "LANDING_BUCKET": f"it-{tag}-landing",
        "ARTIFACT_BUCKET": f"it-{tag}-artifacts",
        "TIEOUT_ENV_FILE": str(tmp_path / "none.env"),
        "TIEOUT_LOG_LEVEL": "INFO",
    }
    # This test's settings, read from `env` as the services read theirs. Only for the reading: the test
    # process keeps its own environment, which the infra scripts it runs (stack.sh stop/up) inherit.
    with pytest.MonkeyPatch.context() as reading:
        for name, value in env.items():
            reading.setenv(name, value)
        settings = Settings.load(tmp_path / "none.env")
    store = ObjectStore(settings)
    store.ensure_bucket(settings.landing_bucket)
    store.ensure_bucket(settings.artifact_bucket)
    services = Services(env, tmp_path)
    try:
        yield Isolated(settings, env, services)
    finally:
        services.stop_all()
        _drop_buckets(store, [settings.landing_bucket, settings.artifact_bucket])


def _drop_buckets(store: ObjectStore, buckets: list[str]) -> None:
    """Delete a test's buckets, so that repeated runs do not fill the gateway's disk (best effort)."""
    for bucket in buckets:
        with contextlib.suppress(Exception):
            for obj in list(store.list_objects(bucket)):
                store.delete(bucket, obj.key)
            store.client.delete_bucket(Bucket=bucket)
