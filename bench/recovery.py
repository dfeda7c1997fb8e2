"""Recovery: how soon a stage makes progress again after a SIGKILL, and the pipeline after an outage.

Needs the local stack (``bash infra/stack.sh up``) and PostgreSQL (``bash infra/postgres.sh up``; without it
the sink writes Parquet only and the database outage is skipped). In one run, on a private slice of the
stack (topic prefix, buckets, a database of its own):

1. **start-up**: starts ``tieout consume parse``, ``verify`` and ``sink`` one at a time under
   ``python -X importtime`` and reads from each one's log when its metrics endpoint listened and when its
   partitions were assigned, and how many seconds its imports took until then (the sum of the self times),
   by top-level package;
2. **flow**: uploads documents (the sample documents, each copy with distinct bytes) to the landing bucket
   as an S3 client would, keeping ``--window`` of them in flight through the three services;
3. **SIGKILL**: per stage, ``--kills`` times: waits until the stage has committed output since its last
   start and has input waiting, lets it work a moment, SIGKILLs its process group (the service and its
   engine worker, as a container's kill would) and starts a new one with the same worker id (static group
   membership: its partitions come back without a rebalance). Measured from the new process's start to
   (a) its partitions assigned (the time stamp of its ``partitions assigned`` log line) and (b) its first
   committed output: the first record of the stage's output topic (``parsed``, ``verified``,
   ``summaries``) created after the new process started, as a ``read_committed`` reader receives it;
4. **outages**: stops the broker (``infra/stack.sh stop kafka``), the S3 gateway (``stop s3``) and
   PostgreSQL (``infra/postgres.sh down``) in turn for ``--outage-s`` while documents are in flight
   (uploads pause while the broker or the store is away: a notification the store cannot deliver is lost
   until ``tieout reconcile``), starts it again, and measures from its return (its script's ``up``
   returned) to the pipeline's next committed result (a ``summaries`` record);
5. **nothing lost**: waits until every uploaded document has its summary (runs ``tieout reconcile`` once
   if some still have none), then counts documents without one and duplicate summaries.

Prints a table and writes the figures under ``--label`` into ``--json`` (default
``bench/results/recovery.json``); the file's other labels are kept, so a run of an older checkout's
services (``--code DIR --label before``) stays beside this one's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import psutil
import psycopg
from confluent_kafka import Consumer
from psycopg.conninfo import make_conninfo

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # `python bench/X.py` as well as `python -m bench.X`

from adapters.registry import unframe  # noqa: E402
from adapters.settings import Settings, read_env_file  # noqa: E402
from adapters.storage import ObjectStore  # noqa: E402
from bench.meta import RESULTS, load_average, run_meta  # noqa: E402
from bench.stack import SAMPLES, private_stack  # noqa: E402
from schemas.topology import TOPOLOGY, Stage, Topic  # noqa: E402

T = TypeVar("T")
STAGES = tuple(s.name.value for s in TOPOLOGY.stages)
OUTPUT: dict[str, Topic] = {
    Stage.PARSE: Topic.PARSED,
    Stage.VERIFY: Topic.VERIFIED,
    Stage.SINK: Topic.SUMMARIES,
}
"""The topic whose committed records show that a stage made progress."""
UPSTREAM: dict[str, Topic] = {s.name: s.input for s in TOPOLOGY.stages if s.input != Topic.LANDING}
"""A stage's input, by the output topic of the stage before it (parse's input is the uploads)."""
OUTAGES = ("kafka", "s3", "postgres")
WORKER = "rec0"
"""The worker id of every incarnation: the same static group member and transactional id each time."""
STACK = ["bash", str(REPO / "infra" / "stack.sh")]
PG = ["bash", str(REPO / "infra" / "postgres.sh")]
CONTROL = {
    "kafka": ([*STACK, "stop", "kafka"], [*STACK, "up"]),
    "s3": ([*STACK, "stop", "s3"], [*STACK, "up"]),
    "postgres": ([*PG, "down"], [*PG, "up"]),
}
"""How each dependency is stopped and started again (the scripts' own commands)."""
PAUSE_UPLOADS = {"kafka", "s3"}
"""Outages during which nothing is uploaded: the store is away, or its notification would be lost."""


# ------------------------------------------------------------------------------------------- pure helpers
def summary(values: Sequence[float | None]) -> dict[str, Any]:
    """Median and max of measured seconds; ``None`` is a measurement that did not arrive within its bound.

    Returns:
        ``n`` (measurements tried), ``missed`` (None among them), ``median`` and ``max`` of the others
        (None when there are none), rounded to 0.01 s.
    """
    got = [v for v in values if v is not None]
    return {
        "n": len(values),
        "missed": len(values) - len(got),
        "median": round(statistics.median(got), 2) if got else None,
        "max": round(max(got), 2) if got else None,
    }


def log_event(line: str) -> tuple[str, float, dict[str, Any]] | None:
    """A service's JSON log line as (event, UNIX time of its time stamp, the record); None for other lines."""
    if not line.startswith("{"):
        return None
    try:
        record = json.loads(line)
        when = datetime.fromisoformat(str(record["timestamp"])).timestamp()
    except (ValueError, KeyError, TypeError):
        return None
    return str(record.get("event", "")), when, record


def first_event(lines: Iterable[str], event: str, *, nonempty: str | None = None) -> float | None:
    """The time of the first log line of ``event`` (with a non-empty ``nonempty`` field, when given)."""
    for line in lines:
        got = log_event(line)
        if got is not None and got[0] == event and (nonempty is None or got[2].get(nonempty)):
            return got[1]
    return None


def import_seconds(lines: Iterable[str], until_event: str) -> tuple[float, dict[str, float]]:
    """Seconds spent importing (``-X importtime`` self times) before the first ``until_event`` log line.

    Returns:
        The total, and the seconds per top-level package (largest first).
    """
    by: Counter[str] = Counter()
    for line in lines:
        if line.startswith("import time:"):
            parts = line[len("import time:") :].split("|")
            if len(parts) == 3 and parts[0].strip().isdigit():
                by[parts[2].strip().split(".")[0]] += int(parts[0])
        elif (got := log_event(line)) is not None and got[0] == until_event:
            break
    return round(sum(by.values()) / 1e6, 2), {k: round(v / 1e6, 3) for k, v in by.most_common()}


def _mm(s: Mapping[str, Any]) -> str:
    """A summary as ``median / max s``, with how many measurements did not arrive."""
    missed = f", {s['missed']} of {s['n']} missed" if s["missed"] else ""
    return f"{s['median']} / {s['max']} s{missed}"


def format_table(runs: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Markdown tables of labelled runs side by side: the runs, cold start-up, SIGKILL, outages."""
    labels = list(runs)

    def head(first: str, cols: Sequence[str]) -> list[str]:
        names = [f"{lb}: {c}" for lb in labels for c in cols]
        return [f"| {first} | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]

    out = ["| run | date | code | load average (1, 5, 15 min) at start → end | wall |", "|---" * 5 + "|"]
    for lb in labels:
        code = runs[lb].get("code", {}).get("commit")
        for parts, m in _measured(runs[lb]):
            out.append(
                f"| {lb}{f' ({parts})' if parts else ''} | {m.get('date')} | {code} | "
                f"{m.get('load_average_start')} → {m.get('load_average_end')} | {m.get('wall_s')} s |"
            )
    out += ["", *head("cold start", ["endpoint / assigned", "CPU s (import s)"])]
    for stage in STAGES:
        cells = []
        for lb in labels:
            c = runs[lb].get("startup", {}).get(stage)
            cells += (
                [f"{c['endpoint_s']} / {c['assigned_s']} s", f"{c.get('cpu_s')} ({c['imports_s']})"]
                if c
                else ["–", "–"]
            )
        out.append(f"| {stage} | " + " | ".join(cells) + " |")
    out += [
        "",
        *head("SIGKILL", ["assigned (median / max)", "CPU s to assigned", "first output (median / max)"]),
    ]
    for stage in STAGES:
        cells = []
        for lb in labels:
            k = runs[lb].get("kills", {}).get(stage)
            cells += (
                [_mm(k["assigned_s"]), str(k.get("cpu_s", {}).get("median")), _mm(k["output_s"])]
                if k
                else ["–", "–", "–"]
            )
        out.append(f"| {stage} ({_kills(runs, stage)}) | " + " | ".join(cells) + " |")
    out += ["", *head("outage", ["down / back up in", "next result after return"])]
    for kind in OUTAGES:
        cells = []
        for lb in labels:
            o = runs[lb].get("outages", {}).get(kind)
            if not o:
                cells += ["–", "–"]
                continue
            nxt = o.get("next_result_s")
            cells += [
                f"{o['down_s']} / {o['up_s']} s",
                f"{nxt} s" if nxt is not None else f"> {o['bound_s']} s",
            ]
        out.append(f"| {kind} | " + " | ".join(cells) + " |")
    return out


def _measured(run: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """When the run's parts were measured: (parts, their meta); no parts named when all in one go."""
    carried: Mapping[str, Mapping[str, Any]] = run.get("carried_over", {})
    if not carried:
        return [("", run.get("meta", {}))]
    by: dict[str, tuple[list[str], Mapping[str, Any]]] = {}
    for part in ("startup", "kills", "outages"):
        m = carried.get(part, run.get("meta", {}))
        by.setdefault(str(m.get("date")), ([], m))[0].append(part)
    return [(", ".join(parts), m) for parts, m in by.values()]


def _kills(runs: Mapping[str, Mapping[str, Any]], stage: str) -> str:
    counts = sorted(
        {k[stage]["output_s"]["n"] for r in runs.values() if (k := r.get("kills", {})).get(stage)}
    )
    return "×" + "/".join(map(str, counts)) if counts else "not killed"


def wait_for(get: Callable[[], T | None], bound_s: float, every_s: float = 0.1) -> T | None:
    """``get()`` once it is not None, or None after ``bound_s``."""
    deadline = time.monotonic() + bound_s
    while True:
        got = get()
        if got is not None or time.monotonic() >= deadline:
            return got
        time.sleep(every_s)


# ----------------------------------------------------------------------------------------- the services
@dataclass
class Fleet:
    """One ``tieout consume STAGE`` per stage, each in a process group of its own, a log per incarnation."""

    env: dict[str, str]
    code: Path
    logs: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    started: dict[str, float] = field(default_factory=dict)
    incarnation: Counter[str] = field(default_factory=Counter)

    def log(self, stage: str) -> Path:
        return self.logs / f"{stage}.{self.incarnation[stage]}.log"

    def lines(self, stage: str) -> list[str]:
        path = self.log(stage)
        return path.read_text(errors="replace").splitlines() if path.exists() else []

    def start(self, stage: str, *, importtime: bool = False) -> float:
        """Start a new incarnation of ``stage``; returns the wall time just before it was spawned."""
        self.incarnation[stage] += 1
        flags = ["-X", "importtime"] if importtime else []
        cmd = [sys.executable, *flags, "-m", "tieout.cli", "consume", stage, "--worker-id", WORKER]
        with self.log(stage).open("wb") as out:
            t0 = time.time()
            self.procs[stage] = subprocess.Popen(
                cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT, cwd=self.code, start_new_session=True
            )
        self.started[stage] = t0
        return t0

    def assigned(self, stage: str) -> float | None:
        """When the current incarnation's partitions were assigned (its log), or None (not yet).

        Raises:
            RuntimeError: The service exited.
        """
        if self.procs[stage].poll() is not None:
            raise RuntimeError(f"{stage} exited:\n{self.tail(stage)}")
        return first_event(self.lines(stage), "partitions assigned", nonempty="partitions")

    def kill(self, stage: str) -> None:
        """SIGKILL the service's whole process group (its engine worker too), as a container's kill does."""
        p = self.procs.pop(stage)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=30)

    def stop_all(self) -> None:
        """SIGTERM every service (each finishes its message), then SIGKILL what is left of their groups."""
        for p in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=60)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=10)
        self.procs.clear()

    def cpu_s(self, stage: str) -> float | None:
        """CPU seconds (user + system) the service process has used so far (not its engine worker's)."""
        try:
            t = psutil.Process(self.procs[stage].pid).cpu_times()
        except psutil.Error:
            return None
        return round(float(t.user + t.system), 2)

    def tail(self, stage: str, n: int = 3000) -> str:
        return "\n".join(self.lines(stage))[-n:]


