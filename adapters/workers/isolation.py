"""Run documents in worker processes that can be killed, under quotas.

A hostile PDF can hang or crash MuPDF inside a C call, where no Python timeout reaches, or make it allocate
gigabytes, spin for minutes or return a result larger than anything downstream can carry. Each document
therefore runs in a worker process with a hard wall-clock limit and the kernel's resource limits
(:mod:`adapters.workers.quotas`: address space, CPU seconds, open files), and its result is bounded in size. A
worker that overruns is killed and replaced, a worker that breaches a quota or dies (segfault, out of
memory) is replaced, and either way the document gets a typed fatal :class:`~schemas.models.ErrorRecord`
while the others carry on:

====================  ===================================================================================
``timeout``           no result within ``timeout_s`` plus a grace period (wall clock) from when the worker
                      began the document: the parent kills it
``cpu_limit``         the worker spent ``max_cpu_s`` CPU seconds on the document: the kernel's ``SIGXCPU``
``memory_limit``      an allocation failed under ``max_memory_bytes`` of address space (``MemoryError`` or
                      MuPDF's failed malloc, reported by the worker), or the worker died of a signal after
                      its address space grew past half the limit (a C library that aborts when malloc
                      fails; the parent samples ``VmPeak`` every 0.25 s, so a death within a moment of the
                      growth may still read as ``internal``)
``file_limit``        an ``open`` failed beyond ``max_open_files`` (``EMFILE``)
``output_too_large``  the serialized result exceeds ``max_output_bytes`` (checked by the worker before it
                      sends, and by the parent, which never reads a longer message)
====================  ===================================================================================

A document's time limit runs from the moment its worker begins it, not from when it was handed over: a
fresh worker first imports the engine (MuPDF and the rest, seconds on a busy machine), and that start-up is
the pool's cost, not the document's. A worker that has not begun a document within :data:`_STARTUP_S` (or
the document's limit, if longer) of being handed it is taken to be stuck starting, and is killed like one that
overran: no document is failed sooner than when its limit ran from the hand-over. The parent never kills a
worker whose answer is already waiting in the pipe: a parent that was itself slow to look (a loaded machine)
reads the answer instead of blaming the document.

Wire protocol, worker to parent: each message is a small JSON header frame (``status``, ``message``); an
``ok`` header is followed by one frame holding the result's JSON. The first header a worker sends is
``limits``: the limits as it applied them, which the parent judges a death by; then, for each document,
``started`` when it begins it (the document's clock starts there), and the outcome.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import multiprocessing as mp
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import Any

from adapters.logs import configure_logging
from adapters.workers.quotas import apply_limits, start_cpu_allowance
from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.failures import out_of_files, out_of_memory
from pipeline.ids import document_hasher, document_id
from schemas.models import DocumentResult, DocumentStats, ErrorCategory, ErrorRecord

__all__ = ["DEFAULT_TARGET", "Clock", "IsolatedEngine", "Job", "failure_result", "recv_frame", "run_isolated"]

_GRACE_S = 15.0
_STARTUP_S = 300.0
"""How long a worker may take to begin a document it was handed, at least (its start-up: imports, ~12 s on a
busy machine, and over 45 s seen on a loaded 2-core one). Until the worker begins, the limit is the larger of
this and the document's own limit from the hand-over, so no document is failed sooner than when its limit ran
from the hand-over; a slow start-up is never blamed on a document."""
_SAMPLE_S = 0.25
"""How often the parent looks at a busy worker's address space (``VmPeak`` in ``/proc``)."""
_HEADER_MAX = 64 * 1024
"""Bound of a header frame; a message is cut to a few thousand characters before it is sent."""
_MESSAGE_MAX = 2000
_NEAR_MEMORY_LIMIT = 0.5
"""A worker that dies of a signal after its address space grew past this fraction of its limit during the
document is taken to have run out of memory: a buffer that grows by doubling fails when its next size does
not fit, and by then it already holds more than half of the room."""
_MEMORY_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGKILL})
"""How a process dies when an allocation fails where nothing checks it: a null pointer written to
(SIGSEGV/SIGBUS), an ``abort()`` (SIGABRT, e.g. an uncaught ``std::bad_alloc``), the kernel's OOM killer."""

_REPORTED: dict[str, ErrorCategory] = {
    "memory_limit": "memory_limit",
    "file_limit": "file_limit",
    "output_too_large": "output_too_large",
}
"""Breaches a worker reports itself before it ends."""


@dataclass(frozen=True, slots=True)
class Job:
    """One document to process: its path and the ``source`` name its records carry."""

    index: int
    path: Path
    source: str


