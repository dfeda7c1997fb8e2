"""The operator's commands on the real stack: ``tieout dlq list|replay``, ``reconcile``, ``backfill``,
``submit`` and ``review --publish``, each run as an operator runs it (the installed ``tieout`` script in a
subprocess, with the test's settings in its environment) against the broker and the S3 gateway that
``infra/stack.sh up`` started, with real ``tieout consume`` services writing what the commands read.

``tieout schemas register`` needs a schema registry running (infra/registry.sh): its test is with the
registry's, in tests/integration/test_registry.py.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from adapters.review.decision_rules import DecisionRequest
from adapters.review.postgres import PostgresReviewStore
from adapters.sinks.base import SinkBatch
from adapters.sinks.postgres import PostgresSink
from adapters.storage import ObjectStore, manifest_key, refused_key
from consumers.ingest import s3_event
from consumers.runner import REPLAY_HEADER
from pipeline.config import PIPELINE_VERSION
from pipeline.engine import process_path
from schemas.events import parse_landing
from tests.integration.conftest import REPO, TIEOUT, Isolated, reader
from tests.support.review import RUN_PDFS, SAMPLES, make_users

pytestmark = pytest.mark.integration

SAMPLE_PDFS = sorted((REPO / "sample_docs").glob("*.pdf"))
SAMPLE = SAMPLE_PDFS[0]
NOT_A_PDF = b"PK\x03\x04 a zip archive, not a PDF\n" * 20
# Keys the parse stage refuses (consumers/ops.py, adapters/storage.py: one key policy): a control character,
# a name whose URL-decoded reading climbs out with "..", and one the gateway shortened ("a/../b.pdf" is kept
# as "b.pdf", while its notification carries the key as sent).
REFUSED = ("refused/line\nbreak.pdf", "refused/..%2F..%2Fescape.pdf", "refused/a/../shortened.pdf")
# Reads of the broker wait for work of real services (parse in a worker process): minutes, not seconds.
LIVENESS_S = 240.0  # liveness bound


def tieout(it: Isolated, *args: str, env: dict[str, str] | None = None, code: int = 0) -> str:
    """Run ``tieout ARGS`` as an operator would; its output (rich prints to stderr), checked for ``code``."""
    done = subprocess.run(
        [str(TIEOUT), *args],
        env={**it.env, "COLUMNS": "250", "NO_COLOR": "1", **(env or {})},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=LIVENESS_S,  # liveness bound
    )
    out = done.stdout + done.stderr
    assert done.returncode == code, f"tieout {' '.join(args)} exited {done.returncode}:\n{out}"
    return out


def _strip(rec: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in rec.items() if not k.startswith("_")}


def letters(
    it: Isolated, n: int, *, where: Callable[[dict[str, object]], bool] = lambda _: True
) -> list[dict[str, object]]:
    """The DLQ's committed letters (read with confluent-kafka), once at least ``n`` match ``where``."""
    recs = it.read(it.topic("dlq"), until=lambda r: sum(map(where, r)) >= n, timeout_s=LIVENESS_S)
    return [r for r in recs if where(r)]


def category(name: str) -> Callable[[dict[str, object]], bool]:
    return lambda r: r.get("category") == name


def upload(it: Isolated, key: str, data: bytes) -> None:
    ObjectStore(it.settings).put_bytes(it.settings.landing_bucket, key, data, "application/pdf")


def test_dlq_list_and_replay_see_the_letters_the_services_wrote(isolated: Isolated) -> None:
    it = isolated
    it.services.start("parse", "w1")
    upload(it, "in/not-a-pdf.pdf", NOT_A_PDF)
    upload(it, "in/line\nbreak.pdf", NOT_A_PDF)  # refused by its key: another category
    (first,) = letters(it, 1, where=category("not_a_pdf"))
    letters(it, 1, where=category("unsafe_key"))

    listed = tieout(it, "dlq", "list")
    assert "2 of 2 dead letter(s) shown" in listed, listed
    assert "parse    not_a_pdf" in listed and "parse    unsafe_key" in listed, listed
    only = tieout(it, "dlq", "list", "--category", "not_a_pdf")
    assert "1 of 2 dead letter(s) shown" in only and "in/not-a-pdf.pdf" in only, only

    dry = tieout(it, "dlq", "replay", "--category", "not_a_pdf", "--dry-run")
    assert "would replay parse/not_a_pdf 'in/not-a-pdf.pdf'" in dry, dry
    assert "1 dead letter(s) to replay, 1 not chosen" in dry, dry

    real = tieout(it, "dlq", "replay", "--category", "not_a_pdf")
    assert "replayed parse/not_a_pdf 'in/not-a-pdf.pdf'" in real, real
    assert "1 dead letter(s) replayed, 1 not chosen" in real, real
    # The original event went back to the landing topic, marked with the letter's place in the DLQ ...
    mark = f"dlq:{first['_partition']}:"
    (again,) = landing(it, lambda h: h.get(REPLAY_HEADER, b"").decode().startswith(mark))
    assert json.loads(again) == json.loads(str(first["original_value"]))
    # ... and the parse service took it again: the bytes are still not a PDF, so a second letter says so,
    # about another landing message than the first.
    second = letters(it, 2, where=category("not_a_pdf"))
    assert len({(r["original_partition"], r["original_offset"]) for r in second}) == 2

    # The replay group remembers what it re-drove: only the new letter is offered now.
    dry = tieout(it, "dlq", "replay", "--category", "not_a_pdf", "--dry-run")
    assert "1 dead letter(s) to replay" in dry, dry