class Outputs:
    """A ``read_committed`` reader of the output topics, in a thread: when each record reached it."""

    def __init__(self, settings: Settings) -> None:
        self.names = {
            settings.topic(t): t for t in (Topic.PARSED, Topic.VERIFIED, Topic.SUMMARIES, Topic.DLQ)
        }
        self.consumer = Consumer(
            {
                "bootstrap.servers": settings.kafka_bootstrap,
                "group.id": f"recovery-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "isolation.level": "read_committed",
                # Back soon after a broker outage, so the reader's own reconnect adds little to the figures.
                "reconnect.backoff.ms": 100,
                "reconnect.backoff.max.ms": 1000,
                "log_level": 2,  # the outage drill's connection errors are expected
            }
        )
        self.consumer.subscribe(list(self.names))
        self.lock = threading.Lock()
        self.records: list[tuple[str, float, float, str]] = []  # (topic, arrived, created, source)
        # The reader commits nothing, so after a broker restart its group starts again from the beginning:
        # a record seen before is not counted twice.
        self.seen: set[tuple[str, int, int]] = set()
        self.sources: dict[str, Counter[str]] = {t: Counter() for t in self.names.values()}
        self.dead: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping.is_set():
            m = self.consumer.poll(0.1)
            if m is None or m.error():
                continue
            arrived = time.time()
            position = (m.topic() or "", m.partition() or 0, m.offset() or 0)
            if position in self.seen:
                continue
            self.seen.add(position)
            value = m.value()
            topic = self.names.get(m.topic() or "", "")
            record = json.loads(unframe(value).payload) if isinstance(value, bytes) else {}
            source = str(record.get("source") or "")
            with self.lock:
                self.records.append((topic, arrived, m.timestamp()[1] / 1000, source))
                self.sources[topic][source] += 1
                if topic == Topic.DLQ:
                    self.dead.append({k: record.get(k) for k in ("stage", "category", "source", "message")})

    def first_after(self, topic: str, t: float, *, created: bool = True) -> float | None:
        """When the first record of ``topic`` came after ``t`` (with ``created``: also made after ``t``)."""
        with self.lock:
            got = [a for (tp, a, c, _) in self.records if tp == topic and a >= t and (not created or c >= t)]
        return min(got) if got else None

    def done(self, topic: str) -> set[str]:
        """The sources (object keys) with a record on ``topic``."""
        with self.lock:
            return set(self.sources[topic])

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        self.consumer.close()


