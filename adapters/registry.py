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
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from adapters.settings import Settings
from schemas.events import TOPICS
from schemas.export import render, topic_payloads

if TYPE_CHECKING:
    import httpx2  # imported by the client only: services without a registry never load it

MAGIC_BYTE = 0
"""The first byte of a framed record (Confluent wire format, version 0)."""
_HEADER = struct.Struct(">bI")
HEADER_BYTES = _HEADER.size
"""Magic byte plus 4-byte schema id: what a framed record carries before its payload."""
CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
DEFAULT_COMPATIBILITY = "BACKWARD"
"""New schema versions must read records written with the previous one (consumers upgrade first)."""
_RACE_PAUSE_S = 0.5
"""How long a refused registration waits before it looks whether a concurrent one made it."""
UNFRAMED_TOPICS = frozenset({"landing"})
"""Topics the services do not frame: the object store publishes ``landing`` (S3 event JSON) itself."""


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

    The text is exactly that of ``schemas/json/topics/<name>.schema.json`` (:func:`schemas.export.render`),
    so registering it twice gives the same schema id.
    """
    models = topic_payloads()
    return {topic(name): render(models[name]) for name in TOPICS if name not in UNFRAMED_TOPICS}


class RegistryError(Exception):
    """The registry refused a request (or answered something that is not its API)."""

    def __init__(self, message: str, *, status: int | None = None, error_code: int | None = None) -> None:
        """Say what failed, with the HTTP status and the registry's error code when there are any."""
        super().__init__(message)
        self.status = status
        self.error_code = error_code


class RegistryUnavailable(RegistryError):
    """The registry cannot be reached, timed out or failed (5xx): an outage, worth waiting out."""


class IncompatibleSchema(RegistryError):
    """The registry refused a new schema version under the subject's compatibility level (HTTP 409)."""


class SchemaRegistry:
    """An asyncio client of the Confluent-compatible schema registry REST API (only what tieout needs).

    Every call has a timeout (``timeout_s``); errors are :class:`RegistryUnavailable` (unreachable, 5xx),
    :class:`IncompatibleSchema` (409) or :class:`RegistryError` (anything else the registry refuses).
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 10.0,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        """Talk to the registry whose API root is ``url`` (e.g. ``http://host:8080/apis/ccompat/v7``)."""
        import httpx2

        self.url = url.rstrip("/")
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
        import httpx2

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
                kind = IncompatibleSchema
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

    async def register(self, subject: str, schema: str) -> int:
        """Register ``schema`` (JSON Schema text) under ``subject``; its id (the same id for the same text).

        Services starting together register the same schemas at once, and a registry may answer the
        loser of such a race with 409 too (Apicurio: "artifact already exists"), as it answers an
        incompatible schema. So a 409 is only final when, a moment later, the schema is still not
        registered and registering it again is refused again.

        Raises:
            IncompatibleSchema: The subject's compatibility level refuses it.
        """
        body = {"schema": schema, "schemaType": "JSON"}
        path = f"/subjects/{subject}/versions"
        try:
            answer = await self._call("POST", path, body)
        except IncompatibleSchema:
            await asyncio.sleep(_RACE_PAUSE_S)
            if (found := await self.lookup(subject, schema)) is not None:
                return found
            answer = await self._call("POST", path, body)
        if answer is None:
            raise RegistryError(f"POST {path}: HTTP 404", status=404)
        return int(answer["id"])

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
    version is already under contract; a level someone set on purpose is left alone.

    Raises:
        IncompatibleSchema: A topic's schema breaks the contract of the versions registered before it.
    """
    ids: dict[str, int] = {}
    for topic, schema in schemas.items():
        name = subject(topic)
        if await registry.compatibility(name) is None:
            await registry.set_compatibility(name, compatibility)
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


async def topic_encoder(settings: Settings, *, timeout_s: float = 10.0) -> TopicEncoder | None:
    """The encoder of the services' topics when ``SCHEMA_REGISTRY_URL`` is set (None: plain JSON).

    Registers (or finds: registering is idempotent) every framed topic's schema, so that a service
    started against a fresh registry, or one that lost its in-memory schemas, works the same.

    Raises:
        RegistryUnavailable: The registry cannot be reached (worth waiting out).
        IncompatibleSchema: This version's schemas break the registered contract (a deployment error).
    """
    if not settings.schema_registry_url:
        return None
    async with SchemaRegistry(settings.schema_registry_url, timeout_s=timeout_s) as registry:
        return TopicEncoder(await register_topics(registry, topic_schemas(settings.topic)))
