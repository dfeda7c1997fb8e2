"""Object storage adapter (S3 API via boto3): fetch documents, write artifacts, list for reconciliation.

Every call has connect and read timeouts; botocore's own retries are limited so that the services'
bounded retry policy (:mod:`consumers.runner`) is the one in charge. Errors are sorted into transient
(5xx, throttling, timeouts, connection failures: retry) and permanent (missing object, access denied:
dead-letter).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ConnectionError, ReadTimeoutError
from pydantic import BaseModel

from adapters.settings import Settings
from pipeline.ids import document_hasher, document_id
from schemas.events import ObjectRef

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

__all__ = [
    "MAX_KEY_BYTES",
    "Downloaded",
    "ListedObject",
    "MemoryStore",
    "ObjectStore",
    "RefusedObject",
    "StorageError",
    "Store",
    "UnsafeKey",
    "artifact_key",
    "claim_key",
    "dataset_key",
    "intent_key",
    "manifest_key",
    "marker_key",
    "pending_key",
    "pending_prefix",
    "readable_keys",
    "refused_key",
    "safe_key",
    "split_uri",
    "stored_key",
    "versions_key",
    "xbrl_key",
]


class StorageError(Exception):
    """A storage call failed; ``transient`` says whether retrying may help."""

    def __init__(self, message: str, *, transient: bool) -> None:
        super().__init__(message)
        self.transient = transient


_TRANSIENT_CODES = {"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "ServiceUnavailable"}


def _classify(exc: Exception, what: str) -> StorageError:
    if isinstance(exc, ClientError):
        code = str(exc.response.get("Error", {}).get("Code", ""))
        status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
        transient = status >= 500 or code in _TRANSIENT_CODES
        return StorageError(f"{what}: {code or status} {exc}", transient=transient)
    if isinstance(exc, ConnectionError | ReadTimeoutError | BotoCoreError):
        return StorageError(f"{what}: {type(exc).__name__}: {exc}", transient=True)
    return StorageError(f"{what}: {type(exc).__name__}: {exc}", transient=False)


@dataclass(frozen=True, slots=True)
class ListedObject:
    """An object found by listing a prefix."""

    key: str
    size: int
    etag: str


_CHUNK = 1 << 20
_HEAD = 1024  # a PDF's header must start within its first 1,024 bytes


@dataclass(frozen=True, slots=True)
class Downloaded:
    """An object streamed to a file."""

    key: str
    doc_id: str  # the sha256 of the bytes (pipeline.ids.document_id)
    size: int
    head: bytes  # the first bytes, for content sniffing


class Store(Protocol):
    """What the services need of an object store: :class:`ObjectStore` (S3) or :class:`MemoryStore`."""

    def ensure_bucket(self, bucket: str) -> None:
        """Create ``bucket`` unless it exists."""
        ...

    def get_bytes(self, bucket: str, keys: list[str], *, max_bytes: int) -> tuple[str, bytes]:
        """The first of ``keys`` that exists, and its bytes."""
        ...

    def download(self, bucket: str, keys: list[str], dest: Path, *, max_bytes: int) -> Downloaded:
        """Stream the first of ``keys`` that exists to ``dest``."""
        ...

    def put_bytes(self, bucket: str, key: str, data: bytes, content_type: str = "application/json") -> str:
        """Write an object; return its ``s3://`` URI."""
        ...

    def exists(self, bucket: str, key: str) -> bool:
        """Whether an object exists."""
        ...

    def read_uri(self, uri: str, *, max_bytes: int = 1 << 30) -> bytes:
        """Read an ``s3://bucket/key`` URI."""
        ...

    def list_objects(self, bucket: str, prefix: str = "") -> Iterator[ListedObject]:
        """Every object under ``prefix``."""
        ...

    def delete(self, bucket: str, key: str) -> None:
        """Remove an object."""
        ...


