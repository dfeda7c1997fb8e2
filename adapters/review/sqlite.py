"""The embedded run's review store: one SQLite file beside the run's results.

``tieout review --out DIR`` opens ``DIR/reviews.sqlite`` and imports ``DIR/flags.jsonl``,
``DIR/facts.jsonl`` and ``DIR/changes.jsonl`` into it at start-up. The import is keyed by ``flag_id``,
``fact_id`` and the later version's doc id, and skipped
when the files have not changed since the last one, so starting the console again costs nothing and
keeps every decision. A flag that a later run no longer raises leaves the queue unless an analyst has
already judged it; its decisions stay in the audit trail either way.

Decisions are kept in ``decisions``, which triggers make append-only (an UPDATE or DELETE fails).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from adapters.files import create_private, tighten
from adapters.review.decision_rules import ReviewError
from adapters.review.store import (
    SEVERITY_RANK,
    Columns,
    DocumentRow,
    SqlReviewStore,
    decode,
    ts_key,
)
from schemas.models import DocumentChanges, Fact, Flag
from schemas.reviews import FlagReview, ReviewDecision

__all__ = ["COLUMNS", "DB_NAME", "SqliteReviewStore"]

DB_NAME = "reviews.sqlite"

_T = TypeVar("_T", Flag, Fact, DocumentChanges)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS flags (
    flag_id     TEXT PRIMARY KEY,
    doc_id      TEXT NOT NULL,
    source      TEXT NOT NULL,
    rule        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    severity    TEXT NOT NULL,
    sev_rank    INTEGER NOT NULL,
    confidence  REAL NOT NULL,
    first_page  INTEGER NOT NULL,
    record      TEXT NOT NULL,
    in_run      INTEGER NOT NULL DEFAULT 1,
    status      TEXT NOT NULL DEFAULT 'open',
    assignee    TEXT,
    reason      TEXT,
    version     INTEGER NOT NULL DEFAULT 0,
    updated_at  TEXT NOT NULL DEFAULT '',
    updated_by  TEXT
);
-- One index per sort, and one per filter followed by the default order (severity rank, confidence
-- descending) and the status (so counts per status read the index alone): a page of the queue is an
-- index walk from the cursor even with 100,000 flags.
CREATE INDEX IF NOT EXISTS flags_sort_severity ON flags (sev_rank, (-confidence), flag_id, status);
CREATE INDEX IF NOT EXISTS flags_sort_confidence ON flags (confidence, flag_id);
CREATE INDEX IF NOT EXISTS flags_sort_rule ON flags (rule, sev_rank, (-confidence), flag_id, status);
CREATE INDEX IF NOT EXISTS flags_sort_document ON flags (source, first_page, flag_id);
CREATE INDEX IF NOT EXISTS flags_sort_updated ON flags (updated_at, flag_id);
CREATE INDEX IF NOT EXISTS flags_status ON flags (status, sev_rank, (-confidence), flag_id);
CREATE INDEX IF NOT EXISTS flags_doc ON flags (doc_id, sev_rank, (-confidence), flag_id, status);
CREATE INDEX IF NOT EXISTS flags_kind ON flags (kind, sev_rank, (-confidence), flag_id, status);
CREATE INDEX IF NOT EXISTS flags_assignee ON flags (assignee, sev_rank, (-confidence), flag_id, status);
CREATE TABLE IF NOT EXISTS facts (
    fact_id    TEXT PRIMARY KEY,
    doc_id     TEXT NOT NULL,
    metric     TEXT NOT NULL,
    period_key TEXT,
    table_id   TEXT,
    page       INTEGER NOT NULL,
    pos        INTEGER NOT NULL,
    record     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_metric ON facts (doc_id, metric, period_key);
CREATE INDEX IF NOT EXISTS facts_table ON facts (doc_id, table_id);
CREATE INDEX IF NOT EXISTS facts_page ON facts (doc_id, page);
-- What changed since a document's previous version (changes.jsonl): one row per later version.
CREATE TABLE IF NOT EXISTS changes (
    new_doc_id TEXT PRIMARY KEY,
    new_source TEXT NOT NULL,
    old_doc_id TEXT NOT NULL,
    old_source TEXT NOT NULL,
    record     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS decisions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    review_id  TEXT NOT NULL UNIQUE,
    flag_id    TEXT NOT NULL,
    action     TEXT NOT NULL,
    status     TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    record     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_flag ON decisions (flag_id, seq);
CREATE TRIGGER IF NOT EXISTS decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
CREATE TRIGGER IF NOT EXISTS decisions_no_delete BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
CREATE TABLE IF NOT EXISTS review_cursors (
    name       TEXT PRIMARY KEY CHECK (name <> ''),
    seq        INTEGER NOT NULL CHECK (seq >= 0),
    updated_at TEXT NOT NULL
);
-- The console's sessions, failed logins and login audit trail (adapters/review/logins.py; PostgreSQL:
-- migration 0008_review_sessions).
CREATE TABLE IF NOT EXISTS review_sessions (
    id_hash     TEXT PRIMARY KEY,
    user_name   TEXT NOT NULL,
    csrf        TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at  REAL NOT NULL,
    last_seen   REAL NOT NULL,
    data        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS review_sessions_user ON review_sessions (user_name);
CREATE TABLE IF NOT EXISTS review_login_failures (
    user_key TEXT NOT NULL,
    address  TEXT NOT NULL,
    failures INTEGER NOT NULL CHECK (failures > 0),
    last_at  REAL NOT NULL,
    PRIMARY KEY (user_key, address)
);
CREATE INDEX IF NOT EXISTS review_login_failures_last ON review_login_failures (last_at);
CREATE TABLE IF NOT EXISTS review_logins (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at        REAL NOT NULL,
    user_name TEXT NOT NULL,
    address   TEXT NOT NULL,
    outcome   TEXT NOT NULL CHECK (outcome IN ('ok', 'wrong', 'throttled'))
);
CREATE INDEX IF NOT EXISTS review_logins_at ON review_logins (outcome, at);
CREATE TRIGGER IF NOT EXISTS review_logins_no_update BEFORE UPDATE ON review_logins
BEGIN SELECT RAISE(ABORT, 'the login audit trail is append-only'); END;
CREATE TRIGGER IF NOT EXISTS review_logins_no_delete BEFORE DELETE ON review_logins
BEGIN SELECT RAISE(ABORT, 'the login audit trail is append-only'); END;
"""

