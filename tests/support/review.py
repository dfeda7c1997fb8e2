"""Shared by the review console's tests: a run folder made from sample PDFs, a console over it, logins."""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.testclient import TestClient

from adapters.files import JsonlOutputs
from adapters.review.decision_rules import DecisionRequest, ReviewError, StaleDecision, apply_decision
from adapters.review.documents import LocalDocuments, PageImages
from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import ReviewStore
from console.app import ConsoleConfig
from console.auth import LoginThrottle, Users, add_user
from pipeline.engine import process_path
from schemas.models import Evidence, Flag
from schemas.reviews import FlagReview, ReviewAction, ReviewDecision

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_docs"
# halvorsen has two cross-page flags (XREF001 on pages 2 and 7, BAL001 on 5 and 6); northwind a TOT001
RUN_PDFS = ("halvorsen_2025_form_10k.pdf", "northwind_2025_annual_report.pdf")
PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}
ARTIFACTS = REPO / "out" / "test-artifacts" / "review"


def make_run(out: Path, names: tuple[str, ...] = RUN_PDFS, extra_flags: list[Flag] | None = None) -> Path:
    """Process sample PDFs as `tieout run` does, writing the run's JSONL files into ``out``."""
    with JsonlOutputs(out) as outputs:
        for name in names:
            result = process_path(SAMPLES / name)
            if extra_flags:
                mine = [f for f in extra_flags if f.doc_id == result.doc_id]
                result = result.model_copy(update={"flags": [*result.flags, *mine]})
            outputs.write(result)
    return out


def decision(flag: Flag, action: ReviewAction, who: str, at: datetime, **extra: Any) -> ReviewDecision:
    """A decision on an open flag as a store records it (the stores' own rule, no store)."""
    req = DecisionRequest(flag.flag_id, action, who, 0, **extra)
    return apply_decision(flag, FlagReview(flag_id=flag.flag_id), req, now=at)[1]


def hostile_flag(template: Flag) -> Flag:
    """A flag on a real page whose every text field is hostile: markup, script, RTL, a very long label."""
    script = "<script>window.__pwned = 1</script>"
    html = '<img src=x onerror="window.__pwned=2"><b>bold</b>&amp;'
    rtl = "\u202eالإيرادات الإجمالية\u202c"
    long = "Very long label " + "x" * 3000
    ev = template.evidence[0]
    return template.model_copy(
        update={
            "flag_id": "hostile0000000001",
            "rule": "TOT001",
            "message": f"{script} {html} {rtl} {long}",
            "reasons": [script, html, rtl],
            "evidence": [
                Evidence(page=ev.page, bbox=ev.bbox, text=f"{script}{html}", role="total", value=ev.value),
                Evidence(page=ev.page, bbox=ev.bbox, text=rtl + long, role=f"component {html}", value=1.0),
            ],
        }
    )


