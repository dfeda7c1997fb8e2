"""The embedded run's versions of each document: their results, kept beside the published figures.

``tieout run --history DIR`` keeps, in ``DIR/history.sqlite``, every document that has a
:attr:`~schemas.models.DocumentIdentity.version_key` in the order it came, with its result (statements and
tables included, compressed): a later version, in this run or a later one, is compared with it as the
services' sink compares a version with the artifact its pointer lists (:mod:`consumers.versions`).
"""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

from adapters.history.sqlite import HISTORY_FILE
from schemas.models import DocumentResult

__all__ = ["SqliteVersions"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    version_key TEXT NOT NULL,
    doc_id      TEXT NOT NULL,
    source      TEXT NOT NULL,
    result      BLOB NOT NULL,
    UNIQUE (version_key, doc_id)
);
"""


class SqliteVersions:
    """Versions of documents in the history's SQLite file (``contextlib.closing`` closes it after use)."""

    def __init__(self, folder: Path) -> None:
        """Open (or create) the ``versions`` table of ``folder/history.sqlite``."""
        folder.mkdir(parents=True, exist_ok=True)
        # as the published figures' store opens the same file (adapters.history.sqlite)
        self._db = sqlite3.connect(folder / HISTORY_FILE, timeout=30.0)
        self._db.executescript(_SCHEMA)

    def listed(self, version_key: str) -> list[str]:
        """The doc ids of the document's versions, in the order they came."""
        rows = self._db.execute(
            "SELECT doc_id FROM versions WHERE version_key = ? ORDER BY seq", (version_key,)
        )
        return [str(r[0]) for r in rows]

    def result(self, version_key: str, doc_id: str) -> DocumentResult | None:
        """A listed version's result, or None."""
        row = self._db.execute(
            "SELECT result FROM versions WHERE version_key = ? AND doc_id = ?", (version_key, doc_id)
        ).fetchone()
        return None if row is None else DocumentResult.model_validate_json(zlib.decompress(row[0]))

    def add(self, version_key: str, result: DocumentResult) -> None:
        """List ``result`` as the latest version of its document (once: a listed version stays put)."""
        body = zlib.compress(result.model_dump_json().encode(), 6)
        with self._db:
            self._db.execute(
                "INSERT INTO versions (version_key, doc_id, source, result) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (version_key, doc_id) DO NOTHING",
                (version_key, result.doc_id, result.source, body),
            )

    def close(self) -> None:
        """Close the file."""
        self._db.close()