COLUMNS = Columns(
    flag_id="flag_id",
    doc_id="doc_id",
    rule="rule",
    kind="kind",
    severity="severity",
    sev_rank="sev_rank",
    confidence="confidence",
    status="status",
    assignee="assignee",
    source="source",
    first_page="first_page",
    updated="updated_at",
    placeholder="?",
)


class SqliteReviewStore(SqlReviewStore):
    """Review store in one SQLite file (WAL); see the module docstring.

    One connection serves the process, behind a lock (the console calls from a thread pool); a second
    process on the same file is safe too, as decisions take SQLite's write lock before they compare
    versions.
    """

    COLUMNS = COLUMNS
    FLAGS = "flags"
    ROW = "record, status, assignee, reason, version, updated_at, updated_by"
    DECISIONS = "decisions"
    CURSORS = "review_cursors"
    FACT_ORDER = "pos"  # the order they were imported in

    def __init__(self, path: Path) -> None:
        """Open (and create) the database at ``path``."""
        self.path = path
        # The audit trail and every note: readable by the owner only. SQLite makes the -wal and -shm files
        # with the database file's mode, so the file is made 0600 before SQLite opens it; a store an earlier
        # version left readable by others is made private, its WAL and shared memory with it.
        create_private(path)
        for suffix in ("-wal", "-shm"):
            tighten(path.with_name(path.name + suffix))
        self._lock = threading.RLock()
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE), never implicit.
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    @classmethod
    def for_run(cls, out: Path) -> SqliteReviewStore:
        """The store of a ``tieout run --out DIR`` folder, with its flags and facts imported."""
        if not (out / "flags.jsonl").is_file():
            raise FileNotFoundError(
                f"{out}/flags.jsonl not found: point --out at the folder of a `tieout run` "
                "(e.g. `tieout run sample_docs --out out/demo` then `tieout review --out out/demo`)"
            )
        store = cls(out / DB_NAME)
        store.import_run(out)
        return store

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        # Outside a decision's transaction (a cursor's advance) the statement commits on its own. With
        # synchronous=NORMAL a power cut may lose the last commits, but WAL keeps them in order: a cursor
        # that survives never points past a decision that did not (at worst decisions are sent again).
        with self._lock:
            return self._db.execute(sql, params).rowcount

    # ------------------------------------------------------------------ import

    def _unchanged(self, path: Path) -> tuple[bool, str]:
        st = path.stat()
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
        row = self._query("SELECT value FROM meta WHERE key = ?", (f"import:{path.name}",))
        return bool(row) and row[0][0] == stamp, stamp

    def import_run(self, out: Path) -> dict[str, int]:
        """Import ``flags.jsonl``, ``facts.jsonl`` and ``changes.jsonl`` of a run folder.

        Each is skipped when unchanged since the last import; the last two when missing (a run of an
        earlier version wrote neither).

        Returns:
            How many flags and facts were read, and changes records when the run wrote them (0 for a file
            that was unchanged).
        """
        counts = {"flags": 0, "facts": 0}
        flags_path = out / "flags.jsonl"
        same, stamp = self._unchanged(flags_path)
        if not same:
            counts["flags"] = self.import_flags(_read(flags_path, Flag), stamp=(flags_path.name, stamp))
        facts_path = out / "facts.jsonl"
        if facts_path.is_file():
            same, stamp = self._unchanged(facts_path)
            if not same:
                counts["facts"] = self.import_facts(_read(facts_path, Fact), stamp=(facts_path.name, stamp))
        changes_path = out / "changes.jsonl"
        if changes_path.is_file():
            counts["changes"] = 0
            same, stamp = self._unchanged(changes_path)
            if not same:
                records = _read(changes_path, DocumentChanges)
                counts["changes"] = self.import_changes(records, stamp=(changes_path.name, stamp))
        return counts

    def import_flags(
        self, flags: Iterable[Flag | tuple[Flag, str]], *, stamp: tuple[str, str] | None = None
    ) -> int:
        """Upsert flags by ``flag_id``, keeping their review state; drop unjudged flags not given.

        Args:
            flags: Every flag of the run (the import replaces the run's set).
            stamp: ``(file name, size:mtime)`` to remember, so the same file is not imported again.

        Returns:
            The number of flags read.
        """
        with self._write() as db:
            db.execute("UPDATE flags SET in_run = 0")
            n = _in_batches(map(_flag_row, flags), lambda batch: _upsert_flags(db, batch))
            # judged flags stay (an analyst's work is not thrown away by a re-run); the rest go
            db.execute("DELETE FROM flags WHERE in_run = 0 AND version = 0")
            self._remember_choices(db)
            _stamp(db, stamp)
        return n

    def import_facts(
        self, facts: Iterable[Fact | tuple[Fact, str]], *, stamp: tuple[str, str] | None = None
    ) -> int:
        """Replace the facts (they carry no state of their own). Returns how many were read."""
        with self._write() as db:
            db.execute("DELETE FROM facts")
            rows = (_fact_row(item, i) for i, item in enumerate(facts, 1))
            n = _in_batches(rows, lambda batch: _insert_facts(db, batch))
            _stamp(db, stamp)
        return n

    def import_changes(
        self,
        records: Iterable[DocumentChanges | tuple[DocumentChanges, str]],
        *,
        stamp: tuple[str, str] | None = None,
    ) -> int:
        """Replace the changes records (they carry no state of their own). Returns how many were read."""
        with self._write() as db:
            db.execute("DELETE FROM changes")
            n = _in_batches(map(_changes_row, records), lambda batch: _insert_changes(db, batch))
            self._remember_choices(db)
            _stamp(db, stamp)
        return n

    # ------------------------------------------------------------------ the dialect's steps

    def _decision(self) -> AbstractContextManager[object]:
        # BEGIN IMMEDIATE takes SQLite's write lock before the version is read: decisions are serialised
        # across threads and processes, and seq is commit order
        return self._write()

    def _save_state(self, flag: Flag, before: FlagReview, new: FlagReview) -> bool:
        changed = self._execute(
            "UPDATE flags SET status = ?, assignee = ?, reason = ?, version = ?, updated_at = ?, "
            "updated_by = ? WHERE flag_id = ? AND version = ?",
            (
                new.status,
                new.assignee,
                new.reason,
                new.version,
                ts_key(new.updated_at),
                new.updated_by,
                flag.flag_id,
                before.version,
            ),
        )
        return changed == 1

    def _append(self, decision: ReviewDecision) -> None:
        self._execute(
            "INSERT INTO decisions (review_id, flag_id, action, status, decided_at, record) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                decision.review_id,
                decision.flag_id,
                decision.action,
                decision.status,
                decision.decided_at.isoformat(),
                decision.model_dump_json(),
            ),
        )

    # ------------------------------------------------------------------ documents and facts

    def documents(self) -> list[DocumentRow]:
        """See :meth:`adapters.review.store.ReviewStore.documents`."""
        rows = self._query(
            "SELECT doc_id, count(*), sum(status = 'open') FROM flags INDEXED BY flags_doc GROUP BY doc_id"
        )
        names = dict(self.sources())
        out = [DocumentRow(d, names.get(d, d), int(n), int(o)) for d, n, o in rows]
        return sorted(out, key=lambda r: (r.source, r.doc_id))

    def _meta(self, key: str) -> Any:
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def sources(self) -> list[tuple[str, str]]:
        """See :meth:`adapters.review.store.ReviewStore.sources`."""
        return [(d, s) for d, s in self._meta("sources") or []]

    def changes_of(self, doc_id: str) -> DocumentChanges | None:
        """See :meth:`adapters.review.store.ReviewStore.changes_of`."""
        rows = self._query("SELECT record FROM changes WHERE new_doc_id = ?", (doc_id,))
        return decode(DocumentChanges, rows[0][0]) if rows else None

    def options(self) -> dict[str, list[str]]:
        """See :meth:`adapters.review.store.ReviewStore.options`."""
        out: dict[str, list[str]] = dict(self._meta("options") or {})
        out["assignee"] = [
            r[0]
            for r in self._query("SELECT DISTINCT assignee FROM flags WHERE assignee IS NOT NULL ORDER BY 1")
        ]
        return out

    def _remember_choices(self, db: sqlite3.Connection) -> None:
        """Keep the filters' choices and the documents' names: computing them per page costs a full scan."""
        options = {
            name: [r[0] for r in db.execute(f"SELECT DISTINCT {name} FROM flags ORDER BY 1")]
            for name in ("rule", "kind", "severity")
        }
        # the documents with flags, and both versions of each changes record (the earlier may have none)
        sources = db.execute(
            "SELECT doc_id, min(source) FROM (SELECT doc_id, source FROM flags"
            " UNION ALL SELECT new_doc_id, new_source FROM changes"
            " UNION ALL SELECT old_doc_id, old_source FROM changes) GROUP BY doc_id ORDER BY 2, 1"
        ).fetchall()
        db.execute("INSERT OR REPLACE INTO meta VALUES ('options', ?)", (json.dumps(options),))
        db.execute("INSERT OR REPLACE INTO meta VALUES ('sources', ?)", (json.dumps(sources),))

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def _in_batches(rows: Iterable[tuple[object, ...]], write: Callable[[list[tuple[object, ...]]], None]) -> int:
    """Hand ``rows`` to ``write`` 5,000 at a time (the last batch, maybe empty, too); how many there were."""
    n = 0
    batch: list[tuple[object, ...]] = []
    for row in rows:
        n += 1
        batch.append(row)
        if len(batch) >= 5000:
            write(batch)
            batch.clear()
    write(batch)
    return n


