"""End-to-end latency and throughput through Kafka, against the embedded run on the same files.

Needs the local stack (``bash infra/stack.sh up``). In one run:

1. starts ``tieout consume parse`` and ``tieout consume verify`` (one worker each) on a private topic
   prefix and private buckets;
2. **latency**: uploads the sample documents one at a time (distinct bytes each round) and measures from
   the start of the upload to the document's results on Kafka — its flags and the ``verified`` event are
   committed in one transaction, so the ``verified`` event marks the moment a ``read_committed`` reader of
   the flags topic sees them (clean documents have no flag record to time);
3. **throughput**: uploads ``--copies`` documents at once and times until all are verified; then runs the
   embedded engine (one isolated worker, as ``tieout run`` does) over the same files.

Prints p50/p95 latency, docs/s and pages/s of both paths and their ratio (target: Kafka ≥ 0.8× embedded).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # `python bench/X.py` as well as `python -m bench.X`

from adapters.settings import Settings  # noqa: E402
from adapters.workers.isolation import Job, run_isolated  # noqa: E402
from bench.stack import SAMPLES, committed_reader, private_stack, start_services, stop_services  # noqa: E402
from pipeline.config import EngineConfig  # noqa: E402
from schemas.topology import Topic  # noqa: E402


def _copies(src: list[Path], n: int, out: Path, tag: str) -> list[Path]:
    files = []
    for i in range(n):
        dst = out / f"{tag}-{i:03d}-{src[i % len(src)].name}"
        shutil.copy(src[i % len(src)], dst)
        with dst.open("ab") as f:  # distinct bytes: a distinct document each
            f.write(f"\n% {tag} {i}\n".encode())
        files.append(dst)
    return files


class Verified:
    """A read_committed reader of the verified topic."""

    def __init__(self, settings: Settings) -> None:
        self.c = committed_reader(settings, [settings.topic(Topic.VERIFIED)])
        self.seen: dict[str, float] = {}

    def wait_for(self, sources: set[str], timeout_s: float) -> dict[str, float]:
        deadline = time.monotonic() + timeout_s
        while not sources <= set(self.seen) and time.monotonic() < deadline:
            m = self.c.poll(0.05)
            if m is None or m.error():
                continue
            value = m.value()
            if isinstance(value, bytes):
                self.seen.setdefault(str(json.loads(value)["source"]), time.monotonic())
        missing = sources - set(self.seen)
        if missing:
            raise SystemExit(f"timed out waiting for {len(missing)} documents: {sorted(missing)[:3]}")
        return {s: self.seen[s] for s in sources}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="latency rounds over the sample documents")
    ap.add_argument("--copies", type=int, default=24, help="documents in the throughput batch")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args()

    stack = private_stack("bench")
    if stack is None:
        return 2
    env, settings, store = stack
    work = Path(tempfile.mkdtemp(prefix="tieout-bench-"))
    procs, logs = start_services(("parse", "verify"), env, work)
    reader = Verified(settings)
    try:
        # warm-up: both services joined, engine worker started
        warm = _copies(SAMPLES, 1, work, "warm")
        store.client.upload_file(str(warm[0]), settings.landing_bucket, warm[0].name)
        reader.wait_for({warm[0].name}, 120)

        latencies: list[float] = []
        for r in range(args.rounds):
            for f in _copies(SAMPLES, len(SAMPLES), work, f"lat{r}"):
                t0 = time.monotonic()
                store.client.upload_file(str(f), settings.landing_bucket, f.name)
                done = reader.wait_for({f.name}, 120)[f.name]
                latencies.append(done - t0)

        batch = _copies(SAMPLES, args.copies, work, "tp")
        t0 = time.monotonic()
        for f in batch:
            store.client.upload_file(str(f), settings.landing_bucket, f.name)
        ends = reader.wait_for({f.name for f in batch}, 600)
        kafka_s = max(ends.values()) - t0

        t0 = time.monotonic()
        pages = 0
        jobs = [Job(i, f, f.name) for i, f in enumerate(batch)]
        for _, result in run_isolated(jobs, EngineConfig(), workers=1):
            pages += result.stats.pages
        embedded_s = time.monotonic() - t0
    finally:
        stop_services(procs, logs)
        reader.c.close()

    q = statistics.quantiles(latencies, n=20)
    figures = {
        "latency_p50_s": statistics.median(latencies),
        "latency_p95_s": q[18],
        "latency_samples": len(latencies),
        "batch_docs": len(batch),
        "batch_pages": pages,
        "kafka_docs_per_s": len(batch) / kafka_s,
        "embedded_docs_per_s": len(batch) / embedded_s,
        "kafka_pages_per_s": pages / kafka_s,
        "embedded_pages_per_s": pages / embedded_s,
        "ratio_kafka_to_embedded": embedded_s / kafka_s,
    }
    print(f"upload -> results on Kafka, {len(latencies)} sample documents one at a time:")
    print(f"  p50 {figures['latency_p50_s'] * 1000:.0f} ms   p95 {figures['latency_p95_s'] * 1000:.0f} ms")
    print("  each (ms): " + " ".join(f"{x * 1000:.0f}" for x in latencies))
    print(f"throughput, {len(batch)} documents ({pages} pages):")
    for name, title in (("kafka", "through Kafka"), ("embedded", "embedded run")):
        docs, pgs = figures[f"{name}_docs_per_s"], figures[f"{name}_pages_per_s"]
        print(f"  {title:14s} {docs:.2f} docs/s  {pgs:.1f} pages/s")
    ratio = figures["ratio_kafka_to_embedded"]
    print(f"  ratio Kafka / embedded = {ratio:.2f}  target >= 0.8: {'met' if ratio >= 0.8 else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if os.environ.get("TIEOUT_BENCH_KEEP"):
        print(f"service logs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
