"""Data contracts in the real schema registry (Apicurio, ``infra/registry.sh``) beside the real stack.

* A topic's schema is registered under ``<topic>-value`` with compatibility BACKWARD, idempotently; the
  registry refuses a backward-incompatible new version (a required field without default, a field's type
  changed) and accepts a compatible one (an optional field).
* With ``SCHEMA_REGISTRY_URL`` set, the three services publish in the registry's wire format, and a data
  team's consumer — confluent-kafka's ``JSONDeserializer`` with a ``SchemaRegistryClient`` — reads every
  topic they publish to, the dead-letter topic included.
* Registration is race-free: clients, and three services, registering the same schemas at once on subjects
  the registry has never seen all succeed with the same ids.
* The registry in ``/readyz``: false while it is down, true again when it answers. Its storage persists, so
  after a restart every record published before stays readable; a registry that lost its data is filled
  again by the running services, whose records then carry the ids valid there (``faults``: these restart
  the registry).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

from adapters.registry import (
    HEADER_BYTES,
    IncompatibleSchema,
    SchemaRegistry,
    register_topics,
    subject,
    topic_schemas,
    unframe,
)
from adapters.settings import Settings, read_env_file
from adapters.storage import ObjectStore
from tests.integration.conftest import REGISTRY_ENV, REPO, TIEOUT, Isolated, reader

pytestmark = pytest.mark.integration

REGISTRY_SH = ["bash", str(REPO / "infra" / "registry.sh")]
SAMPLES = sorted((REPO / "sample_docs").glob("*.pdf"))
STAGES = ("parse", "verify", "sink")


def _facts_schema(prefix: str) -> tuple[str, str]:
    topic = f"{prefix}facts"
    return topic, topic_schemas(Settings(topic_prefix=prefix).topic)[topic]


def _changed(schema: str, change: Any) -> str:
    s = json.loads(schema)
    change(s)
    return json.dumps(s, indent=2, sort_keys=True)


def _required_field_without_default(s: dict[str, Any]) -> None:
    s["properties"]["audited_by"] = {"type": "string"}
    s["required"].append("audited_by")


def _metric_becomes_a_number(s: dict[str, Any]) -> None:
    assert s["properties"]["metric"]["type"] == "string"
    s["properties"]["metric"]["type"] = "integer"


def _optional_field(s: dict[str, Any]) -> None:
    s["properties"]["note"] = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}


def test_the_registry_refuses_incompatible_versions_and_accepts_compatible_ones(registry_url: str) -> None:
    topic, schema = _facts_schema(f"it{uuid.uuid4().hex[:8]}.")
    name = subject(topic)

    async def go() -> None:
        async with SchemaRegistry(registry_url) as reg:
            ids = await register_topics(reg, {topic: schema})
            assert await register_topics(reg, {topic: schema}) == ids  # idempotent: same schema, same id
            assert await reg.compatibility(name) == "BACKWARD"
            for breaking in (_required_field_without_default, _metric_becomes_a_number):
                candidate = _changed(schema, breaking)
                assert not await reg.compatible(name, candidate), breaking.__name__
                with pytest.raises(IncompatibleSchema) as refused:
                    await reg.register(name, candidate)
                assert refused.value.status == 409, breaking.__name__
                assert await reg.lookup(name, candidate) is None  # nothing was registered
            compatible = _changed(schema, _optional_field)
            assert await reg.compatible(name, compatible)
            new_id = await reg.register(name, compatible)
            assert new_id != ids[topic]
            assert await reg.lookup(name, schema) == ids[topic]  # the first version is still there

    asyncio.run(asyncio.wait_for(go(), 60))


def test_schemas_register_command_is_idempotent(registry_url: str, tmp_path: Path) -> None:
    prefix = f"it{uuid.uuid4().hex[:8]}."
    env = {
        **os.environ,
        "TOPIC_PREFIX": prefix,
        "TIEOUT_ENV_FILE": str(tmp_path / "none.env"),
        "COLUMNS": "200",  # the table's subjects unabridged
    }
    runs = [
        subprocess.run(
            [str(TIEOUT), "schemas", "register", "--registry", registry_url],
            env=env, capture_output=True, text=True, timeout=120, check=True, cwd=REPO,
        ).stdout
        for _ in range(2)
    ]  # fmt: skip
    assert runs[0] == runs[1]
    client = SchemaRegistryClient({"url": registry_url, "timeout": 10})
    subjects = set(client.get_subjects())
    expected = {subject(t) for t in topic_schemas(Settings(topic_prefix=prefix).topic)}
    assert expected <= subjects
    assert f"{prefix}landing-value" not in subjects  # the object store's topic stays plain JSON
    for s in expected:
        assert s in runs[0]
        assert client.get_compatibility(s) == "BACKWARD"


def _read_framed(
    it: Isolated,
    topic: str,
    deserialize: JSONDeserializer,
    *,
    until: Any,
    timeout_s: float = 180.0,
    skip: frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """``topic`` from the start as a data team reads it: each value through ``JSONDeserializer``.

    Records of the documents in ``skip`` (by ``doc_id``) are passed over unread.
    """
    c = reader(it.settings, topic)
    ctx = SerializationContext(topic, MessageField.VALUE)
    out: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and not until(out):
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            raw = m.value()
            assert isinstance(raw, bytes) and raw[:1] == b"\x00", f"{topic}: not in the wire format: {raw!r}"
            if json.loads(raw[HEADER_BYTES:]).get("doc_id") in skip:
                continue
            value = deserialize(raw, ctx)  # validates against the writer schema the id names
            assert isinstance(value, dict), f"{topic}: {value!r}"
            assert value == json.loads(raw[HEADER_BYTES:])
            out.append({"_schema_id": unframe(raw).schema_id, **value})
    finally:
        c.close()
    if not until(out):
        raise AssertionError(f"timed out reading {topic}: {len(out)} records\n{it.diagnosis()}")
    return out


def test_a_registry_aware_consumer_reads_every_topic_the_services_publish(
    isolated: Isolated, registry_url: str, tmp_path: Path
) -> None:
    it = isolated
    it.start_pipeline(registry_url)
    store = ObjectStore(it.settings)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nthis is not a PDF body\n")  # dead-lettered by the parse service
    docs = [p for p in SAMPLES if p.name.startswith(("halvorsen", "kaizen"))]  # samples with flags
    assert len(docs) == 2, "sample_docs changed: pick two samples that give flags"
    for f in [*docs, broken]:
        store.client.upload_file(str(f), it.settings.landing_bucket, f"reg/{f.name}")

    client = SchemaRegistryClient({"url": registry_url, "timeout": 10})
    deserialize = JSONDeserializer(None, schema_registry_client=client)

    def read(name: str, until: Any) -> list[dict[str, Any]]:
        return _read_framed(it, it.topic(name), deserialize, until=until)

    verified = read("verified", lambda r: len({v["doc_id"] for v in r}) >= len(docs))
    n_facts = sum(int(v["facts"]) for v in verified)
    n_flags = sum(int(v["flags"]) for v in verified)
    assert n_facts > 0 and n_flags > 0, "the samples should give facts and flags"
    got = {
        "verified": verified,
        "parsed": read("parsed", lambda r: len({v["doc_id"] for v in r}) >= len(docs)),
        "facts": read("facts", lambda r: len(r) >= n_facts),
        "flags": read("flags", lambda r: len(r) >= n_flags),
        "summaries": read("summaries", lambda r: len({v["doc_id"] for v in r}) >= len(docs)),
        "rewards": read("rewards", lambda r: len(r) >= 1),
        "dlq": read("dlq", lambda r: len(r) >= 1),
    }
    assert len(got["facts"]) == n_facts and len(got["flags"]) == n_flags  # each once (read_committed)
    assert got["dlq"][0]["category"] == "corrupt" and got["dlq"][0]["stage"] == "parse"
    assert str(got["dlq"][0]["source"]).endswith("broken.pdf")
    # Every record carries the id of its topic's registered schema.
    for name, records in got.items():
        latest = client.get_latest_version(subject(it.topic(name)))
        assert {r["_schema_id"] for r in records} == {latest.schema_id}, name


def test_a_rolling_upgrade_mixes_framed_and_plain_records_without_loss(
    isolated: Isolated, registry_url: str
) -> None:
    # Half-way through an upgrade: parse still publishes plain JSON, verify already frames, and sink has not
    # been configured yet. Each reads what the one before wrote; nothing is dead-lettered.
    it = isolated
    it.services.start("parse", "w1")
    it.services.env["SCHEMA_REGISTRY_URL"] = registry_url
    it.services.start("verify", "w1")
    it.services.env.pop("SCHEMA_REGISTRY_URL")
    it.services.start("sink", "w1")
    doc = next(p for p in SAMPLES if p.name.startswith("halvorsen"))
    ObjectStore(it.settings).client.upload_file(str(doc), it.settings.landing_bucket, f"mixed/{doc.name}")

    raw = {name: _raw(it, it.topic(name), 1) for name in ("parsed", "verified", "summaries")}
    assert raw["parsed"][0][:1] == b"{"  # plain JSON from the parse service without a registry
    assert unframe(raw["verified"][0]).schema_id is not None  # framed by the verify service
    assert raw["summaries"][0][:1] == b"{"  # the sink read the framed record and wrote plain JSON
    summary = json.loads(raw["summaries"][0])
    assert summary["source"] == f"mixed/{doc.name}" and summary["facts"] > 0
    assert _raw(it, it.topic("dlq"), 0, timeout_s=3) == []


def _raw(it: Isolated, topic: str, n: int, *, timeout_s: float = 180.0) -> list[bytes]:
    """At least ``n`` committed values of ``topic`` as bytes (all there are within ``timeout_s`` if n=0)."""
    c = reader(it.settings, topic)
    out: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and (n == 0 or len(out) < n):
            m = c.poll(0.5)
            value = m.value() if m is not None and not m.error() else None
            if isinstance(value, bytes):
                out.append(value)
    finally:
        c.close()
    if len(out) < n:
        raise AssertionError(f"timed out reading {topic}: {len(out)} records\n{it.diagnosis()}")
    return out


def test_a_service_whose_schema_breaks_the_contract_refuses_to_start(
    isolated: Isolated, registry_url: str
) -> None:
    it = isolated
    topic, schema = _facts_schema(it.settings.topic_prefix)

    async def older_contract() -> None:
        # An earlier version in which `metric` was a number: this version's string breaks BACKWARD.
        async with SchemaRegistry(registry_url) as reg:
            await register_topics(reg, {topic: _changed(schema, _metric_becomes_a_number)})

    asyncio.run(asyncio.wait_for(older_contract(), 60))
    it.services.env["SCHEMA_REGISTRY_URL"] = registry_url
    sink = it.services.start("sink", "w1")
    try:
        rc = sink.wait(timeout=120)
    except subprocess.TimeoutExpired:
        logs = it.services.logs()[-3000:]
        pytest.fail(f"the sink service kept running with an incompatible schema\n{logs}")
    assert rc != 0
    logs = it.services.logs()
    assert "IncompatibleSchema" in logs and subject(topic) in logs


# --------------------------------------------------------------------------- races, restarts, readiness
def test_clients_registering_at_once_on_new_subjects_all_get_the_same_ids(registry_url: str) -> None:
    # Each round: three clients register every topic of a prefix the registry has never seen, at once, so
    # each finds no level, sets one and registers (Apicurio checks, then inserts, for rules and content).
    async def one(schemas: dict[str, str]) -> dict[str, int]:
        async with SchemaRegistry(registry_url) as reg:
            return await register_topics(reg, schemas)

    async def rounds() -> list[list[dict[str, int]]]:
        out = []
        for _ in range(5):
            schemas = topic_schemas(Settings(topic_prefix=f"it{uuid.uuid4().hex[:8]}.").topic)
            out.append(list(await asyncio.gather(one(schemas), one(schemas), one(schemas))))
        return out

    for results in asyncio.run(asyncio.wait_for(rounds(), 240)):
        assert results[0] == results[1] == results[2]
        client = SchemaRegistryClient({"url": registry_url, "timeout": 10})
        for topic, schema_id in results[0].items():
            assert client.get_compatibility(subject(topic)) == "BACKWARD"
            assert client.get_latest_version(subject(topic)).schema_id == schema_id


def _endpoint(it: Isolated, stage: str) -> str | None:
    """Where the service's HTTP endpoint listens, from its log (None until it has logged it)."""
    path = it.services.log_dir / f"{stage}-w1.log"
    for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
        if '"metrics endpoint"' in line:
            return str(json.loads(line)["url"])
    return None


