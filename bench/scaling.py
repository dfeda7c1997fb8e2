"""Scaling of the parse stage: 1, 2 and 4 ``tieout consume parse`` services on a 12-partition landing topic.

Needs the local stack (``bash infra/stack.sh up``). For each worker count, in a slice of the stack of its
own (topic prefix, buckets, consumer group):

1. creates a 12-partition landing topic (``LANDING_TOPIC`` of the slice) and uploads ``--docs`` distinct
   documents (copies of the generated sample documents, each with distinct bytes) to the landing bucket;
2. publishes one S3 event record per document to that topic, round-robin over its partitions (what
   ``tieout submit`` does for a store without notifications), so every document is waiting before a
   worker starts;
3. starts the workers, the very ``tieout consume parse`` processes a deployment runs, and samples every
   second the group's lag on the landing topic and the CPU time of every process involved (services,
   their engine workers, the broker and the S3 gateway);
4. times each document's ``parsed`` event (read ``read_committed``) until all are parsed or
   ``--max-seconds`` pass, then stops the workers.

Throughput is reported over the whole run (from the workers' start, group joins included) and in steady
state (from the moment the group is stable with every worker holding partitions and a first document is
parsed, to the last parsed event). Next to each measured figure it prints the planner's prediction
(:func:`adapters.deploy.planning.predicted_pages_per_s`: ``min(workers / wall s per page, cores / CPU s per
page)``) and its error, once with all the machine's cores and once ("shared") with the cores other work
left free during the 1-worker run (``/proc/stat`` against the run's own CPU time). The 1-worker run
calibrates the per-page costs, so its prediction is the calibration itself; 2 and 4 workers are predicted
from it. Writes ``--json`` (default ``bench/results/scaling.json``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psutil
import pymupdf
from confluent_kafka import Consumer, ConsumerGroupState, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic  # re-exported by .admin, which its stubs do not declare

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # `python bench/X.py` as well as `python -m bench.X`

from adapters.deploy.planning import predicted_pages_per_s, prediction_error_pct  # noqa: E402
from adapters.settings import Settings, read_env_file  # noqa: E402
from bench.e2e_latency import _copies  # noqa: E402
from bench.meta import RESULTS, load_average, run_meta, usable_cores  # noqa: E402
from bench.stack import SAMPLES, committed_reader, private_stack, start_services, stop_services  # noqa: E402
from consumers.ingest import s3_event  # noqa: E402
from schemas.topology import Topic  # noqa: E402

PARTITIONS = 12
STACK_ENV = Path(os.environ.get("TIEOUT_ENV_FILE", REPO / ".tieout" / "stack.env"))
KAFKA_TIMEOUT_S = 30.0


def _landing_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, partitions, 1)], request_timeout=KAFKA_TIMEOUT_S)
    for f in futures.values():
        f.result(timeout=KAFKA_TIMEOUT_S)
    # Wait until every partition has a leader, or the first produce may fail.
    deadline = time.monotonic() + KAFKA_TIMEOUT_S
    while time.monotonic() < deadline:
        meta = admin.list_topics(topic, timeout=10).topics.get(topic)
        parts = meta.partitions if meta is not None else {}
        if len(parts) == partitions and all(p.leader >= 0 for p in parts.values()):
            return
        time.sleep(0.2)
    raise RuntimeError(f"{topic}: partitions without a leader after {KAFKA_TIMEOUT_S} s")


def _preload(settings: Settings, store: Any, docs: list[Path]) -> None:
    """Upload every document, then announce each on the landing topic, round-robin over its partitions."""

    def upload(path: Path) -> tuple[str, int, str]:
        data = path.read_bytes()
        store.put_bytes(settings.landing_bucket, path.name, data, "application/pdf")
        return path.name, len(data), hashlib.md5(data).hexdigest()

    with ThreadPoolExecutor(8) as pool:
        uploaded = list(pool.map(upload, docs))
    producer = Producer({"bootstrap.servers": settings.kafka_bootstrap, "enable.idempotence": True})
    topic = settings.topic(Topic.LANDING)
    for i, (key, size, etag) in enumerate(uploaded):
        # An explicit partition: equal shares, so an uneven spread of keys does not bend the curve.
        producer.produce(
            topic, s3_event(settings.landing_bucket, key, size, etag), key=key, partition=i % PARTITIONS
        )
    left = producer.flush(KAFKA_TIMEOUT_S)
    if left:
        raise RuntimeError(f"{left} landing events not delivered within {KAFKA_TIMEOUT_S} s")


def _lag(consumer: Consumer, topic: str, partitions: int) -> int:
    parts = [TopicPartition(topic, p) for p in range(partitions)]
    lag = 0
    for tp in consumer.committed(parts, timeout=10):
        _, high = consumer.get_watermark_offsets(TopicPartition(topic, tp.partition), timeout=10)
        lag += max(0, high - max(tp.offset, 0))
    return lag


def _joined(admin: AdminClient, group: str, workers: int) -> bool:
    """Whether the group is stable with ``workers`` members, each holding partitions."""
    try:
        desc = admin.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=15)
    except Exception:  # not there yet, or a slow answer under load: asked again next second
        return False
    members = list(desc.members)
    return (
        desc.state == ConsumerGroupState.STABLE
        and len(members) == workers
        and all(m.assignment and m.assignment.topic_partitions for m in members)
    )


def _machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of every core since boot, from /proc/stat (idle and iowait are not busy)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    total = sum(fields[:8])  # guest time is counted in user already
    return total - idle, total


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes and all their children, living ones only."""
    total = 0.0
    seen: set[int] = set()
    for pid in pids:
        try:
            root = psutil.Process(pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            if p.pid in seen:
                continue
            seen.add(p.pid)
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                continue
    return total


def _pages(path: Path) -> int:
    with pymupdf.open(path) as pdf:
        return int(pdf.page_count)


def run_once(workers: int, samples: list[Path], n_docs: int, max_seconds: float) -> dict[str, Any]:
    """One worker count in its own slice of the stack; the figures of the run."""
    # private_stack() points this process's settings at its slice (TIEOUT_ENV_FILE=/nonexistent): each
    # worker count finds the stack's env file again.
    os.environ["TIEOUT_ENV_FILE"] = str(STACK_ENV)
    stack = private_stack(f"scale{workers}w")
    if stack is None:
        raise SystemExit(2)
    env, _, store = stack
    # The slice's own 12-partition landing topic instead of the one the gateway announces to.
    landing = f"{env['TOPIC_PREFIX']}landing"
    env["LANDING_TOPIC"] = os.environ["LANDING_TOPIC"] = landing
    settings = Settings.load(Path("/nonexistent"))
    _landing_topic(settings.kafka_bootstrap, landing, PARTITIONS)
    work = Path(tempfile.mkdtemp(prefix="tieout-scaling-"))
    docs = _copies(samples, n_docs, work, f"scale{uuid.uuid4().hex[:8]}")
    pages_of = {d.name: _pages(d) for d in docs}
    _preload(settings, store, docs)
    print(
        f"  {workers} worker(s): {len(docs)} documents ({sum(pages_of.values())} pages) waiting", flush=True
    )

    reader = committed_reader(settings, [settings.topic(Topic.PARSED), settings.topic(Topic.DLQ)])
    lag_reader = Consumer(
        {
            "bootstrap.servers": settings.kafka_bootstrap,
            "group.id": f"{settings.topic_prefix}parse",  # read only: never subscribes or commits
            "enable.auto.commit": False,
        }
    )
    stack_env = read_env_file(STACK_ENV)
    infra_pids = [int(stack_env[k]) for k in ("KAFKA_PID", "VERSITYGW_PID") if stack_env.get(k, "").isdigit()]
    series: list[dict[str, Any]] = []
    stop = threading.Event()
    done: dict[str, float] = {}
    dead = 0
    load_start = load_average()
    procs, logs = start_services(["parse"], env, work, workers)
    t0 = time.monotonic()
    cpu_infra0 = _cpu_seconds(infra_pids)
    service_cpu: dict[int, float] = {}
    cpu_marks: list[tuple[float, float]] = []
    stable: list[tuple[float, int]] = []
    steady_from: list[float] = []
    machine_marks: list[tuple[int, int]] = []

    admin = AdminClient({"bootstrap.servers": settings.kafka_bootstrap})
    group = f"{settings.topic_prefix}parse"

    def sampler() -> None:
        while not stop.is_set():
            for p in procs:  # the last reading of each service tree before it stops
                service_cpu[p.pid] = _cpu_seconds([p.pid])
            if not stable and _joined(admin, group, workers):
                # Steady state begins once every worker holds its partitions (no rebalance to come).
                stable.append((time.monotonic() - t0, len(done)))
            try:
                lag = _lag(lag_reader, landing, PARTITIONS)
            except Exception as exc:  # a sample lost under load is a gap in the curve, not a failed run
                print(f"lag sample failed: {exc}", file=sys.stderr)
            else:
                series.append({"t": round(time.monotonic() - t0, 1), "lag": lag, "parsed": len(done)})
            stop.wait(1.0)

    threading.Thread(target=sampler, daemon=True).start()
    try:
        while time.monotonic() - t0 < max_seconds and len(done) + dead < len(docs):
            if stable and done and not steady_from:
                # Steady state: every worker holds its partitions (no rebalance to come) and has parsed
                # (the engine workers are warm); CPU from here on is per page, not start-up.
                steady_from.append(time.monotonic() - t0)
                cpu_marks.append((_cpu_seconds([p.pid for p in procs]), _cpu_seconds(infra_pids)))
                machine_marks.append(_machine_ticks())
            m = reader.poll(0.2)
            if m is None or m.error() or not isinstance(m.value(), bytes):
                continue
            if m.topic() == settings.topic(Topic.DLQ):
                dead += 1
                continue
            value = m.value()
            assert isinstance(value, bytes)
            source = str(json.loads(value).get("source", ""))
            done.setdefault(source, time.monotonic() - t0)
            # CPU over the steady window only: start-up (imports, the engine worker's spawn) is not per page.
            if len(done) + dead == len(docs):
                cpu_marks.append((_cpu_seconds([p.pid for p in procs]), _cpu_seconds(infra_pids)))
                machine_marks.append(_machine_ticks())
    finally:
        stop.set()
        time.sleep(1.1)
        cpu_services = sum(service_cpu.values())
        cpu_infra = _cpu_seconds(infra_pids) - cpu_infra0
        stop_services(procs, logs)
        reader.close()
        lag_reader.close()
        shutil.rmtree(work, ignore_errors=True)

    times = sorted(done.values())
    pages = sum(pages_of.get(s, 0) for s in done)
    elapsed = times[-1] if times else float("nan")
    t_stable = stable[0][0] if stable else float("nan")
    t_steady = steady_from[0] if steady_from else float("nan")
    steady = [s for s, t in done.items() if t > t_steady]
    steady_s = times[-1] - t_steady if len(steady) > 1 else float("nan")
    steady_pages = sum(pages_of.get(s, 0) for s in steady)
    cores = usable_cores()
    shares: dict[str, float] | None = None
    if len(cpu_marks) > 1 and len(machine_marks) > 1 and steady_s > 0:
        # Cores in use on the whole machine over the steady window, ours (services, engine workers,
        # broker, gateway) and everything else's: other work on a shared machine takes cores from the run.
        busy = machine_marks[-1][0] - machine_marks[0][0]
        total = machine_marks[-1][1] - machine_marks[0][1]
        machine = busy / total * (os.cpu_count() or cores) if total else 0.0
        ours = (cpu_marks[-1][0] - cpu_marks[0][0] + cpu_marks[-1][1] - cpu_marks[0][1]) / steady_s
        shares = {
            "machine_busy": round(machine, 2),
            "this_run": round(ours, 2),
            "other_work": round(max(0.0, machine - ours), 2),
        }
    return {
        "workers": workers,
        "docs_sent": len(docs),
        "docs_parsed": len(done),
        "dead_letters": dead,
        "pages": pages,
        "group_stable_s": round(t_stable, 2) if stable else None,
        "steady_from_s": round(t_steady, 2) if steady_from else None,
        "steady_docs": len(steady),
        "steady_pages": steady_pages,
        "complete": len(done) == len(docs),
        "elapsed_s": round(elapsed, 2),
        "first_parsed_s": round(times[0], 2) if times else None,
        "docs_per_min": round(len(done) / elapsed * 60, 1) if times else 0.0,
        "pages_per_s": round(pages / elapsed, 2) if times else 0.0,
        "steady_docs_per_min": round(len(steady) / steady_s * 60, 1) if len(steady) > 1 else 0.0,
        "steady_pages_per_s": round(steady_pages / steady_s, 2) if len(steady) > 1 else 0.0,
        "max_lag": max((s["lag"] for s in series), default=0),
        "cpu_s": {
            "services_and_engine_workers": round(cpu_services, 1),
            "broker_and_gateway": round(cpu_infra, 1),
        },
        # First to last parsed event: the services' and the broker's and gateway's CPU seconds.
        "steady_cpu_s": (
            round(cpu_marks[-1][0] - cpu_marks[0][0] + cpu_marks[-1][1] - cpu_marks[0][1], 2)
            if len(cpu_marks) > 1
            else None
        ),
        "cores_in_use_steady": shares,
        "load_average_start": load_start,
        "load_average_end": load_average(),
        "lag_series": series,
    }


def _num(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    ap.add_argument("--docs", type=int, default=700, help="documents per worker count (the same set)")
    ap.add_argument("--max-seconds", type=float, default=240, help="bound of each worker count's run")
    ap.add_argument("--json", type=Path, default=RESULTS / "scaling.json", help="result file")
    args = ap.parse_args(argv)

    counts = [int(x) for x in args.workers.split(",") if x.strip()]
    meta = run_meta()
    cores = usable_cores()
    print(
        f"cores: os.cpu_count() = {os.cpu_count()}, usable (affinity) = {cores}; "
        f"load average {meta['load_average_start']}",
        flush=True,
    )
    runs = [run_once(w, SAMPLES, args.docs, args.max_seconds) for w in counts]

    calib = next((r for r in runs if r["workers"] == 1 and r["steady_pages_per_s"] > 0), None)
    calibration: dict[str, Any] = {}
    if calib is not None:
        pps = calib["steady_pages_per_s"]
        cpu = calib["steady_cpu_s"]
        calibration = {
            "from_workers": 1,
            "wall_s_per_page": round(1 / pps, 5),
            # Every process the run needs on this machine, the broker and the gateway included.
            "cpu_s_per_page": round(cpu / calib["steady_pages"], 5)
            if cpu and calib["steady_pages"]
            else None,
            "mean_pages_per_doc": round(calib["pages"] / calib["docs_parsed"], 2),
        }
        # The cores the rest of the machine's work left free during the calibration: the CPU bound of a
        # shared machine (the plain prediction assumes all its cores are free for the run).
        cpu_per_page = calibration["cpu_s_per_page"]
        other = (calib.get("cores_in_use_steady") or {}).get("other_work")
        left = max(0.05, cores - other) if other is not None and cpu_per_page else None
        calibration["cores_left_by_other_work"] = round(left, 2) if left is not None else None
        for r in runs:
            predicted = predicted_pages_per_s(
                r["workers"],
                calibration["wall_s_per_page"],
                cores=cores,
                cpu_s_per_page=calibration["cpu_s_per_page"],
            )
            r["predicted_pages_per_s"] = round(predicted, 2)
            r["prediction_error_pct"] = round(prediction_error_pct(predicted, r["steady_pages_per_s"]), 1)
            if left is not None:
                shared = predicted_pages_per_s(
                    r["workers"], calibration["wall_s_per_page"], cores=left, cpu_s_per_page=cpu_per_page
                )
                r["predicted_shared_pages_per_s"] = round(shared, 2)
                r["prediction_shared_error_pct"] = round(
                    prediction_error_pct(shared, r["steady_pages_per_s"]), 1
                )

    header = (
        f"{'workers':>7} {'docs':>9} {'pages':>6} {'docs/min':>9} {'pages/s':>8} {'steady p/s':>10} "
        f"{'predicted':>9} {'error %':>8} {'shared':>7} {'error %':>8} {'max lag':>7} {'others':>6} "
        f"{'load avg':>16}"
    )
    lines = [header, "-" * len(header)]
    for r in runs:
        pred = r.get("predicted_pages_per_s")
        err = r.get("prediction_error_pct")
        note = " (calibration)" if r["workers"] == 1 else ""
        lines.append(
            f"{r['workers']:>7} {r['docs_parsed']:>4}/{r['docs_sent']:<4} {r['pages']:>6} "
            f"{r['docs_per_min']:>9.1f} {r['pages_per_s']:>8.2f} {r['steady_pages_per_s']:>10.2f} "
            f"{(f'{pred:.2f}' if pred is not None else '-'):>9} "
            f"{(f'{err:+.1f}' if err is not None else '-'):>8} "
            f"{_num(r.get('predicted_shared_pages_per_s'), '.2f'):>7} "
            f"{_num(r.get('prediction_shared_error_pct'), '+.1f'):>8} "
            f"{r['max_lag']:>7} {_num((r['cores_in_use_steady'] or {}).get('other_work'), '.2f'):>6} "
            f"{r['load_average_end']!s:>16}{note}"
        )
    print("\n".join(lines))
    for r in runs:
        every5 = " ".join(str(x["lag"]) for x in r["lag_series"][::5])
        print(f"lag of {r['workers']} worker(s), every 5th sample (~5 s) from their start: {every5}")
    base = calib["steady_pages_per_s"] if calib else 0
    if base:
        speedups = ", ".join(f"{r['workers']}: {r['steady_pages_per_s'] / base:.2f}x" for r in runs)
        print(f"speed-up over 1 worker: {speedups}")
    print(
        f"This machine has {cores} usable cores: past {cores} workers the curve is flat (more processes "
        "share the same cores; the broker and the S3 gateway run on them too), and earlier when other "
        "work holds cores ('others': cores busy with other processes in steady state). 'predicted' is "
        "min(workers / wall s per page, cores / CPU s per page) with all cores free; 'shared' uses the "
        "cores other work left during the 1-worker run."
    )
    result = {
        "meta": {**meta, "load_average_end": load_average()},
        "partitions": PARTITIONS,
        "documents": "copies of sample_docs/*.pdf, each with distinct bytes",
        "docs_per_run": args.docs,
        "max_seconds": args.max_seconds,
        "calibration": calibration,
        "runs": runs,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")
    return 0 if all(r["complete"] for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