class Feeder:
    """Uploads documents to the landing bucket, keeping ``window`` of them without a summary, in a thread."""

    def __init__(
        self, store: ObjectStore, bucket: str, samples: list[Path], tag: str, outputs: Outputs, window: int
    ) -> None:
        self.store, self.bucket, self.outputs, self.window, self.tag = store, bucket, outputs, window, tag
        self.samples = [(p.name, p.read_bytes()) for p in samples]
        self.uploaded: dict[str, float] = {}
        self.paused = threading.Event()
        self.uploading = threading.Lock()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def pending(self) -> set[str]:
        """Uploaded documents without a summary or a dead letter yet."""
        return set(self.uploaded) - self.outputs.done(Topic.SUMMARIES) - self.outputs.done(Topic.DLQ)

    def _run(self) -> None:
        i = 0
        while not self.stopping.is_set():
            if self.paused.is_set() or len(self.pending()) >= self.window:
                time.sleep(0.2)
                continue
            name, data = self.samples[i % len(self.samples)]
            key = f"rec/{i:04d}-{name}"
            with self.uploading:
                if self.paused.is_set():
                    continue
                try:  # distinct bytes: a document of its own
                    self.store.put_bytes(
                        self.bucket, key, data + f"\n% {self.tag} {i}\n".encode(), "application/pdf"
                    )
                except Exception:  # the store is away; the drill resumes uploads once it is back
                    time.sleep(1.0)
                    continue
                self.uploaded[key] = time.time()
            i += 1

    def pause(self) -> None:
        """Stop uploading; returns once no upload is under way."""
        self.paused.set()
        with self.uploading:
            pass

    def resume(self) -> None:
        self.paused.clear()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=30)


