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
from collections.abc import Callable, Mapping
from types import SimpleNamespace

import httpx2
import pytest
from confluent_kafka.schema_registry import Schema
from confluent_kafka.schema_registry._sync.mock_schema_registry_client import MockSchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from adapters.registry import (
    HEADER_BYTES,
    RACE_ATTEMPTS,
    FramingError,
    IncompatibleSchema,
    RegistryConflict,
    RegistryError,
    RegistryUnavailable,
    SchemaRegistry,
    TopicEncoder,
    TopicRegistration,
    frame,
    register_topics,
    subject,
    topic_registration,
    topic_schemas,
    unframe,
)
from adapters.settings import Settings
from consumers.health import Check, Health
from consumers.kafka import KafkaTransport, incoming, wire_value
from consumers.runner import CLAIM_HEADER, Outgoing
from consumers.wiring import _checks
from schemas.export import TOPIC_DIR
from schemas.topology import TOPOLOGY, Topic

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
    framed = [t.name for t in TOPOLOGY.topics if t.framed]
    assert set(schemas) == {f"x.{t}" for t in framed}
    assert [t.name for t in TOPOLOGY.topics if not t.framed] == [Topic.LANDING]
    assert "x.landing" not in schemas  # the object store writes it, plain
    for name in framed:
        # Byte for byte the file, so re-registering yields the same id.
        assert schemas[f"x.{name}"] == (TOPIC_DIR / f"{name}.schema.json").read_text(encoding="utf-8")
    assert subject("x.facts") == "x.facts-value"


# -------------------------------------------------------------------------------------------- client
API = "/apis/ccompat/v7"


def _registry(handler: httpx2.MockTransport) -> SchemaRegistry:
    # No pause between a refused write and the look-up: the fakes answer at once.
    return SchemaRegistry(f"http://registry.test{API}/", transport=handler, race_pause_s=0)


def _register(handler: Callable[[httpx2.Request], httpx2.Response]) -> int:
    """The id a client of a registry that answers with ``handler`` gets for registering ``t.facts-value``."""

    async def go() -> int:
        async with _registry(httpx2.MockTransport(handler)) as reg:
            return await reg.register("t.facts-value", "{}")

    return asyncio.run(go())


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
    with pytest.raises(error) as caught:
        _register(lambda _req: response)
    assert caught.value.status == response.status_code
    if error is IncompatibleSchema:
        assert caught.value.error_code == 409 and "Incompatible" in str(caught.value)


def _conflicting(
    conflict: dict[str, object], lookup: httpx2.Response, posts: list[str]
) -> Callable[[httpx2.Request], httpx2.Response]:
    """A registry that answers every registration 409 with ``conflict`` (its path noted in ``posts``) and
    every look-up with ``lookup``."""

    def answer(req: httpx2.Request) -> httpx2.Response:
        path = req.url.path.removeprefix("/apis/ccompat/v7")
        if path.endswith("/versions"):
            posts.append(path)
            return httpx2.Response(409, json=conflict)
        return lookup

    return answer


def test_a_409_from_a_concurrent_registration_of_the_same_schema_is_not_an_incompatibility() -> None:
    # Three services start at once and register the same schemas; Apicurio answers the loser of the race
    # with 409 ("artifact already exists"), which the next look-up shows was the same schema.
    posts: list[str] = []
    found = httpx2.Response(200, json={"id": 4, "subject": "t.facts-value", "version": 1})
    answer = _conflicting({"error_code": 0, "message": "artifact already exists"}, found, posts)
    assert _register(answer) == 4
    assert posts == ["/subjects/t.facts-value/versions"]


def test_a_409_that_persists_is_an_incompatible_schema() -> None:
    posts: list[str] = []
    missing = httpx2.Response(404, json={"error_code": 40403, "message": "not registered"})
    answer = _conflicting({"error_code": 409, "message": "Incompatible"}, missing, posts)

    with pytest.raises(IncompatibleSchema):
        _register(answer)
    assert len(posts) == RACE_ATTEMPTS  # asked again each time the look-up found nothing


