"""What the benchmarks that run through the local stack share: a private slice of it, services, readers.

Each run gets its own topic prefix and buckets, so runs never see each other's documents; the services
are the ``tieout consume`` commands a deployment runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from confluent_kafka import Consumer
from prometheus_client.parser import text_string_to_metric_families

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
SAMPLES = sorted((REPO / "sample_docs").glob("*.pdf"))  # the benchmarks' documents

from adapters.settings import Settings, read_env_file  # noqa: E402
from adapters.storage import ObjectStore  # noqa: E402


def private_stack(name: str) -> tuple[dict[str, str], Settings, ObjectStore] | None:
    """The environment, settings and store of a private slice of the running local stack.

    Args:
        name: Short name of the benchmark (the topic prefix and bucket names start with it).

    Returns:
        ``(env for the services, settings, store)`` with both buckets created, or None when the local
        stack is not running (the caller says so and exits).
    """
    env_file = Path(os.environ.get("TIEOUT_ENV_FILE", REPO / ".tieout" / "stack.env"))
    stack = read_env_file(env_file)
    if not stack.get("KAFKA_BOOTSTRAP"):
        print(f"local stack not running ({env_file}): run `bash infra/stack.sh up`", file=sys.stderr)
        return None
    pg = read_env_file(REPO / ".tieout" / "pg.env")
    tag = uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        **stack,
        **({"PG_DSN": pg["PG_DSN"]} if pg.get("PG_DSN") else {}),
        "TOPIC_PREFIX": f"{name}{tag}.",
        "LANDING_BUCKET": f"{name}-{tag}-landing",
        "ARTIFACT_BUCKET": f"{name}-{tag}-artifacts",
        "TIEOUT_ENV_FILE": "/nonexistent",
        "TIEOUT_LOG_LEVEL": os.environ.get("TIEOUT_LOG_LEVEL", "WARNING"),
        "PYTHONPATH": str(REPO),
    }
    os.environ.update(env)  # this process reads its settings as the services it starts read theirs
    settings = Settings.load(Path("/nonexistent"))
    store = ObjectStore(settings)
    store.ensure_bucket(settings.landing_bucket)
    store.ensure_bucket(settings.artifact_bucket)
    return env, settings, store


def committed_reader(settings: Settings, topics: Sequence[str]) -> Consumer:
    """A ``read_committed`` reader of ``topics`` (full names) from their start, in a group of its own."""
    consumer = Consumer(
        {
            "bootstrap.servers": settings.kafka_bootstrap,
            "group.id": f"bench-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe(list(topics))
    return consumer


def start_services(
    stages: Sequence[str], env: dict[str, str], logs_dir: Path, workers: int = 1
) -> tuple[list[subprocess.Popen[bytes]], list[IO[bytes]]]:
    """Start ``workers`` of each ``tieout consume STAGE``; their output goes to ``logs_dir``."""
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[IO[bytes]] = []
    for stage in stages:
        for w in range(workers):
            log = (logs_dir / f"{stage}-{w}.log").open("wb")
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "tieout.cli", "consume", stage, "--worker-id", f"bench{w}"],
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=REPO,
                )
            )
    return procs, logs


def stop_services(procs: Sequence[subprocess.Popen[bytes]], logs: Sequence[IO[bytes]]) -> None:
    """SIGTERM every service (they finish their message and leave), kill what is still up after 60 s."""
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
    for log in logs:
        log.close()


def metrics_urls(logs_dir: Path) -> dict[str, list[str]]:
    """Per stage, the metrics endpoints its services logged at start-up (``METRICS_PORT=0``: free ports)."""
    out: dict[str, list[str]] = {}
    for path in sorted(logs_dir.glob("*.log")):
        stage = path.name.split("-", 1)[0]
        for line in path.read_text(errors="replace").splitlines():
            if '"metrics endpoint"' in line:
                with contextlib.suppress(ValueError, KeyError):
                    out.setdefault(stage, []).append(str(json.loads(line)["url"]))
    return out


def busy_seconds(logs_dir: Path, timeout_s: float = 10.0) -> dict[str, dict[str, float]]:
    """Per stage, summed over its services: messages handled, their handling and commit seconds, pages.

    Read from each service's ``/metrics`` (``tieout_message_seconds``, ``tieout_commit_seconds``,
    ``tieout_documents``, ``tieout_pages``): the time a stage's replicas were busy, which divided by the
    documents or pages is the per-replica cost ``tieout plan`` sizes replicas with.
    """
    wanted = {
        "tieout_message_seconds_sum": "message_s",
        "tieout_message_seconds_count": "messages",
        "tieout_commit_seconds_sum": "commit_s",
        "tieout_pages_total": "pages",
    }
    out: dict[str, dict[str, float]] = {}
    for stage, urls in metrics_urls(logs_dir).items():
        acc = out.setdefault(stage, dict.fromkeys([*wanted.values(), "published"], 0.0))
        for url in urls:
            with urllib.request.urlopen(f"{url}/metrics", timeout=timeout_s) as answer:
                text = answer.read().decode()
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    if sample.name in wanted:
                        acc[wanted[sample.name]] += sample.value
                    elif (
                        sample.name == "tieout_documents_total"
                        and sample.labels.get("outcome") == "published"
                    ):
                        acc["published"] += sample.value
    return out
