"""Data contracts in a schema registry: the Confluent wire format and a small registry client.

Data teams read tieout's topics with registry-aware deserializers (confluent-kafka's ``JSONDeserializer``,
Kafka Connect, ksqlDB, …). Those expect each record in the Confluent wire format: the magic byte ``0x00``,
the writer schema's id as a 4-byte big-endian integer, then the payload (here the JSON text). When
``SCHEMA_REGISTRY_URL`` is set, the services register every topic's JSON Schema under the subject
``<topic>-value`` (compatibility ``BACKWARD``) at start and frame what they publish with the ids; unset,
they publish plain JSON as before. Readers accept both (:func:`unframe`), so services can be upgraded one
at a time and old records stay readable: JSON text never starts with a NUL byte.

The client speaks the Confluent-compatible REST API (Confluent Schema Registry, Apicurio's
``/apis/ccompat/v7``, Karapace, Redpanda); the local stack runs Apicurio (``infra/registry.sh``).
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from adapters.settings import Settings
from schemas.export import render
from schemas.topology import TOPOLOGY

if TYPE_CHECKING:
    import httpx2

__all__ = [
    "CONTENT_TYPE",
    "DEFAULT_COMPATIBILITY",
    "HEADER_BYTES",
    "MAGIC_BYTE",
    "RACE_ATTEMPTS",
    "RACE_PAUSE_S",
    "Framed",
    "FramingError",
    "IncompatibleSchema",
    "RegistryConflict",
    "RegistryError",
    "RegistryUnavailable",
    "SchemaRegistry",
    "TopicEncoder",
    "TopicRegistration",
    "frame",
    "register_topics",
    "subject",
    "topic_encoder",
    "topic_registration",
    "topic_schemas",
    "unframe",
]

MAGIC_BYTE = 0
"""The first byte of a framed record (Confluent wire format, version 0)."""
_HEADER = struct.Struct(">bI")
HEADER_BYTES = _HEADER.size
"""Magic byte plus 4-byte schema id: what a framed record carries before its payload."""
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
DEFAULT_COMPATIBILITY = "BACKWARD"
"""New schema versions must read records written with the previous one (consumers upgrade first)."""
RACE_PAUSE_S = 0.5
"""How long a refused write waits before it looks whether a concurrent client's same write made it."""
RACE_ATTEMPTS = 3
"""Writes a check-then-act step tries before a refusal is final (see :meth:`SchemaRegistry._settled`)."""


class FramingError(ValueError):
    """A record starts with the magic byte but is too short to carry a schema id."""


class Framed(NamedTuple):
    """A record's payload and the writer schema id it was framed with (None: plain JSON)."""

    schema_id: int | None
    payload: bytes


def frame(schema_id: int, payload: bytes) -> bytes:
    """``payload`` in the Confluent wire format: ``0x00``, the 4-byte big-endian ``schema_id``, payload.

    Raises:
        ValueError: ``schema_id`` does not fit in 4 unsigned bytes.
    """
    if not 0 <= schema_id <= 0xFFFFFFFF:
        raise ValueError(f"schema id {schema_id} is out of range")
    return _HEADER.pack(MAGIC_BYTE, schema_id) + payload


def unframe(value: bytes) -> Framed:
    """A record's payload and schema id, whether it was framed or is plain JSON.

    A plain JSON record (what the services publish without a registry, and what the object store sends)
    never starts with a NUL byte, so the first byte tells them apart.

    Raises:
        FramingError: The record starts with the magic byte but has no room for a schema id.
    """
    if value[:1] != b"\x00":
        return Framed(None, value)
    if len(value) < HEADER_BYTES:
        raise FramingError(f"a framed record needs {HEADER_BYTES} header bytes, got {len(value)}")
    _magic, schema_id = _HEADER.unpack_from(value)
    return Framed(schema_id, value[HEADER_BYTES:])


def subject(topic: str) -> str:
    """The subject of a topic's record values (Confluent's default ``TopicNameStrategy``)."""
    return f"{topic}-value"


def topic_schemas(topic: Callable[[str], str]) -> dict[str, str]:
    """Every framed topic's JSON Schema text, by full topic name (``topic`` maps a name to it).

    The topics tieout writes are framed (:attr:`schemas.topology.TopicSpec.framed`); the object store
    publishes ``landing`` (S3 event JSON) itself. The text is exactly that of
    ``schemas/json/topics/<name>.schema.json`` (:func:`schemas.export.render`), so registering it twice
    gives the same schema id.
    """
    return {topic(t.name): render(t.record) for t in TOPOLOGY.topics if t.framed}


