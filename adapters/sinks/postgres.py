"""PostgreSQL sink: one row per document, fact and flag (and changes), with ordered SQL migrations.

Migrations are the ``NNNN_name.sql`` files of ``adapters/sinks/migrations`` (shipped as package data),
applied in numeric order, each in its own transaction and recorded in ``schema_migrations``. A writer
replaces a document's rows as a whole: :meth:`PostgresSink.write` upserts the document, its facts and its
flags and deletes the facts and flags the new result no longer has, in one transaction, so a replay adds
nothing and a new pipeline version leaves exactly its own set.

Every call is bounded: ``connect_timeout`` for connecting, ``statement_timeout`` and ``lock_timeout`` for
each statement (including the wait for the migration lock).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from importlib import resources
from types import TracebackType
from typing import Any, Protocol

import psycopg
from psycopg import sql

from adapters.sinks.base import SinkBatch, SinkOutage, SinkRefused
from adapters.sinks.rows import CHANGES, DOCUMENTS, FACTS, FLAGS, ColumnType, R, RowLayout
from schemas.models import Fact, Flag

__all__ = [
    "MIGRATIONS_DIR",
    "MIGRATIONS_PACKAGE",
    "MIGRATION_LOCK_KEY",
    "RECORD_COLUMN",
    "BoundedConnection",
    "Migration",
    "PostgresSink",
    "PostgresTables",
    "database_transient",
    "load_migrations",
    "order_migrations",
    "ping",
    "table_columns",
]

MIGRATIONS_PACKAGE = "adapters.sinks"
MIGRATIONS_DIR = "migrations"

MIGRATION_LOCK_KEY = 0x7469656F7574  # "tieout" in ASCII: the advisory lock that serialises migrate()
"""Key of the session advisory lock held while migrating (any constant shared by all tieout sinks)."""

_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

_SCHEMA_MIGRATIONS = b"""
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    text        PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


@dataclass(frozen=True)
class Migration:
    """One migration file.

    Attributes:
        version: The file name without ``.sql`` (``0001_initial``); what ``schema_migrations`` records.
        sql: The statements, run as one transaction (the file has no BEGIN/COMMIT of its own).
    """

    version: str
    sql: str


def order_migrations(names: Iterable[str]) -> list[str]:
    """Return the migration file names in the order they apply.

    Only ``NNNN_name.sql`` names count (other files, e.g. a README, are ignored); the order is the
    numeric prefix, and two files with the same number are an error rather than an arbitrary order.

    Args:
        names: File names, in any order.

    Returns:
        The ``.sql`` migration names sorted by their number.

    Raises:
        ValueError: if two migrations share a number, or a ``.sql`` file is not named ``NNNN_name.sql``.
    """
    by_number: dict[int, str] = {}
    for name in names:
        if not name.endswith(".sql"):
            continue
        m = _MIGRATION_NAME.match(name)
        if m is None:
            raise ValueError(f"migration {name!r} is not named NNNN_lower_snake_name.sql")
        number = int(m.group(1))
        if number in by_number:
            raise ValueError(f"migrations {by_number[number]!r} and {name!r} share the number {number:04d}")
        by_number[number] = name
    return [by_number[n] for n in sorted(by_number)]


def load_migrations() -> list[Migration]:
    """The migrations shipped with the package, in the order they apply."""
    folder = resources.files(MIGRATIONS_PACKAGE).joinpath(MIGRATIONS_DIR)
    names = [entry.name for entry in folder.iterdir() if entry.is_file()]
    return [
        Migration(name.removesuffix(".sql"), folder.joinpath(name).read_text(encoding="utf-8"))
        for name in order_migrations(names)
    ]


_PG_TYPES: dict[ColumnType, str] = {
    "text": "text",
    "integer": "integer",
    "decimal": "numeric",
    "real": "real",
    "date": "date",
    "bbox": "jsonb",
    "text_list": "jsonb",
    "integer_list": "integer[]",
    "json": "jsonb",
}
"""How each column type of :mod:`adapters.sinks.rows` is stored (the migrations create these)."""

RECORD_COLUMN = "record"
"""Beside the columns, facts and flags keep their whole typed record as ``jsonb``: nothing is lost when a
field is not (yet) broken out."""


def table_columns(layout: RowLayout[Any]) -> dict[str, str]:
    """Column → PostgreSQL type of a layout's table, as the migrations must leave it."""
    return {c.name: _PG_TYPES[c.type] for c in layout.columns}


