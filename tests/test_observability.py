"""Metrics, traces, health and readiness without servers: the runner on the in-memory broker.

What is pinned: what the runner counts for each outcome (published, dead-lettered, skipped, retried,
held, aborted), the lag sampler, the model port's call accounting, one trace per document through the
three services with ``traceparent`` on every record, trace ids on log lines, the exporters (a JSON-lines
file, OTLP/HTTP to a collector, none unless configured), and the HTTP endpoint's three paths.
"""

from __future__ import annotations

import asyncio
import gzip
import http.server
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx2
import pytest
import structlog
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from pydantic import BaseModel

import adapters.model_client as model_client_module
from adapters.logs import configure_logging
from adapters.model_client import Endpoint, ModelClient
from adapters.retry import Backoff
from adapters.settings import Settings
from consumers import metrics, tracing
from consumers.health import Check, Health, app
from consumers.health import Endpoint as HttpEndpoint
from consumers.memory import MemoryBroker, MemoryTransport
from consumers.runner import Incoming, Outgoing, PermanentError, RetryPolicy, Runner, TransientError
from consumers.telemetry import ObservedModel, sample_lag
from pipeline.model.ports import ModelUnavailable
from tests.test_services_memory import SAMPLE, World

FAST = RetryPolicy(in_place=2, base_s=0.001, max_s=0.004)


def value(name: str, **labels: str) -> float:
    """A sample's current value (0 when the series does not exist yet)."""
    got = metrics.REGISTRY.get_sample_value(name, labels)
    return 0.0 if got is None else got


def unique(prefix: str) -> str:
    """A service name no other test uses: the registry is process-wide, so each test counts its own."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Every span finished during the test, in memory."""
    exporter = InMemorySpanExporter()
    provider = tracing.new_provider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    old = tracing.use_provider(provider)
    try:
        yield exporter
    finally:
        tracing.use_provider(old)


class Scripted:
    """A handler whose outcome per offset is scripted: ok, transient, permanent, skip."""

    def __init__(self, stage: str, script: dict[int, list[str]]) -> None:
        self.stage = stage
        self.script = script

    async def handle(self, msg: Incoming) -> list[Outgoing]:
        todo = self.script.get(msg.offset)
        outcome = todo.pop(0) if todo else "ok"
        if outcome == "transient":
            raise TransientError("s3 503")
        if outcome == "permanent":
            raise PermanentError("bad pdf", category="corrupt", doc_id="d" * 64)
        if outcome == "skip":
            return []
        return [Outgoing("out", b"k", b"v%d" % msg.offset)]

    async def before_commit(self, msg: Incoming, outgoing: Sequence[Outgoing]) -> None:
        pass

    async def after_commit(self, msg: Incoming, published: Sequence[Outgoing]) -> None:
        return None


def drive(runner: Runner, broker: MemoryBroker, topic: str = "in", group: str = "g") -> None:
    """Run ``runner`` until every record of ``topic`` is committed and nothing is held."""

    async def main() -> None:
        stop = asyncio.Event()

        async def stopper() -> None:
            for _ in range(5000):
                parts = broker.topic(topic)
                if runner.held == 0 and all(
                    broker.committed.get((group, topic, p), 0) >= len(part) for p, part in enumerate(parts)
                ):
                    break
                await asyncio.sleep(0.001)
            stop.set()

        await asyncio.gather(runner.run(stop), stopper())

    asyncio.run(main())


