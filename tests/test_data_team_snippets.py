"""The README's snippets for data teams ("For data teams: reading the outputs"), run as they are printed.

* The README marks each snippet the tests run, once, and each is valid Python (the ``facts`` topic one runs
  in the integration tier: tests/integration/test_data_team_snippets.py).
* The Parquet snippet reads the datasets the sink writes (``write_parquet``, here into a local copy of the
  bucket) and prints the recent documents, their revenue and their flags by rule; an older ingest date is
  filtered out.
* The XBRL snippet loads a report ``tieout export xbrl`` wrote in Arelle, offline, and lists its facts
  with no error; a report with a sum put off shows the inconsistency.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.sinks.base import SinkBatch
from adapters.sinks.parquet import write_parquet
from adapters.sinks.rows import DOCUMENTS, FACTS
from adapters.storage import MemoryStore
from pipeline.checks.stage import verify
from pipeline.engine import process_path
from tests.support.corpus import REPO
from tests.support.snippets import SNIPPETS, run_snippet, snippet, snippet_names
from tieout.cli import app

SAMPLES = REPO / "sample_docs"
RECENT = ("halvorsen_2025_form_10k.pdf", "2026-12-01")  # on or after the snippet's date: read
OLDER = ("kaizen_fy2025_annual_report.pdf", "2026-11-30")  # before it: filtered out


def test_the_readme_marks_every_snippet_the_tests_run_once() -> None:
    assert snippet_names() == list(SNIPPETS)
    for name in SNIPPETS:
        compile(snippet(name), f"README.md snippet {name}", "exec")


def test_a_missing_snippet_is_an_error(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text("<!-- snippet: facts -->\n```python\nprint(1)\n```\n", encoding="utf-8")
    assert snippet("facts", doc) == "print(1)\n"
    with pytest.raises(LookupError, match="facts-topic"):
        snippet("facts-topic", doc)


# --------------------------------------------------------------------------- Parquet
def _tables(out: str) -> list[list[list[str]]]:
    """What the snippet printed: each table (a blank line after it) as rows of cells, its header first."""
    return [[line.split() for line in block.splitlines()] for block in out.strip().split("\n\n")]


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SinkBatch]:
    """The sink's Parquet files for two samples, copied out of the store as ``aws s3 sync`` would, and the
    recent sample's batch."""
    store = MemoryStore()
    recent, older = (
        SinkBatch(verify(process_path(SAMPLES / name)), ingest_date=day) for name, day in (RECENT, OLDER)
    )
    for batch in (recent, older):
        write_parquet(store, "artifacts", batch)
    root = tmp_path_factory.mktemp("bucket")
    for (_, key), data in store.objects.items():
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_bytes(data)
    assert recent.result.flags, "the recent sample should have flags to count"
    return root / "datasets", recent


def test_the_parquet_snippet_reads_the_recent_documents(
    datasets: tuple[Path, SinkBatch], tmp_path: Path
) -> None:
    root, batch = datasets
    result, source = batch.result, batch.result.source
    out = run_snippet("parquet-datasets", {"TIEOUT_DATASETS": str(root)}, cwd=tmp_path)
    documents, revenue, flags = _tables(out)
    (row,) = DOCUMENTS.rows([batch])
    header = ["source", "pages", "facts", "flags"]
    assert documents == [header, [str(row[c]) for c in header]]  # the older document is filtered out
    expected = [
        (r["source"], str(r["fiscal_year"]), str(r["currency"]), r["value"])
        for r in FACTS.rows(result.facts)
        if r["metric"] == "revenue" and r["statement"] == "income"
    ]
    assert revenue[0] == ["source", "fiscal_year", "currency", "value"] and expected
    assert sorted((s, y, c, Decimal(v)) for s, y, c, v in revenue[1:]) == sorted(expected)
    assert flags[0] == ["source", "rule", "rule_count"]
    assert Counter({(s, rule): int(n) for s, rule, n in flags[1:]}) == Counter(
        (source, f.rule) for f in result.flags
    )


# --------------------------------------------------------------------------- XBRL
@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report ``tieout export xbrl`` writes for a sample (unchecked: the snippet checks it)."""
    out = tmp_path_factory.mktemp("xbrl")
    res = CliRunner().invoke(
        app, ["export", "xbrl", str(SAMPLES / RECENT[0]), "--out", str(out), "--no-check"]
    )
    assert res.exit_code == 0, res.output
    (path,) = out.glob("*/report.json")
    return path


def _run_xbrl_snippet(report: Path, tmp_path: Path) -> tuple[list[list[str]], list[str], str]:
    """The facts the snippet listed (id, concept, value), the other lines (messages) and the summary line."""
    ids = set(json.loads(report.read_text())["facts"])
    env = {"TIEOUT_REPORT": str(report), "XDG_CONFIG_HOME": str(tmp_path)}  # Arelle's config folder
    *lines, summary = run_snippet("xbrl-report", env, cwd=tmp_path).splitlines()
    facts = [line.split() for line in lines if line.split(" ", 1)[0] in ids]
    messages = [line for line in lines if line.split(" ", 1)[0] not in ids]
    return facts, messages, summary


def test_the_xbrl_snippet_loads_an_exported_report_with_its_facts(report: Path, tmp_path: Path) -> None:
    facts, messages, summary = _run_xbrl_snippet(report, tmp_path)
    published = json.loads(report.read_text())["facts"]
    assert published and summary == f"{len(published)} facts, 0 errors, 0 inconsistent sums"
    assert messages == []
    assert {f[0] for f in facts} == set(published)
    for fact_id, concept, value in facts:
        assert concept == published[fact_id]["dimensions"]["concept"]
        assert Decimal(value) == Decimal(published[fact_id]["value"])


def _totals(folder: Path) -> set[str]:
    """The local names of the concepts the calculation linkbase sums into (its arcs' ``from`` ends)."""
    xlink = "{http://www.w3.org/1999/xlink}"
    cal = ET.parse(folder / "tieout-ext-cal.xml").getroot()
    schema = ET.parse(folder / "tieout-ext.xsd").getroot()
    names = {e.get("id"): e.get("name") for e in schema.iter("{http://www.w3.org/2001/XMLSchema}element")}
    locs = {
        e.get(f"{xlink}label"): e.get(f"{xlink}href", "").split("#")[-1]
        for e in cal.iter()
        if e.tag.endswith("}loc")
    }
    froms = {e.get(f"{xlink}from") for e in cal.iter() if e.tag.endswith("}calculationArc")}
    return {str(names[locs[f]]) for f in froms}


def test_the_xbrl_snippet_lists_a_sum_that_does_not_add_up(report: Path, tmp_path: Path) -> None:
    # Every fact of every summation's total put 1,000 of its last digits off (a multiple of its precision).
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in report.parent.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    totals = _totals(broken)
    document = json.loads((broken / "report.json").read_text())
    moved = 0
    for fact in document["facts"].values():
        if fact["dimensions"]["concept"].split(":")[-1] in totals:
            fact["value"] = str(Decimal(fact["value"]) + Decimal(1000).scaleb(-fact["decimals"]))
            moved += 1
    assert moved, "the report should publish the total of a summation"
    (broken / "report.json").write_text(json.dumps(document))
    _, messages, summary = _run_xbrl_snippet(broken / "report.json", tmp_path)
    inconsistent = [m for m in messages if m.startswith("calc11e:inconsistentCalculationUsingRounding ")]
    assert inconsistent and messages == inconsistent
    assert summary.endswith(f" facts, 0 errors, {len(inconsistent)} inconsistent sums")