def _pg_value(kind: ColumnType, value: object) -> object:
    if value is not None and _PG_TYPES[kind] == "jsonb":
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    return value


def _upsert(layout: RowLayout[Any], extra: Sequence[tuple[str, str]]) -> sql.Composed:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` of a layout's columns and ``(name, expression)`` extras."""
    names = [c.name for c in layout.columns] + [name for name, _ in extra]
    values = [sql.SQL("%s::jsonb" if _PG_TYPES[c.type] == "jsonb" else "%s") for c in layout.columns]
    values += [sql.SQL(expression) for _, expression in extra]
    return sql.SQL(
        "INSERT INTO {table} ({names}) VALUES ({values}) ON CONFLICT ({key}) DO UPDATE SET {set}"
    ).format(
        table=sql.Identifier(layout.name),
        names=sql.SQL(", ").join(map(sql.Identifier, names)),
        values=sql.SQL(", ").join(values),
        key=sql.Identifier(layout.key),
        set=sql.SQL(", ").join(
            sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(n)) for n in names if n != layout.key
        ),
    )


def _params(layout: RowLayout[R], record: R) -> list[object]:
    return [
        _pg_value(c.type, value) for c, value in zip(layout.columns, layout.row(record).values(), strict=True)
    ]


def _with_record(layout: RowLayout[R], record: R) -> list[object]:
    assert isinstance(record, Fact | Flag)  # the two layouts whose rows keep their record
    return [*_params(layout, record), record.model_dump_json()]


_UPSERT_DOCUMENT = _upsert(DOCUMENTS, [("ingest_date", "%s"), ("updated_at", "now()")])
_UPSERT_FACT = _upsert(FACTS, [(RECORD_COLUMN, "%s::jsonb")])
_UPSERT_FLAG = _upsert(FLAGS, [(RECORD_COLUMN, "%s::jsonb")])
_UPSERT_CHANGES = _upsert(CHANGES, [("ingest_date", "%s"), ("updated_at", "now()")])

# `<> ALL(empty array)` is true, so a result without facts (or flags) deletes them all, as it should.
_DELETE_STALE_FACTS = b"DELETE FROM facts WHERE doc_id = %s AND fact_id <> ALL(%s::text[])"
_DELETE_STALE_FLAGS = b"DELETE FROM flags WHERE doc_id = %s AND flag_id <> ALL(%s::text[])"


class BoundedConnection:
    """One connection to a database, opened on first use and reopened on the next call if it broke.

    Every call on it is bounded: ``connect_timeout`` for connecting, ``statement_timeout`` and
    ``lock_timeout`` for each statement, ``idle_in_transaction_session_timeout`` for a session left
    mid-transaction. It is in autocommit mode: transactions are explicit (``conn.transaction()`` blocks).
    Shared by the sink and the review store, so both connect alike.
    """

    def __init__(
        self,
        dsn: str,
        *,
        application_name: str,
        connect_timeout_s: float = 10,
        statement_timeout_s: float = 60,
        lock_timeout_s: float = 30,
    ) -> None:
        """Remember how to connect to ``dsn``; nothing is opened yet.

        Args:
            dsn: A libpq connection string or URI (``postgresql://tieout@127.0.0.1:5432/tieout``).
            application_name: What ``pg_stat_activity`` shows for the session.
            connect_timeout_s: Bound on establishing the connection (libpq's minimum is 2 s).
            statement_timeout_s: Bound on any one statement, server-side.
            lock_timeout_s: Bound on waiting for a lock (row locks of a concurrent writer, the migration
                lock), so contention fails with an error instead of hanging.
        """
        self.dsn = dsn
        self.application_name = application_name
        # libpq takes whole seconds and treats values below 2 as 2
        self.connect_timeout = max(2, math.ceil(connect_timeout_s))
        statement_ms = max(1, round(statement_timeout_s * 1000))
        self._options = (
            f"-c statement_timeout={statement_ms} "
            f"-c lock_timeout={max(1, round(lock_timeout_s * 1000))} "
            # a session killed mid-transaction must not keep row locks for long
            f"-c idle_in_transaction_session_timeout={statement_ms}"
        )
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None

    def get(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The open connection, (re)connected if it is closed or broken.

        Raises:
            psycopg.OperationalError: if the server cannot be reached within the connect timeout.
        """
        if self._conn is None or self._conn.closed or self._conn.broken:
            if self._conn is not None:
                self._conn.close()
            self._conn = psycopg.connect(
                self.dsn,
                autocommit=True,
                connect_timeout=self.connect_timeout,
                options=self._options,
                application_name=self.application_name,
            )
        return self._conn

    def close(self) -> None:
        """Close the connection (idempotent; the next :meth:`get` opens a new one)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class PostgresSink:
    """Writes document results to PostgreSQL; one connection, every call bounded.

    Usable as a context manager (``with PostgresSink(dsn) as sink: ...``), which closes it.
    The connection is opened at construction and reopened on the next call if it broke.
    """

    def __init__(self, db: str | BoundedConnection) -> None:
        """Connect, every call bounded (see :class:`BoundedConnection` for the timeouts).

        Args:
            db: A DSN (the default timeouts), or a :class:`BoundedConnection` with timeouts of its own.

        Raises:
            psycopg.OperationalError: if the server cannot be reached within the connect timeout.
        """
        self._db = (
            db if isinstance(db, BoundedConnection) else BoundedConnection(db, application_name="tieout-sink")
        )
        self._db.get()

    def _connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        """The open connection, (re)connected if it is closed or broken."""
        return self._db.get()

    def migrate(self, migrations: Sequence[Migration] | None = None) -> list[str]:
        """Apply the pending migrations in order; safe to call from several processes at once.

        A session advisory lock serialises concurrent callers: the second one waits (at most
        ``lock_timeout``), then finds everything applied and returns an empty list.

        Args:
            migrations: What to apply; defaults to the packaged migrations (:func:`load_migrations`).

        Returns:
            The versions applied by this call, in order (empty when the schema was current).
        """
        todo = load_migrations() if migrations is None else list(migrations)
        conn = self._connection()
        applied: list[str] = []
        conn.execute(b"SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
        try:
            conn.execute(_SCHEMA_MIGRATIONS)
            done = {str(r[0]) for r in conn.execute(b"SELECT version FROM schema_migrations").fetchall()}
            for m in todo:
                if m.version in done:
                    continue
                with conn.transaction():
                    # bytes: no parameters, so psycopg sends the file as one simple query (several
                    # statements are allowed) and no `%` in it is taken for a placeholder
                    conn.execute(m.sql.encode("utf-8"))
                    conn.execute(b"INSERT INTO schema_migrations (version) VALUES (%s)", (m.version,))
                applied.append(m.version)
        finally:
            if not conn.broken:
                conn.execute(b"SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
        return applied

    def write(self, batch: SinkBatch) -> None:
        """Store ``batch.result`` as the document's current state, in one transaction.

        Upserts the document row, its facts and its flags (and its changes since its previous version,
        ``batch.changes``, whose VER001 flags are in the result's flags), and deletes the document's facts
        and flags that the result does not contain. The row's partition is ``batch.ingest_date``.

        Args:
            batch: The document's result (verified or not), its ingest date, its model stage's status
                and its changes; see :class:`~adapters.sinks.base.SinkBatch`.

        Raises:
            ValueError: if ``batch.ingest_date`` is not an ISO date.
            psycopg.Error: if the database rejects the write; nothing of it is kept.
        """
        result, changes = batch.result, batch.changes
        day = date.fromisoformat(batch.ingest_date)
        # One row per id, in id order: a duplicate id would otherwise be upserted twice, and a fixed
        # order means two writers of overlapping rows lock them in the same order (no deadlock).
        facts = sorted({f.fact_id: f for f in result.facts}.values(), key=lambda f: f.fact_id)
        flags = sorted({f.flag_id: f for f in result.flags}.values(), key=lambda f: f.flag_id)
        conn = self._connection()
        with conn.transaction(), conn.cursor() as cur:
            # The document row first: its row lock serialises concurrent writers of the same document.
            cur.execute(_UPSERT_DOCUMENT, [*_params(DOCUMENTS, batch), day])
            if facts:
                cur.executemany(_UPSERT_FACT, [_with_record(FACTS, f) for f in facts])
            if flags:
                cur.executemany(_UPSERT_FLAG, [_with_record(FLAGS, f) for f in flags])
            cur.execute(_DELETE_STALE_FACTS, (result.doc_id, [f.fact_id for f in facts]))
            cur.execute(_DELETE_STALE_FLAGS, (result.doc_id, [f.flag_id for f in flags]))
            if changes is not None:
                cur.execute(_UPSERT_CHANGES, [*_params(CHANGES, changes), day])

    def add_flags(self, flags: Sequence[Flag]) -> None:
        """Upsert flags of documents already written, keeping their other rows (one transaction).

        What the sink raises on a document when another lands (a prior-period flag on this year's report
        when last year's lands after it); the document's next :meth:`write` replaces its flags as a whole.
        """
        rows = sorted({f.flag_id: f for f in flags}.values(), key=lambda f: f.flag_id)
        conn = self._connection()
        with conn.transaction(), conn.cursor() as cur:
            if rows:
                cur.executemany(_UPSERT_FLAG, [_with_record(FLAGS, f) for f in rows])

    def counts(self) -> dict[str, int]:
        """Row counts of ``documents``, ``facts`` and ``flags``."""
        row = (
            self._connection()
            .execute(
                b"SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM facts),"
                b" (SELECT count(*) FROM flags)"
            )
            .fetchone()
        )
        assert row is not None  # a SELECT without FROM always returns one row
        return {"documents": int(row[0]), "facts": int(row[1]), "flags": int(row[2])}

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()

    def __enter__(self) -> PostgresSink:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# SQLSTATE classes an outage produces: connection exception, insufficient resources, operator
# intervention (shutdown, statement timeout), transaction rollback (deadlock), system error; lock timeout.
_TRANSIENT_SQLSTATE_CLASSES = {"08", "53", "57", "40", "58"}


def ping(dsn: str, timeout_s: float = 5.0) -> None:
    """Connect and run ``SELECT 1``: a readiness probe, bounded by ``timeout_s`` (libpq's minimum is 2 s).

    Raises:
        psycopg.Error: The database did not answer in time or refused the connection.
    """
    seconds = max(2, math.ceil(timeout_s))
    with psycopg.connect(
        dsn,
        connect_timeout=seconds,
        options=f"-c statement_timeout={seconds * 1000}",
        application_name="tieout-probe",
    ) as conn:
        conn.execute("SELECT 1")


def database_transient(exc: BaseException) -> bool:
    """Whether a database error is an outage (retry) rather than this document's fault (dead-letter)."""
    state = getattr(exc, "sqlstate", None)
    if isinstance(state, str) and state:
        return state[:2] in _TRANSIENT_SQLSTATE_CLASSES or state == "55P03"
    # No SQLSTATE: the server was never reached (refused, reset, timed out) or the connection broke.
    return isinstance(exc, OSError | TimeoutError | psycopg.OperationalError | psycopg.InterfaceError)


class _Writer(Protocol):
    def write(self, batch: SinkBatch) -> None: ...

    def add_flags(self, flags: Sequence[Flag]) -> None: ...


class PostgresTables:
    """The PostgreSQL tables as a :class:`~adapters.sinks.base.Sink`.

    It connects (and migrates) on first use, so a sink started while the database is down waits for it
    like any other outage instead of failing to start.
    """

    name = "postgres"

    def __init__(self, connect: Callable[[], _Writer]) -> None:
        """``connect`` opens and migrates a :class:`PostgresSink` (or anything with its ``write``)."""
        self._connect = connect
        self._db: _Writer | None = None

    @classmethod
    def from_dsn(cls, dsn: str) -> PostgresTables:
        """Tables of the database at ``dsn``, migrated on first connection."""

        def connect() -> PostgresSink:
            db = PostgresSink(dsn)
            db.migrate()
            return db

        return cls(connect)

    def write(self, batch: SinkBatch) -> list[str]:
        """Replace the document's rows."""
        self._call(lambda db: db.write(batch))
        return []

    def add_flags(self, flags: Sequence[Flag]) -> None:
        """Add flags to documents already written (:meth:`PostgresSink.add_flags`)."""
        self._call(lambda db: db.add_flags(flags))

    def _call(self, call: Callable[[_Writer], None]) -> None:
        """One call on the database, its failure as a sink's (an outage, or a refusal)."""
        try:
            if self._db is None:
                self._db = self._connect()
            call(self._db)
        except Exception as exc:
            if database_transient(exc):
                raise SinkOutage(f"postgres: {type(exc).__name__}: {exc}") from exc
            raise SinkRefused(
                f"postgres refused the document: {type(exc).__name__}: {exc}", category="database"
            ) from exc
