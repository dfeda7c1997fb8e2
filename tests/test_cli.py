"""The embedded run end to end: files in, JSONL out, exit code only for documents that failed entirely."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schemas.models import OUTPUT_RECORDS
from tieout.cli import app

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"


def _read(out: Path, name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_run_writes_every_file_with_valid_records(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    for pdf in sorted(SAMPLES.glob("*.pdf"))[:2]:
        shutil.copy(pdf, src / pdf.name)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["run", str(src), "--out", str(out), "--workers", "2"])
    assert res.exit_code == 0, res.output
    for name, model in OUTPUT_RECORDS.items():
        rows = _read(out, name)
        for row in rows:
            rec = model.model_validate(row)
            assert len(rec.doc_id) == 64  # type: ignore[attr-defined]
            assert rec.source.endswith(".pdf")  # type: ignore[attr-defined]
    assert _read(out, "facts") and _read(out, "chunks") and _read(out, "tables")
    assert all(int(str(r["page"])) >= 1 for r in _read(out, "facts"))


def test_run_is_deterministic_and_replaces_previous_results(tmp_path: Path) -> None:
    pdf = sorted(SAMPLES.glob("*.pdf"))[0]
    out = tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(pdf), "--out", str(out)]).exit_code == 0
    first = {n: (out / f"{n}.jsonl").read_bytes() for n in OUTPUT_RECORDS}
    assert runner.invoke(app, ["run", str(pdf), "--out", str(out)]).exit_code == 0
    assert first == {n: (out / f"{n}.jsonl").read_bytes() for n in OUTPUT_RECORDS}


def test_a_broken_file_fails_alone(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    good = sorted(SAMPLES.glob("*.pdf"))[0]
    shutil.copy(good, src / good.name)
    (src / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["run", str(src), "--out", str(out)])
    assert res.exit_code == 1
    errors = _read(out, "errors")
    assert [(e["source"], e["category"], e["fatal"]) for e in errors] == [("broken.pdf", "corrupt", True)]
    assert {f["source"] for f in _read(out, "facts")} == {good.name}


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["run", str(tmp_path / "nope.pdf"), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2


@pytest.mark.parametrize("args", [["schemas", "--out"]])
def test_schemas_command(tmp_path: Path, args: list[str]) -> None:
    res = CliRunner().invoke(app, [*args, str(tmp_path)])
    assert res.exit_code == 0
    assert {p.name for p in tmp_path.iterdir()} >= {f"{n}.schema.json" for n in OUTPUT_RECORDS}


def test_run_reports_a_quota_breach_and_carries_on(tmp_path: Path) -> None:
    from tests.support.hostile_gen import decompression_bomb

    src = tmp_path / "in"
    src.mkdir()
    good = sorted(SAMPLES.glob("*.pdf"))[0]
    shutil.copy(good, src / good.name)
    (src / "bomb.pdf").write_bytes(decompression_bomb(8192))  # a font that inflates to 8 GiB
    out = tmp_path / "out"
    # The quota from the environment, as a deployment sets it.
    res = CliRunner().invoke(app, ["run", str(src), "--out", str(out)], env={"TIEOUT_MEMORY_MB": "1024"})
    assert res.exit_code == 1
    (error,) = _read(out, "errors")
    assert (error["source"], error["category"], error["fatal"]) == ("bomb.pdf", "memory_limit", True)
    assert "1024 MiB" in str(error["message"])
    assert "memory_limit 1" in res.output and "--memory-mb" in res.output
    assert {f["source"] for f in _read(out, "facts")} == {good.name}
