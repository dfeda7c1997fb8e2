"""Operator tools and identities without servers: reconcile, dead-letter replay, worker slots, object keys."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.settings import Settings
from adapters.storage import (
    MAX_KEY_BYTES,
    Downloaded,
    MemoryStore,
    RefusedObject,
    UnsafeKey,
    manifest_key,
    marker_key,
    readable_keys,
    refused_key,
    safe_key,
    stored_key,
)
from consumers.identity import claim_slot
from consumers.ingest import s3_event, upload
from consumers.kafka import client_options
from consumers.ops import announcements, parse_dead, reconcile, replay_message, select, summary
from consumers.runner import CLAIM_HEADER, REPLAY_HEADER, Incoming, dead_letter
from pipeline.config import PIPELINE_VERSION
from schemas.events import ClaimCheck, ObjectRef, parse_landing
from tests.test_services_memory import World


def _settings() -> Settings:
    # Built inside the test, after conftest cleared the settings a developer's shell may export.
    return Settings(topic_prefix="t.", landing_topic="t.landing")


def _put(store: MemoryStore, key: str, data: bytes) -> str:
    store.put_bytes(_settings().landing_bucket, key, data)
    return hashlib.sha256(data).hexdigest()


def test_reconcile_sorts_documents_by_their_furthest_stage() -> None:
    settings = _settings()
    store = MemoryStore()
    done = _put(store, "in/done.pdf", b"%PDF-1 done")
    rejected = _put(store, "in/rejected.pdf", b"PNG rejected")
    parsed_only = _put(store, "in/parsed.pdf", b"%PDF-1 parsed only")
    _put(store, "in/new.pdf", b"%PDF-1 never announced")
    _put(store, "in/notes.txt", b"not a document")
    store.put_bytes(settings.artifact_bucket, manifest_key(PIPELINE_VERSION, done), b"[]")
    store.put_bytes(settings.artifact_bucket, marker_key("rejected", PIPELINE_VERSION, rejected), b"")
    store.put_bytes(settings.artifact_bucket, marker_key("parsed", PIPELINE_VERSION, parsed_only), b"")
    report = reconcile(settings, store)
    assert report.done == ["in/done.pdf"] and report.rejected == ["in/rejected.pdf"]
    # Regression: backfill looked at the parse marker only, so a parsed-but-never-sunk document was "done".
    assert sorted(k for _, k, _, _ in report.missing) == ["in/new.pdf", "in/parsed.pdf"]
    (msg, _) = announcements(settings, report)
    assert msg.topic == "t.landing" and dict(msg.headers)[REPLAY_HEADER] == b"reconcile"
    assert [r.key for r in parse_landing(msg.value)] == ["in/new.pdf"]


def _dead(stage: str, category: str, value: bytes, offset: int) -> Incoming:
    src = Incoming("t.landing", 0, offset, b"k", value, (("trace_id", b"tr"),))
    out = dead_letter(
        src, stage=stage, error_class="X", category=category, message="m", attempts=1, dlq_topic="t.dlq"
    )
    return Incoming("t.dlq", 0, offset, out.key, out.value, out.headers)


def test_dead_letters_are_chosen_and_sent_back_as_they_came() -> None:
    check = (
        ClaimCheck(claim_check="s3://a/claims/x.json", bytes=9, topic="t.parsed").model_dump_json().encode()
    )
    records = [
        _dead("parse", "transient_exhausted", b'{"Records": []}', 0),
        _dead("verify", "schema", check, 1),
        _dead("parse", "not_a_pdf", b"{}", 2),
        Incoming("t.dlq", 0, 3, None, b"not a dead letter"),
    ]
    dead, bad = parse_dead(records)
    assert bad == 1 and summary(dead)[("parse", "transient_exhausted")] == 1
    (old,) = select(dead, category="transient_exhausted")
    m = replay_message(old)
    assert (m.topic, m.key, m.value) == ("t.landing", b"k", b'{"Records": []}')
    assert dict(m.headers)[REPLAY_HEADER] == b"dlq:0:0" and dict(m.headers)["trace_id"] == b"tr"
    # A dead claim check goes back with its header, so the runner resolves it again.
    (claimed,) = select(dead, stage="verify")
    assert dict(replay_message(claimed).headers)[CLAIM_HEADER] == b"s3://a/claims/x.json"


def test_worker_slots_are_unique_per_process_and_reused_after_a_crash(tmp_path: Path) -> None:
    # Regression: the id defaulted to the host name, so a second worker fenced the first.
    a = claim_slot("t.parse", host="h", lock_dir=tmp_path)
    b = claim_slot("t.parse", host="h", lock_dir=tmp_path)
    other = claim_slot("t.verify", host="h", lock_dir=tmp_path)
    assert (a.worker_id, b.worker_id, other.worker_id) == ("h-0", "h-1", "h-0")
    a.release()
    assert claim_slot("t.parse", host="h", lock_dir=tmp_path).worker_id == "h-0"
    # A process killed with SIGKILL gives its slot back (the kernel drops its lock).
    code = (
        "import os, signal; from pathlib import Path; from consumers.identity import claim_slot; "
        f"s = claim_slot('t.sink', host='h', lock_dir=Path({str(tmp_path)!r})); "
        "print(s.worker_id, flush=True); os.kill(os.getpid(), signal.SIGKILL)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "h-0"
    assert claim_slot("t.sink", host="h", lock_dir=tmp_path).worker_id == "h-0"


@pytest.mark.parametrize(
    ("key", "safe"),
    [
        ("in/a.pdf", "in/a.pdf"),
        ("/in//./a.pdf", "in/a.pdf"),
        ("Annual Report +final.pdf", "Annual Report +final.pdf"),
    ],
)
def test_keys_are_normalised(key: str, safe: str) -> None:
    assert safe_key(key) == safe


@pytest.mark.parametrize(
    "key", ["", "  ", "in/../../etc/passwd.pdf", "..", "in\\..\\x.pdf", "a/\x00.pdf", "/"]
)
def test_keys_that_escape_or_name_nothing_are_refused(key: str) -> None:
    with pytest.raises(UnsafeKey):
        safe_key(key)


def _ref(key: str, etag: str | None = None) -> ObjectRef:
    return ObjectRef(bucket=_settings().landing_bucket, key=key, etag=etag)


@pytest.mark.parametrize(
    ("key", "readings"),
    [
        ("in/a.pdf", ["in/a.pdf"]),
        ("in/./b//c.pdf", ["in/b/c.pdf"]),
        # URL-encoded as S3 events send them, and raw as versitygw sends them: both readings are tried.
        ("in/Annual+Report%202025.pdf", ["in/Annual+Report%202025.pdf", "in/Annual Report 2025.pdf"]),
        ("报告/年报 2025.pdf", ["报告/年报 2025.pdf"]),
        ("in/é ü+1.pdf", ["in/é ü+1.pdf", "in/é ü 1.pdf"]),
        ("in/" + "x" * (MAX_KEY_BYTES - 7) + ".pdf", ["in/" + "x" * (MAX_KEY_BYTES - 7) + ".pdf"]),
    ],
)
def test_the_key_policy_reads_plain_and_unicode_keys(key: str, readings: list[str]) -> None:
    assert readable_keys(_ref(key)) == readings


@pytest.mark.parametrize(
    ("key", "why"),
    [
        ("in/line\nbreak.pdf", "control"),
        ("in/cr\rx.pdf", "control"),
        ("in/nel\x85x.pdf", "control"),  # a C1 control
        ("in/sep\u2028x.pdf", "control"),  # a Unicode line separator
        ("in/../x.pdf", "climbs"),
        ("in/a/../b.pdf", "climbs"),  # the gateway would keep it as in/b.pdf: refused, not repaired
        ("in/..%2F..%2Fx.pdf", "climbs"),  # harmless as sent, climbs out once decoded
        ("in/%2e%2e/x.pdf", "climbs"),
        ("in\\..\\x.pdf", "climbs"),
        ("%2F", "names no object"),
        ("é/" + "é" * MAX_KEY_BYTES, "bytes, over"),  # short in characters, long in UTF-8
        ("in/" + "x" * MAX_KEY_BYTES + ".pdf", "bytes, over"),
    ],
)
def test_the_key_policy_refuses_hostile_keys(key: str, why: str) -> None:
    with pytest.raises(UnsafeKey, match=why):
        readable_keys(_ref(key))


@pytest.mark.parametrize(
    ("key", "stored"),
    [
        ("in/a/../b.pdf", "in/b.pdf"),
        ("in/./c.pdf", "in/c.pdf"),
        ("/in//d.pdf", "in/d.pdf"),
        ("in/../../etc/x.pdf", None),
        ("..", None),
        ("in/..%2F..%2Fx.pdf", "in/..%2F..%2Fx.pdf"),
    ],
)
def test_where_a_file_backed_store_keeps_a_key(key: str, stored: str | None) -> None:
    assert stored_key(key) == stored


class ReadLog(MemoryStore):
    """A store that remembers which objects were read."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def download(self, bucket: str, keys: list[str], dest: Path, *, max_bytes: int) -> Downloaded:
        self.read.extend(keys)
        return super().download(bucket, keys, dest, max_bytes=max_bytes)


