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
from tests.support.truth import flagged, found_on

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
TRUTH: dict[str, Any] = json.loads((SAMPLES / "truth.json").read_text(encoding="utf-8"))
DOCS = {d["file"]: d for d in TRUTH["documents"]}


@cache
def result(name: str) -> DocumentResult:
    return process_path(SAMPLES / name)


@pytest.mark.parametrize("name", sorted(DOCS))
def test_key_facts_found(name: str) -> None:
    r = result(name)
    missing = []
    for f in DOCS[name]["facts"]:
        found = found_on(r.facts, f)
        if not set(f["pages"]) <= found:
            missing.append((f["metric"], f["period"], f["value"], f["pages"], sorted(found)))
    assert not missing, f"{len(missing)} of {len(DOCS[name]['facts'])} key facts not found: {missing}"


@pytest.mark.parametrize("name", sorted(DOCS))
def test_injected_inconsistencies_flagged_and_nothing_else(name: str) -> None:
    r = result(name)
    unmatched_truth, unmatched_flags = flagged(r.flags, DOCS[name]["inconsistencies"])
    spurious = [f"{f.rule} {f.kind} p{f.pages}: {f.message}" for f in unmatched_flags]
    assert not unmatched_truth, f"not flagged: {unmatched_truth}"
    assert not spurious, f"flags not in the truth file: {spurious}"


def test_clean_documents_exist() -> None:
    assert sum(1 for d in DOCS.values() if d["clean"]) >= 2
