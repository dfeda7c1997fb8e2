"""The PostgreSQL review store's changes, as the real sink writes them (``bash infra/postgres.sh up``).

Two drafts of a prospectus (``sample_docs/drafts.py``) go through the sink as the services' sink writes a
later version: its result with the VER001 flags, and the changes since the earlier one. The store reads
the ``changes`` table back as the embedded store reads ``changes.jsonl``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.review.postgres import PostgresReviewStore
from adapters.sinks.base import SinkBatch
from adapters.sinks.postgres import PostgresSink
from pipeline.across import diff_documents
from pipeline.engine import process_path
from sample_docs.drafts import render_pair
from schemas.models import DocumentResult

pytestmark = pytest.mark.integration

DAY = "2026-12-02"


def _drafts(tmp: Path) -> tuple[DocumentResult, DocumentResult]:
    pair = render_pair(0)
    results = []
    for name, data in ((pair.truth["old"], pair.old), (pair.truth["new"], pair.new)):
        path = tmp / str(name)
        path.write_bytes(data)
        results.append(process_path(path))
    return results[0], results[1]


def test_the_store_reads_the_changes_the_sink_wrote(db_dsn: str, tmp_path: Path) -> None:
    old, new = _drafts(tmp_path)
    changes = diff_documents(old, new)
    assert changes.flags, "the second draft breaks a tie"
    with PostgresSink(db_dsn) as sink:
        sink.migrate()
        sink.write(SinkBatch(old, ingest_date=DAY))
        flagged = new.model_copy(update={"flags": [*new.flags, *changes.flags]})
        sink.write(SinkBatch(flagged, ingest_date=DAY, changes=changes))
    store = PostgresReviewStore(db_dsn)
    try:
        got = store.changes_of(new.doc_id)
        assert got is not None
        # every field as written (the share is a real: a float4 in the table)
        assert got.model_copy(update={"matched_share": changes.matched_share}) == changes
        assert got.matched_share == pytest.approx(changes.matched_share, rel=1e-6)
        assert store.changes_of(old.doc_id) is None
        assert [(v.doc_id, v.source, v.previous_id, v.previous_source) for v in store.versions()] == [
            (new.doc_id, new.source, old.doc_id, old.source)
        ]
        assert {old.doc_id, new.doc_id} <= dict(store.sources()).keys()
        assert store.get(changes.flags[0].flag_id) is not None  # the VER001 flag is in the queue
    finally:
        store.close()