def test_reconcile_reports_refused_keys_and_announces_only_what_the_parse_stage_would_read() -> None:
    settings = _settings()
    store = ReadLog()
    for key in ("in/line\nbreak.pdf", "in/..%2F..%2Fx.pdf", "in/shortened.pdf", "in/replaced.pdf"):
        _put(store, key, key.encode())
    # The parse stage refused in/a/../shortened.pdf and in/a/../replaced.pdf, which the store keeps as
    # in/shortened.pdf and in/replaced.pdf; replaced.pdf has since been uploaded again with other bytes.
    for key, etag in (("in/shortened.pdf", b"in/shortened.pdf"), ("in/replaced.pdf", b"the old bytes")):
        ref = _ref(key.replace("in/", "in/a/../"), etag=hashlib.md5(etag).hexdigest())
        refused = RefusedObject.of(ref, "climbs out")
        assert refused is not None and refused.marker(PIPELINE_VERSION) == refused_key(
            PIPELINE_VERSION, settings.landing_bucket, key
        )
        store.put_bytes(
            settings.artifact_bucket, refused.marker(PIPELINE_VERSION), refused.model_dump_json().encode()
        )
    report = reconcile(settings, store)
    assert sorted(k for k, _ in report.refused) == [
        "in/..%2F..%2Fx.pdf",
        "in/line\nbreak.pdf",
        "in/shortened.pdf",
    ]
    assert "announced as 'in/a/../shortened.pdf': climbs out" in dict(report.refused)["in/shortened.pdf"]
    assert [k for _, k, _, _ in report.missing] == ["in/replaced.pdf"]
    # Keys the policy refuses are never read; the two it accepts are hashed to look for their results.
    assert sorted(store.read) == ["in/replaced.pdf", "in/shortened.pdf"]
    assert report.done == report.rejected == []


