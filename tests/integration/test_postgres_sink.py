"""The PostgreSQL sink against the private cluster started by ``bash infra/postgres.sh up``.

Each test gets a database of its own (``it_<uuid>``, created from the fixture's connection and dropped
afterwards), so tests never see each other's rows and the ``tieout`` database stays untouched.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import psycopg
import pytest

from adapters.sinks.base import SinkBatch
from adapters.sinks.postgres import (
    RECORD_COLUMN,
    BoundedConnection,
    PostgresSink,
    load_migrations,
    table_columns,
)
from adapters.sinks.rows import CHANGES, DOCUMENTS, FACTS, FLAGS
from pipeline.engine import process_path
from schemas.models import DocumentResult, Fact, Flag

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
# two samples that raise flags, so flags are covered as well as facts
SAMPLES = [
    REPO / "sample_docs" / "northwind_2025_annual_report.pdf",
    REPO / "sample_docs" / "kaizen_fy2025_annual_report.pdf",
]
DAY = "2026-11-30"


@pytest.fixture
def sink(db_dsn: str) -> Iterator[PostgresSink]:
    bounded = BoundedConnection(
        db_dsn, application_name="tieout-test", connect_timeout_s=10, statement_timeout_s=30
    )
    with PostgresSink(bounded) as s:
        yield s


@pytest.fixture(scope="module")
def results() -> list[DocumentResult]:
    out = [process_path(p) for p in SAMPLES]
    assert all(r.facts and r.flags for r in out), "the samples are chosen to have facts and flags"
    return out


@pytest.fixture
def written(sink: PostgresSink, results: list[DocumentResult]) -> None:
    """The sink's tables migrated, and every result written (ingested on ``DAY``)."""
    sink.migrate()
    for r in results:
        sink.write(SinkBatch(r, ingest_date=DAY))


def _rows(dsn: str, query: bytes, *params: object) -> list[tuple[object, ...]]:
    with psycopg.connect(dsn, connect_timeout=10) as conn:
        return conn.execute(query, params or None).fetchall()


def test_migrate_twice_is_a_no_op(sink: PostgresSink, db_dsn: str) -> None:
    versions = [m.version for m in load_migrations()]
    assert versions[0] == "0001_initial"
    assert sink.migrate() == versions
    assert sink.migrate() == []
    recorded = _rows(db_dsn, b"SELECT version FROM schema_migrations ORDER BY version")
    assert [r[0] for r in recorded] == versions
    assert sink.counts() == {"documents": 0, "facts": 0, "flags": 0}


def test_concurrent_migrations_apply_once(db_dsn: str) -> None:
    sinks = [PostgresSink(db_dsn) for _ in range(3)]
    applied: list[list[str]] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(sinks))

    def run(s: PostgresSink) -> None:
        try:
            barrier.wait(timeout=30)
            applied.append(s.migrate())
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(s,)) for s in sinks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for s in sinks:
        s.close()
    assert not errors, errors
    assert sorted(applied, key=len) == [[], [], [m.version for m in load_migrations()]]


@pytest.mark.usefixtures("written")
def test_write_counts_and_replay_adds_nothing(
    sink: PostgresSink, db_dsn: str, results: list[DocumentResult]
) -> None:
    expected = {
        "documents": len(results),
        "facts": sum(len(r.facts) for r in results),
        "flags": sum(len(r.flags) for r in results),
    }
    assert sink.counts() == expected
    for r in results:  # replay, as when a topic is consumed again
        sink.write(SinkBatch(r, ingest_date=DAY, model_stage="done"))
    assert sink.counts() == expected
    docs = _rows(
        db_dsn,
        b"SELECT doc_id, source, pipeline_version, pages, tables, facts, flags, errors, ingest_date::text,"
        b" model_stage FROM documents ORDER BY doc_id",
    )
    assert docs == sorted(
        (
            r.doc_id, r.source, r.pipeline_version, r.stats.pages, len(r.tables), len(r.facts),
            len(r.flags), len(r.errors), DAY, "done",
        )
        for r in results
    )  # fmt: skip


@pytest.mark.usefixtures("written")
def test_a_changed_result_leaves_exactly_the_new_set(
    sink: PostgresSink, db_dsn: str, results: list[DocumentResult]
) -> None:
    before = sink.counts()
    old = results[0]
    gone_fact, gone_flag = old.facts[0], old.flags[0]
    new = old.model_copy(
        update={"facts": old.facts[1:], "flags": old.flags[1:], "pipeline_version": "next-version"}
    )
    sink.write(SinkBatch(new, ingest_date="2026-12-01"))
    assert sink.counts() == {
        "documents": before["documents"],
        "facts": before["facts"] - 1,
        "flags": before["flags"] - 1,
    }
    assert _rows(db_dsn, b"SELECT 1 FROM facts WHERE fact_id = %s", gone_fact.fact_id) == []
    assert _rows(db_dsn, b"SELECT 1 FROM flags WHERE flag_id = %s", gone_flag.flag_id) == []
    assert _rows(
        db_dsn,
        b"SELECT pipeline_version, facts, flags, ingest_date::text FROM documents WHERE doc_id = %s",
        old.doc_id,
    ) == [("next-version", len(old.facts) - 1, len(old.flags) - 1, "2026-12-01")]
    # The other document is untouched.
    other = results[1]
    assert _rows(db_dsn, b"SELECT count(*) FROM facts WHERE doc_id = %s", other.doc_id) == [
        (len(other.facts),)
    ]
    # A result with nothing left deletes the rest.
    sink.write(SinkBatch(new.model_copy(update={"facts": [], "flags": []}), ingest_date=DAY))
    assert _rows(db_dsn, b"SELECT count(*) FROM facts WHERE doc_id = %s", old.doc_id) == [(0,)]
    assert _rows(db_dsn, b"SELECT count(*) FROM flags WHERE doc_id = %s", old.doc_id) == [(0,)]