def add_hostile_flag(run: Path) -> Path:
    """Append :func:`hostile_flag` of the run's first flag (a real page of halvorsen) to ``flags.jsonl``."""
    with (run / "flags.jsonl").open(encoding="utf-8") as fh:
        template = Flag.model_validate_json(fh.readline())
    with (run / "flags.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(hostile_flag(template).model_dump_json() + "\n")
    return run


def copy_run(run: Path, dest: Path) -> Path:
    """A copy of the run folder's JSONL files in ``dest`` (a test's own, so its decisions stay its own)."""
    dest.mkdir(parents=True)
    for f in run.glob("*.jsonl"):
        (dest / f.name).write_bytes(f.read_bytes())
    return dest


def race(judges: Sequence[tuple[ReviewStore, str]], flag_id: str) -> list[str]:
    """Every ``(store, reviewer)`` confirms ``flag_id`` at version 0 at the same moment, each in a thread.

    Returns:
        ``won`` or ``stale`` per judge, sorted.
    """
    outcomes: list[str] = []
    barrier = threading.Barrier(len(judges))

    def judge(store: ReviewStore, who: str) -> None:
        barrier.wait(timeout=10)
        try:
            store.decide(DecisionRequest(flag_id, "confirm", who, 0))
            outcomes.append("won")
        except StaleDecision:
            outcomes.append("stale")

    threads = [threading.Thread(target=judge, args=j) for j in judges]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return sorted(outcomes)


def check_cursors(store: ReviewStore, other: ReviewStore, flag_id: str) -> None:
    """The cursor contract, for either store: ``other`` is a second connection to the same database.

    Comments on ``flag_id`` seven times (decisions like any other), runs the outbox loop a publisher
    runs, then checks that a cursor never moves backwards, is kept per name, refuses what is not a
    decision's seq, is seen by another connection, and ends at the highest of concurrent advances.
    """
    name = "reviews-topic"
    assert store.cursor(name) == 0
    decided = [store.decide(DecisionRequest(flag_id, "comment", "alice", 0, note=f"#{i}")) for i in range(7)]
    seqs = [seq for seq, _ in store.decisions_since(0)]
    assert len(seqs) == len(decided)
    # the outbox: read after the cursor, publish (here: keep), then record the cursor
    sent: list[str] = []
    while batch := store.decisions_since(store.cursor(name), limit=3):
        sent += [d.review_id for _, d in batch]
        store.advance_cursor(name, batch[-1][0])
    assert sent == [d.review_id for d in decided]  # each once, in commit order
    assert store.cursor(name) == seqs[-1] and other.cursor(name) == seqs[-1]
    store.advance_cursor(name, seqs[1])  # lower: ignored
    store.advance_cursor(name, 0)
    store.advance_cursor(name, seqs[-1])  # the same: nothing changes
    assert store.cursor(name) == seqs[-1]
    assert store.cursor("export") == 0  # one cursor per name
    other.advance_cursor("export", seqs[1])
    assert store.cursor("export") == seqs[1] and store.cursor(name) == seqs[-1]
    for bad_name, seq in (("", 1), ("   ", 1), ("x" * 201, 1), (name, -1), (name, seqs[-1] + 1)):
        with pytest.raises(ReviewError):
            store.advance_cursor(bad_name, seq)
    with pytest.raises(ReviewError):
        store.cursor("")
    assert store.cursor(name) == seqs[-1]
    # racing advances of one cursor from two connections: it ends at the highest, never lower
    barrier = threading.Barrier(2)
    orders = [seqs, list(reversed(seqs))]

    def advance(s: ReviewStore, order: list[int]) -> None:
        barrier.wait(timeout=10)
        for seq in order:
            s.advance_cursor("race", seq)

    threads = [threading.Thread(target=advance, args=a) for a in zip((store, other), orders, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert store.cursor("race") == other.cursor("race") == seqs[-1]


def make_users(path: Path) -> Users:
    for name, password in PASSWORDS.items():
        add_user(path, name, password)
    return Users.load(path)


def make_config(run: Path, tmp: Path, *, throttle: LoginThrottle | None = None) -> ConsoleConfig:
    return ConsoleConfig(
        store=SqliteReviewStore.for_run(run),
        images=PageImages(LocalDocuments([SAMPLES]), tmp / "cache"),
        users=make_users(tmp / "users.json"),
        secret="s" * 48,
        throttle=throttle or LoginThrottle(),
    )


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m, "no CSRF token in the page"
    return m.group(1)


def login(client: TestClient, user: str = "alice") -> str:
    """Log ``client`` in; returns the session's CSRF token."""
    token = csrf_of(client.get("/login").text)
    r = client.post(
        "/login",
        data={"username": user, "password": PASSWORDS[user], "csrf": token, "next": "/"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return csrf_of(client.get("/").text)


@contextlib.contextmanager
def serve(app: Starlette, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port of ``host`` (loopback) in a thread; yields the base URL."""
    ipv6 = ":" in host
    sock = socket.socket(socket.AF_INET6 if ipv6 else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the console did not start")
        time.sleep(0.05)
    try:
        yield f"http://{f'[{host}]' if ipv6 else host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
