"""The history of published figures in the real PostgreSQL, and prior-period flags through the real stack."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from adapters.history.postgres import PostgresHistory
from adapters.storage import ObjectStore
from sample_docs.generate import Injection
from sample_docs.years import consecutive_years
from tests.integration.conftest import Isolated
from tests.test_prior_period import check_history_store

pytestmark = pytest.mark.integration


@pytest.fixture
def history(db_dsn: str) -> Iterator[PostgresHistory]:
    store = PostgresHistory(db_dsn)
    try:
        yield store
    finally:
        store.close()


def test_the_history_replaces_a_document_and_returns_only_earlier_ones(history: PostgresHistory) -> None:
    # What tests/test_prior_period.py holds the SQLite store to, on PostgreSQL (migration 0009).
    check_history_store(history)


def test_two_years_uploaded_raise_a_prior_period_flag_on_the_flags_topic(
    isolated: Isolated, db_dsn: str
) -> None:
    it = isolated
    it.services.env["PG_DSN"] = db_dsn
    it.start_pipeline()
    years = consecutive_years(2025, 2, injections={2025: (Injection("sum_mismatch", "recv", 2024),)})
    store = ObjectStore(it.settings)
    for name, data, _ in years:
        store.put_bytes(it.settings.landing_bucket, f"years/{name}", data)
    later = f"years/{years[1][0]}"
    # An independent Kafka client reads the flags topic.
    flags = it.read(it.topic("flags"), until=lambda r: any(f["rule"] == "PRI001" for f in r))
    prior = [f for f in flags if f["rule"] == "PRI001"]
    assert {f["source"] for f in prior} == {later}
    with psycopg.connect(db_dsn, connect_timeout=10) as conn:
        rows = conn.execute(
            b"SELECT f.doc_id, d.source FROM flags f JOIN documents d USING (doc_id) WHERE f.rule = %s",
            ("PRI001",),
        ).fetchall()
        documents = conn.execute(b"SELECT count(*) FROM history_documents").fetchone()
    assert {source for _, source in rows} == {later}
    assert documents == (2,)