# ------------------------------------------------------------------------------------------ the drills
@dataclass
class Drill:
    """What the drills share: the services, the reader, the uploads and the run's clock."""

    fleet: Fleet
    outputs: Outputs
    feeder: Feeder
    bound_s: float
    t_start: float = field(default_factory=time.monotonic)

    def say(self, text: str) -> None:
        print(f"[{time.monotonic() - self.t_start:5.0f} s] {text}", flush=True)

    def has_input(self, stage: str) -> bool:
        """Whether documents are waiting for ``stage`` (or in its hands): in its input, not in its output."""
        inputs = set(self.feeder.uploaded) if stage == "parse" else self.outputs.done(UPSTREAM[stage])
        return bool(inputs - self.outputs.done(OUTPUT[stage]) - self.outputs.done(Topic.DLQ))


def cold_start(fleet: Fleet, stage: str, bound_s: float) -> dict[str, Any]:
    """Start ``stage`` under ``-X importtime``: seconds to its metrics endpoint, partitions and imports."""
    t0 = fleet.start(stage, importtime=True)
    assigned = wait_for(lambda: fleet.assigned(stage), bound_s, every_s=0.05)
    cpu = fleet.cpu_s(stage)
    if assigned is None:
        raise RuntimeError(f"{stage} got no partitions within {bound_s} s:\n{fleet.tail(stage)}")
    lines = fleet.lines(stage)
    endpoint = first_event(lines, "metrics endpoint")
    total, by = import_seconds(lines, "partitions assigned")
    return {
        "endpoint_s": round(endpoint - t0, 2) if endpoint else None,
        "assigned_s": round(assigned - t0, 2),
        "cpu_s": cpu,
        "imports_s": total,
        "imports_by_package_s": dict(list(by.items())[:12]),
    }