DEFAULT_TARGET = "pipeline.engine:process_path"


def _resolve(target: str) -> Callable[..., DocumentResult]:
    module, _, attr = target.partition(":")
    fn: Callable[..., DocumentResult] = getattr(importlib.import_module(module), attr)
    return fn


def _tell(conn: Connection, status: str, message: str = "", **extra: object) -> None:
    """Send a header frame to the parent."""
    header = {"status": status, "message": message[:_MESSAGE_MAX], **extra}
    conn.send_bytes(json.dumps(header).encode())


def _breach(exc: BaseException, config: EngineConfig) -> tuple[ErrorCategory, str] | None:
    """The quota ``exc`` says was breached, with a message; None when it is an ordinary failure."""
    if out_of_memory(exc):
        limit = config.max_memory_bytes
        room = f"{limit / 2**20:.0f} MiB of address space" if limit is not None else "the memory available"
        return "memory_limit", f"the document needs more than {room}: {type(exc).__name__}: {exc}"
    if out_of_files(exc):
        return "file_limit", f"more than {config.max_open_files} open files: {exc}"
    return None


def _worker_main(conn: Connection, config_json: str, target: str) -> None:
    """Worker loop: set the quotas, receive (path, source), send back the result as JSON.

    A quota breach is reported and ends the worker (the parent starts a fresh one): after a failed
    allocation its heap may be fragmented near the limit, which the next document must not inherit.
    """
    config = EngineConfig.model_validate_json(config_json)
    # First, before MuPDF is imported: its libraries and caches are then mapped under the limit too.
    limits = apply_limits(config)
    _tell(conn, "limits", limits=limits.as_dict())
    startup: tuple[str, str] | None = None
    process_path: Callable[..., DocumentResult] | None = None
    try:
        # Imported in the child, so the parent never loads MuPDF and a crash in it cannot take the parent
        # down.
        configure_logging()
        process_path = _resolve(target)
        # What is imported lives as long as the worker: frozen, it is left out of the garbage collections,
        # each full one of which walked every module's objects again (7 % of a large filing's time; 3 %
        # once frozen).
        gc.freeze()
    except Exception as exc:  # a worker that cannot start under its quotas answers each document with why
        status, why = _breach(exc, config) or ("error", f"{type(exc).__name__}: {exc}")
        startup = (status, f"the worker cannot start: {why}")
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        path, source = msg
        if startup is not None or process_path is None:
            _tell(conn, *(startup or ("error", "the worker cannot start")))
            return
        _tell(conn, "started")  # the document's time limit runs from here, after the worker's start-up
        start_cpu_allowance(limits.cpu_s)
        try:
            payload = process_path(Path(path), config, source=source).model_dump_json().encode()
        except Exception as exc:
            if breach := _breach(exc, config):
                _tell(conn, *breach)
                return
            _tell(conn, "error", f"{type(exc).__name__}: {exc}")  # an internal error of this document
            continue
        if len(payload) > config.max_output_bytes:
            _tell(
                conn,
                "output_too_large",
                f"the result is {len(payload):,} bytes, over the limit of {config.max_output_bytes:,}",
            )
            return
        _tell(conn, "ok")
        conn.send_bytes(payload)


def failure_result(
    job: Job, category: ErrorCategory, message: str, data: bytes | None = None
) -> DocumentResult:
    """A result for a document whose worker timed out, breached a quota or died."""
    try:
        if data is not None:
            doc_id = document_id(data)
        else:
            hasher = document_hasher()
            with job.path.open("rb") as f:  # streamed: the parent never holds the document
                while chunk := f.read(1 << 20):
                    hasher.update(chunk)
            doc_id = hasher.hexdigest()
    except OSError:
        doc_id = document_id(job.source.encode())
    err = ErrorRecord(
        doc_id=doc_id, source=job.source, stage="engine", category=category, message=message, fatal=True
    )
    return DocumentResult(
        doc_id=doc_id,
        source=job.source,
        pipeline_version=PIPELINE_VERSION,
        errors=[err],
        stats=DocumentStats(errors=1),
    )


class _FrameTooLong(Exception):
    """A worker sent a frame longer than the parent accepts; its pipe now holds unread bytes."""


def recv_frame(conn: Connection, limit: int) -> bytes:
    """One frame from ``conn``, read only if it is at most ``limit`` bytes long.

    The frame's length is read first, and a longer frame is refused before any of it is read, so a worker
    cannot make the parent hold more than ``limit`` bytes.

    Raises:
        _FrameTooLong: the frame is longer than ``limit``; the connection cannot be read any more.
        EOFError: the worker closed its end.
    """
    try:
        return conn.recv_bytes(maxlength=limit)
    except OSError as exc:
        if "bad message length" in str(exc):
            raise _FrameTooLong(str(exc)) from exc
        raise