class ObjectStore:
    """A thin, synchronous S3 client; services call it through ``asyncio.to_thread``."""

    def __init__(self, settings: Settings, *, timeout_s: float = 30.0) -> None:
        """Create the client for the endpoint and credentials in ``settings``."""
        self.settings = settings
        config = Config(
            connect_timeout=min(10.0, timeout_s),
            read_timeout=timeout_s,
            retries={"max_attempts": 2, "mode": "standard"},
            s3={"addressing_style": "path"},  # the local gateway routes by path
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        )
        self.client: S3Client = boto3.client(
            "s3",
            endpoint_url=settings.s3_endpoint,
            aws_access_key_id=settings.s3_access_key,
            aws_secret_access_key=settings.s3_secret_key,
            region_name=settings.s3_region,
            config=config,
        )

    def ensure_bucket(self, bucket: str) -> None:
        """Create ``bucket`` unless it exists."""
        try:
            self.client.head_bucket(Bucket=bucket)
            return
        except ClientError as exc:
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
            if status not in (403, 404):
                raise _classify(exc, f"head bucket {bucket}") from exc
        except Exception as exc:
            raise _classify(exc, f"head bucket {bucket}") from exc
        try:
            self.client.create_bucket(Bucket=bucket)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                raise _classify(exc, f"create bucket {bucket}") from exc

    def _open_first(self, bucket: str, keys: list[str], max_bytes: int) -> tuple[str, Any]:
        """The first of ``keys`` that exists, opened (its body not yet read), refused over ``max_bytes``."""
        last: Exception | None = None
        for key in keys:
            try:
                obj = self.client.get_object(Bucket=bucket, Key=key)
            except ClientError as exc:
                code = exc.response.get("Error", {}).get("Code", "")
                if code in ("NoSuchKey", "404", "NotFound"):
                    last = exc
                    continue
                raise _classify(exc, f"get s3://{bucket}/{key}") from exc
            except Exception as exc:
                raise _classify(exc, f"get s3://{bucket}/{key}") from exc
            size = int(obj.get("ContentLength", 0) or 0)
            if size > max_bytes:
                obj["Body"].close()
                raise StorageError(f"s3://{bucket}/{key} is {size} bytes, over {max_bytes}", transient=False)
            return key, obj["Body"]
        raise StorageError(f"no object s3://{bucket}/{keys[0]} ({last})", transient=False)

    def get_bytes(self, bucket: str, keys: list[str], *, max_bytes: int) -> tuple[str, bytes]:
        """Read the first of ``keys`` that exists; refuse objects larger than ``max_bytes``.

        Returns:
            The key that was found and the object's bytes.

        Raises:
            StorageError: Permanent when no candidate exists or the object is too large.
        """
        key, body = self._open_first(bucket, keys, max_bytes)
        try:
            return key, bytes(body.read(max_bytes + 1))
        except Exception as exc:
            raise _classify(exc, f"read s3://{bucket}/{key}") from exc

    def download(self, bucket: str, keys: list[str], dest: Path, *, max_bytes: int) -> Downloaded:
        """Stream the first of ``keys`` that exists to ``dest``, hashing it on the way (never all in memory).

        Raises:
            StorageError: Permanent when no candidate exists or the object is too large.
        """
        key, body = self._open_first(bucket, keys, max_bytes)
        digest = document_hasher()
        head = b""
        n = 0
        try:
            with dest.open("wb") as f:
                for chunk in body.iter_chunks(_CHUNK):
                    n += len(chunk)
                    if n > max_bytes:
                        raise StorageError(f"s3://{bucket}/{key} is over {max_bytes} bytes", transient=False)
                    if len(head) < _HEAD:
                        head += chunk[: _HEAD - len(head)]
                    digest.update(chunk)
                    f.write(chunk)
        except StorageError:
            raise
        except Exception as exc:
            raise _classify(exc, f"read s3://{bucket}/{key}") from exc
        return Downloaded(key=key, doc_id=digest.hexdigest(), size=n, head=head)

    def delete(self, bucket: str, key: str) -> None:
        """Remove an object (no error when it is already gone)."""
        try:
            self.client.delete_object(Bucket=bucket, Key=key)
        except Exception as exc:
            raise _classify(exc, f"delete s3://{bucket}/{key}") from exc

    def put_bytes(self, bucket: str, key: str, data: bytes, content_type: str = "application/json") -> str:
        """Write an object (idempotent for a given key and content); return its ``s3://`` URI."""
        try:
            self.client.put_object(Bucket=bucket, Key=key, Body=data, ContentType=content_type)
        except Exception as exc:
            raise _classify(exc, f"put s3://{bucket}/{key}") from exc
        return f"s3://{bucket}/{key}"

    def ping(self, bucket: str) -> None:
        """Ask for ``bucket``'s metadata: a readiness probe, bounded by the client's timeouts.

        Raises:
            StorageError: The store did not answer, or answered with an error.
        """
        try:
            self.client.head_bucket(Bucket=bucket)
        except Exception as exc:
            raise _classify(exc, f"head bucket {bucket}") from exc

    def exists(self, bucket: str, key: str) -> bool:
        """Whether an object exists."""
        try:
            self.client.head_object(Bucket=bucket, Key=key)
            return True
        except ClientError as exc:
            status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)
            if status == 404 or exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return False
            raise _classify(exc, f"head s3://{bucket}/{key}") from exc
        except Exception as exc:
            raise _classify(exc, f"head s3://{bucket}/{key}") from exc

    def read_uri(self, uri: str, *, max_bytes: int = 1 << 30) -> bytes:
        """Read an ``s3://bucket/key`` URI."""
        bucket, key = split_uri(uri)
        return self.get_bytes(bucket, [key], max_bytes=max_bytes)[1]

    def list_objects(self, bucket: str, prefix: str = "") -> Iterator[ListedObject]:
        """Every object under ``prefix``, page by page."""
        paginator = self.client.get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(Bucket=bucket, Prefix=prefix):
                for o in page.get("Contents", []):
                    yield ListedObject(
                        key=o["Key"], size=int(o.get("Size", 0)), etag=str(o.get("ETag", "")).strip('"')
                    )
        except Exception as exc:
            raise _classify(exc, f"list s3://{bucket}/{prefix}") from exc


