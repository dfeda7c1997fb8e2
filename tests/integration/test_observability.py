"""Metrics, readiness and traces of the three services on the real stack (infra/stack.sh, postgres.sh).

The services are started as an operator starts them (``tieout consume``) with ``METRICS_PORT=0`` (each
logs the port it got), a JSON-lines span file (``TIEOUT_TRACE_FILE``), the PostgreSQL sink and a model
server: a small OpenAI-compatible stand-in served by this test, which reports token counts and cached
tokens as vLLM does. Then:

1. documents (and a file that is not a PDF) go through; each service's ``/metrics`` serves the named
   metrics with non-zero values, read with prometheus_client's own parser;
2. one document's spans, from all three processes, share one trace id, each service's span a child of
   the previous one's, and the service logs carry that trace id;
3. the object store is stopped while a message needs it: the parse partition is held (paused, lag 1,
   retries, outage errors) and every service's readiness turns false for the store, then true again;
4. the broker is stopped: readiness turns false (broker) in all three services while ``/healthz`` stays
   up, and true again once the broker is back.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from adapters.storage import ObjectStore
from consumers.ingest import publish_events, s3_event
from tests.integration.conftest import REPO, Isolated, eventually

pytestmark = pytest.mark.integration

STACK = ["bash", str(REPO / "infra" / "stack.sh")]
SAMPLES = sorted((REPO / "sample_docs").glob("*.pdf"))[:2]
STAGES = ("parse", "verify", "sink")
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


class FakeModel(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server: /v1/models, and chat completions with usage and cached tokens."""

    calls = 0

    def do_GET(self) -> None:
        self._json({"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.endswith("/chat/completions"):  # no /tokenize: not vLLM (counts are estimated)
            self.send_error(404)
            return
        type(self).calls += 1
        self._json(
            {
                "id": f"c{self.calls}",
                "object": "chat.completion",
                "created": 0,
                "model": "fake",
                "choices": [
                    {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{}"}}
                ],
                "usage": {
                    "prompt_tokens": 1000,
                    "completion_tokens": 10,
                    "prompt_tokens_details": {"cached_tokens": 768},
                },
            }
        )

    def _json(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def model_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _get(url: str) -> tuple[int, str]:
    """Status and body; 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
    except OSError:
        return 0, ""


def _wait(what: str, check: Callable[[], bool], it: Isolated) -> float:
    """Seconds until ``check`` holds, printed, never asserted (the wait is a liveness bound of minutes)."""
    return eventually(what, check, logs=it.services.logs)


def _endpoint(it: Isolated, stage: str) -> str:
    """The URL the service logged for its metrics endpoint (``METRICS_PORT=0``: a free port)."""
    path = it.services.log_dir / f"{stage}-w1.log"
    found: list[str] = []

    def logged() -> bool:
        for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
            if '"metrics endpoint"' in line:
                found.append(json.loads(line)["url"])
                return True
        return False

    _wait(f"{stage} logs its metrics endpoint", logged, it)
    return found[0]


def _scrape(url: str) -> Samples:
    status, text = _get(f"{url}/metrics")
    assert status == 200, text
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def _value(samples: Samples, name: str, **labels: str) -> float:
    """The sum over the series of ``name`` whose labels include ``labels`` (-1: no such series)."""
    want = set(labels.items())
    found = [v for (n, ls), v in samples.items() if n == name and want <= ls]
    return sum(found) if found else -1.0


def _ready(url: str) -> dict[str, Any]:
    status, body = _get(f"{url}/readyz")
    report: dict[str, Any] = json.loads(body) if body else {"ready": False, "checks": {}}
    assert (status == 200) == bool(report["ready"]), (status, body)
    return report


def _stack(action: str, stack_env: dict[str, str], *what: str) -> None:
    """``infra/stack.sh ACTION …`` as the stack was started, not with this test's prefix and buckets.

    The test's environment names its own topic prefix and buckets; ``stack.sh up`` would restart the
    gateway announcing to ``<test prefix>landing`` and write that into ``.tieout/stack.env``.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("LANDING_TOPIC", "ARTIFACT_BUCKET")}
    env.update(TOPIC_PREFIX=stack_env["TOPIC_PREFIX"], LANDING_BUCKET=stack_env["LANDING_BUCKET"])
    out = subprocess.run([*STACK, action, *what], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def _spans(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# In the fault suite: it stops and starts the broker every other integration test shares, so it runs alone.
@pytest.mark.faults
@pytest.mark.timeout(900)
def test_metrics_traces_and_readiness_of_the_three_services(
    isolated: Isolated, stack_env: dict[str, str], db_dsn: str, model_url: str, tmp_path: Path
) -> None:
    it = isolated
    trace_file = tmp_path / "spans.jsonl"
    it.services.env.update(
        {
            "METRICS_PORT": "0",
            "TIEOUT_TRACE_FILE": str(trace_file),
            "PG_DSN": db_dsn,
            "MODEL_STANDARD_URL": model_url,
            "MODEL_NAME": "fake",
        }
    )
    for stage in STAGES:
        it.services.start(stage, "w1")
    urls = {stage: _endpoint(it, stage) for stage in STAGES}
    assert all(u.startswith("http://127.0.0.1:") for u in urls.values()), urls
    _wait("all three ready", lambda: all(_ready(u)["ready"] for u in urls.values()), it)
    assert _ready(urls["sink"])["checks"] == {"broker": True, "store": True, "database": True}
    assert _ready(urls["verify"])["checks"] == {"broker": True, "store": True, "model": True}
    assert _ready(urls["parse"])["checks"] == {"broker": True, "store": True}

    # 1. Documents through, and every named metric non-zero where it was exercised.
    store = ObjectStore(it.settings)
    for f in SAMPLES:
        store.put_bytes(it.settings.landing_bucket, f"obs/{f.name}", f.read_bytes(), "application/pdf")
    store.put_bytes(it.settings.landing_bucket, "obs/scan.pdf", b"GIF89a, not a PDF", "application/pdf")
    summaries = it.read(  # liveness bound
        it.topic("summaries"), until=lambda r: len(r) >= len(SAMPLES), timeout_s=300
    )
    it.read(it.topic("dlq"), until=lambda r: len(r) >= 1)
    _wait(
        "the lag sampler's first rounds",
        lambda: _value(_scrape(urls["sink"]), "tieout_consumer_lag") >= 0,
        it,
    )
    parse, verify, sink = (_scrape(urls[s]) for s in STAGES)
    n = len(SAMPLES)
    assert _value(parse, "tieout_documents_total", service="parse", outcome="published") == n
    assert _value(parse, "tieout_documents_total", service="parse", outcome="dead_lettered") == 1
    assert _value(parse, "tieout_pages_total", service="parse") > 0
    assert _value(parse, "tieout_dlq_records_total", category="not_a_pdf") == 1
    assert _value(parse, "tieout_errors_total", error_class="DocumentError", category="not_a_pdf") == 1
    for stage in ("download", "engine", "engine.pages", "engine.tables", "engine.facts"):
        assert _value(parse, "tieout_stage_seconds_count", service="parse", stage=stage) >= n, stage
    assert _value(verify, "tieout_documents_total", service="verify", outcome="published") == n
    for stage in ("load", "checks", "model", "store"):
        assert _value(verify, "tieout_stage_seconds_count", service="verify", stage=stage) == n, stage
    assert _value(verify, "tieout_model_calls_total", outcome="invalid") == FakeModel.calls > 0
    assert _value(verify, "tieout_model_call_seconds_count") == FakeModel.calls
    assert _value(verify, "tieout_model_tokens_total", direction="in") == 1000 * FakeModel.calls
    assert _value(verify, "tieout_model_tokens_total", direction="out") == 10 * FakeModel.calls
    assert _value(verify, "tieout_model_cached_tokens_total") == 768 * FakeModel.calls
    assert _value(sink, "tieout_documents_total", service="sink", outcome="published") == n
    for name in ("parquet", "postgres"):
        assert _value(sink, "tieout_sink_writes_total", sink=name, outcome="ok") == n, name
        assert _value(sink, "tieout_sink_write_seconds_count", sink=name) == n, name
    assert _value(sink, "tieout_stage_seconds_count", service="sink", stage="gate") == n
    for stage, samples in zip(STAGES, (parse, verify, sink), strict=True):
        for name in ("tieout_message_seconds_count", "tieout_commit_seconds_count"):
            assert _value(samples, name, service=stage) > 0, (stage, name)
        assert _value(samples, "tieout_transactions_total", service=stage, outcome="committed") > 0, stage
        assert _value(samples, "tieout_ready", service=stage) == 1, stage
        assert _value(samples, "tieout_dependency_up", service=stage, dependency="broker") == 1, stage
        assert _value(samples, "process_resident_memory_bytes") > 0, stage
        # Present (zero at rest): the in-flight gauge and the lag of each assigned input partition.
        assert _value(samples, "tieout_in_flight_documents", service=stage) == 0, stage
        assert _value(samples, "tieout_consumer_lag", service=stage) >= 0, stage

    # 2. One document's path is one trace, across the three processes.
    summary = next(s for s in summaries if s["source"] == f"obs/{SAMPLES[0].name}")
    trace_id = str(summary["trace_id"])
    _wait("the sink's spans are written", lambda: any(
        s["service"] == "tieout-sink" and s["trace_id"] == trace_id for s in _spans(trace_file)
    ), it)  # fmt: skip
    mine = [s for s in _spans(trace_file) if s["trace_id"] == trace_id]
    assert {s["service"] for s in mine} == {"tieout-parse", "tieout-verify", "tieout-sink"}
    consumer = {s["service"]: s for s in mine if s["kind"] == "CONSUMER"}
    assert consumer["tieout-parse"]["parent_span_id"] is None
    assert consumer["tieout-verify"]["parent_span_id"] == consumer["tieout-parse"]["span_id"]
    assert consumer["tieout-sink"]["parent_span_id"] == consumer["tieout-verify"]["span_id"]
    assert consumer["tieout-parse"]["attributes"]["tieout.doc_id"] == summary["doc_id"]
    assert {"download", "engine", "engine.tables", "checks", "model label_mapping", "sink postgres"} <= {
        s["name"] for s in mine
    }
    facts = it.read(it.topic("facts"), until=lambda r: len(r) >= 1)
    doc_facts = [f for f in facts if f["doc_id"] == summary["doc_id"]]
    assert doc_facts and all(
        f["_headers"]["traceparent"].split("-")[1] == trace_id  # type: ignore[index]
        for f in doc_facts
    )
    logged = [
        json.loads(line)
        for line in (it.services.log_dir / "sink-w1.log").read_text().splitlines()
        if line.startswith("{") and trace_id in line
    ]
    assert any(rec["event"] == "message done" and len(rec["span_id"]) == 16 for rec in logged)

    # 3. The object store goes away while a message needs it: held, retried, not ready; then back.
    _stack("stop", stack_env, "s3")
    try:
        replay = s3_event(it.settings.landing_bucket, f"obs/{SAMPLES[0].name}", 1, "e")
        asyncio.run(publish_events(it.settings, [replay]))
        _wait(
            "the parse partition is held",
            lambda: _value(_scrape(urls["parse"]), "tieout_paused_partitions", service="parse") == 1,
            it,
        )
        _wait(
            "every service sees the store down",
            lambda: all(_ready(u)["checks"].get("store") is False for u in urls.values()),
            it,
        )
        _wait(
            "the held message shows as lag",
            lambda: _value(_scrape(urls["parse"]), "tieout_consumer_lag", service="parse") >= 1,
            it,
        )
        held = _scrape(urls["parse"])
        assert _value(held, "tieout_retries_total", service="parse", kind="in_place") > 0
        assert _value(held, "tieout_retries_total", service="parse", kind="hold") > 0
        assert _value(held, "tieout_errors_total", service="parse", category="outage") > 0
        assert _value(held, "tieout_dependency_up", service="parse", dependency="store") == 0
        assert all(_get(f"{u}/healthz")[0] == 200 for u in urls.values())
    finally:
        _stack("up", stack_env)
    _wait("all ready after the store is back", lambda: all(_ready(u)["ready"] for u in urls.values()), it)
    _wait(
        "the held message is done (skipped: already parsed)",
        lambda: (
            _value(_scrape(urls["parse"]), "tieout_documents_total", service="parse", outcome="skipped") >= 1
            and _value(_scrape(urls["parse"]), "tieout_paused_partitions", service="parse") == 0
        ),
        it,
    )

    # 4. The broker goes away: not ready (broker), still alive; ready again once it is back.
    _stack("stop", stack_env, "kafka")
    try:
        took = _wait(
            "readiness false without the broker",
            lambda: all(_ready(u)["checks"].get("broker") is False for u in urls.values()),
            it,
        )
        assert all(not _ready(u)["ready"] for u in urls.values())
        assert all(_get(f"{u}/healthz")[0] == 200 for u in urls.values())
        assert all(
            _value(_scrape(u), "tieout_dependency_up", dependency="broker") == 0 for u in urls.values()
        )
        print(f"readiness false {took:.1f}s after the broker stopped")
    finally:
        _stack("up", stack_env)
    took = _wait(
        "ready again with the broker back", lambda: all(_ready(u)["ready"] for u in urls.values()), it
    )
    print(f"ready again {took:.1f}s after the broker was back")
    # Ready means working: a new document goes through the restarted broker and gateway.
    late = sorted((REPO / "sample_docs").glob("*.pdf"))[len(SAMPLES)]
    store.put_bytes(
        it.settings.landing_bucket, f"obs/after/{late.name}", late.read_bytes(), "application/pdf"
    )
    it.read(
        it.topic("summaries"),
        until=lambda r: any(s["source"] == f"obs/after/{late.name}" for s in r),
        timeout_s=300,
    )
