"""The PostgreSQL review store against the private cluster of ``bash infra/postgres.sh up``.

Flags and facts are written by the real sink (:class:`PostgresSink`), so the store reads the tables as the
services leave them; each test has a database of its own (``db_dsn``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from starlette.testclient import TestClient

from adapters.review.decision_rules import DecisionRequest, StaleDecision
from adapters.review.documents import PageImages, StoreDocuments
from adapters.review.postgres import PostgresReviewStore
from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import SORT_KEYS, FlagQuery
from adapters.sinks.base import SinkBatch
from adapters.sinks.postgres import PostgresSink, load_migrations
from adapters.storage import MemoryStore
from console.app import ConsoleConfig, create_app
from pipeline.engine import process_path
from schemas.models import DocumentResult
from tests.support.review import PASSWORDS, RUN_PDFS, SAMPLES, check_cursors, login, make_users, race
from tests.support.sessions import check_logins, check_sessions, try_login

pytestmark = pytest.mark.integration

DAY = "2026-11-30"


@pytest.fixture(scope="module")
def results() -> list[DocumentResult]:
    out = [process_path(SAMPLES / name) for name in RUN_PDFS]
    assert all(r.flags for r in out)
    return out


@pytest.fixture
def store(db_dsn: str, results: list[DocumentResult]) -> Iterator[PostgresReviewStore]:
    with PostgresSink(db_dsn) as sink:
        sink.migrate()
        for r in results:
            sink.write(SinkBatch(r, ingest_date=DAY))
    s = PostgresReviewStore(db_dsn)
    yield s
    s.close()


def test_0004_is_applied_by_the_sinks_migrator(db_dsn: str) -> None:
    versions = [m.version for m in load_migrations()]
    assert {"0004_reviews", "0005_review_cursors", "0008_review_sessions"} <= set(versions)
    s = PostgresReviewStore(db_dsn)
    s.close()
    with psycopg.connect(db_dsn) as conn:
        applied = [r[0] for r in conn.execute(b"SELECT version FROM schema_migrations ORDER BY 1").fetchall()]
    assert applied == versions
    # a second store (or the sink) migrating again is a no-op
    assert PostgresReviewStore(db_dsn, migrate=False).migrate() == []


def test_queue_matches_the_embedded_store(
    store: PostgresReviewStore, results: list[DocumentResult], tmp_path: Path
) -> None:
    embedded = SqliteReviewStore(tmp_path / "r.sqlite")
    embedded.import_flags(iter([f for r in results for f in r.flags]))
    for sort in SORT_KEYS:
        for descending in (False, True):
            q = FlagQuery(sort=sort, descending=descending)
            expected = [r.flag.flag_id for r in embedded.queue(q, limit=500).rows]
            got: list[str] = []
            after = None
            while True:
                page = store.queue(q, after=after, limit=2)
                got += [r.flag.flag_id for r in page.rows]
                if page.next_cursor is None:
                    break
                after = page.next_cursor
            assert got == expected, (sort, descending)
    flag = results[0].flags[0]
    assert store.get(flag.flag_id) is not None
    assert store.get(flag.flag_id).flag == flag  # type: ignore[union-attr]
    page = store.queue(FlagQuery(doc_id=flag.doc_id, rule=flag.rule))
    assert {r.flag.flag_id for r in page.rows} == {
        f.flag_id for r in results for f in r.flags if f.doc_id == flag.doc_id and f.rule == flag.rule
    }
    assert page.counts == {"open": page.total, "confirmed": 0, "dismissed": 0}
    assert [d.source for d in store.documents()] == sorted(r.source for r in results)
    assert set(store.options()["rule"]) == {f.rule for r in results for f in r.flags}
    # the facts around a flag
    fact = next(f for f in results[0].facts if f.table_id and f.period)
    assert store.facts_of_table(fact.doc_id, fact.table_id or "")
    assert fact in store.facts_near(fact.doc_id, fact.page)
    assert fact in store.facts_for(fact.doc_id, fact.metric, fact.period.key if fact.period else None)
    embedded.close()


def refused_all(db_dsn: str, update: bytes, table: bytes) -> None:
    """``update``, a DELETE and a TRUNCATE of an append-only ``table`` are all refused."""
    for sql in (update, b"DELETE FROM " + table, b"TRUNCATE " + table):
        with (
            psycopg.connect(db_dsn, autocommit=True) as conn,
            pytest.raises(psycopg.Error, match="append-only"),
        ):
            conn.execute(sql)


def test_decisions_versions_and_the_append_only_trail(
    store: PostgresReviewStore, db_dsn: str, results: list[DocumentResult]
) -> None:
    flag = results[0].flags[0]
    d1 = store.decide(DecisionRequest(flag.flag_id, "confirm", "alice", 0))
    with pytest.raises(StaleDecision) as stale:
        store.decide(DecisionRequest(flag.flag_id, "dismiss", "bob", 0, reason="wrong_scale"))
    assert stale.value.latest == d1
    d2 = store.decide(DecisionRequest(flag.flag_id, "dismiss", "bob", 1, reason="wrong_scale", note="x1000"))
    store.decide(DecisionRequest(flag.flag_id, "comment", "carol", 0, note="agreed"))
    row = store.get(flag.flag_id)
    assert row is not None and (row.review.status, row.review.reason, row.review.version) == (
        "dismissed",
        "wrong_scale",
        2,
    )
    assert [d.action for d in store.history(flag.flag_id)] == ["confirm", "dismiss", "comment"]
    assert [d for _, d in store.decisions_since(0)] == store.history(flag.flag_id)
    assert store.latest_decisions() == [d2] and store.latest_decisions("confirmed") == []
    assert store.queue(FlagQuery(status="dismissed")).total == 1
    assert store.queue(FlagQuery(status="open")).total == sum(len(r.flags) for r in results) - 1
    refused_all(db_dsn, b"UPDATE review_decisions SET reviewer = 'mallory'", b"review_decisions")
    # the sink replaces the document without that flag: the queue loses it, the judgement stays
    with PostgresSink(db_dsn) as sink:
        r0 = results[0]
        sink.write(SinkBatch(r0.model_copy(update={"flags": r0.flags[1:]}), ingest_date=DAY))
    assert store.get(flag.flag_id) is None
    assert len(store.history(flag.flag_id)) == 3 and store.latest_decisions() == [d2]


def test_two_consoles_on_one_flag_one_wins(
    store: PostgresReviewStore, db_dsn: str, results: list[DocumentResult]
) -> None:
    other = PostgresReviewStore(db_dsn, migrate=False)
    flag = results[1].flags[0]
    outcomes = race([(store, "alice"), (other, "bob")], flag.flag_id)
    other.close()
    assert outcomes == ["stale", "won"]
    assert len(store.history(flag.flag_id)) == 1


def test_cursors_keep_how_far_each_reader_got(
    store: PostgresReviewStore, db_dsn: str, results: list[DocumentResult]
) -> None:
    other = PostgresReviewStore(db_dsn, migrate=False)  # another process's connection
    try:
        check_cursors(store, other, results[0].flags[0].flag_id)
    finally:
        other.close()
    seq = store.cursor("reviews-topic")
    store.close()  # the next call reconnects: the cursor is in the database, not the session
    assert seq > 0 and store.cursor("reviews-topic") == seq
    with psycopg.connect(db_dsn, autocommit=True) as conn, pytest.raises(psycopg.Error, match="check"):
        conn.execute(b"INSERT INTO review_cursors (name, seq) VALUES ('x', -1)")


def test_console_in_services_mode(
    store: PostgresReviewStore, results: list[DocumentResult], tmp_path: Path
) -> None:
    objects = MemoryStore()
    for name in RUN_PDFS:
        data = (SAMPLES / name).read_bytes()
        # the services name a document by its landing key; process_path named it by file name
        assert any(r.doc_id == hashlib.sha256(data).hexdigest() and r.source == name for r in results)
        objects.put_bytes("landing", name, data)
    config = ConsoleConfig(
        store=store,
        images=PageImages(StoreDocuments(objects, "landing"), tmp_path / "cache"),
        users=make_users(tmp_path / "users.json"),
        secret="p" * 48,
    )
    client = TestClient(create_app(config), base_url="http://127.0.0.1")
    token = login(client)
    flag = next(f for r in results for f in r.flags if f.rule == "XREF001")
    html = client.get(f"/flags/{flag.flag_id}").text
    assert html.count('class="box') == len(flag.evidence)
    assert client.get(f"/documents/{flag.doc_id}/pages/7.png?zoom=0.5").content[:4] == b"\x89PNG"
    # the tick-and-tie PDF, from the landing bucket's copy of the document
    r = client.get(f"/documents/{flag.doc_id}/annotated.pdf")
    assert r.status_code == 200 and r.content[:5] == b"%PDF-"
    assert (
        r.headers["content-disposition"] == f'attachment; filename="{Path(flag.source).stem}.annotated.pdf"'
    )
    r = client.post(
        f"/flags/{flag.flag_id}/decide",
        data={"csrf": token, "action": "confirm", "version": "0"},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert 'data-status="confirmed"' in client.get(r.headers["location"]).text
    assert "Confirmed 1" in " ".join(client.get("/").text.split()).replace("</span>", "").replace(
        '<span class="count">', ""
    )


def test_sessions_and_login_attempts_are_shared_by_processes(store: PostgresReviewStore, db_dsn: str) -> None:
    other = PostgresReviewStore(db_dsn, migrate=False)  # another console process's connection
    try:
        check_sessions(store, other)
        check_logins(store, other)
    finally:
        other.close()
    refused_all(db_dsn, b"UPDATE review_logins SET outcome = 'ok'", b"review_logins")


def test_two_console_processes_share_sessions_and_the_throttle(
    store: PostgresReviewStore, db_dsn: str, tmp_path: Path
) -> None:
    users = make_users(tmp_path / "users.json")
    images = PageImages(StoreDocuments(MemoryStore(), "landing"), tmp_path / "cache")
    other = PostgresReviewStore(db_dsn, migrate=False)

    def console(s: PostgresReviewStore, address: str = "10.0.0.1") -> TestClient:
        config = ConsoleConfig(store=s, images=images, users=users, secret="p" * 48)
        return TestClient(create_app(config), base_url="http://127.0.0.1", client=(address, 50000))

    try:
        a, b = console(store), console(other)
        token = login(a)
        b.cookies.set("tieout_review", str(a.cookies["tieout_review"]))
        assert b.get("/", follow_redirects=False).status_code == 200  # one session, either process
        assert a.post("/logout", data={"csrf": token}, follow_redirects=False).status_code == 303
        assert b.get("/", follow_redirects=False).status_code == 303  # ended for both at once
        # failures through one process slow the pair in the other; another address is not slowed
        assert [try_login(console(store), "alice", "wrong-password").status_code for _ in range(3)] == [
            401
        ] * 3
        assert try_login(console(other), "alice", PASSWORDS["alice"]).status_code == 429
        assert try_login(console(other, "10.0.0.2"), "alice", PASSWORDS["alice"]).status_code == 303
        assert [x.outcome for x in store.logins()] == ["ok", "wrong", "wrong", "wrong", "throttled", "ok"]
    finally:
        other.close()
