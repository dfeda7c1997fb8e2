"""The schema registry's wire format and client logic, without servers.

The framing is checked against confluent-kafka's own serializer and deserializer (with its in-process
registry client), which is what data teams read the topics with; the client's error mapping against
answers made up per request (``httpx2.MockTransport``). What a real registry accepts or refuses is in
``tests/integration/test_registry.py``.
"""

from __future__ import annotations

import asyncio
import json
import struct
from types import SimpleNamespace

import httpx2
import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import MockSchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from adapters.registry import (
    HEADER_BYTES,
    UNFRAMED_TOPICS,
    FramingError,
    IncompatibleSchema,
    RegistryError,
    RegistryUnavailable,
    SchemaRegistry,
    TopicEncoder,
    frame,
    register_topics,
    subject,
    topic_schemas,
    unframe,
)
from adapters.settings import Settings
from consumers.kafka import incoming, wire_value
from consumers.runner import CLAIM_HEADER, Outgoing
from schemas.events import TOPICS
from schemas.export import TOPIC_DIR

FACT_LIKE = json.dumps(
    {"type": "object", "properties": {"metric": {"type": "string"}}, "required": ["metric"]}
)


# ------------------------------------------------------------------------------------------- framing
def test_frame_is_magic_byte_then_big_endian_id_then_payload() -> None:
    framed = frame(258, b'{"a":1}')
    assert framed[:1] == b"\x00"
    assert framed[1:5] == b"\x00\x00\x01\x02"  # 258, big-endian
    assert framed[5:] == b'{"a":1}'
    assert HEADER_BYTES == 5


@pytest.mark.parametrize("schema_id", [0, 1, 2**31, 2**32 - 1])
def test_unframe_inverts_frame(schema_id: int) -> None:
    assert unframe(frame(schema_id, b"{}")) == (schema_id, b"{}")


@pytest.mark.parametrize("schema_id", [-1, 2**32])
def test_ids_outside_four_bytes_are_refused(schema_id: int) -> None:
    with pytest.raises(ValueError, match="out of range"):
        frame(schema_id, b"{}")


@pytest.mark.parametrize("plain", [b'{"a": 1}', b" {}", b"[]", b"", b"\n{}"])
def test_plain_json_passes_unframed(plain: bytes) -> None:
    assert unframe(plain) == (None, plain)


@pytest.mark.parametrize("short", [b"\x00", b"\x00\x00\x00\x01"])
def test_a_truncated_frame_is_an_error(short: bytes) -> None:
    with pytest.raises(FramingError):
        unframe(short)


def test_confluent_deserializer_reads_what_we_frame_and_we_read_what_its_serializer_writes() -> None:
    client = MockSchemaRegistryClient({"url": "mock://tieout"})
    schema_id = client.register_schema("t.facts-value", Schema(FACT_LIKE, "JSON"))
    ctx = SerializationContext("t.facts", MessageField.VALUE)
    payload = json.dumps({"metric": "revenue"}).encode()

    ours = frame(schema_id, payload)
    assert JSONDeserializer(None, schema_registry_client=client)(ours, ctx) == {"metric": "revenue"}

    theirs = JSONSerializer(FACT_LIKE, client)({"metric": "revenue"}, ctx)
    assert theirs is not None
    assert unframe(theirs).schema_id == schema_id
    assert json.loads(unframe(theirs).payload) == {"metric": "revenue"}


def test_confluent_deserializer_refuses_a_record_that_breaks_the_writer_schema() -> None:
    # What our framing promises a reader: the payload is checked against the schema its id names.
    from confluent_kafka.serialization import SerializationError

    client = MockSchemaRegistryClient({"url": "mock://tieout"})
    schema_id = client.register_schema("t.facts-value", Schema(FACT_LIKE, "JSON"))
    ctx = SerializationContext("t.facts", MessageField.VALUE)
    with pytest.raises(SerializationError):
        JSONDeserializer(None, schema_registry_client=client)(frame(schema_id, b'{"metric": 3}'), ctx)