def _readiness(it: Isolated, stage: str) -> dict[str, Any]:
    """The service's ``/readyz`` answer (200 or 503 alike); empty while it has no endpoint yet."""
    url = _endpoint(it, stage)
    if url is None:
        return {}
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=5) as r:
            return dict(json.load(r))
    except urllib.error.HTTPError as exc:  # 503: not ready, same body
        return dict(json.load(exc))
    except OSError:
        return {}


def _registry_ready(it: Isolated, stages: tuple[str, ...] = STAGES) -> Callable[[], dict[str, Any]]:
    return lambda: {s: _readiness(it, s).get("checks", {}).get("registry") for s in stages}


def _eventually(
    it: Isolated, what: str, check: Callable[[], Any], ok: Callable[[Any], bool], bound_s: float = 120.0
) -> Any:
    """Poll ``check`` until ``ok`` holds of its answer; ``bound_s`` is a liveness bound, not a timing."""
    deadline = time.monotonic() + bound_s
    while True:
        seen = check()
        if ok(seen):
            return seen
        for stage in STAGES:
            p = it.services.procs.get(f"{stage}-w1")
            if p is not None and p.poll() is not None:
                pytest.fail(
                    f"the {stage} service exited ({p.returncode}) while {what}\n{it.services.logs()[-4000:]}"
                )
        if time.monotonic() > deadline:
            raise AssertionError(
                f"liveness bound: not {what} within {bound_s:.0f} s; last seen {seen}\n"
                f"{it.services.logs()[-4000:]}"
            )
        time.sleep(0.5)