def kill_once(drill: Drill, stage: str, rng: random.Random) -> dict[str, Any]:
    """SIGKILL ``stage`` while it works, start a new one, and time its way back (see the module's doc)."""
    fleet, out = drill.fleet, OUTPUT[stage]
    # Working: it has committed output since it started, and documents are waiting for it.
    wait_for(lambda: drill.outputs.first_after(out, fleet.started[stage]), drill.bound_s)
    waited = wait_for(lambda: True if drill.has_input(stage) else None, drill.bound_s)
    time.sleep(rng.uniform(0.2, 1.5))  # somewhere into a document
    fleet.kill(stage)
    t0 = fleet.start(stage)
    assigned = wait_for(lambda: fleet.assigned(stage), drill.bound_s, every_s=0.05)
    cpu = fleet.cpu_s(stage)
    first = wait_for(lambda: drill.outputs.first_after(out, t0), drill.bound_s)
    lines = fleet.lines(stage)
    endpoint = first_event(lines, "metrics endpoint")
    # How long the first document took to handle: where the engine worker's start (parse) or the quality
    # gate's first import (sink) shows.
    handled = [g[2] for line in lines if (g := log_event(line)) is not None and g[0] == "message done"]
    first_handle = next((h.get("handle_ms") for h in handled if h.get("published")), None)
    return {
        "endpoint_s": round(endpoint - t0, 2) if endpoint else None,
        "assigned_s": round(assigned - t0, 2) if assigned else None,
        "cpu_s": cpu,
        "output_s": round(first - t0, 2) if first else None,
        "first_handle_s": round(float(first_handle) / 1000, 2) if first_handle is not None else None,
        "input_waiting": waited is not None,
    }


def outage(drill: Drill, kind: str, outage_s: float, env: dict[str, str]) -> dict[str, Any]:
    """Stop a dependency for ``outage_s`` with documents in flight; time the pipeline's next result."""
    stop_cmd, up_cmd = CONTROL[kind]
    wait_for(lambda: True if drill.feeder.pending() else None, drill.bound_s)
    in_flight = len(drill.feeder.pending())
    if kind in PAUSE_UPLOADS:
        drill.feeder.pause()
    t_stop = time.time()
    _run(stop_cmd, env)
    time.sleep(outage_s)
    t_up = time.time()
    _run(up_cmd, env)
    t_back = time.time()
    drill.feeder.resume()
    # A result committed after the return, whenever its record was made (it may have waited out the outage).
    result = wait_for(
        lambda: drill.outputs.first_after(Topic.SUMMARIES, t_back, created=False), drill.bound_s
    )
    by_topic = {
        t: drill.outputs.first_after(t, t_back, created=False) for t in (Topic.PARSED, Topic.VERIFIED)
    }
    # Which services met the outage: an error logged (and retried) between the stop and the return.
    felt = [
        stage
        for stage in STAGES
        if any(
            (got := log_event(line)) is not None and "error" in got[2] and t_stop <= got[1] <= t_back
            for line in drill.fleet.lines(stage)
        )
    ]
    return {
        "in_flight": in_flight,
        "down_s": round(t_up - t_stop, 1),
        "up_s": round(t_back - t_up, 1),
        "next_result_s": round(result - t_back, 1) if result else None,
        "next_by_topic_s": {t: round(v - t_back, 1) if v else None for t, v in by_topic.items()},
        "felt_by": felt,
        "bound_s": drill.bound_s,
    }