def split_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/key`` into bucket and key."""
    if not uri.startswith("s3://"):
        raise ValueError(f"not an s3:// URI: {uri}")
    bucket, _, key = uri[5:].partition("/")
    return bucket, key


def artifact_key(stage: str, pipeline_version: str, doc_id: str) -> str:
    """Where a stage keeps a document's artifact: one key per document and pipeline version (idempotent)."""
    return f"{stage}/v{pipeline_version}/{doc_id[:2]}/{doc_id}.json"


def pending_prefix(pipeline_version: str) -> str:
    """Where the markers of documents waiting for the model server are listed."""
    return f"pending/v{pipeline_version}/"


def pending_key(pipeline_version: str, doc_id: str) -> str:
    """Marker of a document whose model stage is waiting for the model server."""
    return f"{pending_prefix(pipeline_version)}{doc_id}.json"


def manifest_key(pipeline_version: str, doc_id: str) -> str:
    """The sink's list of what it has published for a document: its presence means final results."""
    return f"sink/published/v{pipeline_version}/{doc_id}.json"


def intent_key(pipeline_version: str, doc_id: str) -> str:
    """What the sink is about to publish for a document, written before its transaction commits.

    Whether that transaction committed is the broker's to say (its consumer group's committed offset),
    so a crash between the commit and the manifest neither loses nor repeats a record.
    """
    return f"sink/intent/v{pipeline_version}/{doc_id}.json"


def claim_key(topic: str, digest: str) -> str:
    """Where a record too large for the broker is kept: content-addressed, so a replay writes the same key."""
    return f"claims/{topic}/{digest[:2]}/{digest}.json"


def dataset_key(name: str, schema_version: str, ingest_date: str, doc_id: str) -> str:
    """One document's Parquet file in a dataset, hive-partitioned by ingest date (a replay overwrites it)."""
    return f"datasets/{name}/schema={schema_version}/ingest_date={ingest_date}/{doc_id}.parquet"


def xbrl_key(ingest_date: str, doc_id: str, name: str) -> str:
    """One file of a document's xBRL report, in the document's folder under its ingest date's partition.

    The report's files name each other by relative path (``report.json`` -> ``tieout-ext.xsd`` ->
    ``tieout-ext-cal.xml``), so they share one folder, as in ``tieout export xbrl``; the partition is the
    Parquet datasets' (:func:`dataset_key`), so a document's report sits under the same date as its rows,
    and a replay overwrites the same keys.
    """
    return f"xbrl/ingest_date={ingest_date}/{doc_id}/{name}"


