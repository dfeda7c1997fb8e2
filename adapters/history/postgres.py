"""The sink service's history of published figures, in the project's PostgreSQL (migration 0009).

The same store as the embedded run's :class:`~adapters.history.sqlite.SqliteHistory`, on the database the
sink writes its tables to: ``history_documents`` (one row a document: issuer, period end, stated reasons)
and ``published_figures`` (its figures, each a typed record in ``jsonb``). Writing a document again
replaces its rows in one transaction, so a redelivered document adds nothing. Every call is bounded as the
sink's are (:class:`~adapters.sinks.postgres.BoundedConnection`); the schema is migrated on first use, so
a service started while the database is down waits for it like any other outage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.history.store import StoredDocument, dump_reasons, load_reasons
from adapters.sinks.postgres import BoundedConnection, PostgresSink
from schemas.models import PublishedFigure

__all__ = ["PostgresHistory"]

_DOCUMENT = "doc_id, issuer_key, period_end, source, reasons"
_PUT_DOCUMENT = (
    b"INSERT INTO history_documents (doc_id, issuer_key, period_end, source, reasons, updated_at)"
    b" VALUES (%s, %s, %s, %s, %s::jsonb, now()) ON CONFLICT (doc_id) DO UPDATE SET"
    b" issuer_key = EXCLUDED.issuer_key, period_end = EXCLUDED.period_end, source = EXCLUDED.source,"
    b" reasons = EXCLUDED.reasons, updated_at = now()"
)


def _stored(row: tuple[Any, ...]) -> StoredDocument:
    return StoredDocument(str(row[0]), str(row[1]), str(row[2]), str(row[3]), load_reasons(row[4]))


class PostgresHistory:
    """Published figures by issuer in PostgreSQL (a :class:`~adapters.history.store.HistoryStore`)."""

    def __init__(self, db: str | BoundedConnection) -> None:
        """Remember the database; nothing is opened until the first call.

        Args:
            db: A DSN (the default timeouts), or a :class:`BoundedConnection` with timeouts of its own.
        """
        self._db = (
            db
            if isinstance(db, BoundedConnection)
            else BoundedConnection(db, application_name="tieout-history")
        )
        self._migrated = False

    def _conn(self) -> Any:
        """The open connection, the schema migrated on first use."""
        if not self._migrated:
            PostgresSink(self._db).migrate()
            self._migrated = True
        return self._db.get()

    def put(self, document: StoredDocument, figures: Sequence[PublishedFigure]) -> None:
        """Store a document's figures and reasons, replacing what was stored for it (one transaction)."""
        conn = self._conn()
        with conn.transaction(), conn.cursor() as cur:
            # The document's row first: its row lock serialises two writers of one document.
            cur.execute(
                _PUT_DOCUMENT,
                (
                    document.doc_id,
                    document.issuer_key,
                    document.period_end,
                    document.source,
                    dump_reasons(document.reasons),
                ),
            )
            cur.execute(b"DELETE FROM published_figures WHERE doc_id = %s", (document.doc_id,))
            if figures:
                cur.executemany(
                    b"INSERT INTO published_figures (doc_id, key, figure) VALUES (%s, %s, %s::jsonb)",
                    [(document.doc_id, f.key, f.model_dump_json()) for f in figures],
                )

    def document(self, doc_id: str) -> StoredDocument | None:
        """The stored document with this id, if any."""
        row = (
            self._conn()
            .execute(f"SELECT {_DOCUMENT} FROM history_documents WHERE doc_id = %s".encode(), (doc_id,))
            .fetchone()
        )
        return None if row is None else _stored(row)

    def figures(self, doc_id: str) -> list[PublishedFigure]:
        """The figures stored for one document."""
        rows = self._conn().execute(
            b"SELECT figure::text FROM published_figures WHERE doc_id = %s ORDER BY seq", (doc_id,)
        )
        return [PublishedFigure.model_validate_json(r[0]) for r in rows]

    def earlier(self, document: StoredDocument) -> list[PublishedFigure]:
        """The figures its issuer published in documents whose period ends before this one's."""
        rows = self._conn().execute(
            b"SELECT f.figure::text FROM published_figures f JOIN history_documents d ON d.doc_id = f.doc_id"
            b" WHERE d.issuer_key = %s AND d.period_end < %s AND d.doc_id <> %s ORDER BY f.seq",
            (document.issuer_key, document.period_end, document.doc_id),
        )
        return [PublishedFigure.model_validate_json(r[0]) for r in rows]

    def later(self, document: StoredDocument) -> list[StoredDocument]:
        """Its issuer's documents whose period ends after this one's, earliest first."""
        rows = self._conn().execute(
            f"SELECT {_DOCUMENT} FROM history_documents WHERE issuer_key = %s AND period_end > %s"
            " ORDER BY period_end, doc_id".encode(),
            (document.issuer_key, document.period_end),
        )
        return [_stored(row) for row in rows]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()
