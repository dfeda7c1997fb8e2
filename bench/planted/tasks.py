"""What a worker process runs: the engine on a clean or planted copy, under a time limit, as plain records.

Records are ``TypedDict``s and frozen dataclasses so that they pickle across the process pool and dump to
JSON; the flags are reduced to what scoring needs (:func:`flag_record`).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Literal, NotRequired, TypedDict

from bench.planted.candidates import Candidate
from bench.planted.planting import plant, scan_document

__all__ = [
    "CleanResult",
    "EngineRun",
    "EvidenceRec",
    "FlagRec",
    "PlantJob",
    "PlantResult",
    "Status",
    "TaskTimeout",
    "clean_task",
    "flag_record",
    "init_worker",
    "plant_task",
    "run_engine",
    "skipped",
    "time_limit",
]

Status = Literal["ok", "unverified", "no_candidate", "error"]


class EvidenceRec(TypedDict):
    """One evidence of a flag, as :class:`FlagRec` keeps it."""

    page: int
    bbox: list[float] | None
    text: str
    role: str
    value: float | None


class FlagRec(TypedDict):
    """A flag reduced to what matching and scoring read (:func:`flag_record`)."""

    flag_id: str
    rule: str
    kind: str
    metric: str | None
    period: str | None
    pages: list[int]
    expected: float | None
    actual: float | None
    message: str
    evidence: list[EvidenceRec]
    confidence: NotRequired[float]
    features: NotRequired[dict[str, float]]


def flag_record(flag: Any) -> FlagRec:
    """A picklable, JSON-ready summary of a ``schemas.models.Flag``."""
    return FlagRec(
        flag_id=flag.flag_id,
        rule=flag.rule,
        kind=flag.kind,
        metric=flag.metric,
        period=flag.period.key if flag.period is not None else None,
        pages=list(flag.pages),
        expected=flag.expected,
        actual=flag.actual,
        message=flag.message,
        evidence=[
            EvidenceRec(
                page=e.page,
                bbox=list(e.bbox) if e.bbox is not None else None,
                text=e.text,
                role=e.role,
                value=e.value,
            )
            for e in flag.evidence
        ],
        confidence=flag.confidence,
        features=dict(flag.features),
    )


class TaskTimeout(BaseException):
    """Raised in a worker when a task runs past its limit (a BaseException, so the engine's per-page
    ``except Exception`` cannot swallow it)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise TaskTimeout


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TaskTimeout` in the main thread after ``seconds`` (SIGALRM; Unix only)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def init_worker() -> None:
    """The pool's worker initialiser: the engine logs errors only."""
    from adapters.logs import configure_logging

    configure_logging("ERROR")  # the progress bar owns stderr


class EngineRun(TypedDict):
    pages: int
    flags: list[FlagRec]
    seconds: float
    questions: NotRequired[int]
    """Structure questions: breaks no small change explains, out of the analyst's queue."""
    localize_seconds: NotRequired[float]


def run_engine(data: bytes, name: str) -> EngineRun:
    """``process_bytes`` on one PDF, reduced to its page count and flags.

    Raises:
        RuntimeError: when the engine could not process the document at all.
    """
    from pipeline.engine import process_bytes

    t0 = time.perf_counter()
    result = process_bytes(data, source=name)
    if result.failed:
        raise RuntimeError(f"engine failed: {result.errors[0].message}")
    return EngineRun(
        pages=result.stats.pages,
        flags=[flag_record(f) for f in result.flags],
        seconds=time.perf_counter() - t0,
        questions=len(result.structure_questions),
        localize_seconds=result.stats.stage_seconds.get("localize", 0.0),
    )


class CleanResult(TypedDict):
    file: str
    error: str | None
    run: EngineRun | None
    candidates: list[Candidate]
    seconds: float


@dataclass(frozen=True)
class PlantJob:
    """One planted copy to build and run: a file, a seed, a kind and the candidates to try in order."""

    path: str
    seed: int
    kind: str
    tries: tuple[tuple[Candidate, str], ...]


class PlantResult(TypedDict):
    file: str
    seed: int
    kind: str
    status: Status
    error: str | None
    candidate: Candidate | None
    new: str | None
    discarded: int
    run: EngineRun | None
    seconds: float


def clean_task(path: str, timeout: float) -> CleanResult:
    """Worker: the engine on the untouched PDF, and its candidate figures."""
    t0 = time.perf_counter()
    result = CleanResult(file=Path(path).name, error=None, run=None, candidates=[], seconds=0.0)
    try:
        with time_limit(timeout):
            data = Path(path).read_bytes()
            result["run"] = run_engine(data, result["file"])
            result["candidates"] = scan_document(data)
    except TaskTimeout:
        result["error"], result["run"] = f"timeout after {timeout:g} s", None
    except Exception as exc:
        result["error"], result["run"] = f"{type(exc).__name__}: {exc}", None
    result["seconds"] = time.perf_counter() - t0
    return result


def plant_task(job: PlantJob, timeout: float) -> PlantResult:
    """Worker: plant the first candidate that verifies, then run the engine on the planted copy."""
    t0 = time.perf_counter()
    result = skipped(Path(job.path).name, job.seed, job.kind, "error", None)
    try:
        with time_limit(timeout):
            data = Path(job.path).read_bytes()
            for cand, new in job.tries:
                planted = plant(data, cand, new)
                if planted is None:
                    result["discarded"] += 1
                    continue
                result["candidate"], result["new"] = cand, new
                result["run"] = run_engine(planted, result["file"])
                result["status"] = "ok"
                break
            else:
                result["status"] = "unverified"
    except TaskTimeout:
        result["error"] = f"timeout after {timeout:g} s"
    except Exception as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["seconds"] = time.perf_counter() - t0
    return result


def skipped(name: str, seed: int, kind: str, status: Status, error: str | None) -> PlantResult:
    """The record of a plant that was not run (no candidate, a failed clean run, or a task that died)."""
    return PlantResult(
        file=name, seed=seed, kind=kind, status=status, error=error, candidate=None, new=None, discarded=0,
        run=None, seconds=0.0,
    )  # fmt: skip
