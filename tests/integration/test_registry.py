"""Data contracts in the real schema registry (Apicurio, ``infra/registry.sh``) beside the real stack.

* A topic's schema is registered under ``<topic>-value`` with compatibility BACKWARD, idempotently; the
  registry refuses a backward-incompatible new version (a required field without default, a field's type
  changed) and accepts a compatible one (an optional field).
* With ``SCHEMA_REGISTRY_URL`` set, the three services publish in the registry's wire format, and a data
  team's consumer — confluent-kafka's ``JSONDeserializer`` with a ``SchemaRegistryClient`` — reads every
  topic they publish to, the dead-letter topic included.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

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
from adapters.settings import Settings
from adapters.storage import ObjectStore
from tests.integration.conftest import REPO, TIEOUT, Isolated, reader, started

pytestmark = pytest.mark.integration

REGISTRY_ENV = Path(os.environ.get("TIEOUT_REGISTRY_ENV", REPO / ".tieout" / "registry.env"))
SAMPLES = sorted((REPO / "sample_docs").glob("*.pdf"))


@pytest.fixture(scope="session")
def registry_url() -> str:
    env = started(REGISTRY_ENV, "SCHEMA_REGISTRY_URL", "schema registry", "bash infra/registry.sh up")
    return env["SCHEMA_REGISTRY_URL"]


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
    it: Isolated, topic: str, deserialize: JSONDeserializer, *, until: Any, timeout_s: float = 180.0
) -> list[dict[str, Any]]:
    """``topic`` from the start as a data team reads it: each value through ``JSONDeserializer``."""
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
            value = deserialize(raw, ctx)  # validates against the writer schema the id names
            assert isinstance(value, dict), f"{topic}: {value!r}"
            assert value == json.loads(raw[HEADER_BYTES:])
            out.append({"_schema_id": unframe(raw).schema_id, **value})
    finally:
        c.close()
    if not until(out):
        raise AssertionError(f"timed out reading {topic}: {len(out)} records\n{it.services.logs()[-4000:]}")
    return out


def test_a_registry_aware_consumer_reads_every_topic_the_services_publish(
    isolated: Isolated, registry_url: str, tmp_path: Path
) -> None:
    it = isolated
    it.services.env["SCHEMA_REGISTRY_URL"] = registry_url
    for stage in ("parse", "verify", "sink"):
        it.services.start(stage, "w1")
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
        raise AssertionError(f"timed out reading {topic}: {len(out)} records\n{it.services.logs()[-4000:]}")
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
