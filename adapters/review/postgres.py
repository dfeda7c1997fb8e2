"""The services' review store: flags and facts from the sink's PostgreSQL tables, decisions beside them.

Reads ``flags``, ``facts`` and ``documents`` as :class:`~adapters.sinks.postgres.PostgresSink` writes them
and keeps review state in ``flag_reviews`` and the audit trail in ``review_decisions`` (migration
``0004_reviews``, applied by the sink's migrator: :meth:`PostgresReviewStore.migrate`). A flag without a
``flag_reviews`` row is open at version 0.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from adapters.review.store import (
    Columns,
    DecisionRequest,
    DocumentRow,
    FlagQuery,
    QueuePage,
    QueueRow,
    ReviewError,
    StaleDecision,
    apply_decision,
    check_limit,
    decode_cursor,
    empty_counts,
    encode_cursor,
    page_of,
    queue_sql,
    sort_values,
    where_sql,
)
from adapters.sinks.postgres import PostgresSink
from schemas.models import Fact, Flag
from schemas.reviews import FlagReview, ReviewDecision, ReviewStatus

DECISION_LOCK_KEY = 0x7469656F7572  # serialises decisions, so review_decisions.seq is commit order

_FROM = "flags f JOIN documents d ON d.doc_id = f.doc_id LEFT JOIN flag_reviews r ON r.flag_id = f.flag_id"

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

_ROW = "f.record, r.status, r.assignee, r.reason, r.version, r.updated_at, r.updated_by"


def _queue_row(row: Sequence[Any]) -> QueueRow:
    flag = Flag.model_validate(row[0])
    status, assignee, reason, version, updated_at, updated_by = row[1:]
    review = FlagReview(
        flag_id=flag.flag_id,
        status=status or "open",
        assignee=assignee,
        reason=reason,
        version=version or 0,
        updated_at=updated_at,
        updated_by=updated_by,
    )
    return QueueRow(flag, review)


class PostgresReviewStore:
    """Review store over the sink's database; one connection behind a lock, every call bounded."""

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
        self._dsn = dsn
        self._connect_timeout = max(2, math.ceil(connect_timeout_s))
        ms = max(1, round(statement_timeout_s * 1000))
        self._options = (
            f"-c statement_timeout={ms} -c lock_timeout={ms} -c idle_in_transaction_session_timeout={ms}"
        )
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None
        if migrate:
            self.migrate()

    def migrate(self) -> list[str]:
        """Apply the sink's pending migrations (the same migrator, so one ``schema_migrations``)."""
        with PostgresSink(self._dsn, connect_timeout_s=self._connect_timeout) as sink:
            return sink.migrate()

    def _connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._conn is not None:
                self._conn.close()
            self._conn = psycopg.connect(
                self._dsn,
                autocommit=True,
                connect_timeout=self._connect_timeout,
                options=self._options,
                application_name="tieout-review",
            )
        return self._conn

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._connection().execute(sql.encode(), params or None).fetchall()

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        with self._lock:
            conn = self._connection()
            with conn.transaction():
                yield conn

    # ------------------------------------------------------------------ queue

    def queue(
        self, q: FlagQuery, *, after: str | None = None, before: str | None = None, limit: int = 50
    ) -> QueuePage:
        """See :meth:`adapters.review.store.ReviewStore.queue`."""
        check_limit(limit)
        sql, params, backwards = queue_sql(
            COLUMNS, q, _ROW, after=decode_cursor(after), before=decode_cursor(before), limit=limit
        )
        rows = [_queue_row(r) for r in self._query(sql.replace("{from}", _FROM), params)]
        rows, next_cursor, prev_cursor = page_of(
            rows, limit=limit, backwards=backwards, had_cursor=bool(after or before), q=q
        )
        where, wparams = where_sql(COLUMNS, q.without_status())
        counts = empty_counts()
        for status, n in self._query(
            f"SELECT {COLUMNS.status}, count(*) FROM {_FROM} WHERE {where} GROUP BY 1", wparams
        ):
            counts[str(status)] = int(n)
        total = counts.get(q.status, 0) if q.status else sum(counts.values())
        return QueuePage(rows, counts, total, next_cursor, prev_cursor)

    def neighbours(self, q: FlagQuery, flag_id: str) -> tuple[str | None, str | None]:
        """See :meth:`adapters.review.store.ReviewStore.neighbours`."""
        row = self.get(flag_id)
        if row is None:
            return None, None
        cursor = encode_cursor(sort_values(q.sort, row.flag, row.review, row.flag.source))
        before = self.queue(q, before=cursor, limit=1).rows
        after = self.queue(q, after=cursor, limit=1).rows
        return (before[0].flag.flag_id if before else None, after[0].flag.flag_id if after else None)

    def get(self, flag_id: str) -> QueueRow | None:
        """See :meth:`adapters.review.store.ReviewStore.get`."""
        rows = self._query(f"SELECT {_ROW} FROM {_FROM} WHERE f.flag_id = %s", (flag_id,))
        return _queue_row(rows[0]) if rows else None

    # ------------------------------------------------------------------ decisions

    def decide(self, req: DecisionRequest, *, users: Sequence[str] | None = None) -> ReviewDecision:
        """See :meth:`adapters.review.store.ReviewStore.decide`."""
        with self._transaction() as conn:
            conn.execute(b"SELECT pg_advisory_xact_lock(%s)", (DECISION_LOCK_KEY,))
            rows = conn.execute(
                f"SELECT {_ROW} FROM {_FROM} WHERE f.flag_id = %s FOR UPDATE OF f".encode(), (req.flag_id,)
            ).fetchall()
            if not rows:
                raise ReviewError(f"no flag {req.flag_id!r}")
            current = _queue_row(rows[0])
            try:
                new, decision = apply_decision(current.flag, current.review, req, users=users)
            except StaleDecision as stale:
                raise StaleDecision(stale.current, self._last_state_change(conn, req.flag_id)) from None
            if new.version != current.review.version:
                cur = conn.execute(
                    b"INSERT INTO flag_reviews (flag_id, doc_id, status, assignee, reason, version,"
                    b" updated_at, updated_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
                    b" ON CONFLICT (flag_id) DO UPDATE SET status = EXCLUDED.status,"
                    b" assignee = EXCLUDED.assignee, reason = EXCLUDED.reason, version = EXCLUDED.version,"
                    b" updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by"
                    b" WHERE flag_reviews.version = %s",
                    (
                        req.flag_id,
                        current.flag.doc_id,
                        new.status,
                        new.assignee,
                        new.reason,
                        new.version,
                        new.updated_at,
                        new.updated_by,
                        current.review.version,
                    ),
                )
                if cur.rowcount != 1:  # another writer got in first despite the lock: refuse
                    raise StaleDecision(current.review, None)
            conn.execute(
                b"INSERT INTO review_decisions (review_id, flag_id, doc_id, action, status, reviewer,"
                b" decided_at, record) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb)",
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
        return decision

    @staticmethod
    def _last_state_change(conn: psycopg.Connection[tuple[Any, ...]], flag_id: str) -> ReviewDecision | None:
        row = conn.execute(
            b"SELECT record FROM review_decisions WHERE flag_id = %s AND action <> 'comment'"
            b" ORDER BY seq DESC LIMIT 1",
            (flag_id,),
        ).fetchone()
        return ReviewDecision.model_validate(row[0]) if row else None

    def history(self, flag_id: str) -> list[ReviewDecision]:
        """See :meth:`adapters.review.store.ReviewStore.history`."""
        rows = self._query("SELECT record FROM review_decisions WHERE flag_id = %s ORDER BY seq", (flag_id,))
        return [ReviewDecision.model_validate(r[0]) for r in rows]

    def decisions_since(self, seq: int = 0, limit: int = 1000) -> list[tuple[int, ReviewDecision]]:
        """See :meth:`adapters.review.store.ReviewStore.decisions_since`."""
        rows = self._query(
            "SELECT seq, record FROM review_decisions WHERE seq > %s ORDER BY seq LIMIT %s", (seq, limit)
        )
        return [(int(s), ReviewDecision.model_validate(r)) for s, r in rows]

    def latest_decisions(self, status: ReviewStatus | None = None) -> list[ReviewDecision]:
        """See :meth:`adapters.review.store.ReviewStore.latest_decisions`."""
        sql = (
            "SELECT record FROM (SELECT DISTINCT ON (flag_id) seq, status, record FROM review_decisions"
            " WHERE action IN ('confirm', 'dismiss', 'reopen') ORDER BY flag_id, seq DESC) last"
            " WHERE status <> 'open'"
        )
        params: list[object] = []
        if status is not None:
            sql += " AND status = %s"
            params.append(status)
        return [ReviewDecision.model_validate(r[0]) for r in self._query(sql + " ORDER BY seq", params)]

    # ------------------------------------------------------------------ documents and facts

    def documents(self) -> list[DocumentRow]:
        """See :meth:`adapters.review.store.ReviewStore.documents`."""
        rows = self._query(
            f"SELECT f.doc_id, min(d.source), count(*), count(*) FILTER (WHERE {COLUMNS.status} = 'open')"
            f" FROM {_FROM} GROUP BY f.doc_id ORDER BY 2"
        )
        return [DocumentRow(str(d), str(s), int(n), int(o)) for d, s, n, o in rows]

    def sources(self) -> list[tuple[str, str]]:
        """See :meth:`adapters.review.store.ReviewStore.sources`."""
        rows = self._query("SELECT doc_id, source FROM documents WHERE flags > 0 ORDER BY source, doc_id")
        return [(str(d), str(s)) for d, s in rows]

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

    def _facts(self, where: str, params: Sequence[object], order: str) -> list[Fact]:
        rows = self._query(f"SELECT record FROM facts WHERE {where} ORDER BY {order}", params)
        return [Fact.model_validate(r[0]) for r in rows]

    def facts_of_table(self, doc_id: str, table_id: str) -> list[Fact]:
        """See :meth:`adapters.review.store.ReviewStore.facts_of_table`."""
        return self._facts("doc_id = %s AND table_id = %s", (doc_id, table_id), '"row", col, fact_id')

    def facts_near(self, doc_id: str, page: int) -> list[Fact]:
        """See :meth:`adapters.review.store.ReviewStore.facts_near`."""
        return self._facts("doc_id = %s AND page = %s", (doc_id, page), '"row", col, fact_id')

    def facts_for(self, doc_id: str, metric: str, period_key: str | None) -> list[Fact]:
        """See :meth:`adapters.review.store.ReviewStore.facts_for`."""
        if period_key is None:
            return self._facts("doc_id = %s AND metric = %s", (doc_id, metric), 'page, "row", col, fact_id')
        return self._facts(
            "doc_id = %s AND metric = %s AND period_key = %s",
            (doc_id, metric, period_key),
            'page, "row", col, fact_id',
        )

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
