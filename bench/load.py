"""Load: 1,000 documents through the local stack, with lag and throughput over time.

Needs the local stack (``bash infra/stack.sh up``; PostgreSQL too when ``PG_DSN`` is set, for the sink).
In one run:

1. starts the three services (``parse``, ``verify``, ``sink``; ``--workers`` each) on a private topic
   prefix and private buckets;
2. uploads ``--docs`` distinct documents at once (the generated sample documents, each copy with distinct
   bytes, so each is a document of its own) as an S3 client would;
3. while they flow, samples every second each stage's consumer lag (the input topic's end offsets minus
   the group's committed offsets, summed over partitions) and every process's resident memory (the
   services and their parse worker processes);
4. times each document from the start of its upload to its summary on the ``summaries`` topic (the
   sink's last word on it, read ``read_committed``), and counts what reached the dead-letter topic;
5. when every document has a summary or a dead letter, runs ``tieout reconcile`` (which announces again
   every PDF of the landing bucket without results) and waits for the rest: nothing may stay lost.

Writes ``--out``/load.json (docs/min, latency percentiles, lag curve, peak RSS per process) and
``--out``/load.png (lag per stage and completed documents per 10 s, over time).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psutil
from confluent_kafka import Consumer, TopicPartition

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # `python bench/X.py` as well as `python -m bench.X`

from adapters.registry import unframe  # noqa: E402
from adapters.settings import Settings  # noqa: E402
from bench.e2e_latency import _copies  # noqa: E402
from bench.meta import RESULTS, run_meta  # noqa: E402
from bench.stack import (  # noqa: E402
    SAMPLES,
    busy_seconds,
    committed_reader,
    private_stack,
    start_services,
    stop_services,
)
from schemas.topology import TOPOLOGY, Topic  # noqa: E402

STAGES = {s.name.value: s.input.value for s in TOPOLOGY.stages}


class Lag:
    """Samples each stage's consumer lag: end offsets of its input topic minus the group's committed ones."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.consumers = {
            stage: Consumer(
                {
                    "bootstrap.servers": settings.kafka_bootstrap,
                    "group.id": f"{settings.topic_prefix}{stage}",  # read only: never subscribes or commits
                    "enable.auto.commit": False,
                }
            )
            for stage in STAGES
        }

    def sample(self) -> dict[str, int]:
        out = {}
        for stage, consumer in self.consumers.items():
            topic = self.settings.topic(STAGES[stage])
            meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
            if meta is None or not meta.partitions:
                out[stage] = 0
                continue
            parts = [TopicPartition(topic, p) for p in meta.partitions]
            committed = consumer.committed(parts, timeout=10)
            lag = 0
            for tp in committed:
                _, high = consumer.get_watermark_offsets(TopicPartition(topic, tp.partition), timeout=10)
                lag += max(0, high - max(tp.offset, 0))
            out[stage] = lag
        return out

    def close(self) -> None:
        for c in self.consumers.values():
            c.close()


class Summaries:
    """A read_committed reader of the summaries and dead-letter topics: when each document ended."""

    def __init__(self, settings: Settings) -> None:
        self.summaries, self.dlq = settings.topic(Topic.SUMMARIES), settings.topic(Topic.DLQ)
        self.c = committed_reader(settings, [self.summaries, self.dlq])
        self.arrived: dict[str, float] = {}
        self.dead: list[dict[str, Any]] = []

    def poll(self) -> None:
        m = self.c.poll(0.2)
        if m is None or m.error():
            return
        value = m.value()
        if not isinstance(value, bytes):
            return
        record = json.loads(unframe(value).payload)  # framed when SCHEMA_REGISTRY_URL is set
        if m.topic() == self.dlq:
            self.dead.append({k: record.get(k) for k in ("stage", "category", "message")})
            return
        source = str(record.get("source", ""))
        self.arrived.setdefault(source.rsplit("/", 1)[-1], time.monotonic())


