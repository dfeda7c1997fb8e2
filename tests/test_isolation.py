"""The worker pool survives hangs, crashes and exceptions, and keeps going with the other documents."""

from __future__ import annotations

from pathlib import Path

from pipeline.config import EngineConfig
from pipeline.isolation import Job, run_isolated


def _jobs(tmp_path: Path, names: list[str]) -> list[Job]:
    jobs = []
    for i, n in enumerate(names):
        p = tmp_path / n
        p.write_bytes(n.encode())
        jobs.append(Job(i, p, n))
    return jobs


def _run(tmp_path: Path, names: list[str], target: str, timeout_s: float = 300.0) -> dict[str, list[str]]:
    out = {}
    cfg = EngineConfig(timeout_s=timeout_s)
    for job, result in run_isolated(_jobs(tmp_path, names), cfg, workers=2, target=target):
        out[job.source] = [f"{e.category}:{e.fatal}" for e in result.errors]
    return out


def test_hanging_document_is_killed_and_others_complete(tmp_path: Path, monkeypatch: object) -> None:
    import pipeline.isolation as iso

    iso_grace = iso._GRACE_S
    iso._GRACE_S = 0.5
    try:
        out = _run(
            tmp_path, ["a.pdf", "hang.pdf", "b.pdf", "c.pdf"], "tests.support.workers:hang", timeout_s=1.0
        )
    finally:
        iso._GRACE_S = iso_grace
    assert out["hang.pdf"] == ["timeout:True"]
    assert out["a.pdf"] == out["b.pdf"] == out["c.pdf"] == []


def test_crashing_worker_is_replaced(tmp_path: Path) -> None:
    out = _run(tmp_path, ["a.pdf", "crash.pdf", "b.pdf", "c.pdf"], "tests.support.workers:crash")
    assert out["crash.pdf"] == ["internal:True"]
    assert out["a.pdf"] == out["b.pdf"] == out["c.pdf"] == []


def test_exception_becomes_internal_error(tmp_path: Path) -> None:
    out = _run(tmp_path, ["boom.pdf", "a.pdf"], "tests.support.workers:boom")
    assert out == {"boom.pdf": ["internal:True"], "a.pdf": []}