def _run(cmd: list[str], env: dict[str, str], timeout_s: float = 900) -> None:
    """Run an infra script (in the environment the bench started with, not the slice's)."""
    out = subprocess.run(
        cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout_s, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:])} failed: {out.stdout[-2000:]}\n{out.stderr[-2000:]}")


def settle(drill: Drill, env: dict[str, str], code: Path, drain_s: float) -> dict[str, Any]:
    """Wait for every uploaded document's summary (reconcile once if some have none); count losses."""
    drill.feeder.close()
    uploaded = set(drill.feeder.uploaded)

    def all_done() -> bool | None:
        return True if not drill.feeder.pending() else None

    reconciled = False
    if wait_for(all_done, drain_s, 1.0) is None:
        drill.say(f"{len(drill.feeder.pending())} document(s) without a summary: tieout reconcile")
        subprocess.run(
            [sys.executable, "-m", "tieout.cli", "reconcile"], env=env, cwd=code, check=False, timeout=600
        )
        reconciled = True
        wait_for(all_done, drain_s, 1.0)
    per_source = drill.outputs.sources[Topic.SUMMARIES]
    return {
        "uploaded": len(uploaded),
        "with_summary": len(uploaded & set(per_source)),
        "lost": len(drill.feeder.pending()),
        "duplicate_summaries": sum(n - 1 for s, n in per_source.items() if s in uploaded),
        "dead_letters": drill.outputs.dead,
        "reconcile_run": reconciled,
    }


# ------------------------------------------------------------------------------------------------- main
def _database(pg_dsn: str, name: str, *, drop: bool = False) -> str:
    """Create (or drop) a database of the run's own on the local PostgreSQL; returns its DSN."""
    with psycopg.connect(pg_dsn, autocommit=True, connect_timeout=10) as conn:
        if drop:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)".encode())
        else:
            conn.execute(f"CREATE DATABASE {name}".encode())
    return make_conninfo(pg_dsn, dbname=name)