def _processes(procs: list[subprocess.Popen[bytes]]) -> list[psutil.Process]:
    out = []
    for p in procs:
        try:
            root = psutil.Process(p.pid)
            out += [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    return out


def _plot(series: list[dict[str, Any]], done_times: list[float], t_start: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ts = [s["t"] for s in series]
    for stage in STAGES:
        ax1.plot(ts, [s["lag"][stage] for s in series], label=f"{stage} lag")
    ax1.set_ylabel("consumer lag (messages)")
    ax1.legend()
    ax1.grid(alpha=0.3)
    buckets = Counter(int((t - t_start) // 10) for t in done_times)
    last = max(buckets) if buckets else 0
    xs = [b * 10 + 5 for b in range(last + 1)]
    ax2.bar(xs, [buckets.get(b, 0) / 10 * 60 for b in range(last + 1)], width=9, color="tab:green")
    ax2.set_ylabel("completed (docs/min)")
    ax2.set_xlabel("seconds since the uploads began")
    ax2.grid(alpha=0.3)
    fig.suptitle(f"tieout load: {len(done_times)} documents through the local stack")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def stage_costs(busy: dict[str, dict[str, float]]) -> dict[str, float | None]:
    """Per-replica costs from the stages' busy time: parse and verify per page, the sink per document.

    Busy time is handling plus commit seconds: one replica handles one message at a time, so that is the
    time it could not take the next one. Pages are those the parse engine ran on (the same documents flow
    through verify). Messages skipped by parse (the gateway's events for other buckets) are in its busy
    time, as they are in its work.
    """

    def spent(stage: str) -> float:
        b = busy.get(stage, {})
        return b.get("message_s", 0.0) + b.get("commit_s", 0.0)

    pages = busy.get("parse", {}).get("pages", 0.0)
    sink_docs = busy.get("sink", {}).get("published", 0.0)
    return {
        "parse_s_per_page": round(spent("parse") / pages, 5) if pages else None,
        "verify_s_per_page": round(spent("verify") / pages, 5) if pages else None,
        "sink_s_per_doc": round(spent("sink") / sink_docs, 5) if sink_docs else None,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=1000, help="documents to send")
    ap.add_argument("--workers", type=int, default=1, help="workers per stage")
    ap.add_argument("--timeout", type=float, default=3600, help="give up after this many seconds")
    ap.add_argument("--out", type=Path, default=REPO / "out" / "bench" / "load", help="results folder")
    ap.add_argument(
        "--json",
        type=Path,
        default=RESULTS / "load.json",
        help="the figures and each stage's per-replica cost, for `tieout plan` (no lag curve)",
    )
    args = ap.parse_args()

    meta = run_meta()
    stack = private_stack("load")
    if stack is None:
        return 2
    env, settings, store = stack
    work = Path(tempfile.mkdtemp(prefix="tieout-load-"))
    args.out.mkdir(parents=True, exist_ok=True)
    docs = _copies(SAMPLES, args.docs, work, f"load{uuid.uuid4().hex[:8]}")
    procs, logs = start_services(list(STAGES), env, work, args.workers)
    summaries, lag = Summaries(settings), Lag(settings)
    series: list[dict[str, Any]] = []
    first_pass: set[str] = set()
    reconcile_s = 0.0
    peak_rss: dict[str, int] = {}
    uploaded: dict[str, float] = {}
    stop = threading.Event()

    def sampler(t_start: float) -> None:
        while not stop.is_set():
            try:
                series.append({"t": round(time.monotonic() - t_start, 2), "lag": lag.sample()})
            except Exception as exc:  # a sample lost under load is a gap in the curve, not a failed run
                print(f"lag sample failed: {exc}", file=sys.stderr)
            services = {q.pid for q in procs}
            for p in _processes(procs):
                try:
                    name = " ".join(p.cmdline()[-3:]) if p.pid in services else f"worker {p.pid}"
                    peak_rss[name] = max(peak_rss.get(name, 0), p.memory_info().rss)
                except psutil.Error:
                    continue
            stop.wait(1.0)

    try:
        time.sleep(5)  # the services join their groups
        t_start = time.monotonic()
        threading.Thread(target=sampler, args=(t_start,), daemon=True).start()

        def upload(path: Path) -> None:
            uploaded[path.name] = time.monotonic()
            store.client.upload_file(str(path), settings.landing_bucket, path.name)

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(upload, docs))
        upload_s = time.monotonic() - t_start
        print(f"uploaded {len(docs)} documents in {upload_s:.1f} s", flush=True)
        deadline = t_start + args.timeout
        names = {d.name for d in docs}
        shown = 0
        while time.monotonic() < deadline and len(names & set(summaries.arrived)) + len(summaries.dead) < len(
            names
        ):
            summaries.poll()
            if len(summaries.arrived) >= shown + 100:
                shown = len(summaries.arrived)
                print(f"  {shown} done after {time.monotonic() - t_start:.0f} s", flush=True)
        first_pass = set(summaries.arrived) & names
        if names - first_pass:
            print(
                f"{len(names - first_pass)} without results ({len(summaries.dead)} dead letters): reconcile"
            )
            t_reconcile = time.monotonic()
            subprocess.run(
                [sys.executable, "-m", "tieout.cli", "reconcile"], env=env, cwd=REPO, check=False, timeout=600
            )
            while time.monotonic() < deadline and not names <= set(summaries.arrived):
                summaries.poll()
            reconcile_s = time.monotonic() - t_reconcile
        stop.set()
        time.sleep(1.2)
    finally:
        stop.set()
        busy: dict[str, dict[str, float]] = {}
        try:  # before the services stop: their counters live in them
            busy = busy_seconds(work)
        except Exception as exc:  # the figures above stand without the per-stage costs
            print(f"reading the services' metrics failed: {exc}", file=sys.stderr)
        stop_services(procs, logs)
        summaries.c.close()
        lag.close()

    done = {n: summaries.arrived[n] for n in uploaded if n in summaries.arrived}
    # Latency and throughput of the first pass; what reconcile recovered is counted apart.
    first = {n: t for n, t in done.items() if n in first_pass}
    latencies = sorted(first[n] - uploaded[n] for n in first)
    elapsed = max(first.values()) - t_start if first else float("nan")
    q = statistics.quantiles(latencies, n=100) if len(latencies) >= 2 else [float("nan")] * 99
    peak_lag = {s: max((x["lag"][s] for x in series), default=0) for s in STAGES}
    figures = {
        "docs_sent": len(docs),
        "docs_done": len(done),
        "docs_done_first_pass": len(first),
        "dead_letters": summaries.dead,
        "recovered_by_reconcile": len(done) - len(first),
        "reconcile_s": round(reconcile_s, 1),
        "workers_per_stage": args.workers,
        "elapsed_s": round(elapsed, 1),
        "docs_per_min": round(len(first) / elapsed * 60, 1) if first else 0.0,
        "latency_s": {"p50": round(q[49], 2), "p95": round(q[94], 2), "p99": round(q[98], 2)},
        "peak_lag": peak_lag,
        "peak_rss_mb": {k: round(v / 2**20) for k, v in sorted(peak_rss.items())},
        "lag_series": series,
    }
    (args.out / "load.json").write_text(json.dumps(figures, indent=2))
    costs = stage_costs(busy)
    result = {
        "meta": {**meta, "load_average_end": [round(x, 2) for x in os.getloadavg()]},
        **{k: v for k, v in figures.items() if k != "lag_series"},
        "postgres": bool(settings.pg_dsn),
        "busy": busy,
        "costs": costs,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"per-replica busy time: {costs}; wrote {args.json}")
    _plot(series, list(done.values()), t_start, args.out / "load.png")
    print(
        f"{len(first)}/{len(docs)} documents in {elapsed:.0f} s, {len(done) - len(first)} more after "
        f"reconcile ({len(summaries.dead)} dead letters): {figures['docs_per_min']} docs/min; "
        f"latency p50 {q[49]:.1f} s, p95 {q[94]:.1f} s; peak lag {peak_lag}"
    )
    print("peak RSS (MB): " + ", ".join(f"{k}: {v}" for k, v in figures["peak_rss_mb"].items()))
    print(f"wrote {args.out / 'load.json'} and {args.out / 'load.png'}")
    if os.environ.get("TIEOUT_BENCH_KEEP"):
        print(f"service logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if len(done) == len(docs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
