"""The sink service on the real broker and store: quality gate, Parquet datasets, xBRL reports, replays."""

from __future__ import annotations

import io
import json
import time

import pyarrow.parquet as pq
import pytest
from confluent_kafka import Producer

from adapters.storage import ObjectStore, artifact_key
from adapters.xbrl.artifact import content_type, xbrl_artifact
from schemas.events import VerifiedEvent
from schemas.models import DocumentResult
from tests.integration.conftest import Isolated
from tests.integration.test_services import SAMPLES, _upload_boto3

pytestmark = pytest.mark.integration


def _datasets(store: ObjectStore, bucket: str, name: str) -> list[str]:
    return sorted(o.key for o in store.list_objects(bucket, f"datasets/{name}/"))


def _rows(store: ObjectStore, bucket: str, name: str) -> int:
    total = 0
    for key in _datasets(store, bucket, name):
        total += pq.read_table(io.BytesIO(store.read_uri(f"s3://{bucket}/{key}"))).num_rows
    return total


def _xbrl(store: ObjectStore, bucket: str) -> dict[str, tuple[bytes, str]]:
    """Every object under ``xbrl/``: its bytes and the media type the store keeps for it."""
    out = {}
    for o in store.list_objects(bucket, "xbrl/"):
        head = store.client.head_object(Bucket=bucket, Key=o.key)
        out[o.key] = (store.read_uri(f"s3://{bucket}/{o.key}"), str(head["ContentType"]))
    return out


def _pg_counts(dsn: str) -> dict[str, int]:
    from adapters.sinks.postgres import PostgresSink

    with PostgresSink(dsn) as db:
        return db.counts()


def test_sinks_write_parquet_xbrl_postgres_and_topics_and_replays_add_nothing(
    isolated: Isolated, db_dsn: str
) -> None:
    it = isolated
    it.services.env["PG_DSN"] = db_dsn
    for stage in ("parse", "verify", "sink"):
        it.services.start(stage, "w1")
    _upload_boto3(it, SAMPLES[:2], "sink")
    summaries = it.read(it.topic("summaries"), until=lambda r: len(r) >= 2)
    store = ObjectStore(it.settings)
    bucket = it.settings.artifact_bucket
    n_facts = sum(int(str(s["facts"])) for s in summaries)
    assert _rows(store, bucket, "facts") == n_facts
    assert _rows(store, bucket, "documents") == 2
    time.sleep(2)  # the sink commits Kafka after the database; the summary can arrive first by a hair
    counts = _pg_counts(db_dsn)
    assert counts["documents"] == 2 and counts["facts"] == n_facts
    assert all(str(k).split("/")[3].startswith("ingest_date=") for k in _datasets(store, bucket, "facts"))
    # Each document's xBRL report: the artifact function's files and bytes, each with its media type,
    # in the document's folder under the datasets' ingest date, listed in the document's summary.
    reports = _xbrl(store, bucket)
    verified = it.read(it.topic("verified"), until=lambda r: len(r) >= 2)
    for v in verified:
        result = DocumentResult.model_validate_json(store.read_uri(str(v["artifact"])))
        folder = f"xbrl/ingest_date={str(v['produced_at'])[:10]}/{result.doc_id}/"
        expected = {folder + n: (data, content_type(n)) for n, data in xbrl_artifact(result).files.items()}
        assert {k: o for k, o in reports.items() if k.startswith(folder)} == expected
        (summary,) = [s for s in summaries if s["doc_id"] == result.doc_id]
        datasets = summary["datasets"]
        assert isinstance(datasets, list) and {f"s3://{bucket}/{k}" for k in expected} <= set(datasets)
    assert len(reports) == 2 * 4
    facts_before = len(it.read(it.topic("facts"), until=lambda r: len(r) >= n_facts))
    rewards = it.read(it.topic("rewards"), until=lambda r: len({x["doc_id"] for x in r}) >= 2)
    assert rewards and all(0.0 <= float(str(r["reward"])) <= 1.0 for r in rewards)
    # Replay: the verified events go through the sink again.
    p = Producer({"bootstrap.servers": it.settings.kafka_bootstrap})
    for v in verified:
        body = {k: val for k, val in v.items() if not k.startswith("_")}
        p.produce(it.topic("verified"), key=str(v["doc_id"]).encode(), value=json.dumps(body).encode())
    assert p.flush(30) == 0
    time.sleep(8)
    assert _rows(store, bucket, "facts") == n_facts and _rows(store, bucket, "documents") == 2
    assert _xbrl(store, bucket) == reports  # the same objects, overwritten with the same bytes
    assert _pg_counts(db_dsn) == counts
    assert len(it.read(it.topic("facts"), until=lambda r: len(r) >= facts_before)) == facts_before
    assert len(it.read(it.topic("summaries"), until=lambda r: len(r) >= 2)) == 2
    assert len(it.read(it.topic("rewards"), until=lambda r: len(r) >= len(rewards))) == len(rewards)


def test_a_planted_violation_is_stopped_by_the_gate(isolated: Isolated) -> None:
    it = isolated
    it.services.start("sink", "w1")
    store = ObjectStore(it.settings)
    from pipeline.engine import process_path

    good = process_path(SAMPLES[0], source="planted.pdf")
    bad_fact = good.facts[0].model_copy(update={"metric": "definitely_not_a_metric", "value": 9.9e18})
    bad = good.model_copy(update={"facts": [bad_fact, *good.facts[1:]]})
    uri = store.put_bytes(
        it.settings.artifact_bucket,
        artifact_key("verified", bad.pipeline_version, bad.doc_id),
        bad.model_dump_json().encode(),
    )
    event = VerifiedEvent(
        doc_id=bad.doc_id, trace_id="t-planted", source="planted.pdf", pipeline_version=bad.pipeline_version,
        produced_at="2026-11-30T00:00:00Z", artifact=uri, facts=len(bad.facts), flags=0,
    )  # fmt: skip
    p = Producer({"bootstrap.servers": it.settings.kafka_bootstrap})
    p.produce(it.topic("verified"), key=bad.doc_id.encode(), value=event.model_dump_json().encode())
    assert p.flush(30) == 0
    (dead,) = it.read(it.topic("dlq"), until=lambda r: len(r) >= 1)
    assert dead["category"] == "quality_gate" and dead["stage"] == "sink"
    assert "facts:expect_column_values_to_be_in_set(metric)" in str(dead["message"])
    assert "facts:expect_column_values_to_be_between(value)" in str(dead["message"])
    assert _datasets(store, it.settings.artifact_bucket, "facts") == []  # nothing reached a sink