def _vm_peak(pid: int | None) -> int:
    """The high-water mark of a live process's address space in bytes (0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


Clock = Callable[[], float]
"""Seconds on a monotonic clock: :func:`time.monotonic`, or one a test drives."""


class _Slot:
    def __init__(self, ctx: ForkServerContext, config: EngineConfig, target: str, clock: Clock) -> None:
        self._ctx = ctx
        self.config = config
        self._config_json = config.model_dump_json()
        self._target = target
        self._clock = clock
        self.job: Job | None = None
        self.submitted = 0.0
        self.started: float | None = None
        """When the worker said it began the job (None until it has): the job's time limit runs from here."""
        self._spawn()

    def _spawn(self) -> None:
        parent, child = self._ctx.Pipe()
        self.conn: Connection = parent
        self.proc = self._ctx.Process(
            target=_worker_main, args=(child, self._config_json, self._target), daemon=True
        )
        self.proc.start()
        child.close()
        # What the worker says it applied; until it says, the configured limits.
        self.limits: dict[str, Any] = {
            "memory_bytes": self.config.max_memory_bytes,
            "cpu_s": self.config.cpu_limit_s,
            "open_files": self.config.max_open_files,
        }
        self.vm_start = self.vm_peak = 0

    def submit(self, job: Job) -> None:
        self.job = job
        self.submitted, self.started = self._clock(), None
        self.vm_start = self.vm_peak = _vm_peak(self.proc.pid)
        self.conn.send((str(job.path), job.source))

    def deadline(self, hard_limit: float) -> float:
        """When the running job overruns.

        That is ``hard_limit`` after the worker began it or, until it has, :data:`_STARTUP_S` (at least
        ``hard_limit``) after it was handed over.
        """
        if self.started is None:
            return self.submitted + max(_STARTUP_S, hard_limit)
        return self.started + hard_limit

    def poll_s(self, hard_limit: float) -> float:
        """How long the parent may wait for this slot before it must look again."""
        return max(0.05, min(_SAMPLE_S, self.deadline(hard_limit) - self._clock()))

    def sample(self) -> None:
        """Note the worker's address-space high-water mark: if it dies, it tells how near its limit it was."""
        self.vm_peak = max(self.vm_peak, _vm_peak(self.proc.pid))

    def collect(self, ready: Sequence[object], hard_limit: float) -> DocumentResult | None:
        """The running job's result if it is done, breached a quota, died or overran; None while it works.

        A worker that died, breached a quota or overran is replaced, so the slot is ready for the next job.
        """
        job = self.job
        assert job is not None
        self.sample()
        if self.conn in ready:
            try:
                header = json.loads(recv_frame(self.conn, _HEADER_MAX))
                status, message = str(header["status"]), str(header.get("message", ""))
                if status == "limits":
                    self.limits.update(header["limits"])
                    return None
                if status == "started":
                    self.started = self._clock()
                    return None
                if status == "ok":
                    payload = recv_frame(self.conn, self.config.max_output_bytes)
                    return DocumentResult.model_validate_json(payload)
            except _FrameTooLong:
                self.restart()
                return failure_result(
                    job,
                    "output_too_large",
                    f"the worker sent more than {self.config.max_output_bytes:,} bytes; worker replaced",
                )
            except (EOFError, OSError, ValueError, KeyError, TypeError):
                return self._died(job)
            if status == "error":
                return failure_result(job, "internal", message)
            # A quota breach: the worker reported it and is ending; a fresh one takes the next document.
            self.restart()
            return failure_result(job, _REPORTED.get(status, "internal"), message)
        if self.proc.sentinel in ready or not self.proc.is_alive():
            return self._died(job)
        if self._clock() > self.deadline(hard_limit) and not self.conn.poll():
            # (an answer already in the pipe arrived in time: the next wait reads it)
            started = self.started
            self.restart()
            if started is None:
                why = f"the worker did not begin the document within {max(_STARTUP_S, hard_limit):.0f}s"
                return failure_result(job, "timeout", f"{why} (stuck starting); worker killed")
            return failure_result(job, "timeout", f"no result within {hard_limit:.0f}s; worker killed")
        return None

    def _died(self, job: Job) -> DocumentResult:
        """The worker is gone (or its pipe broke): say why from how it ended, and start a fresh one."""
        self.proc.join(timeout=5)
        category, message = self._why_dead(self.proc.exitcode)
        self.restart()
        return failure_result(job, category, message)

    def _why_dead(self, code: int | None) -> tuple[ErrorCategory, str]:
        if code is None:
            return "internal", "the worker stopped answering (its pipe broke); worker replaced"
        if code >= 0:
            return "internal", f"worker process died (exit code {code})"
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        if -code == signal.SIGXCPU:
            cpu = self.limits["cpu_s"]
            return "cpu_limit", f"CPU limit of {cpu:g}s spent; the kernel ended the worker ({name})"
        memory = self.limits.get("memory_bytes")
        if (
            memory
            and -code in _MEMORY_SIGNALS
            and self.vm_peak > self.vm_start
            and self.vm_peak >= _NEAR_MEMORY_LIMIT * memory
        ):
            return "memory_limit", (
                f"worker died of {name} after its address space grew to {self.vm_peak / 2**20:.0f} MiB of "
                f"its {memory / 2**20:.0f} MiB limit"
            )
        return "internal", f"worker process died of {name} (exit code {code})"

    def restart(self) -> None:
        self.proc.kill()
        self.proc.join(timeout=5)
        self.conn.close()
        self._spawn()

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self.conn.send(None)
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(timeout=5)