# ------------------------------------------------------------------------------------ topic encoder
def test_encoder_frames_known_topics_and_passes_others() -> None:
    enc = TopicEncoder({"t.facts": 7})
    assert enc.encode("t.facts", b"{}") == b"\x00\x00\x00\x00\x07{}"
    assert enc.encode("t.landing", b"{}") == b"{}"


def test_claim_checks_stay_plain_json_with_their_header() -> None:
    enc = TopicEncoder({"t.facts": 7})
    record = Outgoing("t.facts", b"k", b'{"fact_id": "x"}')
    check = Outgoing("t.facts", b"k", b'{"claim_check": "s3://b/k"}', ((CLAIM_HEADER, b"s3://b/k"),))
    assert wire_value(record, enc) == frame(7, record.value)
    assert wire_value(check, enc) == check.value
    assert wire_value(record, None) == record.value  # no registry: plain JSON exactly as before


def _record(value: bytes | None) -> SimpleNamespace:
    return SimpleNamespace(topic="t.parsed", partition=1, offset=5, key=b"d", value=value, headers=[])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (frame(3, b'{"doc_id": "d"}'), b'{"doc_id": "d"}'),  # a service with the registry configured
        (b'{"doc_id": "d"}', b'{"doc_id": "d"}'),  # one without (rolling upgrade), or older records
        (b"\x00\x01", b"\x00\x01"),  # truncated: left for the handler's schema check to dead-letter
        (None, None),  # a tombstone
    ],
)
def test_consumed_records_are_unframed_whichever_way_they_were_written(
    value: bytes | None, expected: bytes | None
) -> None:
    assert incoming(_record(value)).value == expected


# ---------------------------------------------------------------------------------- topic schemas
def test_every_topic_but_landing_is_registered_with_its_checked_in_schema() -> None:
    settings = Settings(topic_prefix="x.")
    schemas = topic_schemas(settings.topic)
    assert set(schemas) == {f"x.{t}" for t in TOPICS if t not in UNFRAMED_TOPICS}
    assert "x.landing" not in schemas  # the object store writes it, plain
    for name in TOPICS:
        if name in UNFRAMED_TOPICS:
            continue
        # Byte for byte the file, so re-registering yields the same id.
        assert schemas[f"x.{name}"] == (TOPIC_DIR / f"{name}.schema.json").read_text(encoding="utf-8")
    assert subject("x.facts") == "x.facts-value"


# -------------------------------------------------------------------------------------------- client
def _registry(handler: httpx2.MockTransport) -> SchemaRegistry:
    return SchemaRegistry("http://registry.test/apis/ccompat/v7/", transport=handler)


def test_register_sets_backward_only_on_subjects_without_a_level_and_returns_ids() -> None:
    calls: list[tuple[str, str, object]] = []
    levels = {"t.flags-value": "FULL"}  # set on purpose by someone: left alone

    def answer(req: httpx2.Request) -> httpx2.Response:
        path = req.url.path.removeprefix("/apis/ccompat/v7")
        body = json.loads(req.content) if req.content else None
        calls.append((req.method, path, body))
        assert req.headers["content-type"] == "application/vnd.schemaregistry.v1+json"
        if path.startswith("/config/") and req.method == "GET":
            level = levels.get(path.removeprefix("/config/"))
            if level is None:
                return httpx2.Response(404, json={"error_code": 40408, "message": "no config"})
            return httpx2.Response(200, json={"compatibilityLevel": level})
        if path.startswith("/config/") and req.method == "PUT":
            return httpx2.Response(200, json=body)
        if path.endswith("/versions"):
            assert body is not None and body["schemaType"] == "JSON"
            return httpx2.Response(200, json={"id": 10 + len(path)})
        return httpx2.Response(500)

    async def go() -> dict[str, int]:
        async with _registry(httpx2.MockTransport(answer)) as reg:
            return await register_topics(reg, {"t.facts": "{}", "t.flags": "{}"})

    ids = asyncio.run(go())
    assert ids == {"t.facts": 10 + len("/subjects/t.facts-value/versions"),
                   "t.flags": 10 + len("/subjects/t.flags-value/versions")}  # fmt: skip
    puts = [(path, body) for method, path, body in calls if method == "PUT"]
    assert puts == [("/config/t.facts-value", {"compatibility": "BACKWARD"})]


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx2.Response(409, json={"error_code": 409, "message": "Incompatible"}), IncompatibleSchema),
        (httpx2.Response(503, text="starting"), RegistryUnavailable),
        (httpx2.Response(422, json={"error_code": 42201, "message": "Invalid schema"}), RegistryError),
        (httpx2.Response(200, text="<html>not the API</html>"), RegistryError),
    ],
)
def test_refusals_map_to_errors_that_say_what_to_do(
    response: httpx2.Response, error: type[RegistryError]
) -> None:
    async def go() -> int:
        async with _registry(httpx2.MockTransport(lambda _req: response)) as reg:
            return await reg.register("t.facts-value", "{}")

    with pytest.raises(error) as caught:
        asyncio.run(go())
    assert caught.value.status == response.status_code
    if error is IncompatibleSchema:
        assert caught.value.error_code == 409 and "Incompatible" in str(caught.value)