def test_the_runner_counts_every_outcome() -> None:
    service = unique("runner")
    broker = MemoryBroker(partitions=1)
    for _ in range(5):
        broker.produce("in", b"x", b"k")
    broker.fail_commits = 1  # the first transaction is aborted, then committed on retry
    script = {1: ["transient"], 2: ["permanent"], 3: ["skip"]}
    runner = Runner(
        Scripted(service, script), MemoryTransport(broker, ["in"], "g"), dlq_topic="dlq", retry=FAST
    )
    drive(runner, broker)

    assert value("tieout_documents_total", service=service, outcome="published") == 3
    assert value("tieout_documents_total", service=service, outcome="dead_lettered") == 1
    assert value("tieout_documents_total", service=service, outcome="skipped") == 1
    assert value("tieout_message_seconds_count", service=service) == 5
    assert value("tieout_dlq_records_total", service=service, category="corrupt") == 1
    assert (
        value("tieout_errors_total", service=service, error_class="PermanentError", category="corrupt") == 1
    )
    # one failed handler attempt and one failed commit, both outages
    assert value("tieout_errors_total", service=service, error_class="TransientError", category="outage") == 2
    assert value("tieout_retries_total", service=service, kind="in_place") == 1
    assert value("tieout_retries_total", service=service, kind="commit") == 1
    assert value("tieout_transactions_total", service=service, outcome="aborted") == 1
    # four messages with results, plus the skipped one's offset riding on the end-of-batch flush
    committed = value("tieout_transactions_total", service=service, outcome="committed")
    assert committed == broker.transactions == value("tieout_commit_seconds_count", service=service)
    assert committed >= 4
    assert value("tieout_in_flight_documents", service=service) == 0
    assert value("tieout_paused_partitions", service=service) == 0


def test_a_held_partition_shows_as_paused_until_it_is_released() -> None:
    service = unique("held")
    broker = MemoryBroker(partitions=2)
    broker.produce("in", b"x", partition=0)
    handler = Scripted(service, {0: ["transient"] * 4})  # twice as many as the in-place attempts
    transport = MemoryTransport(broker, ["in"], "g")
    runner = Runner(handler, transport, dlq_topic="dlq", retry=FAST)

    async def main() -> None:
        await transport.start()
        (msg,) = await transport.poll(0.01, 10)
        await runner.process(msg)
        assert runner.held == 1 and value("tieout_paused_partitions", service=service) == 1
        assert value("tieout_retries_total", service=service, kind="hold") == 1
        await asyncio.sleep(0.01)  # past the backoff
        runner._release_due()
        assert value("tieout_paused_partitions", service=service) == 0
        (again,) = await transport.poll(0.01, 10)
        await runner.process(again)  # the third and fourth attempts fail too: held again
        assert value("tieout_paused_partitions", service=service) == 1
        await asyncio.sleep(0.01)
        runner._release_due()
        (last,) = await transport.poll(0.01, 10)
        await runner.process(last)
        assert value("tieout_paused_partitions", service=service) == 0

    asyncio.run(main())
    assert value("tieout_documents_total", service=service, outcome="published") == 1
    assert value("tieout_errors_total", service=service, error_class="TransientError", category="outage") == 4


def test_lag_is_sampled_per_partition_and_dropped_when_revoked() -> None:
    service = unique("lag")
    broker = MemoryBroker(partitions=2)
    for _ in range(5):
        broker.produce("in", b"x", partition=0)
    broker.produce("in", b"x", partition=1)
    transport = MemoryTransport(broker, ["in"], "g")

    async def sample_once() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(sample_lag(service, transport, stop, interval_s=0.001))
        await asyncio.sleep(0.02)
        stop.set()
        await task

    async def main() -> None:
        await transport.start()
        await sample_once()
        assert value("tieout_consumer_lag", service=service, topic="in", partition="0") == 5
        assert value("tieout_consumer_lag", service=service, topic="in", partition="1") == 1
        await transport.poll(0.01, 3)
        await sample_once()
        lag0 = value("tieout_consumer_lag", service=service, topic="in", partition="0")
        lag1 = value("tieout_consumer_lag", service=service, topic="in", partition="1")
        assert lag0 + lag1 == 3
        broker.down = True  # the broker cannot be asked: the last figures stand
        await sample_once()
        assert value("tieout_consumer_lag", service=service, topic="in", partition="0") == lag0
        broker.down = False
        transport.revoked.add(1)
        await sample_once()
        labels = {"service": service, "topic": "in", "partition": "1"}
        assert metrics.REGISTRY.get_sample_value("tieout_consumer_lag", labels) is None

    asyncio.run(main())


