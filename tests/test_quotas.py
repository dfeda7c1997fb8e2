"""Each worker quota trips on purpose, ends as its own error category, and the pool goes on.

The workers here run small misbehaving targets (tests/support/workers.py) so that each quota is tripped
deterministically and fast; tests/test_hostile_generated.py trips them with the real engine on generated
hostile PDFs.
"""

from __future__ import annotations

import contextlib
import threading
import tracemalloc
from pathlib import Path

import pytest

import adapters.workers.isolation as iso
from adapters.workers.isolation import IsolatedEngine, Job, _FrameTooLong, recv_frame, run_isolated
from adapters.workers.quotas import QUOTA_CATEGORIES
from pipeline.config import EngineConfig
from pipeline.failures import out_of_files, out_of_memory
from tests.support.workers import sampled_marker

MiB = 1 << 20


def _run(tmp_path: Path, names: list[str], target: str, **cfg: object) -> dict[str, list[tuple[str, str]]]:
    jobs = []
    for i, n in enumerate(names):
        p = tmp_path / n
        p.write_bytes(n.encode())
        jobs.append(Job(i, p, n))
    config = EngineConfig(**cfg)  # type: ignore[arg-type]
    out: dict[str, list[tuple[str, str]]] = {}
    for job, result in run_isolated(jobs, config, workers=1, target=target):
        out[job.source] = [(str(e.category), e.message) for e in result.errors if e.fatal]
    return out


def _category(out: dict[str, list[tuple[str, str]]], name: str) -> str:
    (category, _message), *rest = out[name]
    assert not rest
    return category


NO_WALL_CLOCK = 86_400.0
"""A wall-clock limit no test lives to see: what ends a document there is the kernel, not the clock."""


def test_cpu_limit_ends_a_spinning_document(tmp_path: Path) -> None:
    out = _run(
        tmp_path, ["spin.pdf", "a.pdf"], "tests.support.workers:spin", max_cpu_s=1.0, timeout_s=NO_WALL_CLOCK
    )
    # The kernel ended it (SIGXCPU, cpu_limit): with a day of wall clock, nothing else could have.
    assert _category(out, "spin.pdf") == "cpu_limit"
    assert "SIGXCPU" in out["spin.pdf"][0][1]
    assert out["a.pdf"] == []  # the next document ran in a fresh worker


def test_cpu_allowance_is_per_document_not_per_worker(tmp_path: Path) -> None:
    # Three documents of ~0.6 CPU seconds each in one worker under a 1 s limit: none may trip it. CPU
    # seconds, not wall time: a loaded machine slows them down without using more of the allowance.
    names = ["a.pdf", "b.pdf", "c.pdf"]
    out = _run(tmp_path, names, "tests.support.workers:busy", max_cpu_s=1.0, timeout_s=NO_WALL_CLOCK)
    assert out == {n: [] for n in names}


def test_memory_error_under_the_address_space_limit(tmp_path: Path) -> None:
    out = _run(tmp_path, ["hog.pdf", "a.pdf"], "tests.support.workers:hog", max_memory_bytes=512 * MiB)
    assert _category(out, "hog.pdf") == "memory_limit"
    assert "512 MiB" in out["hog.pdf"][0][1]
    assert out["a.pdf"] == []