class RegistryError(Exception):
    """The registry refused a request (or answered something that is not its API)."""

    def __init__(self, message: str, *, status: int | None = None, error_code: int | None = None) -> None:
        """Say what failed, with the HTTP status and the registry's error code when there are any."""
        super().__init__(message)
        self.status = status
        self.error_code = error_code


class RegistryUnavailable(RegistryError):
    """The registry cannot be reached, timed out or failed (5xx): an outage, worth waiting out."""


class RegistryConflict(RegistryError):
    """The registry refused a write with HTTP 409: it conflicts with what the registry holds.

    A registry answers so both a write that breaks a rule and one that a concurrent client just made
    (Apicurio: "A rule named 'COMPATIBILITY' already exists", "artifact already exists").
    """


class IncompatibleSchema(RegistryConflict):
    """The registry refused a new schema version under the subject's compatibility level (HTTP 409)."""


T = TypeVar("T")


class SchemaRegistry:
    """An asyncio client of the Confluent-compatible schema registry REST API (only what tieout needs).

    Every call has a timeout (``timeout_s``); errors are :class:`RegistryUnavailable` (unreachable, 5xx),
    :class:`RegistryConflict` (409; :class:`IncompatibleSchema` when a schema is refused) or
    :class:`RegistryError` (anything else the registry refuses).
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 10.0,
        transport: httpx2.AsyncBaseTransport | None = None,
        race_pause_s: float = RACE_PAUSE_S,
    ) -> None:
        """Talk to the registry whose API root is ``url`` (e.g. ``http://host:8080/apis/ccompat/v7``)."""
        import httpx2  # only a service configured with a registry pays for the HTTP client's import

        self.url = url.rstrip("/")
        self.race_pause_s = race_pause_s
        self._http = httpx2.AsyncClient(
            base_url=self.url,
            timeout=timeout_s,
            transport=transport,
            headers={"Content-Type": CONTENT_TYPE, "Accept": CONTENT_TYPE},
        )

    async def __aenter__(self) -> SchemaRegistry:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """One request; the decoded JSON answer (None for 404, which callers that expect it ask for)."""
        import httpx2  # loaded by __init__ already; bound here for the exception class

        try:
            r = await self._http.request(method, path, json=body)
        except httpx2.TransportError as exc:  # connection refused, reset, timeouts
            raise RegistryUnavailable(
                f"schema registry {self.url} unreachable: {type(exc).__name__}: {exc}"
            ) from exc
        if r.status_code == 404:
            return None
        answer: Any = None
        try:
            answer = r.json()
        except ValueError:
            answer = None
        if r.status_code >= 400:
            detail = answer if isinstance(answer, dict) else {}
            message = str(detail.get("message") or r.text[:300])
            code = detail.get("error_code")
            kind: type[RegistryError] = RegistryError
            if r.status_code >= 500:
                kind = RegistryUnavailable
            elif r.status_code == 409:
                kind = RegistryConflict
            raise kind(
                f"{method} {path}: HTTP {r.status_code}: {message}",
                status=r.status_code,
                error_code=code if isinstance(code, int) else None,
            )
        if answer is None:
            raise RegistryError(
                f"{method} {path}: HTTP {r.status_code} with no JSON answer", status=r.status_code
            )
        return answer

    async def _settled(self, act: Callable[[], Awaitable[T]], done: Callable[[], Awaitable[T | None]]) -> T:
        """``act``'s answer, or, when the registry refuses or fails it, what a concurrent client's act left.

        Services starting together make the same writes at once, and the registry answers the losers of
        such a race with 409 (Apicurio checks, then inserts: "A rule named 'COMPATIBILITY' already exists")
        or even 500 (the same schema text inserted twice at once: a unique index violation). A refusal is
        only final when, a moment later, ``done`` (a read of what ``act`` would have achieved) still finds
        nothing, ``RACE_ATTEMPTS`` times; a registry that is really down fails ``done`` too.

        Raises:
            RegistryConflict: Every attempt was refused and nothing was there afterwards.
            RegistryUnavailable: The registry failed every attempt, or cannot be reached.
        """
        for attempt in range(1, RACE_ATTEMPTS + 1):
            try:
                return await act()
            except (RegistryConflict, RegistryUnavailable):
                await asyncio.sleep(self.race_pause_s)
                if (found := await done()) is not None:
                    return found
                if attempt == RACE_ATTEMPTS:
                    raise
        raise AssertionError("unreachable")  # the loop returns or raises

    async def register(self, subject: str, schema: str) -> int:
        """Register ``schema`` (JSON Schema text) under ``subject``; its id (the same id for the same text).

        Race-free: a 409 is final only when the schema is still not registered afterwards
        (:meth:`_settled`): a concurrent registration of the same schema is success.

        Raises:
            IncompatibleSchema: The subject's compatibility level refuses it.
        """
        body = {"schema": schema, "schemaType": "JSON"}
        path = f"/subjects/{subject}/versions"

        async def post() -> int:
            answer = await self._call("POST", path, body)
            if answer is None:
                raise RegistryError(f"POST {path}: HTTP 404", status=404)
            return int(answer["id"])

        try:
            return await self._settled(post, lambda: self.lookup(subject, schema))
        except RegistryConflict as exc:  # still refused, and not there: the contract refuses it
            raise IncompatibleSchema(str(exc), status=exc.status, error_code=exc.error_code) from exc

    async def lookup(self, subject: str, schema: str) -> int | None:
        """The id of ``schema`` if it is registered under ``subject``, else None."""
        answer = await self._call("POST", f"/subjects/{subject}", {"schema": schema, "schemaType": "JSON"})
        return int(answer["id"]) if answer is not None else None

    async def compatibility(self, subject: str) -> str | None:
        """The subject's own compatibility level, or None when it has none (the global one applies)."""
        answer = await self._call("GET", f"/config/{subject}")
        if answer is None:
            return None
        level = answer.get("compatibilityLevel") or answer.get("compatibility")
        return str(level) if level else None

    async def set_compatibility(self, subject: str, level: str = DEFAULT_COMPATIBILITY) -> None:
        """Set the subject's compatibility level (``BACKWARD``, ``FULL``, ``NONE``, …)."""
        await self._call("PUT", f"/config/{subject}", {"compatibility": level})

    async def ensure_compatibility(self, subject: str, level: str = DEFAULT_COMPATIBILITY) -> str:
        """The subject's own compatibility level, set to ``level`` first when it has none; race-free.

        A level the subject already has was set on purpose and is left alone. Two clients that both find
        none and set it race: the registry refuses the loser with 409 ("A rule named 'COMPATIBILITY'
        already exists"), which is success once the level is read back (:meth:`_settled`); a level that a
        concurrent client set is then the subject's own like any other.

        Raises:
            RegistryConflict: The registry refused every attempt and the subject still has no level.
        """
        if (current := await self.compatibility(subject)) is not None:
            return current

        async def put() -> str:
            await self.set_compatibility(subject, level)
            return level

        return await self._settled(put, lambda: self.compatibility(subject))

    async def reachable(self) -> bool:
        """Whether the registry answers its API (the global compatibility level: one small request)."""
        return await self._call("GET", "/config") is not None

    async def compatible(self, subject: str, schema: str) -> bool:
        """Whether ``schema`` may be registered next under ``subject`` (asked, nothing registered)."""
        answer = await self._call(
            "POST",
            f"/compatibility/subjects/{subject}/versions/latest",
            {"schema": schema, "schemaType": "JSON"},
        )
        return True if answer is None else bool(answer.get("is_compatible"))

    async def subjects(self) -> list[str]:
        """Every subject."""
        answer = await self._call("GET", "/subjects")
        return [str(s) for s in answer or []]

    async def schema(self, schema_id: int) -> str | None:
        """The schema text with this id, or None."""
        answer = await self._call("GET", f"/schemas/ids/{schema_id}")
        return str(answer["schema"]) if answer is not None else None


async def register_topics(
    registry: SchemaRegistry, schemas: Mapping[str, str], *, compatibility: str = DEFAULT_COMPATIBILITY
) -> dict[str, int]:
    """Register each topic's schema under ``<topic>-value``; the schema id by topic (idempotent).

    A subject without a compatibility level of its own gets ``compatibility`` first, so that the first
    version is already under contract; a level someone set on purpose is left alone. Services that
    register the same topics at once all succeed (:meth:`SchemaRegistry.ensure_compatibility`,
    :meth:`SchemaRegistry.register`).

    Raises:
        IncompatibleSchema: A topic's schema breaks the contract of the versions registered before it.
    """
    ids: dict[str, int] = {}
    for topic, schema in schemas.items():
        name = subject(topic)
        await registry.ensure_compatibility(name, compatibility)
        ids[topic] = await registry.register(name, schema)
    return ids


class TopicEncoder:
    """Frames the records of the topics it knows with their schema ids; others pass unchanged."""

    def __init__(self, ids: Mapping[str, int]) -> None:
        """Use ``ids``: the writer schema id by full topic name."""
        self.ids = dict(ids)

    def encode(self, topic: str, value: bytes) -> bytes:
        """``value`` as ``topic``'s records go on the wire."""
        schema_id = self.ids.get(topic)
        return value if schema_id is None else frame(schema_id, value)

    def topics(self) -> Iterable[str]:
        """The topics it frames."""
        return self.ids.keys()


class TopicRegistration:
    """The services' topic schemas kept registered in one registry, and the encoder that frames with them.

    :meth:`register` registers every schema (at start, waited out like any dependency); :meth:`probe`,
    run on the readiness probe's cadence, checks that the registry still holds each schema under the id
    the encoder frames with, and registers them again when it does not: a registry that came back empty
    (in-memory storage restarted, its data wiped) or with other ids is filled again, and from then on
    the encoder frames with the ids valid there. Records published between the registry losing them and
    the next probe carry the old ids; a registry whose storage persists (``infra/registry.sh``) keeps
    them valid across restarts.
    """

    def __init__(
        self,
        registry: SchemaRegistry,
        schemas: Mapping[str, str],
        *,
        compatibility: str = DEFAULT_COMPATIBILITY,
        on_registered: Callable[[Mapping[str, int]], None] | None = None,
    ) -> None:
        """Keep ``schemas`` (JSON Schema text by full topic name) registered in ``registry``.

        ``on_registered`` is called with the ids after each registration (the services log them).
        """
        self.registry = registry
        self.schemas = dict(schemas)
        self.compatibility = compatibility
        self.on_registered = on_registered
        self.encoder: TopicEncoder | None = None
        """None until the first registration succeeds."""
        self._again: asyncio.Task[TopicEncoder] | None = None

    async def register(self) -> TopicEncoder:
        """Register every schema (idempotent); the encoder, whose ids are replaced in place.

        Raises:
            RegistryUnavailable: The registry cannot be reached.
            IncompatibleSchema: A schema breaks the contract registered before it.
        """
        ids = await register_topics(self.registry, self.schemas, compatibility=self.compatibility)
        if self.encoder is None:
            self.encoder = TopicEncoder(ids)
        else:
            self.encoder.ids = ids  # one assignment: a record is framed with the old ids or the new ones
        if self.on_registered is not None:
            self.on_registered(ids)
        return self.encoder

    async def stale(self) -> list[str]:
        """The topics whose schema the registry does not hold under the id the encoder frames with.

        Every topic before the first registration.
        """
        encoder = self.encoder
        if encoder is None:
            return list(self.schemas)
        topics = list(self.schemas)
        found = await asyncio.gather(*(self.registry.lookup(subject(t), self.schemas[t]) for t in topics))
        return [t for t, schema_id in zip(topics, found, strict=True) if schema_id != encoder.ids.get(t)]

    async def probe(self) -> bool:
        """Readiness: the registry answers and holds every schema under the id the encoder frames with.

        Before the first registration (the service's start-up does it) an answer is enough. Stale ids start
        a registration, which outlives a caller's timeout (the next probe waits for the same one); the
        probe is true once it has finished.

        Raises:
            RegistryError: The registry cannot be reached, or registering again failed.
        """
        if self.encoder is None:
            return await self.registry.reachable()
        again = self._again
        if again is None or again.done():
            if again is not None and not again.cancelled():
                again.exception()  # a failure was reported to the probe that waited for it, or is stale now
            if not await self.stale():
                return True
            again = self._again = asyncio.ensure_future(self.register())
        await asyncio.shield(again)
        return True

    async def aclose(self) -> None:
        """Stop a registration in progress and close the registry client."""
        if self._again is not None and not self._again.done():
            self._again.cancel()
            await asyncio.gather(self._again, return_exceptions=True)  # its end, not its outcome
        await self.registry.aclose()


def topic_registration(
    settings: Settings,
    *,
    timeout_s: float = 10.0,
    on_registered: Callable[[Mapping[str, int]], None] | None = None,
) -> TopicRegistration | None:
    """The services' topic schemas to keep registered when ``SCHEMA_REGISTRY_URL`` is set (None: unset).

    Nothing is sent yet; the caller closes it (:meth:`TopicRegistration.aclose`).
    """
    if not settings.schema_registry_url:
        return None
    registry = SchemaRegistry(settings.schema_registry_url, timeout_s=timeout_s)
    return TopicRegistration(registry, topic_schemas(settings.topic), on_registered=on_registered)


async def topic_encoder(settings: Settings, *, timeout_s: float = 10.0) -> TopicEncoder | None:
    """The encoder of the services' topics when ``SCHEMA_REGISTRY_URL`` is set (None: plain JSON).

    Registers (or finds: registering is idempotent) every framed topic's schema once, so that a tool
    run against a fresh registry, or one that lost its schemas, works the same.

    Raises:
        RegistryUnavailable: The registry cannot be reached (worth waiting out).
        IncompatibleSchema: This version's schemas break the registered contract (a deployment error).
    """
    registration = topic_registration(settings, timeout_s=timeout_s)
    if registration is None:
        return None
    try:
        return await registration.register()
    finally:
        await registration.aclose()