def test_no_marker_for_a_key_the_store_keeps_as_refused_or_cannot_hold() -> None:
    # Reconcile refuses those when it lists them; a key climbing above the bucket was never stored.
    for key in ("in/line\nbreak.pdf", "in/..%2F..%2Fx.pdf", "in/../../x.pdf", "a/../b/\n.pdf"):
        assert RefusedObject.of(_ref(key), "why") is None


def test_a_rerun_of_reconcile_after_refused_keys_adds_no_dead_letter() -> None:
    # The services on the in-memory broker and store; the store resolves ".." as versitygw does.
    world = World()
    data = b"%PDF-1.4 a document uploaded under a key with '..'"
    world.store.put_bytes(world.settings.landing_bucket, "in/b.pdf", data)
    world.store.put_bytes(world.settings.landing_bucket, "in/line\nbreak.pdf", data + b"!")
    for key, body in (("in/a/../b.pdf", data), ("in/line\nbreak.pdf", data + b"!")):
        event = s3_event(world.settings.landing_bucket, key, len(body), hashlib.md5(body).hexdigest())
        world.broker.produce("t.landing", event)
    world.run()
    assert sorted(str(d["category"]) for d in world.values("dlq")) == ["unsafe_key", "unsafe_key"]
    for _ in range(2):
        report = reconcile(world.settings, world.store)
        assert sorted(k for k, _ in report.refused) == ["in/b.pdf", "in/line\nbreak.pdf"]
        assert report.missing == [] and announcements(world.settings, report) == []


def test_submit_refuses_what_the_parse_stage_would_refuse_before_uploading_anything(tmp_path: Path) -> None:
    good = tmp_path / "a.pdf"
    good.write_bytes(b"%PDF-1.4")
    odd = tmp_path / "b..%2F..%2Fc.pdf"  # a plain file name, whose URL-decoded reading is not
    odd.write_bytes(b"%PDF-1.4")
    store = MemoryStore()
    (done,) = upload(_settings(), store, [good], "in/./x")
    assert done.key == "in/x/a.pdf"
    for files, prefix in (([good], "../up"), ([good, odd], "in"), ([good], "in/%2E%2E/x")):
        with pytest.raises(UnsafeKey):
            upload(_settings(), store, files, prefix)
    assert [k for _, k in store.objects] == ["in/x/a.pdf"]


def test_kafka_client_options_follow_the_security_settings() -> None:
    settings = _settings()
    assert client_options(settings) == {"bootstrap_servers": "127.0.0.1:9092"}
    sasl = settings.model_copy(
        update={"kafka_security_protocol": "SASL_SSL", "kafka_username": "u", "kafka_password": "s3cr3t-pw"}
    )
    opts = client_options(sasl)
    assert opts["security_protocol"] == "SASL_SSL" and opts["sasl_mechanism"] == "SCRAM-SHA-512"
    assert (opts["sasl_plain_username"], opts["sasl_plain_password"]) == ("u", "s3cr3t-pw") and opts[
        "ssl_context"
    ]
    with pytest.raises(ValueError, match="KAFKA_USERNAME"):
        client_options(settings.model_copy(update={"kafka_security_protocol": "SASL_PLAINTEXT"}))
    # Secrets stay out of logs and tracebacks.
    dsn = sasl.model_copy(update={"pg_dsn": "postgresql://u:s3cr3t-pw@h/d", "model_api_key": "s3cr3t-pw"})
    assert "s3cr3t-pw" not in repr(dsn)