def test_three_services_started_at_once_on_an_empty_registry_all_come_up(
    isolated: Isolated, registry_url: str
) -> None:
    # The test's topic prefix is new to the registry: its subjects are empty, and all three services
    # register all of them at the same moment.
    it = isolated
    it.start_pipeline(registry_url)
    reports = _eventually(
        it,
        "every service is ready",
        lambda: {s: _readiness(it, s) for s in STAGES},
        lambda r: all(report.get("ready") for report in r.values()),
    )
    assert all(report["checks"]["registry"] for report in reports.values()), reports
    client = SchemaRegistryClient({"url": registry_url, "timeout": 10})
    schemas = topic_schemas(it.settings.topic)
    for topic in schemas:
        assert client.get_compatibility(subject(topic)) == "BACKWARD"
    logs = it.services.logs()
    assert "IncompatibleSchema" not in logs and "RegistryConflict" not in logs
    assert logs.count('"topic schemas registered"') == len(STAGES)


def _registry_sh(command: str, state: Path, port: int) -> None:
    """``infra/registry.sh <command>`` for the registry whose state is ``state``, on the same port."""
    env = {**os.environ, "TIEOUT_STATE": str(state), "REGISTRY_PORT": str(port)}
    out = subprocess.run(
        [*REGISTRY_SH, command], env=env, capture_output=True, text=True, timeout=300, cwd=REPO
    )
    assert out.returncode == 0, f"registry.sh {command}: {out.stdout[-2000:]}\n{out.stderr[-2000:]}"


