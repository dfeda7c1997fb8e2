"""Run documents in worker processes that can be killed.

A hostile PDF can hang or crash MuPDF inside a C call, where no Python timeout reaches. Each document
therefore runs in a worker process with a hard wall-clock limit; a worker that overruns is killed and
replaced, a worker that dies (segfault, out of memory) is replaced, and either way the document gets a
typed fatal :class:`~schemas.models.ErrorRecord` while the others carry on.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing as mp
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext
from pathlib import Path

from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.ids import document_hasher, document_id
from pipeline.obs import configure_logging
from schemas.models import DocumentResult, DocumentStats, ErrorCategory, ErrorRecord

_GRACE_S = 15.0


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


def _worker_main(conn: Connection, config_json: str, target: str) -> None:
    """Worker loop: receive (path, source), send back the result as JSON."""
    # Imported in the child, so the parent never loads MuPDF and a crash in it cannot take the parent down.
    configure_logging()
    process_path = _resolve(target)
    config = EngineConfig.model_validate_json(config_json)
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        path, source = msg
        try:
            result = process_path(Path(path), config, source=source)
            conn.send(("ok", result.model_dump_json()))
        except Exception as exc:  # reported to the parent as an internal error of this document
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def failure_result(
    job: Job, category: ErrorCategory, message: str, data: bytes | None = None
) -> DocumentResult:
    """A result for a document whose worker timed out or died."""
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


class _Slot:
    def __init__(self, ctx: ForkServerContext, config_json: str, target: str) -> None:
        self._ctx = ctx
        self._config_json = config_json
        self._target = target
        self.job: Job | None = None
        self.started = 0.0
        self._spawn()

    def _spawn(self) -> None:
        parent, child = self._ctx.Pipe()
        self.conn: Connection = parent
        self.proc = self._ctx.Process(
            target=_worker_main, args=(child, self._config_json, self._target), daemon=True
        )
        self.proc.start()
        child.close()

    def submit(self, job: Job) -> None:
        self.job = job
        self.started = time.monotonic()
        self.conn.send((str(job.path), job.source))

    def collect(self, ready: Sequence[object], hard_limit: float) -> DocumentResult | None:
        """The running job's result if it is done, died or overran; None while it is still working.

        A worker that died or overran is replaced, so the slot is ready for the next job.
        """
        job = self.job
        assert job is not None
        if self.conn in ready:
            try:
                status, payload = self.conn.recv()
            except (EOFError, OSError):
                status, payload = "died", "worker process died"
            if status == "ok":
                return DocumentResult.model_validate_json(payload)
            if status == "error":
                return failure_result(job, "internal", payload)
            self.restart()
            return failure_result(job, "internal", f"{payload} (exit code {self.proc.exitcode})")
        if self.proc.sentinel in ready or not self.proc.is_alive():
            code = self.proc.exitcode
            self.restart()
            return failure_result(job, "internal", f"worker process died (exit code {code})")
        if time.monotonic() - self.started > hard_limit:
            self.restart()
            return failure_result(job, "timeout", f"no result within {hard_limit:.0f}s; worker killed")
        return None

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
) -> Iterator[tuple[Job, DocumentResult]]:
    """Process ``jobs`` in ``workers`` killable processes; yield results in completion order.

    Args:
        jobs: Documents to process.
        config: Engine settings; ``timeout_s`` plus a grace period is the hard limit per document.
        workers: Number of worker processes.
        on_result: Optional callback, called before each yield.
        target: ``module:function`` run in the worker, ``(path, config, source=...) -> DocumentResult``;
            tests swap in misbehaving functions to exercise the kill and restart paths.
    """
    ctx = mp.get_context("forkserver")
    config_json = config.model_dump_json()
    hard_limit = config.timeout_s + _GRACE_S
    slots = [_Slot(ctx, config_json, target) for _ in range(max(1, min(workers, len(jobs))))]
    queue = list(jobs)
    queue.reverse()
    try:
        for s in slots:
            if queue:
                s.submit(queue.pop())
        while any(s.job is not None for s in slots):
            busy = [s for s in slots if s.job is not None]
            now = time.monotonic()
            timeout = max(0.05, min(s.started + hard_limit - now for s in busy))
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

    def __init__(self, config: EngineConfig, *, target: str = "pipeline.engine:parse_path") -> None:
        """Prepare a worker for ``target`` (started on first use)."""
        self.config = config
        self._target = target
        self._slot: _Slot | None = None
        self._lock = threading.Lock()

    def run(self, path: Path, source: str) -> DocumentResult:
        """Process one document; a hang or crash becomes a fatal error record, and the worker is replaced."""
        hard_limit = self.config.timeout_s + _GRACE_S
        with self._lock:
            if self._slot is None:
                self._slot = _Slot(mp.get_context("forkserver"), self.config.model_dump_json(), self._target)
            slot = self._slot
            slot.submit(Job(0, path, source))
            while True:
                remaining = max(0.05, slot.started + hard_limit - time.monotonic())
                ready = wait([slot.conn, slot.proc.sentinel], timeout=remaining)
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
