"""The operator's commands on the real stack: ``tieout dlq list|replay``, ``reconcile``, ``backfill``,
``submit`` and ``review --publish``, each run as an operator runs it (the installed ``tieout`` script in a
subprocess, with the test's settings in its environment) against the broker and the S3 gateway that
``infra/stack.sh up`` started, with real ``tieout consume`` services writing what the commands read.

``tieout schemas register`` needs a schema registry: it is tested with one in tests/integration/test_registry.py.
"""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from adapters.storage import ObjectStore
from consumers.runner import REPLAY_HEADER
from tests.integration.conftest import REPO, TIEOUT, Isolated, reader

pytestmark = pytest.mark.integration

SAMPLE = sorted((REPO / "sample_docs").glob("*.pdf"))[0]
NOT_A_PDF = b"PK\x03\x04 a zip archive, not a PDF\n" * 20
# Keys the parse stage refuses (consumers/ops.py, adapters/storage.py: one key policy): a control character,
# a name whose URL-decoded reading climbs out with "..", and one the gateway shortened ("a/../b.pdf" is kept
# as "b.pdf", while its notification carries the key as sent).
REFUSED = ("refused/line\nbreak.pdf", "refused/..%2F..%2Fescape.pdf", "refused/a/../shortened.pdf")
# Reads of the broker wait for work of real services (parse in a worker process): minutes, not seconds.
LIVENESS_S = 240.0  # liveness bound


def tieout(it: Isolated, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``tieout ARGS`` as an operator would; its output (rich prints to stderr), checked for success."""
    done = subprocess.run(
        [str(TIEOUT), *args],
        env={**it.env, "COLUMNS": "250", "NO_COLOR": "1", **(env or {})},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=LIVENESS_S,  # liveness bound
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"tieout {' '.join(args)} exited {done.returncode}:\n{out}"
    return out


def letters(it: Isolated, n: int, *, where: Callable[[dict[str, object]], bool] = lambda _: True) -> list[dict[str, object]]:
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
    assert "would replay parse/not_a_pdf in/not-a-pdf.pdf" in dry, dry
    assert "1 dead letter(s) to replay, 1 not chosen" in dry, dry

    real = tieout(it, "dlq", "replay", "--category", "not_a_pdf")
    assert "replayed parse/not_a_pdf in/not-a-pdf.pdf" in real, real
    assert "1 dead letter(s) replayed, 1 not chosen" in real, real
    # The original event went back to the landing topic, marked with the letter's place in the DLQ ...
    mark = f"dlq:{first['_partition']}:"
    (again,) = landing(it, lambda headers: headers.get(REPLAY_HEADER, b"").decode().startswith(mark))
    assert json.loads(again) == json.loads(str(first["original_value"]))
    # ... and the parse service took it again: the bytes are still not a PDF, so a second letter says so,
    # about another landing message than the first.
    second = letters(it, 2, where=category("not_a_pdf"))
    assert len({(r["original_partition"], r["original_offset"]) for r in second}) == 2

    # The replay group remembers what it re-drove: only the new letter is offered now.
    dry = tieout(it, "dlq", "replay", "--category", "not_a_pdf", "--dry-run")
    assert "1 dead letter(s) to replay" in dry, dry


def landing(it: Isolated, match: Callable[[dict[str, bytes]], bool], n: int = 1) -> list[bytes]:
    """The values of the landing topic's records whose headers ``match``, once there are ``n``.

    The landing topic is the gateway's, shared by every test: only headers are looked at before matching.
    """
    c = reader(it.settings, it.topic("landing"))
    found: list[bytes] = []
    deadline = time.monotonic() + LIVENESS_S  # liveness bound
    try:
        while len(found) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            if match({str(k): bytes(v or b"") for k, v in m.headers() or []}):
                found.append(bytes(m.value() or b""))
    finally:
        c.close()
    assert len(found) >= n, f"{len(found)} of {n} landing record(s) found (liveness bound)"
    return found
