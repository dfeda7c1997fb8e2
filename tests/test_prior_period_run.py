"""``tieout run --history``: a folder of several years of one issuer ties out across its documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sample_docs.generate import Injection
from sample_docs.years import consecutive_years
from tieout.cli import app


def _run(folder: Path, history: Path, out: Path) -> list[dict[str, Any]]:
    res = CliRunner().invoke(app, ["run", str(folder), "--out", str(out), "--history", str(history)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in (out / "flags.jsonl").read_text().splitlines()]


def _write(folder: Path, injections: dict[int, tuple[Injection, ...]] | None = None) -> list[str]:
    folder.mkdir()
    names = []
    for name, data, _ in consecutive_years(2025, 2, injections=injections):
        (folder / name).write_bytes(data)
        names.append(name)
    return names


def test_two_consistent_years_raise_no_prior_period_flag_and_fill_the_history(tmp_path: Path) -> None:
    _write(tmp_path / "docs")
    flags = _run(tmp_path / "docs", tmp_path / "history", tmp_path / "out")
    assert [f for f in flags if str(f["rule"]).startswith("PRI")] == []
    assert (tmp_path / "history" / "history.sqlite").is_file()


def test_a_mistyped_comparative_is_flagged_against_last_years_report_once(tmp_path: Path) -> None:
    # This year's report prints last year's receivables with two digits swapped.
    earlier, later = _write(tmp_path / "docs", {2025: (Injection("sum_mismatch", "recv", 2024),)})
    flags = _run(tmp_path / "docs", tmp_path / "history", tmp_path / "out1")
    prior = [f for f in flags if f["rule"] == "PRI001"]
    assert len(prior) >= 1
    flag = prior[0]
    assert flag["source"] == later and "swap" in str(flag["message"])
    assert [e["source"] for e in flag["evidence"]] == [None, earlier]
    # A rerun into the same history replaces the documents' rows: the same flags, no duplicate.
    again = _run(tmp_path / "docs", tmp_path / "history", tmp_path / "out2")
    assert [f["flag_id"] for f in again] == [f["flag_id"] for f in flags]
