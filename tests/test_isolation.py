"""The worker pool survives hangs, crashes and exceptions, and keeps going with the other documents.

The time limits are kept by a clock the tests drive (``run_isolated(clock=...)``): a document overruns
because the test moved the clock past its limit while it hung, never because the machine was slow, so a
loaded machine cannot make a healthy document time out here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

import adapters.workers.isolation as iso
from adapters.workers.isolation import Job, run_isolated
from pipeline.config import EngineConfig
from tests.support.workers import hanging_marker, slow_start_target


def _jobs(tmp_path: Path, names: list[str]) -> list[Job]:
    jobs = []
    for i, n in enumerate(names):
        p = tmp_path / n
        p.write_bytes(n.encode())
        jobs.append(Job(i, p, n))
    return jobs


def _run(
    tmp_path: Path,
    names: list[str],
    target: str,
    *,
    timeout_s: float = 300.0,
    clock: Callable[[], float] = time.monotonic,
    workers: int = 2,
) -> dict[str, list[str]]:
    out = {}
    cfg = EngineConfig(timeout_s=timeout_s)
    for job, result in run_isolated(_jobs(tmp_path, names), cfg, workers=workers, target=target, clock=clock):
        out[job.source] = [f"{e.category}:{e.fatal}" for e in result.errors]
    return out


class StoppedClock:
    """A clock that stands still until ``moves()`` says otherwise, then jumps a day at every reading."""

    def __init__(self, moves: Callable[[], bool]) -> None:
        self.moves = moves
        self.now = 0.0

    def __call__(self) -> float:
        if self.moves():
            self.now += 86_400.0
        return self.now


def test_hanging_document_is_killed_and_others_complete(tmp_path: Path) -> None:
    names = ["a.pdf", "hang.pdf", "b.pdf", "c.pdf"]
    healthy = {"a.pdf", "b.pdf", "c.pdf"}
    done: set[str] = set()
    out: dict[str, list[str]] = {}
    # Time stands still while any healthy document is in work, so none of them can overrun; once they are
    # all done and the hanging one hangs (it said so), every reading of the clock is a day later.
    clock = StoppedClock(lambda: healthy <= done and hanging_marker(tmp_path / "hang.pdf").exists())
    cfg = EngineConfig(timeout_s=300.0)
    jobs = _jobs(tmp_path, names)
    for job, result in run_isolated(jobs, cfg, workers=2, target="tests.support.workers:hang", clock=clock):
        done.add(job.source)
        out[job.source] = [f"{e.category}:{e.fatal}" for e in result.errors]
        if job.source == "hang.pdf":
            assert "no result within 315s; worker killed" in result.errors[0].message
            assert healthy <= set(out)  # the others completed while it hung
    assert out["hang.pdf"] == ["timeout:True"]
    assert out["a.pdf"] == out["b.pdf"] == out["c.pdf"] == []


def test_a_document_s_time_limit_starts_when_its_worker_begins_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh worker's start-up (imports, slow on a busy machine) does not count against the document.

    The worker's start-up lasts as long as the test says: the clock jumps 30 s once the worker is starting
    (20 times the documents' limit of 1.5 s, and within the start-up allowance of 300 s),
    and only after the parent has read the jumped clock twice (so it has had the chance to judge the
    document by it) may the worker go on. Both documents then finish on a standing clock. On the old code,
    which ran the limit from the hand-over, the first document timed out here.
    """
    gate = tmp_path / "gate"
    gate.mkdir()
    readings_after_jump = 0

    def clock() -> float:
        nonlocal readings_after_jump
        if not (gate / "starting").exists():
            return 0.0
        readings_after_jump += 1
        if readings_after_jump == 2:  # the parent has looked at the jumped clock at least once since
            (gate / "go").touch()
        return 30.0

    monkeypatch.setattr(iso, "_GRACE_S", 0.5)
    out = _run(tmp_path, ["a.pdf", "b.pdf"], slow_start_target(gate), timeout_s=1.0, clock=clock, workers=1)
    assert readings_after_jump >= 2  # the start-up took 30 s, and the parent looked meanwhile
    assert out == {"a.pdf": [], "b.pdf": []}


def test_crashing_worker_is_replaced(tmp_path: Path) -> None:
    out = _run(tmp_path, ["a.pdf", "crash.pdf", "b.pdf", "c.pdf"], "tests.support.workers:crash")
    assert out["crash.pdf"] == ["internal:True"]
    assert out["a.pdf"] == out["b.pdf"] == out["c.pdf"] == []


def test_exception_becomes_internal_error(tmp_path: Path) -> None:
    out = _run(tmp_path, ["boom.pdf", "a.pdf"], "tests.support.workers:boom")
    assert out == {"boom.pdf": ["internal:True"], "a.pdf": []}


def test_a_worker_stuck_in_its_start_up_is_killed_and_the_document_says_so(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()  # and never a "go": the worker's start-up hangs
    clock = StoppedClock(lambda: (gate / "starting").exists())
    out = {}
    jobs = _jobs(tmp_path, ["a.pdf"])
    for job, result in run_isolated(jobs, EngineConfig(), target=slow_start_target(gate), clock=clock):
        out[job.source] = [(e.category, e.message) for e in result.errors]
    ((category, message),) = out["a.pdf"]
    assert category == "timeout" and "did not begin the document within 315s (stuck starting)" in message
