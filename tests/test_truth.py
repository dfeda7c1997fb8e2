"""Golden acceptance on the sample documents: key facts found, injected inconsistencies flagged, clean
documents unflagged — all against sample_docs/truth.json."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pipeline.engine import process_path
from schemas.models import DocumentResult

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
TRUTH: dict[str, Any] = json.loads((SAMPLES / "truth.json").read_text(encoding="utf-8"))
DOCS = {d["file"]: d for d in TRUTH["documents"]}


@cache
def result(name: str) -> DocumentResult:
    return process_path(SAMPLES / name)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(1e-6, 1e-9 * abs(b))


@pytest.mark.parametrize("name", sorted(DOCS))
def test_key_facts_found(name: str) -> None:
    r = result(name)
    missing = []
    for f in DOCS[name]["facts"]:
        found = {
            x.page
            for x in r.facts
            if x.metric == f["metric"]
            and x.origin == "table_cell"
            and x.period is not None
            and x.period.key == f["period"]
            and x.value is not None
            and _close(x.value, f["value"])
            and x.currency == f["currency"]
        }
        if not set(f["pages"]) <= found:
            missing.append((f["metric"], f["period"], f["value"], f["pages"], sorted(found)))
    assert not missing, f"{len(missing)} of {len(DOCS[name]['facts'])} key facts not found: {missing}"


@pytest.mark.parametrize("name", sorted(DOCS))
def test_injected_inconsistencies_flagged_and_nothing_else(name: str) -> None:
    r = result(name)
    expected = DOCS[name]["inconsistencies"]
    unmatched_truth = []
    matched_flags: set[str] = set()
    for inc in expected:
        hits = [
            f
            for f in r.flags
            if f.kind == inc["kind"]
            and set(f.pages) <= set(inc["pages"])
            and (f.period is None or inc["period"] is None or f.period.key == inc["period"])
        ]
        if not hits:
            unmatched_truth.append(inc)
        matched_flags.update(f.flag_id for f in hits)
    spurious = [
        f"{f.rule} {f.kind} p{f.pages}: {f.message}" for f in r.flags if f.flag_id not in matched_flags
    ]
    assert not unmatched_truth, f"not flagged: {unmatched_truth}"
    assert not spurious, f"flags not in the truth file: {spurious}"


def test_clean_documents_exist() -> None:
    assert sum(1 for d in DOCS.values() if d["clean"]) >= 2