def test_a_409_from_a_concurrent_registration_of_the_same_schema_is_not_an_incompatibility() -> None:
    # Three services start at once and register the same schemas; Apicurio answers the loser of the race
    # with 409 ("artifact already exists"), which the next look-up shows was the same schema.
    posts: list[str] = []

    def answer(req: httpx2.Request) -> httpx2.Response:
        path = req.url.path.removeprefix("/apis/ccompat/v7")
        if path.endswith("/versions"):
            posts.append(path)
            return httpx2.Response(409, json={"error_code": 0, "message": "artifact already exists"})
        return httpx2.Response(200, json={"id": 4, "subject": "t.facts-value", "version": 1})  # look-up

    async def go() -> int:
        async with _registry(httpx2.MockTransport(answer)) as reg:
            return await reg.register("t.facts-value", "{}")

    assert asyncio.run(go()) == 4
    assert posts == ["/subjects/t.facts-value/versions"]


def test_a_409_that_persists_is_an_incompatible_schema() -> None:
    posts: list[str] = []

    def answer(req: httpx2.Request) -> httpx2.Response:
        path = req.url.path.removeprefix("/apis/ccompat/v7")
        if path.endswith("/versions"):
            posts.append(path)
            return httpx2.Response(409, json={"error_code": 409, "message": "Incompatible"})
        return httpx2.Response(404, json={"error_code": 40403, "message": "not registered"})  # look-up

    async def go() -> int:
        async with _registry(httpx2.MockTransport(answer)) as reg:
            return await reg.register("t.facts-value", "{}")

    with pytest.raises(IncompatibleSchema):
        asyncio.run(go())
    assert len(posts) == 2  # asked again once after the look-up found nothing


def test_an_unreachable_registry_is_an_outage() -> None:
    def refuse(req: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=req)

    async def go() -> int:
        async with _registry(httpx2.MockTransport(refuse)) as reg:
            return await reg.register("t.facts-value", "{}")

    with pytest.raises(RegistryUnavailable, match="unreachable"):
        asyncio.run(go())


def test_lookup_and_compatibility_read_404_as_absent() -> None:
    def answer(req: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(404, json={"error_code": 40403, "message": "not found"})

    async def go() -> tuple[int | None, str | None, str | None]:
        async with _registry(httpx2.MockTransport(answer)) as reg:
            return await reg.lookup("s", "{}"), await reg.compatibility("s"), await reg.schema(1)

    assert asyncio.run(go()) == (None, None, None)


def test_header_layout_matches_the_struct_confluent_documents() -> None:
    # ">bI": signed magic byte, unsigned 32-bit id (Confluent's wire format docs).
    assert struct.unpack(">bI", frame(99, b"")[:5]) == (0, 99)