def test_an_unreachable_registry_is_an_outage() -> None:
    def refuse(req: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=req)

    with pytest.raises(RegistryUnavailable, match="unreachable"):
        _register(refuse)


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


# ------------------------------------------------------------------------- races and a lost registry
class FakeRegistry:
    """The part of the Confluent-compatible API tieout uses, in memory, racing as Apicurio does.

    Each write checks, yields to the event loop, then inserts: a client whose check ran before another's
    insert is refused like Apicurio refuses it (409 for a rule, 500 for the same schema text inserted
    twice at once). Ids are content ids shared across subjects, counted from ``first_id``.
    """

    def __init__(self, first_id: int = 1) -> None:
        self.levels: dict[str, str] = {}
        self.versions: dict[str, dict[str, int]] = {}  # subject -> schema text -> id
        self.contents: dict[str, int] = {}  # schema text -> id
        self.next_id = first_id
        self.writes: list[tuple[str, str]] = []
        self.down = False
        self.gate: asyncio.Event | None = None  # when set (closed), registrations wait for it

    def wipe(self, first_id: int) -> None:
        """What a registry with in-memory storage is after a restart: empty, ids counted afresh."""
        self.__init__(first_id)  # type: ignore[misc]

    def add(self, name: str, text: str) -> int:
        schema_id = self.contents.setdefault(text, self.next_id)
        self.next_id = max(self.next_id, schema_id + 1)
        self.versions.setdefault(name, {})[text] = schema_id
        return schema_id

    async def __call__(self, req: httpx2.Request) -> httpx2.Response:
        if self.down:
            raise httpx2.ConnectError("connection refused", request=req)
        path = req.url.path.removeprefix(API)
        body = json.loads(req.content) if req.content else {}
        await asyncio.sleep(0)  # other clients' requests interleave here...
        if path == "/config":
            return httpx2.Response(200, json={"compatibilityLevel": "NONE"})
        if path.startswith("/config/"):
            name = path.removeprefix("/config/")
            if req.method == "GET":
                level = self.levels.get(name)
                if level is None:
                    return httpx2.Response(404, json={"error_code": 40408, "message": "no config"})
                return httpx2.Response(200, json={"compatibilityLevel": level})
            self.writes.append(("PUT", path))
            exists = name in self.levels
            await asyncio.sleep(0)  # ...and between a write's check and its insert
            if not exists and name in self.levels:
                return httpx2.Response(
                    409, json={"error_code": 0, "message": "A rule named 'COMPATIBILITY' already exists."}
                )
            self.levels[name] = body["compatibility"]
            return httpx2.Response(200, json=body)
        if req.method == "POST" and path.endswith("/versions"):
            self.writes.append(("POST", path))
            if self.gate is not None:
                await self.gate.wait()
            text = body["schema"]
            known = text in self.contents
            await asyncio.sleep(0)
            if not known and text in self.contents:
                return httpx2.Response(500, json={"error_code": 50001, "message": "Unique index violation"})
            return httpx2.Response(200, json={"id": self.add(path.split("/")[2], text)})
        if req.method == "POST" and path.startswith("/subjects/"):  # look-up
            found = self.versions.get(path.split("/")[2], {}).get(body["schema"])
            if found is None:
                return httpx2.Response(404, json={"error_code": 40403, "message": "not registered"})
            return httpx2.Response(200, json={"id": found, "subject": path.split("/")[2], "version": 1})
        return httpx2.Response(500, json={"message": f"unexpected {req.method} {path}"})


SCHEMAS = {"t.facts": FACT_LIKE, "t.flags": json.dumps({"type": "object"})}


def test_services_registering_at_once_on_an_empty_registry_all_succeed_with_the_same_ids() -> None:
    # Each of three clients finds no level, sets one and registers: every check-then-act races.
    fake = FakeRegistry()

    async def one() -> dict[str, int]:
        async with _registry(httpx2.MockTransport(fake)) as reg:
            return await register_topics(reg, SCHEMAS)

    async def three() -> list[dict[str, int]]:
        return list(await asyncio.gather(one(), one(), one()))

    results = asyncio.run(three())
    assert results[0] == results[1] == results[2]
    assert set(results[0]) == set(SCHEMAS)
    assert fake.levels == {"t.facts-value": "BACKWARD", "t.flags-value": "BACKWARD"}
    assert {m for m, _ in fake.writes} == {"PUT", "POST"}
    assert sum(m == "PUT" for m, _ in fake.writes) > len(SCHEMAS)  # the race happened: some were refused


