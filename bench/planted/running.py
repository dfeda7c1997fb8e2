"""Running the benchmark: the input PDFs, their split, and every task through a pool with a watchdog."""

from __future__ import annotations

import multiprocessing
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.gt import corpus_dir
from bench.planted.candidates import choose_plants
from bench.planted.tasks import (
    CleanResult,
    PlantJob,
    PlantResult,
    clean_task,
    init_worker,
    plant_task,
    skipped,
)

__all__ = ["SPLITS", "VALIDATION_MARK", "WATCHDOG_GRACE_S", "Outcome", "input_pdfs", "run_all", "split_of"]

WATCHDOG_GRACE_S = 60.0
"""A task still running this long after its own time limit is hung in native code: its pool is killed."""

SPLITS = ("development", "validation")
VALIDATION_MARK = "validation split"
"""The words in a MANIFEST.tsv row's notes that put its file in the validation split."""


@dataclass
class Outcome:
    """Everything a run produced, before scoring."""

    files: list[str]
    clean: dict[str, CleanResult] = field(default_factory=dict)
    plants: list[PlantResult] = field(default_factory=list)
    seconds: float = 0.0


def input_pdfs(inputs: Sequence[Path]) -> list[Path]:
    """PDFs named on the command line (folders expand to their ``*.pdf``), or the corpus defaults."""
    if not inputs:
        corpus = corpus_dir()
        inputs = [d for d in (corpus / "financial", corpus / "filings") if d.is_dir()]
    missing = [str(item) for item in inputs if not item.exists()]
    if missing:
        raise SystemExit(f"no such file or folder: {', '.join(missing)}")
    out: list[Path] = []
    for item in inputs:
        out.extend(sorted(item.glob("*.pdf")) if item.is_dir() else [item])
    return out


def split_of(paths: Sequence[Path], manifest: Path | None = None) -> dict[str, str]:
    """``{file name: "development" or "validation"}``: validation when its ``MANIFEST.tsv`` row's notes say
    ``validation split``; files not in the manifest (named on the command line) are development files."""
    manifest = manifest or corpus_dir() / "MANIFEST.tsv"
    validation: set[str] = set()
    if manifest.is_file():
        lines = manifest.read_text(encoding="utf-8").splitlines()
        header = lines[0].split("\t") if lines else []
        if "file" in header and "notes" in header:
            fi, ni = header.index("file"), header.index("notes")
            for line in lines[1:]:
                cols = line.split("\t")
                if len(cols) > max(fi, ni) and VALIDATION_MARK in cols[ni]:
                    validation.add(Path(cols[fi]).name)
    return {p.name: ("validation" if p.name in validation else "development") for p in paths}


def _kill_workers() -> None:
    """Kill this process's worker children (all started by the pool), by pid."""
    for child in multiprocessing.active_children():
        child.kill()
        child.join(5)


def run_all(
    paths: Sequence[Path],
    kinds: Sequence[str],
    seeds: Sequence[int],
    workers: int,
    tries: int,
    timeout: float,
) -> Outcome:
    """Clean runs, candidate draws and planted runs over ``paths``, ``workers`` tasks at a time.

    At most ``workers`` tasks are submitted at once, so each submitted task is running and its age is
    its run time: a task older than ``timeout`` + :data:`WATCHDOG_GRACE_S` (hung where the worker's alarm
    cannot interrupt it) is recorded as an error and the pool is replaced.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    outcome = Outcome(files=[p.name for p in paths])
    t0 = time.perf_counter()
    by_name = {p.name: p for p in paths}
    pending: deque[tuple[str, Any]] = deque(("clean", str(p)) for p in paths)
    context = multiprocessing.get_context("spawn")  # no fork under the progress bar's thread

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=init_worker)

    pool = new_pool()
    running: dict[Future[Any], tuple[tuple[str, Any], float]] = {}
    total = len(paths) * (1 + len(kinds) * len(seeds))
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as progress:
        bar = progress.add_task("planted errors", total=total)

        def finish(task: tuple[str, Any], value: Any, error: str | None) -> None:
            kind, arg = task
            if kind == "clean":
                res: CleanResult = value or CleanResult(
                    file=Path(arg).name, error=error, run=None, candidates=[], seconds=0.0
                )
                outcome.clean[res["file"]] = res
                for seed in seeds:
                    for k in kinds:
                        if res["error"] is not None:
                            outcome.plants.append(skipped(res["file"], seed, k, "error", "clean run failed"))
                            progress.advance(bar)
                            continue
                        plan = choose_plants(res["candidates"], seed, res["file"], k, tries)
                        if not plan:
                            outcome.plants.append(skipped(res["file"], seed, k, "no_candidate", None))
                            progress.advance(bar)
                            continue
                        job = PlantJob(str(by_name[res["file"]]), seed, k, tuple(plan))
                        pending.appendleft(("plant", job))
            else:
                job = arg
                outcome.plants.append(
                    value or skipped(Path(job.path).name, job.seed, job.kind, "error", error)
                )
            progress.advance(bar)

        try:
            while pending or running:
                while pending and len(running) < workers:
                    task = pending.popleft()
                    fn = clean_task if task[0] == "clean" else plant_task
                    running[pool.submit(fn, task[1], timeout)] = (task, time.monotonic())
                    what = Path(task[1] if task[0] == "clean" else task[1].path).name
                    progress.update(bar, description=f"{task[0]:<5} {what[:44]}")
                done, _ = wait(running, timeout=5.0, return_when=FIRST_COMPLETED)
                for fut in done:
                    task, _started = running.pop(fut)
                    try:
                        finish(task, fut.result(), None)
                    except Exception as exc:  # a worker that died (BrokenProcessPool) or a pickling error
                        finish(task, None, f"{type(exc).__name__}: {exc}")
                now = time.monotonic()
                hung = [
                    f for f, (_, started) in running.items() if now - started > timeout + WATCHDOG_GRACE_S
                ]
                if hung:
                    for fut in hung:
                        finish(
                            running.pop(fut)[0], None, f"hung: killed after {timeout + WATCHDOG_GRACE_S:g} s"
                        )
                    pending.extendleft(task for task, _ in running.values())  # still healthy: run again
                    running.clear()
                    _kill_workers()
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = new_pool()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    outcome.seconds = time.perf_counter() - t0
    return outcome