def _flag_row(item: Flag | tuple[Flag, str]) -> tuple[object, ...]:
    """The ``flags`` row of a flag (and its JSON line, when read from one)."""
    flag, raw = item if isinstance(item, tuple) else (item, item.model_dump_json())
    rank = SEVERITY_RANK[flag.severity]
    first_page = min(flag.pages) if flag.pages else 0
    return (flag.flag_id, flag.doc_id, flag.source, flag.rule, flag.kind, flag.severity, rank,
            flag.confidence, first_page, raw)  # fmt: skip


def _fact_row(item: Fact | tuple[Fact, str], n: int) -> tuple[object, ...]:
    """The ``facts`` row of the ``n``-th fact (and its JSON line, when read from one)."""
    fact, raw = item if isinstance(item, tuple) else (item, item.model_dump_json())
    period = fact.period.key if fact.period else None
    return (fact.fact_id, fact.doc_id, fact.metric, period, fact.table_id, fact.page, n, raw)


def _changes_row(item: DocumentChanges | tuple[DocumentChanges, str]) -> tuple[object, ...]:
    """The ``changes`` row of a changes record (and its JSON line, when read from one)."""
    c, raw = item if isinstance(item, tuple) else (item, item.model_dump_json())
    return (c.new_doc_id, c.new_source, c.old_doc_id, c.old_source, raw)