def test_a_rule_a_concurrent_client_set_is_read_back_and_not_set_again() -> None:
    # The loser of the race is refused with 409; the level read back is the subject's: no second PUT.
    fake = FakeRegistry()

    def answer(req: httpx2.Request) -> httpx2.Response:
        if req.method == "PUT":
            fake.writes.append(("PUT", req.url.path))
            fake.levels["t.facts-value"] = "FULL"  # someone else's PUT went in first
            return httpx2.Response(
                409, json={"error_code": 0, "message": "A rule named 'COMPATIBILITY' already exists."}
            )
        level = fake.levels.get("t.facts-value")
        if level is None:
            return httpx2.Response(404, json={"error_code": 40408, "message": "no config"})
        return httpx2.Response(200, json={"compatibilityLevel": level})

    async def go() -> str:
        async with _registry(httpx2.MockTransport(answer)) as reg:
            return await reg.ensure_compatibility("t.facts-value", "BACKWARD")

    assert asyncio.run(go()) == "FULL"  # set on purpose by the other client: left alone, as if found first
    assert len(fake.writes) == 1


def test_a_rule_write_refused_while_no_rule_shows_is_tried_again_then_final() -> None:
    puts: list[str] = []

    def answer(req: httpx2.Request) -> httpx2.Response:
        if req.method == "PUT":
            puts.append(req.url.path)
            return httpx2.Response(409, json={"error_code": 0, "message": "refused"})
        return httpx2.Response(404, json={"error_code": 40408, "message": "no config"})

    async def go() -> str:
        async with _registry(httpx2.MockTransport(answer)) as reg:
            return await reg.ensure_compatibility("t.facts-value")

    with pytest.raises(RegistryConflict) as refused:
        asyncio.run(go())
    assert not isinstance(refused.value, IncompatibleSchema)  # a rule, not a schema, was refused
    assert len(puts) == RACE_ATTEMPTS


def test_a_500_from_inserting_the_same_schema_at_once_is_success_once_it_is_registered() -> None:
    registered: dict[str, int] = {}

    def answer(req: httpx2.Request) -> httpx2.Response:
        if req.url.path.endswith("/versions"):
            registered["t.facts-value"] = 7  # the concurrent client's insert won; ours failed
            return httpx2.Response(500, json={"error_code": 50001, "message": "Unique index violation"})
        if "t.facts-value" in registered:
            return httpx2.Response(200, json={"id": 7, "subject": "t.facts-value", "version": 1})
        return httpx2.Response(404, json={"error_code": 40403, "message": "not registered"})

    assert _register(answer) == 7


def _registration(fake: FakeRegistry, logged: list[Mapping[str, int]]) -> TopicRegistration:
    return TopicRegistration(_registry(httpx2.MockTransport(fake)), SCHEMAS, on_registered=logged.append)


def test_a_registry_that_came_back_empty_is_filled_again_and_records_carry_its_ids() -> None:
    fake = FakeRegistry()
    logged: list[Mapping[str, int]] = []

    async def go() -> tuple[dict[str, int], dict[str, int], bool]:
        registration = _registration(fake, logged)
        try:
            encoder = await registration.register()
            before = dict(encoder.ids)
            assert await registration.probe()  # ids hold: nothing written
            writes = len(fake.writes)
            assert await registration.probe() and len(fake.writes) == writes
            fake.wipe(first_id=1)
            fake.add("other-value", "{}")  # another client registered first: our ids now name other schemas
            ready = await registration.probe()
            return before, dict(encoder.ids), ready
        finally:
            await registration.aclose()

    before, after, ready = asyncio.run(go())
    assert ready
    assert after != before  # the old ids are not the registry's any more
    assert after == {t: fake.versions[subject(t)][s] for t, s in SCHEMAS.items()}
    assert fake.levels == {subject(t): "BACKWARD" for t in SCHEMAS}
    assert logged == [before, after]
    encoder = TopicEncoder(after)
    assert unframe(encoder.encode("t.facts", b"{}")).schema_id == after["t.facts"]