def test_c_level_abort_near_the_memory_limit_is_a_memory_breach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker aborts once the parent has seen its address space past half the limit (it waits for the
    # marker), as a library would that aborts a moment after its malloc failed.
    read = iso._vm_peak

    def vm_peak(pid: int | None) -> int:
        peak = read(pid)
        if peak >= 256 * MiB:
            sampled_marker(tmp_path / "abort.pdf").touch()
        return peak

    monkeypatch.setattr(iso, "_vm_peak", vm_peak)
    out = _run(
        tmp_path, ["abort.pdf", "a.pdf"], "tests.support.workers:grow_then_abort", max_memory_bytes=512 * MiB
    )
    assert _category(out, "abort.pdf") == "memory_limit"
    assert "SIGABRT" in out["abort.pdf"][0][1]
    assert out["a.pdf"] == []


def test_c_level_abort_far_from_the_memory_limit_is_a_crash(tmp_path: Path) -> None:
    out = _run(tmp_path, ["abort.pdf", "a.pdf"], "tests.support.workers:abort_small")
    assert _category(out, "abort.pdf") == "internal"
    assert "SIGABRT" in out["abort.pdf"][0][1]
    assert out["a.pdf"] == []


def test_open_file_limit(tmp_path: Path) -> None:
    out = _run(tmp_path, ["fds.pdf", "a.pdf"], "tests.support.workers:fd_hog", max_open_files=32)
    assert _category(out, "fds.pdf") == "file_limit"
    assert out["a.pdf"] == []


def test_output_limit_is_checked_by_the_worker(tmp_path: Path) -> None:
    out = _run(tmp_path, ["big.pdf", "a.pdf"], "tests.support.workers:big_result", max_output_bytes=500_000)
    assert _category(out, "big.pdf") == "output_too_large"
    assert "500,000" in out["big.pdf"][0][1]
    assert out["a.pdf"] == []
    # The same result under the default cap is simply delivered.
    assert _run(tmp_path, ["big.pdf"], "tests.support.workers:big_result") == {"big.pdf": []}


def test_parent_never_reads_a_frame_over_its_limit() -> None:
    # A worker that ignored its own check: the parent refuses the frame from its length alone.
    import multiprocessing as mp

    ours, theirs = mp.Pipe()

    def send() -> None:
        with contextlib.suppress(BrokenPipeError):  # the parent hangs up on it
            theirs.send_bytes(b"x" * (64 * MiB))

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    tracemalloc.start()
    try:
        with pytest.raises(_FrameTooLong):
            recv_frame(ours, 1 * MiB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        ours.close()  # the sender's blocked write fails and its thread ends
        sender.join(timeout=5)
        theirs.close()
    assert peak < 1 * MiB, f"the parent allocated {peak:,} bytes for a refused frame"


def test_worker_that_cannot_start_under_its_memory_limit(tmp_path: Path) -> None:
    # 64 MiB cannot hold MuPDF: every document says so with memory_limit, and nothing hangs.
    sample = sorted((Path(__file__).parents[1] / "sample_docs").glob("*.pdf"))[0]
    jobs = [Job(0, sample, "a.pdf"), Job(1, sample, "b.pdf")]
    config = EngineConfig(max_memory_bytes=64 * MiB)
    out = {j.source: [(e.category, e.message) for e in r.errors] for j, r in run_isolated(jobs, config)}
    assert [c for c, _ in out["a.pdf"]] == [c for c, _ in out["b.pdf"]] == ["memory_limit"]
    assert "cannot start" in out["a.pdf"][0][1]


def test_services_engine_goes_on_after_each_breach(tmp_path: Path) -> None:
    """The parse service's engine: one worker, a breach of each kind, then a normal document each time."""
    engine = IsolatedEngine(
        EngineConfig(max_memory_bytes=512 * MiB, max_open_files=32, max_output_bytes=500_000, max_cpu_s=1.0),
        target="tests.support.workers:any_breach",
    )
    try:
        seen = []
        for name in ["hog.pdf", "a.pdf", "fds.pdf", "b.pdf", "big.pdf", "c.pdf", "spin.pdf", "d.pdf"]:
            p = tmp_path / name
            p.write_bytes(name.encode())
            result = engine.run(p, name)
            seen.append([e.category for e in result.errors if e.fatal])
    finally:
        engine.close()
    assert seen == [["memory_limit"], [], ["file_limit"], [], ["output_too_large"], [], ["cpu_limit"], []]


def test_quota_categories_are_error_categories() -> None:
    from typing import get_args

    from schemas.models import ErrorCategory

    assert set(QUOTA_CATEGORIES) <= set(get_args(ErrorCategory))


def test_recognising_allocation_and_file_failures() -> None:
    assert out_of_memory(MemoryError())
    assert out_of_memory(RuntimeError("code=2: realloc (435441129 bytes) failed"))
    assert out_of_memory(RuntimeError("code=2: malloc (12 bytes) failed"))
    assert out_of_memory(ImportError("libmupdf.so: failed to map segment from shared object"))
    assert not out_of_memory(RuntimeError("code=7: Invalid number of pages"))
    assert not out_of_memory(RuntimeError("code=2: cannot open file 'x': No such file or directory"))
    assert out_of_files(OSError(24, "Too many open files"))
    assert not out_of_files(OSError(2, "No such file or directory"))
