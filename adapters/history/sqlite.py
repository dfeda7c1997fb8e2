"""The embedded run's history of published figures: one SQLite file (``tieout run --history DIR``).

A folder of several years of one issuer ties out across its documents without servers: each document's
published figures and its stated reasons for restating go in as it is processed; each document is then
compared with the documents of its issuer whose period ends earlier. Writing a document again replaces its
rows (keyed by doc id), so a rerun is idempotent.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from adapters.history.store import StoredDocument, dump_reasons, load_reasons
from schemas.models import PublishedFigure

__all__ = ["HISTORY_FILE", "SqliteHistory", "StoredDocument"]

HISTORY_FILE = "history.sqlite"
"""The file's name in the ``--history`` folder."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    issuer_key TEXT NOT NULL,
    period_end TEXT NOT NULL,
    source TEXT NOT NULL,
    reasons TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_issuer ON documents (issuer_key, period_end);
CREATE TABLE IF NOT EXISTS figures (
    doc_id TEXT NOT NULL REFERENCES documents (doc_id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    figure TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS figures_doc ON figures (doc_id);
"""


_DOCUMENT = "doc_id, issuer_key, period_end, source, reasons"


def _stored(row: tuple[str, str, str, str, str]) -> StoredDocument:
    return StoredDocument(row[0], row[1], row[2], row[3], load_reasons(row[4]))


class SqliteHistory:
    """Published figures by issuer in one SQLite file (``contextlib.closing`` closes it after use)."""

    def __init__(self, folder: Path) -> None:
        """Open (or create) ``folder/history.sqlite``."""
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / HISTORY_FILE
        # The run's main thread is the only writer; a timeout rather than failing at once if another
        # process holds the file (two runs sharing one history folder). Any one thread at a time may use it
        # (the services call their history from a worker thread, one call after another).
        self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.executescript(_SCHEMA)

    def put(self, document: StoredDocument, figures: Sequence[PublishedFigure]) -> None:
        """Store a document's figures and reasons, replacing what was stored for it (one transaction)."""
        reasons = dump_reasons(document.reasons)
        with self._db:
            self._db.execute("DELETE FROM documents WHERE doc_id = ?", (document.doc_id,))
            self._db.execute(
                "INSERT INTO documents VALUES (?, ?, ?, ?, ?)",
                (document.doc_id, document.issuer_key, document.period_end, document.source, reasons),
            )
            self._db.executemany(
                "INSERT INTO figures VALUES (?, ?, ?)",
                [(f.doc_id, f.key, f.model_dump_json()) for f in figures],
            )

    def document(self, doc_id: str) -> StoredDocument | None:
        """The stored document with this id, if any."""
        row = self._db.execute(f"SELECT {_DOCUMENT} FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return None if row is None else _stored(row)

    def figures(self, doc_id: str) -> list[PublishedFigure]:
        """The figures stored for one document."""
        rows = self._db.execute("SELECT figure FROM figures WHERE doc_id = ?", (doc_id,))
        return [PublishedFigure.model_validate_json(r[0]) for r in rows]

    def earlier(self, document: StoredDocument) -> list[PublishedFigure]:
        """The figures its issuer published in documents whose period ends before this one's."""
        rows = self._db.execute(
            "SELECT f.figure FROM figures f JOIN documents d ON d.doc_id = f.doc_id "
            "WHERE d.issuer_key = ? AND d.period_end < ? AND d.doc_id != ?",
            (document.issuer_key, document.period_end, document.doc_id),
        )
        return [PublishedFigure.model_validate_json(r[0]) for r in rows]

    def later(self, document: StoredDocument) -> list[StoredDocument]:
        """Its issuer's documents whose period ends after this one's, earliest first."""
        rows = self._db.execute(
            f"SELECT {_DOCUMENT} FROM documents WHERE issuer_key = ? AND period_end > ? "
            "ORDER BY period_end, doc_id",
            (document.issuer_key, document.period_end),
        )
        return [_stored(row) for row in rows]

    def close(self) -> None:
        """Close the file."""
        self._db.close()
