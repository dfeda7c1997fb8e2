"""Stable identifiers for records, so that re-running a document yields the same ids."""

from __future__ import annotations

import hashlib

__all__ = ["ID_LENGTH", "document_hasher", "document_id", "stable_id"]

ID_LENGTH = 16
"""Hex characters kept from the sha256 digest (64 bits): short, and collisions stay negligible per run."""


def _part_text(part: object) -> str:
    """Render one id part deterministically (floats are rounded so tiny FP noise cannot change an id)."""
    if part is None:
        return ""
    if isinstance(part, float):
        return f"{part:.4f}"
    if isinstance(part, (tuple, list)):
        return "(" + ",".join(_part_text(p) for p in part) + ")"
    return str(part)


def stable_id(*parts: object) -> str:
    """Return a short, deterministic hex id derived from ``parts``.

    Args:
        *parts: Anything with a stable ``str``; ``None`` renders as empty, floats to 4 decimals,
            tuples and lists element-wise.

    Returns:
        The first ``ID_LENGTH`` hex characters of the sha256 of the joined parts.
    """
    # A unit separator that cannot appear in printed labels keeps ("a", "bc") distinct from ("ab", "c").
    joined = "\x1f".join(_part_text(p) for p in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:ID_LENGTH]


def document_hasher() -> hashlib._Hash:
    """A hash to feed a document's bytes to, chunk by chunk; its hex digest is the document id."""
    return hashlib.sha256()


def document_id(data: bytes) -> str:
    """A document's id: the sha256 of its bytes, so the same file always gets the same id."""
    hasher = document_hasher()
    hasher.update(data)
    return hasher.hexdigest()