# ---------------------------------------------------------------------------------------------------------
# Traces


def by_service(finished: Sequence[ReadableSpan]) -> dict[str, list[ReadableSpan]]:
    out: dict[str, list[ReadableSpan]] = {}
    for s in finished:
        service = (s.attributes or {}).get("tieout.service")
        if isinstance(service, str):
            out.setdefault(service, []).append(s)
    return out


def trace_of(s: ReadableSpan) -> str:
    ctx = s.get_span_context()
    assert ctx is not None
    return f"{ctx.trace_id:032x}"


def header(headers: Sequence[tuple[str, bytes]], name: str) -> str:
    (got,) = [v.decode() for k, v in headers if k == name]
    return got


def test_one_documents_path_through_the_three_services_is_one_trace(spans: InMemorySpanExporter) -> None:
    world = World()
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    (summary,) = world.values("summaries")
    trace_id = str(summary["trace_id"])
    finished = spans.get_finished_spans()
    services = by_service(finished)
    assert set(services) == {"parse", "verify", "sink"}
    assert {trace_of(s) for s in finished if trace_of(s) != trace_id} == set()
    # Each service's message span is a child of the previous service's: one unbroken path.
    roots = {name: [s for s in group if s.kind == SpanKind.CONSUMER] for name, group in services.items()}
    (parse,) = roots["parse"]
    (verify,) = roots["verify"]
    (sink,) = roots["sink"]
    assert parse.parent is None  # the store's notification carried no context: the trace starts here
    assert verify.parent is not None and verify.parent.span_id == parse.context.span_id
    assert sink.parent is not None and sink.parent.span_id == verify.context.span_id
    assert (parse.attributes or {})["tieout.doc_id"] == summary["doc_id"]
    assert {(s.attributes or {})["tieout.outcome"] for s in (parse, verify, sink)} == {"published"}
    # The steps: download, engine and each engine stage; checks and model; gate and each sink.
    names = {s.name for s in finished}
    assert {"download", "engine", "engine.pages", "engine.tables", "engine.statements"} <= names
    assert {"load", "checks", "model", "store", "gate", "sink parquet", "sink postgres", "commit"} <= names
    # Every record published carries the trace: the events, the result records, the summary.
    for topic in ("parsed", "verified", "facts", "flags", "summaries"):
        for rec in world.broker.records(world.settings.topic(topic)):
            assert header(rec.headers, "trace_id") == trace_id
            assert header(rec.headers, "traceparent").split("-")[1] == trace_id
    parsed = world.values("parsed")[0]
    verified = world.values("verified")[0]
    assert parsed["trace_id"] == verified["trace_id"] == trace_id


def test_a_dead_letter_carries_its_trace_and_marks_the_span_as_an_error(spans: InMemorySpanExporter) -> None:
    world = World()
    world.upload("in/scan.pdf", b"GIF89a not a pdf")
    world.run()
    (letter,) = world.broker.records(world.settings.topic("dlq"))
    trace_id = header(letter.headers, "trace_id")
    assert header(letter.headers, "traceparent").split("-")[1] == trace_id
    (parse,) = [s for s in spans.get_finished_spans() if s.name == f"parse {world.settings.topic('landing')}"]
    assert trace_of(parse) == trace_id and parse.status.status_code.name == "ERROR"
    assert "not_a_pdf" in (parse.status.description or "")