def _commit(code: Path) -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=code,
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    return out.stdout.strip() or "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=10, help="SIGKILLs per stage")
    ap.add_argument("--stages", default=",".join(STAGES), help="stages to kill, comma-separated")
    ap.add_argument(
        "--outages", default=",".join(OUTAGES), help="kafka, s3, postgres (comma-separated; '' none)"
    )
    ap.add_argument("--outage-s", type=float, default=20.0, help="seconds each dependency stays down")
    ap.add_argument("--window", type=int, default=4, help="documents kept in flight")
    ap.add_argument("--bound-s", type=float, default=180.0, help="longest wait for any one event")
    ap.add_argument("--drain-s", type=float, default=300.0, help="longest wait for the last summaries")
    ap.add_argument("--label", default="current", help="name of this run in the JSON file (before, after, …)")
    ap.add_argument(
        "--code",
        type=Path,
        default=REPO,
        help="checkout whose services to run (default this one; e.g. a worktree of an older commit)",
    )
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument(
        "--json", type=Path, default=RESULTS / "recovery.json", help="results file (labels merged)"
    )
    args = ap.parse_args()
    stages = [s for s in args.stages.split(",") if s]
    kinds = [k for k in args.outages.split(",") if k]
    if bad := (set(stages) - set(STAGES)) | (set(kinds) - set(OUTAGES)):
        ap.error(f"unknown stage or outage: {sorted(bad)}")

    meta = run_meta()
    infra_env = dict(os.environ)  # the scripts must not see the slice's TOPIC_PREFIX, buckets, …
    stack = private_stack("rec")
    if stack is None:
        return 2
    env, settings, store = stack
    code = args.code.resolve()
    env = {**env, "TIEOUT_LOG_LEVEL": "INFO", "PYTHONPATH": str(code)}
    pg_dsn = read_env_file(REPO / ".tieout" / "pg.env").get("PG_DSN")
    db = f"rec_{settings.topic_prefix.strip('.').removeprefix('rec')}"
    if pg_dsn:
        env["PG_DSN"] = _database(pg_dsn, db)
    else:
        kinds = [k for k in kinds if k != "postgres"]
        print("no PostgreSQL (.tieout/pg.env): the sink writes Parquet only; no database outage", flush=True)
    work = Path(tempfile.mkdtemp(prefix="tieout-recovery-"))
    fleet = Fleet(env, code, work)
    rng = random.Random(args.seed)
    result: dict[str, Any] = {"meta": meta, "code": {"dir": str(code), "commit": _commit(code)}}
    outputs: Outputs | None = None
    feeder: Feeder | None = None
    t_start = time.monotonic()
    try:
        # The reader and uploads start once the services have created the topics and joined.
        startup: dict[str, Any] = {}
        for stage in STAGES:
            startup[stage] = cold_start(fleet, stage, args.bound_s)
            s = startup[stage]
            print(
                f"[{time.monotonic() - t_start:5.0f} s] cold start {stage}: endpoint {s['endpoint_s']} s, "
                f"assigned {s['assigned_s']} s, imports {s['imports_s']} s",
                flush=True,
            )
        result["startup"] = startup
        outputs = Outputs(settings)
        feeder = Feeder(store, settings.landing_bucket, SAMPLES, settings.topic_prefix, outputs, args.window)
        drill = Drill(fleet, outputs, feeder, args.bound_s, t_start)
        kills: dict[str, Any] = {}
        for stage in stages:
            each = []
            for k in range(args.kills):
                got = kill_once(drill, stage, rng)
                each.append(got)
                drill.say(
                    f"{stage} kill {k + 1}/{args.kills}: endpoint {got['endpoint_s']} s, assigned "
                    f"{got['assigned_s']} s, first output {got['output_s']} s"
                    + ("" if got["input_waiting"] else " (no input was waiting)")
                )
            kills[stage] = {
                "endpoint_s": summary([g["endpoint_s"] for g in each]),
                "assigned_s": summary([g["assigned_s"] for g in each]),
                "cpu_s": summary([g["cpu_s"] for g in each]),
                "output_s": summary([g["output_s"] for g in each]),
                "first_handle_s": summary([g["first_handle_s"] for g in each]),
                "each": each,
            }
        result["kills"] = kills
        outages: dict[str, Any] = {}
        for kind in kinds:
            drill.say(f"{kind} down for {args.outage_s:.0f} s")
            outages[kind] = outage(drill, kind, args.outage_s, infra_env)
            o = outages[kind]
            drill.say(
                f"{kind} back after {o['up_s']} s (met by {', '.join(o['felt_by']) or 'no service'}); "
                f"next result {o['next_result_s']} s after its return"
            )
        result["outages"] = outages
        drill.say("waiting for every document's summary")
        result["delivery"] = settle(drill, env, code, args.drain_s)
        d = result["delivery"]
        drill.say(
            f"{d['with_summary']}/{d['uploaded']} documents with a summary, {d['lost']} lost, "
            f"{d['duplicate_summaries']} duplicate summaries, {len(d['dead_letters'])} dead letters"
        )
    finally:
        fleet.stop_all()
        if feeder is not None:
            feeder.close()
        if outputs is not None:
            outputs.close()
        if pg_dsn:
            with contextlib.suppress(Exception):
                _database(pg_dsn, db, drop=True)
        if os.environ.get("TIEOUT_BENCH_KEEP"):
            print(f"service logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    result["settings"] = {
        "kills": args.kills,
        "stages": stages,
        "outages": kinds,
        "outage_s": args.outage_s,
        "window": args.window,
        "postgres": bool(pg_dsn),
    }
    result["meta"]["load_average_end"] = load_average()
    result["meta"]["wall_s"] = round(time.monotonic() - t_start, 1)
    previous = json.loads(args.json.read_text()) if args.json.exists() else {}
    earlier = previous.get("runs", {}).get(args.label, {})
    # A part this run skipped (--kills 0, --outages '') keeps the label's earlier figures, and says when.
    for part, skipped in (("kills", not args.kills), ("outages", not kinds)):
        if skipped and earlier.get(part):
            carried = result.setdefault("carried_over", {})
            for p in (part, "startup") if part == "kills" else (part,):
                result[p] = earlier[p]
                carried[p] = earlier.get("carried_over", {}).get(p) or earlier.get("meta", {})
    runs = {**previous.get("runs", {}), args.label: result}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": runs}, indent=2) + "\n", encoding="utf-8")
    print("\n".join(format_table(runs)))
    print(f"wrote {args.json} ({args.label})")
    d = result["delivery"]
    return 0 if d["lost"] == 0 and d["duplicate_summaries"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