def test_a_failed_write_keeps_nothing_of_it(
    sink: PostgresSink, db_dsn: str, results: list[DocumentResult]
) -> None:
    sink.migrate()
    good = results[0]
    sink.write(SinkBatch(good, ingest_date=DAY))
    # A fact pointing at a document that does not exist violates the foreign key half-way through.
    orphan = good.facts[0].model_copy(update={"fact_id": "orphan", "doc_id": "no-such-document"})
    bad = good.model_copy(update={"facts": [*good.facts[2:], orphan], "pipeline_version": "bad"})
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        sink.write(SinkBatch(bad, ingest_date=DAY))
    assert sink.counts()["facts"] == len(good.facts)
    assert _rows(db_dsn, b"SELECT pipeline_version FROM documents") == [(good.pipeline_version,)]
    with pytest.raises(ValueError):
        sink.write(SinkBatch(good, ingest_date="30/11/2026"))
    sink.write(SinkBatch(good, ingest_date=DAY))  # the sink is still usable after the failures
    assert sink.counts()["facts"] == len(good.facts)


@pytest.mark.usefixtures("written")
def test_values_pages_and_evidence_round_trip(
    sink: PostgresSink, db_dsn: str, results: list[DocumentResult]
) -> None:
    facts = {f.fact_id: f for r in results for f in r.facts}
    rows = _rows(
        db_dsn,
        b'SELECT fact_id, value, printed, decimals, scale, page, bbox, period_key, "row", col, record'
        b" FROM facts",
    )
    assert len(rows) == len(facts)
    for fact_id, value, printed, decimals, scale, page, bbox, period_key, row, col, record in rows:
        f = facts[str(fact_id)]
        # the exact decimal printed (scale applied), not the nearest double
        if f.value is None or f.scale is None:
            assert value is None
        else:
            assert isinstance(value, Decimal) and value == Decimal(repr(f.printed_value)).scaleb(f.scale)
        assert (printed, decimals, scale) == (f.printed, f.decimals, f.scale)
        assert (page, row, col) == (f.page, f.row, f.col)
        assert bbox == (list(f.bbox) if f.bbox else None)
        assert period_key == (f.period.key if f.period else None)
        assert Fact.model_validate(record) == f
    flags = {f.flag_id: f for r in results for f in r.flags}
    rows = _rows(db_dsn, b"SELECT flag_id, expected, actual, difference, pages, evidence, record FROM flags")
    assert len(rows) == len(flags)
    for flag_id, expected, actual, difference, pages, evidence, record in rows:
        g = flags[str(flag_id)]
        for got, want in ((expected, g.expected), (actual, g.actual), (difference, g.difference)):
            # computed figures keep ten fractional digits (adapters.sinks.rows.DECIMAL_PLACES)
            assert (got is None) == (want is None)
            assert got is None or want is None or abs(float(str(got)) - want) <= 5e-11
        assert pages == g.pages
        assert evidence == [e.model_dump(mode="json") for e in g.evidence]
        assert Flag.model_validate(record) == g


def test_the_local_cluster_refuses_a_login_without_its_password(pg_dsn: str) -> None:
    # Regression: infra/postgres.sh trusted every login on loopback.
    info = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    assert info.get("password"), "PG_DSN carries the generated password"
    for password in (None, "wrong"):
        attempt = (
            {**info, "password": password} if password else {k: v for k, v in info.items() if k != "password"}
        )
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(psycopg.conninfo.make_conninfo(**attempt), connect_timeout=10).close()  # type: ignore[arg-type]
    psycopg.connect(pg_dsn, connect_timeout=10).close()


def test_the_migrated_tables_hold_every_column_of_the_projection(sink: PostgresSink, db_dsn: str) -> None:
    """A field added to a record needs its column in a migration: the tables and the rows must agree."""
    sink.migrate()
    extras = {
        "facts": {RECORD_COLUMN: "jsonb"},
        "flags": {RECORD_COLUMN: "jsonb"},
        "documents": {"ingest_date": "date", "updated_at": "timestamp with time zone"},
        "changes": {"ingest_date": "date", "updated_at": "timestamp with time zone"},
    }
    for layout in (FACTS, FLAGS, DOCUMENTS, CHANGES):
        got = {
            str(name): str(kind)
            for name, kind in _rows(
                db_dsn,
                b"SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute"
                b" WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
                layout.name,
            )
        }
        assert got == {**table_columns(layout), **extras[layout.name]}, layout.name