def _every_record(
    it: Isolated, url: str, docs: int, skip: frozenset[str] = frozenset()
) -> dict[str, list[dict[str, Any]]]:
    """Every record of the document topics (those of the documents in ``skip`` aside), each through a new
    ``JSONDeserializer`` and registry client: no cache from an earlier read, every schema id is looked up
    in the registry as it is now."""
    client = SchemaRegistryClient({"url": url, "timeout": 10})
    deserialize = JSONDeserializer(None, schema_registry_client=client)

    def read(name: str, until: Any) -> list[dict[str, Any]]:
        return _read_framed(it, it.topic(name), deserialize, until=until, skip=skip)

    verified = read("verified", lambda r: len({v["doc_id"] for v in r}) >= docs)
    n_facts = sum(int(v["facts"]) for v in verified)
    got = {
        "verified": verified,
        "parsed": read("parsed", lambda r: len({v["doc_id"] for v in r}) >= docs),
        "facts": read("facts", lambda r: len(r) >= n_facts),
        "summaries": read("summaries", lambda r: len({v["doc_id"] for v in r}) >= docs),
    }
    for name, records in got.items():  # framed with the id the registry now has for the schema
        assert {r["_schema_id"] for r in records} == {
            client.get_latest_version(subject(it.topic(name))).schema_id
        }
    return got