def test_a_message_continues_the_trace_its_headers_carry() -> None:
    parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    ctx = tracing.extract((("traceparent", parent.encode()),))
    with tracing.span("x", context=ctx):
        assert tracing.current_ids() is not None
        trace_id, span_id = tracing.current_ids() or ("", "")
        headers = dict(tracing.inject((("trace_id", b"old"), ("doc_id", b"d"))))
    assert trace_id == "0af7651916cd43dd8448eb211c80319c" and span_id != "b7ad6b7169203331"
    assert headers["traceparent"].decode() == f"00-{trace_id}-{span_id}-01"
    assert headers["trace_id"] == trace_id.encode() and headers["doc_id"] == b"d"
    # A replayed dead letter carries only the trace id: the trace goes on.
    with tracing.span("y", context=tracing.extract((("trace_id", trace_id.encode()),))):
        assert (tracing.current_ids() or ("", ""))[0] == trace_id
    # A store's notification carries nothing, and an id that is not W3C's is not one: a new trace.
    for headers_in in ((), (("trace_id", b"t-1"),)):
        with tracing.span("z", context=tracing.extract(headers_in)):
            new = (tracing.current_ids() or ("", ""))[0]
        assert len(new) == 32 and new != trace_id


@pytest.fixture
def logging_config() -> Iterator[None]:
    saved = structlog.get_config()
    try:
        yield
    finally:
        structlog.configure(**saved)


