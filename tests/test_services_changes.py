"""Two drafts of one prospectus through parse → verify → sink on the in-memory broker and store: the
``changes`` record of the second, its VER001 flag, its rows, and the same record when it comes again.

The same flow runs against Kafka, the S3 gateway and PostgreSQL in
``tests/integration/test_changes_topic.py``.
"""

from __future__ import annotations

import functools
import io
from collections import Counter

import pyarrow.parquet as pq

from adapters.storage import manifest_key, versions_key
from pipeline.config import PIPELINE_VERSION
from sample_docs.drafts import DraftPair, render_pair
from schemas.models import DocumentChanges
from tests.test_services_memory import World, _replay


@functools.cache
def _pair() -> DraftPair:
    return render_pair(0)


def _changes(world: World) -> list[DocumentChanges]:
    return [DocumentChanges.model_validate(v) for v in world.values("changes")]


def _both_drafts() -> World:
    """The services after the first draft, then the second, each landed and run until idle."""
    world = World()
    for key, data in (("drafts/one.pdf", _pair().old), ("drafts/two.pdf", _pair().new)):
        world.upload(key, data)
        world.run()
    return world


def test_the_first_draft_alone_publishes_no_changes() -> None:
    world = World()
    world.upload("drafts/one.pdf", _pair().old)
    world.run()
    (summary,) = world.values("summaries")
    assert world.values("dlq") == [] and _changes(world) == []
    assert not any(f["rule"] == "VER001" for f in world.values("flags"))
    assert world.pg_changes == [] and not any(
        k.startswith("datasets/changes/") for _, k in world.store.objects
    )
    # ...but it is listed under its version key, for the next draft to be compared with.
    identity = summary["identity"]
    assert isinstance(identity, dict) and identity["version_key"]
    assert world.store.exists(world.settings.artifact_bucket, versions_key(str(identity["version_key"])))


def test_the_next_draft_publishes_its_changes_and_a_ver001_flag_for_the_broken_tie() -> None:
    world = _both_drafts()
    first, second = (str(s["doc_id"]) for s in world.values("summaries"))
    (changes,) = _changes(world)
    assert (changes.old_doc_id, changes.new_doc_id) == (first, second)
    assert (changes.old_source, changes.new_source) == ("drafts/one.pdf", "drafts/two.pdf")
    # what tests/test_drafts_diff.py finds for this pair with `tieout diff`
    assert Counter(c.kind for c in changes.changes) == {"changed": 16, "added": 7, "removed": 3}
    ties = Counter(t.status for t in changes.ties)
    assert ties["broke"] == 1 and ties["repaired"] == 1
    (flag,) = changes.flags
    assert flag.rule == "VER001" and flag.doc_id == second
    # the flag goes to the analysts' queue with the document's other flags, once
    published = [f for f in world.values("flags") if f["rule"] == "VER001"]
    assert [(f["flag_id"], f["doc_id"]) for f in published] == [(flag.flag_id, second)]
    (record,) = world.broker.records(world.settings.topic("changes"))
    assert record.key == second.encode()
    # the sinks: PostgreSQL (its writer got the changes) and the Parquet dataset
    assert world.pg_changes == [second]
    (key,) = [k for _, k in world.store.objects if k.startswith("datasets/changes/")]
    (row,) = pq.read_table(io.BytesIO(world.store.objects[(world.settings.artifact_bucket, key)])).to_pylist()
    assert (row["old_doc_id"], row["new_doc_id"], row["matched"]) == (first, second, changes.matched)


def test_a_draft_that_comes_again_gives_the_same_record_and_publishes_nothing_twice() -> None:
    world = _both_drafts()
    (before,) = world.values("changes")
    flags = len(world.values("flags"))
    # re-announced: the sink's manifest keeps the topics free of duplicates
    _replay(world, "drafts/two.pdf")
    world.run()
    assert world.values("changes") == [before] and len(world.values("flags")) == flags
    # without its manifest (as if never published), the same record again: compared with the same draft
    second = str(before["new_doc_id"])
    world.store.delete(world.settings.artifact_bucket, manifest_key(PIPELINE_VERSION, second))
    _replay(world, "drafts/two.pdf")
    world.run()
    assert world.values("changes") == [before, before]
    # and the first draft, re-announced, is still the first version: no changes of its own
    _replay(world, "drafts/one.pdf")
    world.run()
    assert len(world.values("changes")) == 2 and world.values("dlq") == []