def landing(it: Isolated, match: Callable[[dict[str, bytes]], bool], n: int = 1) -> list[bytes]:
    """The values of this test's landing topic records whose headers ``match``, once there are ``n``.

    The landing topic is the gateway's, shared by every test (and by their earlier runs): only records
    naming this test's bucket are looked at.
    """
    c = reader(it.settings, it.topic("landing"))
    found: list[bytes] = []
    deadline = time.monotonic() + LIVENESS_S  # liveness bound
    try:
        while len(found) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            ours = f'"{it.settings.landing_bucket}"'.encode() in (m.value() or b"")
            headers = {str(h[0]): h[1] if isinstance(h[1], bytes) else b"" for h in m.headers() or []}
            if ours and match(headers):
                found.append(bytes(m.value() or b""))
    finally:
        c.close()
    assert len(found) >= n, f"{len(found)} of {n} landing record(s) found (liveness bound)"
    return found


def private_landing(it: Isolated) -> str:
    """Point this test's services and commands at a landing topic of their own, which the gateway's
    notifications (sent to the shared landing topic) never reach: a document arrives only when a command
    announces it, as after notifications lost while the broker was down."""
    topic = f"{it.settings.topic_prefix}landing"
    it.env["LANDING_TOPIC"] = topic  # the services' environment is this same mapping
    it.settings = it.settings.model_copy(update={"landing_topic": topic})
    return topic


def summaries(it: Isolated, n: int) -> list[dict[str, object]]:
    return it.read(it.topic("summaries"), until=lambda r: len(r) >= n, timeout_s=LIVENESS_S)