def _sample(prefix: str) -> Path:
    return next(p for p in SAMPLES if p.name.startswith(prefix))


def _upload(it: Isolated, prefix: str) -> None:
    doc = _sample(prefix)
    ObjectStore(it.settings).client.upload_file(str(doc), it.settings.landing_bucket, f"restart/{doc.name}")


@pytest.mark.faults
def test_after_a_registry_restart_a_deserializer_reads_every_record_again(
    isolated: Isolated, registry_url: str
) -> None:
    it = isolated
    it.start_pipeline(registry_url)
    _upload(it, "halvorsen")
    before = _every_record(it, registry_url, docs=1)
    state, port = REGISTRY_ENV.parent, int(urlsplit(registry_url).port or 0)
    _registry_sh("down", state, port)
    try:
        _eventually(it, "the registry out of readiness", _registry_ready(it), lambda r: not any(r.values()))
    finally:
        _registry_sh("up", state, port)
    # "within a minute" of the registry answering again: a liveness bound.
    after = _eventually(
        it, "every record readable again", lambda: _every_record(it, registry_url, docs=1), bool, 60.0
    )
    assert after == before  # the same records under the same ids: the registry kept them
    _eventually(it, "every service is ready again", _registry_ready(it), lambda r: all(r.values()))
    _upload(it, "kaizen")  # and the services go on publishing records it can read
    later = _every_record(it, registry_url, docs=2)
    assert {r["_schema_id"] for r in later["facts"]} == {r["_schema_id"] for r in before["facts"]}


@pytest.fixture
def own_registry(tmp_path: Path, registry_url: str) -> Iterator[tuple[str, Path, int]]:
    """A registry of this test's own (its own state and data), whose data it may delete."""
    del registry_url  # the shared one's fixture: skip or fail as it does when no registry can run
    state = tmp_path / "registry-state"
    env = {**os.environ, "TIEOUT_STATE": str(state)}
    out = subprocess.run([*REGISTRY_SH, "up"], env=env, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr[-2000:]
    try:
        url = read_env_file(state / "registry.env")["SCHEMA_REGISTRY_URL"]
        yield url, state, int(urlsplit(url).port or 0)
    finally:
        subprocess.run([*REGISTRY_SH, "down"], env=env, capture_output=True, timeout=120, cwd=REPO)


@pytest.mark.faults
def test_a_registry_that_lost_its_data_is_filled_again_by_the_running_services(
    isolated: Isolated, own_registry: tuple[str, Path, int]
) -> None:
    it = isolated
    url, state, port = own_registry
    it.start_pipeline(url)
    _upload(it, "halvorsen")
    lost = frozenset(v["doc_id"] for v in _every_record(it, url, docs=1)["verified"])
    _registry_sh("reset", state, port)  # down, and every subject, rule and id deleted
    _eventually(it, "the registry out of readiness", _registry_ready(it), lambda r: not any(r.values()))
    _registry_sh("up", state, port)
    client = SchemaRegistryClient({"url": url, "timeout": 10})
    expected = {subject(t) for t in topic_schemas(it.settings.topic)}
    _eventually(it, "the subjects registered again", lambda: set(client.get_subjects()), expected.__le__)
    _eventually(it, "every service is ready again", _registry_ready(it), lambda r: all(r.values()))
    for name in expected:
        assert client.get_compatibility(name) == "BACKWARD"
    _upload(it, "kaizen")
    # The records published from now on carry ids valid here (those before name ids the registry lost).
    records = _every_record(it, url, docs=1, skip=lost)
    assert [str(v["source"]) for v in records["summaries"]] == ["restart/" + _sample("kaizen").name]