def test_log_lines_carry_the_trace_and_span_ids(
    logging_config: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIEOUT_LOG_LEVEL", "INFO")
    configure_logging("INFO")
    tracing.install_log_ids()
    tracing.install_log_ids()  # idempotent
    log = structlog.get_logger("test")
    with tracing.span("outer"):
        ids = tracing.current_ids()
        log.info("inside")
    log.info("outside")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    inside, outside = (next(x for x in lines if x["event"] == e) for e in ("inside", "outside"))
    assert ids is not None and (inside["trace_id"], inside["span_id"]) == ids
    assert "trace_id" not in outside and "span_id" not in outside


def test_the_trace_file_gets_one_json_line_per_span(
    tmp_path: Path, logging_config: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "spans.jsonl"
    monkeypatch.setenv("TIEOUT_TRACE_FILE", str(path))
    settings = Settings(worker_id="w9")
    assert settings.trace_file == str(path)
    old = tracing.provider()
    try:
        tracing.setup(settings, "parse")
        with tracing.span("document"), tracing.span("step", attributes={"tieout.pages": 3}):
            ids = tracing.current_ids()
        # A notification of no document of ours (another bucket's write) is not exported; a skipped
        # message about a document (already parsed) is.
        with tracing.span("idle", attributes={tracing.OUTCOME: "skipped"}):
            pass
        with tracing.span("again", attributes={tracing.OUTCOME: "skipped", tracing.DOC_ID: "d"}):
            pass
        tracing.shutdown()
    finally:
        tracing.use_provider(old)
    step, document, again = (json.loads(line) for line in path.read_text().splitlines())
    assert again["name"] == "again"
    assert ids is not None and (step["trace_id"], step["span_id"]) == ids
    assert step["parent_span_id"] == document["span_id"] and document["parent_span_id"] is None
    assert step["service"] == "tieout-parse" and step["attributes"] == {"tieout.pages": 3}
    assert step["end_ns"] >= step["start_ns"] > 0


def test_spans_go_to_the_otlp_collector_only_when_one_is_configured(
    logging_config: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[tuple[str, str, bytes]] = []

    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            received.append((self.path, self.headers["Content-Type"], body))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    old = tracing.provider()
    try:
        # Not configured: no exporter is built at all.
        built: list[str] = []
        for name in ("BatchSpanProcessor", "SimpleSpanProcessor"):
            monkeypatch.setattr(tracing, name, lambda *a, _n=name, **k: built.append(_n))
        tracing.setup(Settings(worker_id="w1"), "sink")
        with tracing.span("unexported"):
            assert tracing.current_ids() is not None  # ids still made: logs and headers tie up
        assert built == []
        monkeypatch.undo()

        settings = Settings(
            worker_id="w1", otel_exporter_otlp_endpoint=f"http://127.0.0.1:{server.server_port}/"
        )
        tracing.setup(settings, "sink")
        with tracing.span("exported"):
            trace_id = (tracing.current_ids() or ("", ""))[0]
        tracing.shutdown()  # flushes the batch
    finally:
        tracing.use_provider(old)
        server.shutdown()
        server.server_close()
    ((path, content_type, body),) = received
    assert path == "/v1/traces" and content_type == "application/x-protobuf"
    assert bytes.fromhex(trace_id) in body and b"exported" in body and b"tieout-sink" in body
    assert b"unexported" not in body


# ---------------------------------------------------------------------------------------------------------
# The model port


class Links(BaseModel):
    links: list[str]


def test_model_calls_and_tokens_are_counted_per_tier(
    monkeypatch: pytest.MonkeyPatch, spans: InMemorySpanExporter
) -> None:
    monkeypatch.setattr(model_client_module, "BACKOFF", Backoff(base_s=0.001, max_s=0.002))
    tier_of = {"http://standard.test/v1": "standard", "http://deep.test/v1": "deep"}
    down = {"deep": False, "standard": False}

    def server(request: httpx2.Request) -> httpx2.Response:
        tier = next(t for url, t in tier_of.items() if str(request.url).startswith(url))
        if down[tier]:
            raise httpx2.ConnectError("connection refused")
        content = json.dumps({"links": ["a"]} if tier == "standard" else {"nope": 1})
        body = {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "smollm2",
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
            ],
            "usage": {
                "prompt_tokens": 900,
                "completion_tokens": 60,
                "prompt_tokens_details": {"cached_tokens": 512},
            },
        }
        return httpx2.Response(200, json=body)

    def snapshot() -> dict[str, float]:
        return {
            "calls_ok": value("tieout_model_calls_total", tier="standard", outcome="ok"),
            "calls_invalid": value("tieout_model_calls_total", tier="deep", outcome="invalid"),
            "calls_unavailable": value("tieout_model_calls_total", tier="deep", outcome="unavailable"),
            "in": value("tieout_model_tokens_total", tier="standard", direction="in"),
            "out": value("tieout_model_tokens_total", tier="standard", direction="out"),
            "cached": value("tieout_model_cached_tokens_total", tier="standard"),
            "deep_in": value("tieout_model_tokens_total", tier="deep", direction="in"),
            "seconds": value("tieout_model_call_seconds_count", tier="standard", task="label_mapping"),
        }

    start = snapshot()

    async def main() -> None:
        client = ModelClient(
            {
                "standard": Endpoint("http://standard.test/v1", "smollm2", timeout_s=5),
                "deep": Endpoint("http://deep.test/v1", "smollm2", timeout_s=5),
            },
            transport=httpx2.MockTransport(server),
        )
        model = ObservedModel(client)
        ask: dict[str, Any] = {
            "prompt_version": "v1",
            "messages": [{"role": "user", "content": "u"}],
            "schema": Links,
        }
        try:
            good = await model.structured(tier="standard", task="label_mapping", **ask)
            assert good.parsed is not None
            bad = await model.structured(tier="deep", task="cross_page_links", **ask)
            assert bad.parsed is None
            down["deep"] = True
            # The deep tier is unreachable: the standard one answers, counted under the tier that answered.
            fallback = await model.structured(tier="deep", task="cross_page_links", **ask)
            assert fallback.tier == "standard" and str(fallback.route).startswith("fallback from deep")
            down["standard"] = True
            with pytest.raises(ModelUnavailable):
                await model.structured(tier="deep", task="cross_page_links", **ask)
            down["standard"] = False
            assert await model.healthy("standard", 1.0)
        finally:
            await client.aclose()

    asyncio.run(main())
    end = snapshot()
    delta = {k: end[k] - start[k] for k in start}
    assert delta == {
        "calls_ok": 2,
        "calls_invalid": 1,
        "calls_unavailable": 2,
        "in": 1800,
        "out": 120,
        "cached": 1024,
        "deep_in": 900,
        "seconds": 1,
    }
    calls = [s for s in spans.get_finished_spans() if s.name.startswith("model ")]
    tiers = [(s.attributes or {}).get("tieout.model.tier") for s in calls]
    assert tiers == ["standard", "deep", "deep", "deep"]
    assert (calls[0].attributes or {})["tieout.model.cached_tokens"] == 512
    assert (calls[2].attributes or {})["tieout.model.answered_tier"] == "standard"
    assert calls[3].status.status_code.name == "ERROR"


# ---------------------------------------------------------------------------------------------------------
# Health and readiness


def call(application: Callable[..., Any], path: str) -> tuple[int, dict[str, str], bytes]:
    """Call a WSGI application as a server would."""
    got: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> None:
        got["status"], got["headers"] = int(status.split()[0]), dict(headers)

    body = b"".join(
        application({"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": ""}, start_response)
    )
    return got["status"], got["headers"], body


def test_readiness_follows_every_dependency_and_health_the_heartbeat() -> None:
    service = unique("ready")
    up = {"broker": True, "store": True}

    async def answers(name: str) -> bool:
        return up[name]

    cancelled: list[str] = []

    async def hangs() -> bool:
        try:
            await asyncio.Event().wait()  # never answers: only the probe's timeout ends it
        except asyncio.CancelledError:
            cancelled.append("model")
            raise
        return True

    checks = [Check(name, lambda name=name: answers(name)) for name in up]  # type: ignore[misc]
    health = Health(service, checks, probe_timeout_s=0.05)
    application = app(health)
    status, _, body = call(application, "/readyz")
    assert status == 503 and json.loads(body)["ready"] is False  # no probe yet: not ready

    asyncio.run(health.probe())
    status, headers, body = call(application, "/readyz")
    report = json.loads(body)
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert report["ready"] is True and report["checks"] == {"broker": True, "store": True}
    assert value("tieout_ready", service=service) == 1
    assert value("tieout_dependency_up", service=service, dependency="broker") == 1

    up["broker"] = False
    health.add(Check("model", hangs))  # a probe that never answers counts as down, within its timeout
    asyncio.run(health.probe())  # returns at all: the probe that never answers was given up
    assert cancelled == ["model"]  # by its timeout, which cancelled it
    status, _, body = call(application, "/readyz")
    assert status == 503 and json.loads(body)["checks"] == {"broker": False, "store": True, "model": False}
    assert value("tieout_ready", service=service) == 0
    assert value("tieout_dependency_up", service=service, dependency="broker") == 0

    assert call(application, "/healthz")[0] == 200
    health.beat -= health.stale_after_s + 1  # the event loop stopped ticking
    assert call(application, "/healthz")[0] == 503
    assert call(application, "/nope")[0] == 404


def test_the_endpoint_serves_the_registry_over_http_on_a_free_port() -> None:
    service = unique("http")
    metrics.DOCUMENTS.labels(service, "published").inc(2)
    health = Health(service)
    endpoint = HttpEndpoint(health, "127.0.0.1", 0)
    try:
        assert endpoint.port > 0 and endpoint.url == f"http://127.0.0.1:{endpoint.port}"
        with urllib.request.urlopen(f"{endpoint.url}/metrics", timeout=10) as r:
            text = r.read().decode()
        assert f'tieout_documents_total{{outcome="published",service="{service}"}} 2.0' in text
        assert "process_resident_memory_bytes" in text and "_created" not in text
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{endpoint.url}/readyz", timeout=10)
        assert err.value.code == 503
    finally:
        endpoint.close()


def test_the_health_loop_beats_and_probes_until_stopped() -> None:
    service = unique("loop")
    probes: list[float] = []
    stop = asyncio.Event()

    async def probe() -> bool:
        probes.append(time.monotonic())
        if len(probes) == 3:
            stop.set()  # stopped after its third probe, however long the machine took to get there
        return True

    health = Health(service, [Check("store", probe)], interval_s=0.02)
    health.beat = 0.0
    asyncio.run(health.run(stop, tick_s=0.005))  # returns: the stop request ended the loop
    assert health.alive() and health.ready() and len(probes) == 3
    assert probes == sorted(probes) and probes[1] - probes[0] >= 0.02  # a probe every interval_s, no sooner