def versions_key(version_key: str) -> str:
    """The sink's pointer to the versions of one document (:attr:`DocumentIdentity.version_key`).

    One object per version key, named by the key's SHA-256 (an issuer's name is free text); not per
    pipeline version, so a draft processed after an upgrade is still compared with the one before it.
    """
    return f"versions/{hashlib.sha256(version_key.encode()).hexdigest()}.json"


def marker_key(stage: str, pipeline_version: str, doc_id: str) -> str:
    """The key of the marker written once a stage's results for a document are committed."""
    return f"{stage}/v{pipeline_version}/{doc_id[:2]}/{doc_id}.done"


class MemoryStore:
    """An in-memory :class:`Store` for unit tests, with outages on demand.

    Objects are kept in ``objects`` and their content types in ``content_types``, both by (bucket, key).
    ``down`` makes every call fail as an unreachable store would (transient); ``fail_next`` fails that many
    calls and then recovers.
    """

    def __init__(self) -> None:
        """An empty store."""
        self.objects: dict[tuple[str, str], bytes] = {}
        self.content_types: dict[tuple[str, str], str] = {}
        self.down = False
        self.fail_next = 0
        self.calls = 0

    def _call(self, what: str) -> None:
        self.calls += 1
        if self.down or self.fail_next > 0:
            self.fail_next = max(0, self.fail_next - 1)
            raise StorageError(f"{what}: connection refused", transient=True)

    def ensure_bucket(self, bucket: str) -> None:
        """Buckets need no creating here."""
        self._call(f"head bucket {bucket}")

    def get_bytes(self, bucket: str, keys: list[str], *, max_bytes: int) -> tuple[str, bytes]:
        """The first of ``keys`` that exists."""
        self._call(f"get s3://{bucket}/{keys[0] if keys else ''}")
        for key in keys:
            if (bucket, key) in self.objects:
                data = self.objects[(bucket, key)]
                if len(data) > max_bytes:
                    raise StorageError(
                        f"s3://{bucket}/{key} is {len(data)} bytes, over {max_bytes}", transient=False
                    )
                return key, data
        raise StorageError(f"no object s3://{bucket}/{keys[0] if keys else ''}", transient=False)

    def download(self, bucket: str, keys: list[str], dest: Path, *, max_bytes: int) -> Downloaded:
        """Copy the first of ``keys`` that exists to ``dest``."""
        key, data = self.get_bytes(bucket, keys, max_bytes=max_bytes)
        dest.write_bytes(data)
        return Downloaded(key=key, doc_id=document_id(data), size=len(data), head=data[:_HEAD])

    def put_bytes(self, bucket: str, key: str, data: bytes, content_type: str = "application/json") -> str:
        """Store an object."""
        self._call(f"put s3://{bucket}/{key}")
        self.objects[(bucket, key)] = bytes(data)
        self.content_types[(bucket, key)] = content_type
        return f"s3://{bucket}/{key}"

    def exists(self, bucket: str, key: str) -> bool:
        """Whether an object exists."""
        self._call(f"head s3://{bucket}/{key}")
        return (bucket, key) in self.objects

    def read_uri(self, uri: str, *, max_bytes: int = 1 << 30) -> bytes:
        """Read an ``s3://bucket/key`` URI."""
        bucket, key = split_uri(uri)
        return self.get_bytes(bucket, [key], max_bytes=max_bytes)[1]

    def list_objects(self, bucket: str, prefix: str = "") -> Iterator[ListedObject]:
        """Every object under ``prefix``, in key order."""
        self._call(f"list s3://{bucket}/{prefix}")
        for (b, key), data in sorted(self.objects.items()):
            if b == bucket and key.startswith(prefix):
                yield ListedObject(key=key, size=len(data), etag=hashlib.md5(data).hexdigest())

    def delete(self, bucket: str, key: str) -> None:
        """Remove an object."""
        self._call(f"delete s3://{bucket}/{key}")
        self.objects.pop((bucket, key), None)
        self.content_types.pop((bucket, key), None)


class UnsafeKey(ValueError):
    """An object key that is empty, or that would escape its prefix once a store resolves it."""


