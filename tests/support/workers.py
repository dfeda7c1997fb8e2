"""Misbehaving worker targets for the isolation tests (run inside worker processes)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

from pipeline.config import PIPELINE_VERSION, EngineConfig
from schemas.models import DocumentResult


def ok(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    return DocumentResult(doc_id="0" * 64, source=source, pipeline_version=PIPELINE_VERSION)


def hanging_marker(path: Path) -> Path:
    """The file :func:`hang` creates beside a document once it hangs in it."""
    return path.with_name(path.name + ".hanging")


def hang(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Hang forever in a document whose source says ``hang`` (after leaving :func:`hanging_marker`)."""
    if "hang" in source:
        hanging_marker(path).touch()
        threading.Event().wait()  # forever: only the parent's kill ends it
    return ok(path, config, source=source)


SLOW_START = "slow_start_"
"""``tests.support.workers:slow_start_<folder, hex>``: :func:`ok`, behind a start-up the test controls."""


def slow_start_target(folder: Path) -> str:
    """A target whose worker, while it starts, creates ``folder/starting`` and waits for ``folder/go``.

    The folder travels in the target's name, the one thing a worker knows while it starts (a forkserver
    worker does not see the test's environment).
    """
    return f"tests.support.workers:{SLOW_START}{str(folder).encode().hex()}"


def __getattr__(name: str) -> object:
    """Resolve :func:`slow_start_target` names: the worker resolves its target while it starts."""
    if not name.startswith(SLOW_START):
        raise AttributeError(name)
    folder = Path(bytes.fromhex(name.removeprefix(SLOW_START)).decode())
    (folder / "starting").touch()
    deadline = time.monotonic() + 600  # liveness bound: a test that never says go must not leak a worker
    while not (folder / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return ok


def crash(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    if "crash" in source:
        os.kill(os.getpid(), signal.SIGSEGV)
    return ok(path, config, source=source)


def boom(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    if "boom" in source:
        raise ValueError("unexpected")
    return ok(path, config, source=source)


def spin(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Burn CPU without end (as a C loop would: no sleep, no I/O)."""
    if "spin" in source:
        x = 0
        while True:
            x = (x * 31 + 7) % 1_000_003
    return ok(path, config, source=source)


def hog(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Allocate 16 MiB blocks and keep them, until the address space runs out (MemoryError)."""
    if "hog" in source:
        held = []
        while True:
            held.append(bytearray(16 << 20))
    return ok(path, config, source=source)


def sampled_marker(path: Path) -> Path:
    """The file a test creates beside a document once the parent has seen its worker's grown address space."""
    return path.with_name(path.name + ".sampled")


def grow_then_abort(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """What a C library does that aborts when malloc fails: a buffer doubles until it cannot, then abort().

    The abort waits until the test says the parent has sampled the grown address space
    (:func:`sampled_marker`; the parent samples every 0.25 s, and a library that aborts at once may still
    read as a plain crash, which the module documents), so a loaded machine cannot make it come too soon.
    """
    if "abort" in source:
        buf = bytearray(8 << 20)
        try:
            while True:
                buf = buf + buf  # touched, as a real decompressor's buffer is
        except MemoryError:
            pass
        deadline = time.monotonic() + 240  # liveness bound: abort anyway if the test never says
        while not sampled_marker(path).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.abort()
    return ok(path, config, source=source)


def abort_small(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """abort() with the address space far below its limit: a crash, not a memory breach."""
    if "abort" in source:
        time.sleep(0.6)
        os.abort()
    return ok(path, config, source=source)


def fd_hog(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Open files and keep them open, until the open-file limit says no (EMFILE)."""
    if "fds" in source:
        held = []
        while True:
            held.append(open(os.devnull, "rb"))  # noqa: SIM115  (kept open on purpose)
    return ok(path, config, source=source)


def big_result(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """A result of about 1 MB of JSON (a document with a great deal of text)."""
    result = ok(path, config, source=source)
    if "big" in source:
        result = result.model_copy(update={"source": source + "x" * 1_000_000})
    return result


def busy(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Use about 0.6 CPU seconds, then succeed."""
    from adapters.workers.quotas import cpu_used_s

    until = cpu_used_s() + 0.6
    while cpu_used_s() < until:
        pass
    return ok(path, config, source=source)


def any_breach(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Whichever misbehaviour the source names: hog, fds, big, spin; otherwise a normal result."""
    for word, target in (("hog", hog), ("fds", fd_hog), ("big", big_result), ("spin", spin)):
        if word in source:
            return target(path, config, source=source)
    return ok(path, config, source=source)
