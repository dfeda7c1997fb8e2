"""Two versions of one document through the real stack: the ``changes`` record and its VER001 flag.

Two drafts of a generated prospectus (``sample_docs/drafts.py``) are uploaded to the landing bucket one
after the other; the three services (registered with the real schema registry, writing to PostgreSQL)
publish, for the second, one ``DocumentChanges`` record on ``changes`` keyed by its doc id, read here
with an independent confluent-kafka consumer, and the VER001 flag of the tie its changes broke on
``flags``; the record is also a row of the ``changes`` table and of the ``changes`` Parquet dataset.
"""

from __future__ import annotations

import io
from collections import Counter

import psycopg
import pyarrow.parquet as pq
import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient

from adapters.registry import subject
from adapters.storage import ObjectStore, versions_key
from sample_docs.drafts import render_pair
from tests.integration.conftest import Isolated, eventually

pytestmark = pytest.mark.integration


def test_two_versions_uploaded_one_after_the_other_publish_their_changes_and_a_ver001_flag(
    isolated: Isolated, db_dsn: str, registry_url: str
) -> None:
    it = isolated
    it.services.env["PG_DSN"] = db_dsn
    it.start_pipeline(registry_url)
    pair = render_pair(1)  # the filing layout (tests/test_services_changes.py runs the ruled one)
    store = ObjectStore(it.settings)
    bucket, summaries = it.settings.artifact_bucket, it.topic("summaries")

    store.put_bytes(it.settings.landing_bucket, "drafts/v1.pdf", pair.old, "application/pdf")
    (first,) = it.read(summaries, until=lambda r: len(r) >= 1)
    identity = first["identity"]
    assert isinstance(identity, dict) and identity["version_key"]
    # The first version is listed once its results are committed: the next one is compared with it.
    pointer = versions_key(str(identity["version_key"]))
    eventually("the first version listed", lambda: store.exists(bucket, pointer), logs=it.services.logs)

    store.put_bytes(it.settings.landing_bucket, "drafts/v2.pdf", pair.new, "application/pdf")
    # one record: the second version's (the first has no earlier version; a duplicate would show)
    (record,) = it.read(it.topic("changes"), until=lambda r: len(r) >= 1)
    both = it.read(summaries, until=lambda r: len(r) >= 2)
    (second,) = [str(s["doc_id"]) for s in both if s["doc_id"] != first["doc_id"]]
    assert record["_key"] == second and record["new_doc_id"] == second
    assert record["old_doc_id"] == first["doc_id"] and record["new_source"] == "drafts/v2.pdf"
    changes = record["changes"]
    assert isinstance(changes, list)
    assert Counter(c["kind"] for c in changes) == {"changed": 16, "added": 7, "removed": 3}
    ties = record["ties"]
    assert isinstance(ties, list) and Counter(t["status"] for t in ties)["broke"] == 1
    listed = record["flags"]
    assert isinstance(listed, list)
    (flag,) = listed
    assert flag["rule"] == "VER001"

    # The flag is in the analysts' queue: on the flags topic, once, with the new version.
    flags = it.read(it.topic("flags"), until=lambda r: any(f["rule"] == "VER001" for f in r))
    ver001 = [(f["flag_id"], f["doc_id"]) for f in flags if f["rule"] == "VER001"]
    assert ver001 == [(flag["flag_id"], second)]
    # Registered like every topic: the record was framed with the subject's schema id.
    client = SchemaRegistryClient({"url": registry_url, "timeout": 10})
    assert client.get_latest_version(subject(it.topic("changes"))).schema_id

    # The sinks: a row of the changes table (one element per figure) and of the Parquet dataset.
    def row() -> tuple[object, ...] | None:
        with psycopg.connect(db_dsn, connect_timeout=10) as conn:
            return conn.execute(
                b"SELECT old_doc_id, jsonb_array_length(changes) FROM changes WHERE new_doc_id = %s",
                (second,),
            ).fetchone()

    eventually("the changes row", lambda: row() is not None, logs=it.services.logs)
    assert row() == (first["doc_id"], len(changes))
    (key,) = [o.key for o in store.list_objects(bucket, "datasets/changes/")]
    (parquet,) = pq.read_table(io.BytesIO(store.read_uri(f"s3://{bucket}/{key}"))).to_pylist()
    assert (parquet["old_doc_id"], parquet["new_doc_id"]) == (first["doc_id"], second)
