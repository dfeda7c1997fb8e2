"""The sink's view across versions of a document: the version before this one, and what changed since.

Documents with the same :attr:`~schemas.models.DocumentIdentity.version_key` are versions of one document
(a draft and the next, a filing and its amendment); their doc ids tell their bytes apart. The sink keeps
one small pointer per version key in the artifact bucket (:func:`adapters.storage.versions_key`)::

    {"version_key": "...", "versions": [{"doc_id": ..., "artifact": ..., "source": ...}, ...]}
    # in the order they came: the last is the latest

A document not yet listed is compared with the latest version (:func:`diff_documents` on both verified
artifacts) and joins the list once its results are committed (:meth:`Versions.record`, called after the
commit). A document already listed — a redelivery, a replay, its model stage completed later — is
compared with the version listed before it, so it gives the same record every time
(:func:`pipeline.across.versions.previous_version`, the rule the embedded run follows too).

Two versions of one document handled at the same moment by two sink workers may each miss the other
(the pointer is read, then written): each is then compared with the version before both.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import structlog

from adapters.settings import Settings
from adapters.storage import Store, split_uri, versions_key
from consumers.artifacts import read_json, store_call
from schemas.models import DocumentChanges, DocumentResult

__all__ = ["Versions", "changes_id", "versions_of"]

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Versions:
    """What the sink learnt of a document's versions.

    Attributes:
        result: The document, with the VER001 flags of ``changes`` among its flags.
        changes: What changed since its previous version; None for a first version, or a document
            whose version key is unknown.
        pointer: The pointer's key and its new body, to write once the results are committed; None when
            the document is already listed (or has no version key).
    """

    result: DocumentResult
    changes: DocumentChanges | None = None
    pointer: tuple[str, bytes] | None = None

    async def record(self, store: Store, bucket: str) -> None:
        """List this version in its pointer (after the commit: the next version is compared with it)."""
        if self.pointer is not None:
            key, body = self.pointer
            await store_call(store.put_bytes, bucket, key, body)


def changes_id(changes: DocumentChanges) -> str:
    """A changes record's entry in the sink's manifest: one per later version and earlier version."""
    return f"changes:{changes.old_doc_id}"


async def versions_of(store: Store, settings: Settings, result: DocumentResult, artifact: str) -> Versions:
    """The document's previous version (per its pointer) and the changes since it.

    Args:
        store: The object store.
        settings: Where the artifact bucket is.
        result: The verified document in the sink's hands.
        artifact: Its verified artifact's URI (what the pointer keeps for the next version).

    Returns:
        The document with its VER001 flags, its changes, and the pointer to write after the commit.
    """
    version_key = result.identity.version_key if result.identity else None
    if version_key is None:
        return Versions(result)
    # imported here, as diff_documents is: pipeline.across pulls in the checks (not needed to start)
    from pipeline.across.versions import previous_version

    bucket, key = settings.artifact_bucket, versions_key(version_key)
    listed: list[dict[str, Any]] = list((await read_json(store, bucket, key) or {}).get("versions", []))
    at, joins = previous_version([str(v["doc_id"]) for v in listed], result.doc_id)
    previous = listed[at] if at is not None else None
    pointer = None
    if joins:
        entry = {"doc_id": result.doc_id, "artifact": artifact, "source": result.source}
        pointer = (key, json.dumps({"version_key": version_key, "versions": [*listed, entry]}).encode())
    old = await _verified(store, previous) if previous is not None else None
    if old is None:
        return Versions(result, None, pointer)
    from pipeline.across.diff import diff_documents

    changes = await asyncio.to_thread(diff_documents, old, result)
    log.info(
        "compared with the previous version",
        previous=old.doc_id[:12],
        changes=len(changes.changes),
        broken=len(changes.flags),
    )
    flagged = result.model_copy(update={"flags": [*result.flags, *changes.flags]})
    return Versions(flagged, changes, pointer)


async def _verified(store: Store, version: dict[str, Any]) -> DocumentResult | None:
    """A listed version's verified document; None (logged) when its artifact is gone."""
    uri = str(version["artifact"])
    bucket, key = split_uri(uri)
    if not await store_call(store.exists, bucket, key):
        log.warning("previous version's artifact is gone: no changes", previous=str(version["doc_id"])[:12])
        return None
    return DocumentResult.model_validate_json(await store_call(store.read_uri, uri))