def _insert_changes(db: sqlite3.Connection, batch: list[tuple[object, ...]]) -> None:
    db.executemany("INSERT OR REPLACE INTO changes VALUES (?, ?, ?, ?, ?)", batch)


def _stamp(db: sqlite3.Connection, stamp: tuple[str, str] | None) -> None:
    """Remember the file just imported (``(name, size:mtime)``), so the same file is not imported again."""
    if stamp:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"import:{stamp[0]}", stamp[1]))


def _upsert_flags(db: sqlite3.Connection, batch: list[tuple[object, ...]]) -> None:
    db.executemany(
        "INSERT INTO flags (flag_id, doc_id, source, rule, kind, severity, sev_rank, confidence, first_page, "
        "record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (flag_id) DO UPDATE SET "
        "doc_id = excluded.doc_id, source = excluded.source, rule = excluded.rule, kind = excluded.kind, "
        "severity = excluded.severity, sev_rank = excluded.sev_rank, confidence = excluded.confidence, "
        "first_page = excluded.first_page, record = excluded.record, in_run = 1",
        batch,
    )


def _insert_facts(db: sqlite3.Connection, batch: list[tuple[object, ...]]) -> None:
    db.executemany("INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)


def _read(path: Path, model: type[_T]) -> Iterator[tuple[_T, str]]:
    """Each line validated, with the line itself (stored as is: the record already is its JSON)."""
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield model.model_validate_json(line), line.strip()
            except ValueError as exc:
                raise ReviewError(f"{path}:{lineno}: not a {model.__name__} record: {exc}") from exc
