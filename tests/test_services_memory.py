"""The three services' handlers on the in-memory broker and store: every branch, no servers.

The same behaviour runs again against Kafka, the S3 gateway and PostgreSQL in ``tests/integration``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pymupdf
import pytest

from adapters.model_client import Endpoint, ModelClient
from adapters.settings import Settings
from adapters.sinks.base import SinkBatch
from adapters.sinks.parquet import ParquetDatasets
from adapters.sinks.postgres import PostgresTables
from adapters.sinks.quality import GateResult
from adapters.sinks.xbrl import XbrlReports
from adapters.storage import MemoryStore, intent_key, manifest_key, pending_key
from consumers.artifacts import StoreClaims
from consumers.ingest import s3_event
from consumers.memory import MemoryBroker, MemoryTransport
from consumers.runner import CLAIM_HEADER, Handler, Incoming, Outgoing, RetryPolicy, Runner
from consumers.services import ParseHandler, SinkHandler, VerifyHandler, resume_pending
from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.engine import process_path
from pipeline.model.strategy import ModelStage, ModelStageConfig
from schemas.models import DocumentResult, Flag
from tests.support.fake_model import FakeTokenizer, SlowPort, StallingPort, jumping_loops

SAMPLE = sorted((Path(__file__).parents[1] / "sample_docs").glob("*.pdf"))[0]
FAST = RetryPolicy(in_place=2, base_s=0.001, max_s=0.004)
INPUT = {"parse": "landing", "verify": "parsed", "sink": "verified"}


class InThreadEngine:
    """The engine run in-process (the isolation of a worker process is tested in test_isolation.py)."""

    def __init__(self) -> None:
        self.config = EngineConfig()
        self.runs = 0

    def run(self, path: Path, source: str) -> DocumentResult:
        self.runs += 1
        return process_path(path, self.config, source=source)


class World:
    """A broker, a store and the three services, with knobs for outages."""

    def __init__(self, *, max_record_bytes: int = 900_000) -> None:
        self.settings = Settings(
            topic_prefix="t.", landing_topic="t.landing", worker_id="w1", max_record_bytes=max_record_bytes
        )
        self.broker = MemoryBroker(partitions=2)
        self.store = MemoryStore()
        self.engine = InThreadEngine()
        self.gate: Callable[[DocumentResult], GateResult] = lambda r: GateResult(True)
        self.pg_rows: list[str] = []
        self.pg_flags: list[str] = []
        self.pg_changes: list[str] = []
        self.pg_error: Exception | None = None
        self.pg_failures = 0

    def write(self, batch: SinkBatch) -> None:
        """What PostgresSink.write does, with failures on demand."""
        if self.pg_error is not None and self.pg_failures != 0:
            self.pg_failures -= 1
            raise self.pg_error
        self.pg_rows.append(batch.result.doc_id)
        self.pg_changes += [batch.changes.new_doc_id] if batch.changes is not None else []

    def add_flags(self, flags: Sequence[Flag]) -> None:
        """What PostgresSink.add_flags does: flags of documents already written."""
        self.pg_flags += [f.flag_id for f in flags]

    def handlers(self) -> dict[str, Handler]:
        return {
            "parse": ParseHandler(self.settings, self.store, self.engine),  # type: ignore[arg-type]
            "verify": VerifyHandler(self.settings, self.store),
            "sink": SinkHandler(
                self.settings,
                self.store,
                committed=MemoryTransport(self.broker, [], "sink").committed,
                sinks=[
                    ParquetDatasets(self.store, self.settings.artifact_bucket),
                    XbrlReports(self.store, self.settings.artifact_bucket),
                    PostgresTables(lambda: self),
                ],
                gate=lambda r: self.gate(r),
            ),
        }

    def upload(self, key: str, data: bytes) -> None:
        self.store.objects[(self.settings.landing_bucket, key)] = data
        self.broker.produce("t.landing", s3_event(self.settings.landing_bucket, key, len(data), "e"))

    def run(
        self, during: Callable[[int], None] | None = None, liveness_s: float = 240.0
    ) -> dict[str, Runner]:
        """Run the three services until every input is committed and nothing is held.

        ``during(i)`` is called at each round (a round is at least 2 ms). The services stop once settled,
        however long the work takes on a loaded machine; ``liveness_s`` is a liveness bound (minutes) after
        which they stop anyway, unsettled, for the test's assertions to say what is missing.
        """
        runners: dict[str, Runner] = {}
        transports: dict[str, MemoryTransport] = {}
        claims = StoreClaims(self.store, self.settings.artifact_bucket, self.settings.max_record_bytes)
        for stage, handler in self.handlers().items():
            t = MemoryTransport(self.broker, [self.settings.topic(INPUT[stage])], stage)
            transports[stage] = t
            runners[stage] = Runner(handler, t, dlq_topic="t.dlq", retry=FAST, batch=4, claims=claims)

        def settled() -> bool:
            for stage, r in runners.items():
                topic = self.settings.topic(INPUT[stage])
                for p, part in enumerate(self.broker.topic(topic)):
                    if self.broker.committed.get((stage, topic, p), 0) < len(part) or r.held:
                        return False
            return True

        async def main() -> None:
            stop = asyncio.Event()

            async def stopper() -> None:
                give_up = time.monotonic() + liveness_s  # liveness bound (wall time, whatever the loop's)
                i = 0
                while time.monotonic() < give_up:
                    if during is not None:
                        during(i)
                    await asyncio.sleep(0.002)
                    if i > 10 and settled():
                        break
                    i += 1
                stop.set()

            await asyncio.gather(*(r.run(stop) for r in runners.values()), stopper())

        asyncio.run(main())
        return runners

    def values(self, name: str) -> list[dict[str, object]]:
        return [json.loads(v) for v in self.broker.values(self.settings.topic(name))]


@pytest.fixture
def world() -> World:
    return World()


def test_a_document_flows_through_the_three_services_once(world: World) -> None:
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    (summary,) = world.values("summaries")
    assert summary["facts"] == len(world.values("facts")) > 0 and world.values("dlq") == []
    assert world.pg_rows == [summary["doc_id"]]
    # It says who published the document and what it is, as the parsed result read them.
    identity = summary["identity"]
    assert isinstance(identity, dict) and identity["issuer_key"] == "name:alpenglowinstruments"
    assert identity["form"]["value"] == "annual report"
    # The summary lists every object the sinks wrote: the Parquet files and the xBRL report's files.
    bucket = world.settings.artifact_bucket
    keys = [k for b, k in world.store.objects if b == bucket]
    datasets = summary["datasets"]
    assert isinstance(datasets, list)
    assert sorted(datasets) == sorted(
        f"s3://{bucket}/{k}" for k in keys if k.startswith(("datasets/", "xbrl/"))
    )
    xbrl = {k.rsplit("/", 1)[1] for k in keys if k.startswith("xbrl/")}
    assert xbrl == {"report.json", "tieout-ext.xsd", "tieout-ext-cal.xml", "excluded.jsonl"}
    # The same bytes again: each stage skips what it has done, nothing is published twice.
    world.upload("in/a-copy.pdf", SAMPLE.read_bytes())
    world.run()
    assert len(world.values("summaries")) == 1 and world.engine.runs == 1


def test_an_image_renamed_pdf_is_dead_lettered_as_not_a_pdf(world: World) -> None:
    png = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False).tobytes("png")
    world.upload("in/scan.pdf", png)
    world.run()
    (dead,) = world.values("dlq")
    assert dead["category"] == "not_a_pdf" and dead["source"] == "in/scan.pdf"
    assert world.engine.runs == 0 and world.values("parsed") == []


@pytest.mark.parametrize(
    ("key", "why"), [("", "empty"), ("in/../../etc/x.pdf", "climbs"), ("in/\x00.pdf", "control")]
)
def test_an_unusable_key_is_dead_lettered_not_retried(world: World, key: str, why: str) -> None:
    # Regression: an S3 event with an empty key was retried as transient; a key with ../ was stored
    # by the gateway outside its prefix.
    world.broker.produce("t.landing", s3_event(world.settings.landing_bucket, key, 1, "e"))
    runners = world.run()
    (dead,) = world.values("dlq")
    assert dead["category"] == "unsafe_key" and why in str(dead["message"])
    assert runners["parse"].stats.holds == 0 and world.store.calls == 0


def test_an_object_store_outage_is_waited_out(world: World) -> None:
    # Regression: an outage longer than the five attempts (~8 s) sent documents to the DLQ for good.
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.store.down = True

    def recover(i: int) -> None:
        if i == 60:
            world.store.down = False

    runners = world.run(recover)
    assert world.values("dlq") == [] and len(world.values("summaries")) == 1
    assert runners["parse"].stats.holds >= 3


def test_a_database_outage_is_waited_out_and_results_come_once(world: World) -> None:
    world.pg_error, world.pg_failures = OSError("connection refused"), 15
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    runners = world.run()
    assert world.values("dlq") == [] and len(world.values("summaries")) == 1
    assert runners["sink"].stats.holds >= 3 and len(world.pg_rows) == 1


class DataError(Exception):
    sqlstate = "22003"  # numeric value out of range: this document's fault, not an outage


def test_a_document_the_database_refuses_is_dead_lettered(world: World) -> None:
    world.pg_error, world.pg_failures = DataError("numeric field overflow"), -1
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    (dead,) = world.values("dlq")
    assert dead["category"] == "database" and dead["stage"] == "sink"
    assert world.values("summaries") == [] and world.values("facts") == []


def test_a_document_whose_xbrl_report_cannot_be_built_is_dead_lettered(
    world: World, unbuildable_xbrl: str
) -> None:
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    (dead,) = world.values("dlq")
    assert dead["category"] == "xbrl_report" and dead["stage"] == "sink" and dead["doc_id"]
    assert unbuildable_xbrl in str(dead["message"])
    assert world.values("summaries") == [] and world.values("facts") == [] and world.pg_rows == []


def test_a_failing_quality_gate_dead_letters_the_document_and_publishes_nothing(world: World) -> None:
    world.gate = lambda r: GateResult(False, ["facts:expect_column_values_to_not_be_null(value)"])
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    (dead,) = world.values("dlq")
    assert dead["category"] == "quality_gate" and "expect_column" in str(dead["message"])
    assert world.values("facts") == [] and world.pg_rows == []


def test_a_broker_outage_at_commit_loses_and_duplicates_nothing(world: World) -> None:
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.broker.fail_commits = 25
    world.run()
    assert len(world.values("summaries")) == 1 and world.values("dlq") == []
    facts = world.values("facts")
    assert len({f["fact_id"] for f in facts}) == len(facts)


def _pages_without_text(n: int) -> bytes:
    doc = pymupdf.open()
    for _ in range(n):
        page = doc.new_page()
        page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    return bytes(doc.tobytes())


def test_an_event_over_the_record_limit_rides_behind_a_claim_check() -> None:
    # Regression: an image-only document's parsed event (one error item per page) exceeded the broker's
    # limit and vanished. Here the broker refuses anything over 5,000 bytes; the limit is 4,000.
    w = World(max_record_bytes=4000)
    w.broker.max_message_bytes = 5000
    w.upload("in/scan.pdf", _pages_without_text(60))
    w.upload("in/a.pdf", SAMPLE.read_bytes())
    w.run()
    (big,) = [r for r in w.broker.records("t.parsed") if r.header(CLAIM_HEADER)]
    stored = json.loads(w.store.read_uri(str(big.header(CLAIM_HEADER))))
    assert len(stored["errors"]) >= 60 and stored["source"] == "in/scan.pdf"
    assert len(w.values("summaries")) == 2 and w.values("dlq") == []


def test_a_replayed_announcement_republishes_what_is_done(world: World) -> None:
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    # reconcile re-announces with a replay header: parse and verify re-publish from their artifacts,
    # the sink's manifest keeps the result topics free of duplicates.
    _replay(world, "in/a.pdf")
    world.run()
    assert len(world.values("parsed")) == 2 and len(world.values("verified")) == 2
    assert len(world.values("summaries")) == 1 and world.engine.runs == 1


def _replay(world: World, key: str) -> None:
    world.broker.produce(
        "t.landing",
        s3_event(world.settings.landing_bucket, key, 1, "e"),
        headers=(("replay", b"reconcile"),),
    )


def test_a_sink_killed_between_its_commit_and_its_manifest_publishes_nothing_twice(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: the manifest was written after the commit only, so a sink killed in between left a
    # document without one; reconcile re-announced it and its results were published a second time.
    async def killed(self: SinkHandler, msg: Incoming, published: Sequence[Outgoing]) -> None:
        return None

    world.upload("in/a.pdf", SAMPLE.read_bytes())
    with monkeypatch.context() as m:
        m.setattr(SinkHandler, "after_commit", killed)
        world.run()
    (summary,) = world.values("summaries")
    doc_id = str(summary["doc_id"])
    bucket = world.settings.artifact_bucket
    assert not world.store.exists(bucket, manifest_key(PIPELINE_VERSION, doc_id))
    assert world.store.exists(bucket, intent_key(PIPELINE_VERSION, doc_id))
    _replay(world, "in/a.pdf")
    world.run()  # a new sink: nothing in memory, the broker's committed offset settles the intent
    assert len(world.values("summaries")) == 1 and len(world.values("verified")) == 2
    assert world.store.exists(bucket, manifest_key(PIPELINE_VERSION, doc_id))
    assert not world.store.exists(bucket, intent_key(PIPELINE_VERSION, doc_id))


def test_an_intent_whose_transaction_never_committed_publishes_everything(world: World) -> None:
    # A sink killed after writing its intent, before its commit: the records were never published, so
    # the next sink publishes them all, and once.
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    facts = world.values("facts")
    doc_id = str(facts[0]["doc_id"])
    bucket = world.settings.artifact_bucket
    world.store.delete(bucket, manifest_key(PIPELINE_VERSION, doc_id))  # as if that run never committed
    intent = {"at": ["t.verified", 0, 10_000], "ids": sorted(str(f["fact_id"]) for f in facts)}
    world.store.put_bytes(bucket, intent_key(PIPELINE_VERSION, doc_id), json.dumps(intent).encode())
    _replay(world, "in/a.pdf")
    world.run()
    assert len(world.values("summaries")) == 2 and len(world.values("facts")) == 2 * len(facts)
    assert not world.store.exists(bucket, intent_key(PIPELINE_VERSION, doc_id))


def test_a_model_server_that_does_not_answer_leaves_the_model_stage_pending(world: World) -> None:
    # Port 9 (discard) refuses connections: the deterministic results go out now, the model stage waits.
    down = Endpoint("http://127.0.0.1:9/v1", "m", timeout_s=2.0)
    model = ModelStage(ModelClient({"standard": down, "deep": down}, retries=0))
    handlers = world.handlers()
    handlers["verify"] = VerifyHandler(world.settings, world.store, model)
    world.handlers = lambda: handlers  # type: ignore[method-assign]
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    world.run()
    (summary,) = world.values("summaries")
    assert summary["model_stage"] == "pending" and summary["facts"] and world.values("dlq") == []
    pending = [k for (b, k) in world.store.objects if k.startswith("pending/")]
    assert pending == [pending_key(PIPELINE_VERSION, str(summary["doc_id"]))]


def test_a_model_stage_past_its_deadline_is_partial_committed_once_and_resumed_to_done(world: World) -> None:
    # A model that stalls after two answers (pure fake) and a deadline of a minute that passes at the stall
    # (the loop's clock jumps a day): the verify message is committed with the deterministic results and a
    # 'partial' model stage, and the resume loop finishes the tasks left.
    cfg = ModelStageConfig(window_pages=2, concurrency=2, deadline_s=60.0)
    slow = StallingPort(answers=2)
    handlers = world.handlers()
    handlers["verify"] = VerifyHandler(
        world.settings, world.store, ModelStage(slow, cfg, tokenizer=FakeTokenizer())
    )
    world.handlers = lambda: handlers  # type: ignore[method-assign]
    world.upload("in/a.pdf", SAMPLE.read_bytes())
    with jumping_loops():
        world.run()
    (summary,) = world.values("summaries")
    assert slow.stalled >= 1 and summary["model_stage"] == "partial" and world.values("dlq") == []
    (verified,) = world.values("verified")  # handled once: no redelivery for being slow
    bucket, key = world.settings.artifact_bucket, pending_key(PIPELINE_VERSION, str(summary["doc_id"]))
    left = json.loads(world.store.objects[(bucket, key)])["progress"]["left"]
    assert left and slow.asked and verified["model_stage"] == "partial"

    published: list[Outgoing] = []

    async def publish(out: list[Outgoing]) -> None:
        published.extend(out)

    fast = SlowPort(delay_s=0.001)
    resumed = ModelStage(fast, cfg, tokenizer=FakeTokenizer())
    assert asyncio.run(resume_pending(world.settings, world.store, resumed, publish)) == 1
    assert len(fast.asked) == len(left)  # only the tasks left were asked
    assert not world.store.exists(bucket, key)
    (event,) = [json.loads(o.value) for o in published]
    assert event["model_stage"] == "done" and event["doc_id"] == verified["doc_id"]


def test_generated_hostile_documents_are_typed_dead_letters_and_the_parse_worker_goes_on() -> None:
    """The parse service's killable worker under quotas: each hostile document ends as a dead letter with
    its category in the headers, the clean ones and the sample document go through, one worker a quota.

    Each bomb runs under quotas where the other quota is far out of reach, so its category says what the
    document does and not which of two quotas a machine happened to reach first: the font bomb fills 1 GiB
    in about a CPU second (30 allowed); the blank bomb spends 2 CPU seconds long before it holds 1 GiB
    (about 17 CPU seconds in, and the limit is 2 GiB).
    """
    from adapters.workers.isolation import IsolatedEngine
    from tests.support import hostile_gen as gen

    w = World()
    # wall clock: a liveness bound; the kernel's quotas are what must end the bombs
    memory_quota = EngineConfig(max_memory_bytes=1 << 30, max_cpu_s=30.0, timeout_s=600)
    cpu_quota = EngineConfig(max_memory_bytes=2 << 30, max_cpu_s=2.0, timeout_s=600)
    clean = {"in/image.pdf": gen.giant_image(100_000), "in/ops.pdf": gen.drawing_ops(2_000_000)}
    runs = [  # (quotas, hostile uploads with what they must end as, clean uploads after them in that worker)
        (
            memory_quota,
            {
                "in/nested.pdf": (gen.deeply_nested(100_000), "corrupt", "DocumentError"),
                "in/pages.pdf": (gen.huge_page_count(200_000), "too_many_pages", "DocumentError"),
                "in/tree.pdf": (gen.page_tree_bomb(7), "corrupt", "DocumentError"),
                "in/font-bomb.pdf": (gen.decompression_bomb(8192), "memory_limit", "QuotaExceeded"),
            },
            clean,
        ),
        (
            cpu_quota,
            {
                "in/blank-bomb.pdf": (
                    gen.decompression_bomb(4096, where="content"),
                    "cpu_limit",
                    "QuotaExceeded",
                ),
            },
            {"in/a.pdf": SAMPLE.read_bytes()},
        ),
    ]
    uploads = {key: upload for _, hostile, _ in runs for key, upload in hostile.items()}
    for config, hostile, after in runs:
        engine = IsolatedEngine(config)
        w.engine = engine  # type: ignore[assignment]
        try:
            for key, (data, _, _) in hostile.items():
                w.upload(key, data)
            for key, data in after.items():  # after the bombs, in the same worker
                w.upload(key, data)
            w.run()
        finally:
            engine.close()
    records = w.broker.records("t.dlq")
    letters = {str(json.loads(r.value or b"")["source"]): (json.loads(r.value or b""), r) for r in records}
    assert {k: (d["category"], d["error_class"]) for k, (d, _) in letters.items()} == {
        k: (category, error_class) for k, (_, category, error_class) in uploads.items()
    }
    for letter, record in letters.values():
        assert record.header("category") == letter["category"]
        assert record.header("error_class") == letter["error_class"]
        assert record.header("stage") == "parse"
        assert letter["error"]["fatal"] is True
    assert sorted(str(s["source"]) for s in w.values("summaries")) == sorted([*clean, "in/a.pdf"])
