"""The services' review store: flags and facts from the sink's PostgreSQL tables, decisions beside them.

Reads ``flags``, ``facts`` and ``documents`` as :class:`~adapters.sinks.postgres.PostgresSink` writes them
and keeps review state in ``flag_reviews`` and the audit trail in ``review_decisions`` (migration
``0004_reviews``, applied by the sink's migrator: :meth:`PostgresReviewStore.migrate`). A flag without a
``flag_reviews`` row is open at version 0.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from adapters.review.store import Columns, DocumentRow, SqlReviewStore
from adapters.sinks.postgres import BoundedConnection, PostgresSink
from schemas.models import DocumentChanges, Flag
from schemas.reviews import FlagReview, ReviewDecision

__all__ = ["COLUMNS", "DECISION_LOCK_KEY", "PostgresReviewStore"]

DECISION_LOCK_KEY = 0x7469656F7572  # serialises decisions, so review_decisions.seq is commit order

COLUMNS = Columns(
    flag_id="f.flag_id",
    doc_id="f.doc_id",
    rule="f.rule",
    kind="f.kind",
    severity="f.severity",
    sev_rank="(CASE f.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END)",
    # the record's confidence, a float8 as the flag has it (the `confidence` column is a float4)
    confidence="((f.record->>'confidence')::float8)",
    status="COALESCE(r.status, 'open')",
    assignee="r.assignee",
    source="(f.record->>'source')",
    first_page="(SELECT min(p) FROM unnest(f.pages) AS p)",
    # the same fixed-width UTC text as adapters.review.store.ts_key, so keyset cursors compare alike
    updated=(
        "COALESCE(to_char(r.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), '')"
    ),
)


_CHANGES = [name for name in DocumentChanges.model_fields if name != "schema_version"]
"""The ``changes`` table's columns that hold a DocumentChanges' fields (migration 0010_changes)."""


class PostgresReviewStore(SqlReviewStore):
    """Review store over the sink's database; one connection behind a lock, every call bounded."""

    COLUMNS = COLUMNS
    FLAGS = (
        "flags f JOIN documents d ON d.doc_id = f.doc_id LEFT JOIN flag_reviews r ON r.flag_id = f.flag_id"
    )
    ROW = "f.record, r.status, r.assignee, r.reason, r.version, r.updated_at, r.updated_by"
    DECISIONS = "review_decisions"
    CURSORS = "review_cursors"
    LOCK_ROW = " FOR UPDATE OF f"
    FACT_ORDER = '"row", col, fact_id'

    def __init__(
        self,
        dsn: str,
        *,
        connect_timeout_s: float = 10,
        statement_timeout_s: float = 30,
        migrate: bool = True,
    ) -> None:
        """Connect to ``dsn`` (and apply pending migrations, 0004_reviews among them, unless told not to).

        Raises:
            psycopg.OperationalError: if the database cannot be reached.
        """
        self._db = BoundedConnection(
            dsn,
            application_name="tieout-review",
            connect_timeout_s=connect_timeout_s,
            statement_timeout_s=statement_timeout_s,
            lock_timeout_s=statement_timeout_s,
        )
        self._lock = threading.RLock()
        if migrate:
            self.migrate()

    def migrate(self) -> list[str]:
        """Apply the sink's pending migrations (the same migrator, so one ``schema_migrations``)."""
        with PostgresSink(self._db.dsn) as sink:
            return sink.migrate()

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.get().execute(sql.encode(), params or None).fetchall()

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        with self._lock:
            return self._db.get().execute(sql.encode(), params or None).rowcount

    # ------------------------------------------------------------------ the dialect's steps

    @contextmanager
    def _decision(self) -> Iterator[object]:
        with self._lock:
            conn = self._db.get()
            with conn.transaction():
                # serialises decisions (so review_decisions.seq is commit order) beside the row lock
                conn.execute(b"SELECT pg_advisory_xact_lock(%s)", (DECISION_LOCK_KEY,))
                yield conn

    def _save_state(self, flag: Flag, before: FlagReview, new: FlagReview) -> bool:
        changed = self._execute(
            "INSERT INTO flag_reviews (flag_id, doc_id, status, assignee, reason, version,"
            " updated_at, updated_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (flag_id) DO UPDATE SET status = EXCLUDED.status,"
            " assignee = EXCLUDED.assignee, reason = EXCLUDED.reason, version = EXCLUDED.version,"
            " updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by"
            " WHERE flag_reviews.version = %s",
            (
                flag.flag_id,
                flag.doc_id,
                new.status,
                new.assignee,
                new.reason,
                new.version,
                new.updated_at,
                new.updated_by,
                before.version,
            ),
        )
        return changed == 1

    def _append(self, decision: ReviewDecision) -> None:
        self._execute(
            "INSERT INTO review_decisions (review_id, flag_id, doc_id, action, status, reviewer,"
            " decided_at, record) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb)",
            (
                decision.review_id,
                decision.flag_id,
                decision.doc_id,
                decision.action,
                decision.status,
                decision.reviewer,
                decision.decided_at,
                decision.model_dump_json(),
            ),
        )

    # ------------------------------------------------------------------ documents and facts

    def documents(self) -> list[DocumentRow]:
        """See :meth:`adapters.review.store.ReviewStore.documents`."""
        rows = self._query(
            f"SELECT f.doc_id, min(d.source), count(*), count(*) FILTER (WHERE {COLUMNS.status} = 'open')"
            f" FROM {self.FLAGS} GROUP BY f.doc_id ORDER BY 2"
        )
        return [DocumentRow(str(d), str(s), int(n), int(o)) for d, s, n, o in rows]

    def sources(self) -> list[tuple[str, str]]:
        """See :meth:`adapters.review.store.ReviewStore.sources`."""
        # the documents with flags, and both versions of each changes record (the earlier may have none)
        rows = self._query(
            "SELECT doc_id, min(source) FROM (SELECT doc_id, source FROM documents WHERE flags > 0"
            " UNION ALL SELECT new_doc_id, new_source FROM changes"
            " UNION ALL SELECT old_doc_id, old_source FROM changes) v GROUP BY doc_id ORDER BY 2, 1"
        )
        return [(str(d), str(s)) for d, s in rows]

    def changes_of(self, doc_id: str) -> DocumentChanges | None:
        """See :meth:`adapters.review.store.ReviewStore.changes_of` (the sink's ``changes`` row)."""
        rows = self._query(f"SELECT {', '.join(_CHANGES)} FROM changes WHERE new_doc_id = %s", (doc_id,))
        return DocumentChanges.model_validate(dict(zip(_CHANGES, rows[0], strict=True))) if rows else None

    def options(self) -> dict[str, list[str]]:
        """See :meth:`adapters.review.store.ReviewStore.options`."""
        out = {
            name: [str(r[0]) for r in self._query(f"SELECT DISTINCT {name} FROM flags ORDER BY 1")]
            for name in ("rule", "kind", "severity")
        }
        out["assignee"] = [
            str(r[0])
            for r in self._query(
                "SELECT DISTINCT assignee FROM flag_reviews WHERE assignee IS NOT NULL ORDER BY 1"
            )
        ]
        return out

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._db.close()
