"""The xBRL sink (adapters/sinks/xbrl.py) on the in-memory store: layout, media types, replays, failures.

The same sink runs against the real S3 gateway in ``tests/integration/test_sinks.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.sinks.base import SinkBatch, SinkOutage, SinkRefused
from adapters.sinks.xbrl import XbrlReports
from adapters.storage import MemoryStore, StorageError
from adapters.xbrl.artifact import EXCLUDED_FILE, xbrl_artifact
from adapters.xbrl.report import REPORT_FILE
from pipeline.engine import process_path
from schemas.models import DocumentResult
from tieout.cli import app

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_docs" / "alpenglow_2025_annual_report.pdf"
BUCKET = "artifacts"
DAY = "2026-11-30"
FILES = {
    "report.json": "application/json",
    "tieout-ext.xsd": "application/xml",
    "tieout-ext-cal.xml": "application/xml",
    "excluded.jsonl": "application/x-ndjson",
}


@pytest.fixture(scope="module")
def result() -> DocumentResult:
    # As the sink gets it: read back from the verified artifact's JSON.
    return DocumentResult.model_validate_json(process_path(SAMPLE).model_dump_json())


def _objects(store: MemoryStore) -> dict[str, bytes]:
    return {key: data for (bucket, key), data in store.objects.items() if bucket == BUCKET}


def test_each_file_of_the_report_is_an_object_in_the_documents_folder_of_its_ingest_date(
    result: DocumentResult,
) -> None:
    store = MemoryStore()
    uris = XbrlReports(store, BUCKET).write(SinkBatch(result, ingest_date=DAY))
    folder = f"xbrl/ingest_date={DAY}/{result.doc_id}/"
    assert sorted(uris) == sorted(f"s3://{BUCKET}/{folder}{name}" for name in FILES)
    assert set(_objects(store)) == {folder + name for name in FILES}
    assert {key: store.content_types[(BUCKET, key)] for key in _objects(store)} == {
        folder + name: media for name, media in FILES.items()
    }
    assert _objects(store) == {folder + name: data for name, data in xbrl_artifact(result).files.items()}
    report = json.loads(_objects(store)[folder + REPORT_FILE])
    assert report["facts"] and report["documentInfo"]["taxonomy"] == ["tieout-ext.xsd"]
    excluded = [json.loads(line) for line in _objects(store)[folder + EXCLUDED_FILE].splitlines()]
    assert excluded and all(set(e) == {"fact_id", "metric", "reason"} for e in excluded)


def test_a_replay_overwrites_the_same_objects_with_the_same_bytes(result: DocumentResult) -> None:
    store = MemoryStore()
    sink = XbrlReports(store, BUCKET)
    first_uris = sink.write(SinkBatch(result, ingest_date=DAY))
    first = _objects(store)
    assert sink.write(SinkBatch(result, ingest_date=DAY)) == first_uris
    assert _objects(store) == first


def test_the_bytes_do_not_depend_on_the_process(result: DocumentResult, tmp_path: Path) -> None:
    # A replay may reach another sink process (a restart, another worker): its hash seed must not matter.
    doc = tmp_path / "result.json"
    doc.write_text(result.model_dump_json(), encoding="utf-8")
    code = (
        "import hashlib, json, sys\n"
        "from adapters.xbrl.artifact import xbrl_artifact\n"
        "from schemas.models import DocumentResult\n"
        "r = DocumentResult.model_validate_json(open(sys.argv[1], encoding='utf-8').read())\n"
        "print(json.dumps({n: hashlib.sha256(d).hexdigest() for n, d in xbrl_artifact(r).files.items()}))\n"
    )
    digests = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
        out = subprocess.run(
            [sys.executable, "-c", code, str(doc)], env=env, cwd=REPO, capture_output=True, check=True
        )
        digests.append(json.loads(out.stdout))
    here = {n: hashlib.sha256(d).hexdigest() for n, d in xbrl_artifact(result).files.items()}
    assert digests == [here, here]


def test_the_export_command_writes_the_same_files_as_the_sink(result: DocumentResult, tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["export", "xbrl", str(SAMPLE), "--out", str(tmp_path), "--no-check"])
    assert res.exit_code == 0, res.output
    store = MemoryStore()
    XbrlReports(store, BUCKET).write(SinkBatch(result, ingest_date=DAY))
    folder = tmp_path / result.doc_id
    exported = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert exported == {key.rsplit("/", 1)[1]: data for key, data in _objects(store).items()}


def test_an_unreachable_store_is_an_outage(result: DocumentResult) -> None:
    store = MemoryStore()
    store.down = True
    with pytest.raises(SinkOutage, match="connection refused"):
        XbrlReports(store, BUCKET).write(SinkBatch(result, ingest_date=DAY))


class RefusingStore(MemoryStore):
    def put_bytes(self, bucket: str, key: str, data: bytes, content_type: str = "application/json") -> str:
        raise StorageError(f"put s3://{bucket}/{key}: AccessDenied", transient=False)


def test_a_refused_write_is_refused_with_category_storage(result: DocumentResult) -> None:
    with pytest.raises(SinkRefused, match="AccessDenied") as caught:
        XbrlReports(RefusingStore(), BUCKET).write(SinkBatch(result, ingest_date=DAY))
    assert caught.value.category == "storage"


def test_a_report_that_cannot_be_built_is_refused_and_nothing_is_written(
    result: DocumentResult, unbuildable_xbrl: str
) -> None:
    store = MemoryStore()
    with pytest.raises(SinkRefused, match=f"ValueError: {unbuildable_xbrl}") as caught:
        XbrlReports(store, BUCKET).write(SinkBatch(result, ingest_date=DAY))
    assert caught.value.category == "xbrl_report" and store.objects == {}