def run_isolated(
    jobs: Sequence[Job],
    config: EngineConfig,
    *,
    workers: int = 1,
    on_result: Callable[[Job, DocumentResult], None] | None = None,
    target: str = DEFAULT_TARGET,
    clock: Clock = time.monotonic,
) -> Iterator[tuple[Job, DocumentResult]]:
    """Process ``jobs`` in ``workers`` killable processes; yield results in completion order.

    Args:
        jobs: Documents to process.
        config: Engine settings; ``timeout_s`` plus a grace period is the hard limit per document (from
            when its worker begins it), and the ``max_*`` quotas bound each worker.
        workers: Number of worker processes.
        on_result: Optional callback, called before each yield.
        target: ``module:function`` run in the worker, ``(path, config, source=...) -> DocumentResult``;
            tests swap in misbehaving functions to exercise the kill and restart paths.
        clock: The clock the time limits are kept by; tests drive one to make a document overrun without
            waiting for it.
    """
    ctx = mp.get_context("forkserver")
    hard_limit = config.timeout_s + _GRACE_S
    slots = [_Slot(ctx, config, target, clock) for _ in range(max(1, min(workers, len(jobs))))]
    queue = list(jobs)
    queue.reverse()
    try:
        for s in slots:
            if queue:
                s.submit(queue.pop())
        while any(s.job is not None for s in slots):
            busy = [s for s in slots if s.job is not None]
            timeout = min(s.poll_s(hard_limit) for s in busy)
            ready = wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=timeout)
            for s in busy:
                job = s.job
                assert job is not None
                result = s.collect(ready, hard_limit)
                if result is None:
                    continue
                s.job = None
                if on_result is not None:
                    on_result(job, result)
                yield job, result
                if queue:
                    s.submit(queue.pop())
    finally:
        for s in slots:
            s.close()


class IsolatedEngine:
    """One killable worker process for services: ``run`` blocks until the document is done.

    Thread-safe; meant to be called from ``asyncio.to_thread`` so the event loop (and the Kafka
    heartbeats it drives) keeps running while MuPDF works in the other process.
    """

    def __init__(
        self,
        config: EngineConfig,
        *,
        target: str = "pipeline.engine:parse_path",
        clock: Clock = time.monotonic,
    ) -> None:
        """Prepare a worker for ``target`` (started on first use); ``clock`` keeps the time limit."""
        self.config = config
        self._target = target
        self._clock = clock
        self._slot: _Slot | None = None
        self._lock = threading.Lock()

    def run(self, path: Path, source: str) -> DocumentResult:
        """Process one document; a hang, crash or quota breach becomes a fatal error record.

        The document's time limit (``timeout_s`` plus a grace period) runs from when the worker begins it,
        so the first document does not pay for the worker's start-up. The worker is replaced after any of
        them, so the next document starts in a fresh one.
        """
        hard_limit = self.config.timeout_s + _GRACE_S
        with self._lock:
            if self._slot is None:
                self._slot = _Slot(mp.get_context("forkserver"), self.config, self._target, self._clock)
            slot = self._slot
            slot.submit(Job(0, path, source))
            while True:
                ready = wait([slot.conn, slot.proc.sentinel], timeout=slot.poll_s(hard_limit))
                result = slot.collect(ready, hard_limit)
                if result is not None:
                    slot.job = None
                    return result

    def close(self) -> None:
        """Stop the worker process."""
        with self._lock:
            if self._slot is not None:
                self._slot.close()
                self._slot = None