MAX_KEY_BYTES = 1024
"""S3's longest key (UTF-8): an event announcing a longer one names no object."""


def safe_key(key: str) -> str:
    """``key`` normalised (no leading ``/``, no empty or ``.`` segments), or :class:`UnsafeKey`.

    Gateways that keep objects as files resolve ``..`` segments, so ``in/../../etc/x.pdf`` would be
    stored outside its prefix: such keys are refused, not repaired.
    """
    if not key or not key.strip():
        raise UnsafeKey("empty object key")
    size = len(key.encode("utf-8", "surrogatepass"))
    if size > MAX_KEY_BYTES:
        raise UnsafeKey(f"object key of {size} bytes, over {MAX_KEY_BYTES}")
    # Control characters (C0, DEL, C1), line and paragraph separators break a key's line in a log or a
    # listing; a lone surrogate is no character at all.
    if any(unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") for c in key):
        raise UnsafeKey(f"control character in object key {key!r}")
    parts = [p for p in key.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeKey(f"object key {key!r} climbs out of its prefix ('..')")
    if not parts:
        raise UnsafeKey(f"object key {key!r} names no object")
    return "/".join(parts)


def readable_keys(ref: ObjectRef) -> list[str]:
    """The key policy: the keys to read an object by, or :class:`UnsafeKey` for an object not to be read.

    The one rule for every way a document comes in: the parse stage applies it to the key an S3 event
    announces, ``tieout reconcile`` to every key it lists (and reports the refused ones instead of
    announcing them), so the two never disagree. Each reading of the key (as sent, and URL-decoded: S3
    events encode keys, some gateways send them raw) must pass :func:`safe_key`; one unsafe reading refuses
    the object, as a literal ``..%2F..%2F`` climbs out once a reader decodes it.
    """
    return [safe_key(k) for k in ref.key_candidates()]


def stored_key(key: str) -> str | None:
    """Where a store that keeps objects as files puts ``key``, or None when it cannot hold it.

    ``.`` and empty segments are dropped and each ``..`` takes the segment before it away (versitygw keeps
    ``in/a/../b.pdf`` as ``in/b.pdf``); a key that climbs above the bucket, which such a store refuses, or
    that names nothing gives None.
    """
    parts: list[str] = []
    for p in key.split("/"):
        if p == "..":
            if not parts:
                return None
            parts.pop()
        elif p not in ("", "."):
            parts.append(p)
    return "/".join(parts) or None


def refused_key(pipeline_version: str, bucket: str, key: str) -> str:
    """The marker of an object the parse stage refused by its key, found by where the store keeps it.

    Keyed by bucket and stored key (the bytes were never read, so there is no document id): reconcile,
    which sees only the stored key, learns that this object was refused.
    """
    digest = hashlib.sha256(f"{bucket}/{key}".encode()).hexdigest()
    return f"refused/v{pipeline_version}/{digest[:2]}/{digest}.json"


class RefusedObject(BaseModel):
    """What a refused-key marker records: the key as announced, why it was refused, and which bytes."""

    bucket: str
    key: str  # as the event announced it
    stored_as: str  # where the store keeps it
    reason: str
    etag: str | None = None  # the bytes refused: a later upload under the same name is another object

    def marker(self, pipeline_version: str) -> str:
        """Where this record is kept in the artifact bucket."""
        return refused_key(pipeline_version, self.bucket, self.stored_as)

    def covers(self, obj: ListedObject) -> bool:
        """Whether ``obj`` (listed under :attr:`stored_as`) holds the bytes that were refused."""
        return self.etag is None or self.etag.strip('"') == obj.etag.strip('"')

    @classmethod
    def of(cls, ref: ObjectRef, reason: str) -> RefusedObject | None:
        """The record for an announced object refused for ``reason``, when reconcile needs one.

        Only a key the store resolved into a key the policy accepts needs it: a store that cannot hold the
        key has no object, and one kept under the refused key is refused again when listed.
        """
        where = stored_key(ref.key)
        if where is None or where == ref.key:
            return None
        try:
            readable_keys(ObjectRef(bucket=ref.bucket, key=where))
        except UnsafeKey:
            return None
        return cls(bucket=ref.bucket, key=ref.key, stored_as=where, reason=reason, etag=ref.etag)