def test_an_encoder_shared_with_the_producer_frames_with_the_new_ids() -> None:
    fake = FakeRegistry()

    async def go() -> tuple[int | None, int | None, int]:
        registration = _registration(fake, [])
        try:
            encoder = await registration.register()
            out = Outgoing("t.facts", b"k", b"{}")
            first = unframe(wire_value(out, encoder)).schema_id
            fake.wipe(first_id=50)
            await registration.probe()
            then = unframe(wire_value(out, encoder)).schema_id
            return first, then, fake.versions["t.facts-value"][FACT_LIKE]
        finally:
            await registration.aclose()

    first, then, registered = asyncio.run(go())
    assert first != then and then == registered


def test_readiness_is_false_while_the_registry_is_down_and_true_when_it_answers() -> None:
    fake = FakeRegistry()

    async def go() -> list[dict[str, bool]]:
        registration = _registration(fake, [])
        health = Health("sink", [Check("registry", registration.probe)], probe_timeout_s=5)
        try:
            rounds = [await health.probe()]  # before the start-up registration: reachable is enough
            await registration.register()
            rounds.append(await health.probe())
            fake.down = True
            rounds.append(await health.probe())
            fake.down = False
            rounds.append(await health.probe())
            return rounds
        finally:
            await registration.aclose()

    up, down = {"registry": True}, {"registry": False}
    assert asyncio.run(go()) == [up, up, down, up]


def test_before_the_first_registration_the_probe_writes_nothing() -> None:
    fake = FakeRegistry()

    async def go() -> bool:
        registration = _registration(fake, [])
        try:
            return await registration.probe()
        finally:
            await registration.aclose()

    assert asyncio.run(go())
    assert fake.writes == [] and fake.versions == {}


def test_a_registration_again_outlives_the_probe_that_started_it() -> None:
    # A probe's timeout cancels the probe, not the registration: the next probe finds it done.
    fake = FakeRegistry()
    logged: list[Mapping[str, int]] = []

    async def go() -> tuple[bool, bool]:
        registration = _registration(fake, logged)
        health = Health("parse", [Check("registry", registration.probe)], probe_timeout_s=0.05)
        try:
            await registration.register()
            fake.wipe(first_id=9)
            fake.gate = asyncio.Event()  # the registry hangs on registrations until opened
            timed_out = await health.probe()
            fake.gate.set()
            for _ in range(100):  # the registration in the background finishes once the gate opens
                await asyncio.sleep(0)
            return timed_out["registry"], (await health.probe())["registry"]
        finally:
            await registration.aclose()

    assert asyncio.run(go()) == (False, True)
    assert len(logged) == 2  # the start-up registration and one more: not one per probe


def test_the_registry_is_in_readiness_only_when_configured() -> None:
    settings = Settings(topic_prefix="t.")
    transport = KafkaTransport(
        connection={"bootstrap_servers": "127.0.0.1:9"},
        topics=["t.parsed"],
        group_id="g",
        transactional_id="x",
        idle=asyncio.Event(),
    )
    assert "registry" not in {c.name for c in _checks(settings, "verify", transport, None)}
    configured = settings.model_copy(update={"schema_registry_url": "http://registry.test/apis/ccompat/v7"})
    registration = topic_registration(configured)
    assert registration is not None and topic_registration(settings) is None
    try:
        assert "registry" in {c.name for c in _checks(configured, "verify", transport, registration)}
    finally:
        asyncio.run(registration.aclose())


def test_closing_stops_a_registration_in_progress() -> None:
    fake = FakeRegistry()

    async def go() -> bool:
        registration = _registration(fake, [])
        await registration.register()
        fake.wipe(first_id=9)
        fake.gate = asyncio.Event()  # never opened: the registration hangs
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(registration.probe(), 0.05)
        await registration.aclose()
        return fake.gate.is_set()

    assert not asyncio.run(go())
    assert fake.versions == {}  # nothing was registered after the wipe
