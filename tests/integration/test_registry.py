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
from confluent_kafka import Consumer
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
from tests.integration.conftest import REPO, TIEOUT, Isolated, started

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
    c = Consumer(
        {
            "bootstrap.servers": it.settings.kafka_bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    c.subscribe([topic])
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