def wait_for(what: str, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + LIVENESS_S  # liveness bound
    while not ready():
        assert time.monotonic() < deadline, f"{what}: not within {LIVENESS_S:.0f}s (liveness bound)"
        time.sleep(0.5)


def finished(it: Isolated, data: bytes) -> Callable[[], bool]:
    """Whether the sink's manifest of the document ``data`` exists (what reconcile calls done)."""
    doc_id = hashlib.sha256(data).hexdigest()
    store = ObjectStore(it.settings)
    return lambda: store.exists(it.settings.artifact_bucket, manifest_key(PIPELINE_VERSION, doc_id))


def test_reconcile_and_backfill_announce_only_what_has_no_results(isolated: Isolated) -> None:
    it = isolated
    private_landing(it)
    for stage in ("parse", "verify", "sink"):
        it.services.start(stage, "w1")
    a, b = SAMPLE_PDFS[0], SAMPLE_PDFS[1]
    upload(it, f"docs/{a.name}", a.read_bytes())
    upload(it, f"other/{b.name}", b.read_bytes())
    bucket = it.settings.landing_bucket

    dry = tieout(it, "reconcile", "--dry-run")
    assert f"would announce s3://{bucket}/docs/{a.name}" in dry and f"other/{b.name}" in dry, dry
    assert "0 done, 0 rejected" in dry and "2 object(s) without results" in dry, dry

    # backfill (reconcile of one prefix) announces the document under it, and only that one.
    filled = tieout(it, "backfill", f"s3://{bucket}/docs/")
    assert f"announcing s3://{bucket}/docs/{a.name}" in filled and b.name not in filled, filled
    (first,) = summaries(it, 1)
    assert first["source"] == f"docs/{a.name}"
    wait_for("the sink's manifest", finished(it, a.read_bytes()))

    again = tieout(it, "reconcile")
    assert f"announcing s3://{bucket}/other/{b.name}" in again and f"docs/{a.name}" not in again, again
    assert "1 done" in again and "1 object(s) without results" in again, again
    done = summaries(it, 2)
    assert sorted(str(s["source"]) for s in done) == sorted([f"docs/{a.name}", f"other/{b.name}"])
    wait_for("the sink's manifest", finished(it, b.read_bytes()))
    assert "2 done" in tieout(it, "reconcile") and len(summaries(it, 2)) == 2  # each document once


def test_a_second_reconcile_after_refused_keys_adds_no_dead_letter(isolated: Isolated) -> None:
    it = isolated
    it.services.start("parse", "w1")
    for key in REFUSED:
        upload(it, key, NOT_A_PDF)
    refused = letters(it, len(REFUSED), where=category("unsafe_key"))
    assert sorted(str(r["source"]) for r in refused) == sorted(REFUSED)
    # The gateway keeps "refused/a/../shortened.pdf" as "refused/shortened.pdf"; the parse stage marks it
    # after its dead letter is committed, so that reconcile can tell (consumers/ops.py).
    store = ObjectStore(it.settings)
    bucket = it.settings.landing_bucket
    assert sorted(o.key for o in store.list_objects(bucket)) == sorted(
        ["refused/line\nbreak.pdf", "refused/..%2F..%2Fescape.pdf", "refused/shortened.pdf"]
    )
    marker = refused_key(PIPELINE_VERSION, bucket, "refused/shortened.pdf")
    wait_for("the refused-key marker", lambda: store.exists(it.settings.artifact_bucket, marker))

    for _ in range(2):
        out = tieout(it, "reconcile")
        assert "3 refused by their key" in out and "0 object(s) without results" in out, out
        assert "announcing" not in out, out
        assert "announced as 'refused/a/../shortened.pdf'" in out, out
    # Nothing was announced, so nothing more is dead-lettered: once the parse service has consumed the
    # landing topic to where it ends now, the DLQ still holds the three letters.
    wait_for("the parse service to consume the landing topic", caught_up(it, "parse", it.topic("landing")))
    assert len(letters(it, len(REFUSED))) == len(REFUSED)


def caught_up(it: Isolated, stage: str, topic: str) -> Callable[[], bool]:
    """Whether ``stage``'s group has committed every record ``topic`` holds now (the end is taken once)."""
    probe = Consumer(
        {"bootstrap.servers": it.settings.kafka_bootstrap, "group.id": f"probe-{uuid.uuid4().hex}"}
    )
    try:
        parts = probe.list_topics(topic, timeout=30).topics[topic].partitions
        end = {p: probe.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in parts}
    finally:
        probe.close()

    def check() -> bool:
        group = Consumer(
            {
                "bootstrap.servers": it.settings.kafka_bootstrap,
                "group.id": f"{it.settings.topic_prefix}{stage}",
            }
        )
        try:
            committed = group.committed([TopicPartition(topic, p) for p in end], timeout=30)
        finally:
            group.close()
        return all(tp.offset >= end[tp.partition] for tp in committed if end[tp.partition] > 0)

    return check


def test_submit_uploads_and_announces_when_the_store_does_not(isolated: Isolated) -> None:
    it = isolated
    topic = private_landing(it)
    it.services.start("parse", "w1")
    quiet = {"S3_NOTIFICATIONS": "0"}  # a store configured without notifications: submit announces
    out = tieout(it, "submit", str(SAMPLE), "--prefix", "sub", env=quiet)
    key = f"sub/{SAMPLE.name}"
    assert f"uploaded s3://{it.settings.landing_bucket}/{key}" in out and "1 file(s) submitted" in out, out
    assert ObjectStore(it.settings).exists(it.settings.landing_bucket, key)
    (event,) = it.read(topic, until=lambda r: len(r) >= 1, timeout_s=LIVENESS_S)
    (ref,) = parse_landing(json.dumps(_strip(event)).encode())
    assert (ref.bucket, ref.key) == (it.settings.landing_bucket, key)
    # announced by submit itself (eventSource "tieout:submit"), in the shape the gateway uses
    assert event["Records"] == json.loads(s3_event(ref.bucket, key, ref.size or 0, ref.etag or ""))["Records"]
    (parsed,) = it.read(it.topic("parsed"), until=lambda r: len(r) >= 1, timeout_s=LIVENESS_S)
    assert parsed["source"] == key and parsed["doc_id"] == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()

    # A prefix that climbs out of the bucket is refused before anything is uploaded.
    refused = tieout(it, "submit", str(SAMPLE), "--prefix", "../up", env=quiet, code=2)
    assert "climbs out" in refused, refused
    assert [o.key for o in ObjectStore(it.settings).list_objects(it.settings.landing_bucket)] == [key]


def test_review_services_publishes_decisions_from_postgresql(
    isolated: Isolated, db_dsn: str, tmp_path: Path
) -> None:
    it = isolated
    result = process_path(SAMPLES / RUN_PDFS[0])
    with PostgresSink(db_dsn) as sink:
        sink.migrate()
        sink.write(SinkBatch(result, ingest_date="2026-12-01"))
    store = PostgresReviewStore(db_dsn)
    first, second = result.flags[0], result.flags[1]
    decided = store.decide(DecisionRequest(first.flag_id, "confirm", "alice", version=0))
    make_users(tmp_path / "users.json")
    console = subprocess.Popen(
        [str(TIEOUT), "review", "--services", "--port", "0", "--users", str(tmp_path / "users.json")],
        env={**it.env, "PG_DSN": db_dsn}, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        (one,) = it.read(it.topic("reviews"), until=lambda r: len(r) >= 1, timeout_s=LIVENESS_S)
        later = store.decide(
            DecisionRequest(second.flag_id, "dismiss", "alice", version=0, reason="wrong_scale")
        )
        both = it.read(it.topic("reviews"), until=lambda r: len(r) >= 2, timeout_s=LIVENESS_S)
    finally:
        console.terminate()
        _, err = console.communicate(timeout=60)
        store.close()
    assert [r["review_id"] for r in both] == [decided.review_id, later.review_id], err
    assert one["_key"] == first.flag_id and one["action"] == "confirm"
