"""The draft-to-draft figure diff on generated pairs (``sample_docs.drafts``) and through ``tieout diff``."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.across import diff_documents
from pipeline.checks import RULES
from pipeline.engine import process_bytes
from pipeline.figures.taxonomy import normalise_label
from sample_docs.drafts import DraftPair, render_pair
from schemas.models import DocumentChanges, FigureChange, TieChange
from tieout.cli import app


@functools.cache
def _pair(seed: int, **kwargs: bool) -> tuple[DraftPair, DocumentChanges]:
    pair = render_pair(seed, **kwargs)
    old = process_bytes(pair.old, source=pair.truth["old"])
    new = process_bytes(pair.new, source=pair.truth["new"])
    return pair, diff_documents(old, new)


def _printing(e: Any) -> tuple[int, str] | None:
    if e is None:
        return None
    page, text = (e["page"], e["text"]) if isinstance(e, dict) else (e.page, e.text)
    return int(page), "".join(str(text).split())


def _signature(kind: str, period: str | None, old: Any, new: Any) -> tuple[object, ...]:
    return kind, period, _printing(old), _printing(new)


def _found(changes: DocumentChanges) -> Counter[tuple[object, ...]]:
    return Counter(_signature(c.kind, c.place.period, c.old, c.new) for c in changes.changes)


def _changed(changes: DocumentChanges, kind: str, line: str) -> list[FigureChange]:
    return [c for c in changes.changes if c.kind == kind and normalise_label(c.place.line).startswith(line)]


def _tie(pair: DraftPair, changes: DocumentChanges, status: str, truth: str) -> list[TieChange]:
    """The ties of ``status``, checked to be exactly the truth's one (its total line and period)."""
    (want,) = pair.truth["ties"][truth]
    found = [t for t in changes.ties if t.status == status]
    got = [(normalise_label(t.place.line), t.place.period) for t in found]
    assert got == [(normalise_label(want["line"]), want["period"])]
    return found


@pytest.mark.parametrize("seed", [0, 1])  # a ruled layout and a filing layout
def test_every_change_is_found_and_no_other(seed: int) -> None:
    pair, changes = _pair(seed)
    expected = Counter(_signature(c["kind"], c["period"], c["old"], c["new"]) for c in pair.truth["changes"])
    assert _found(changes) == expected
    assert Counter(c.kind for c in changes.changes) == {"changed": 16, "added": 7, "removed": 3}


def test_each_kind_of_change_with_both_printings() -> None:
    _, changes = _pair(0)
    # a new line, split out of another one: added in every column, the other line changed
    added = _changed(changes, "added", "right of use assets")
    assert len(added) == 3 and all(c.old is None and c.new is not None for c in added)
    assert len(_changed(changes, "changed", "other non current assets")) == 3
    # a new column: the segment table's third year
    segment = [c for c in changes.changes if c.kind == "added" and c.place.period == "FY2023"]
    assert len(segment) == 4
    # a line merged into another: removed in every column
    removed = _changed(changes, "removed", "other current assets")
    assert len(removed) == 3 and all(c.new is None and c.old is not None for c in removed)
    assert all(c.place.statement == "balance_sheet" for c in removed)
    changed = _changed(changes, "changed", "provisions")
    assert len(changed) == 1 and changed[0].old is not None and changed[0].new is not None
    assert changed[0].old.text != changed[0].new.text


def test_a_table_reflowed_over_another_page_break_is_no_change() -> None:
    pair, changes = _pair(2, revise=False, insert=False)
    reflowed = pair.truth["reflowed"]
    assert pair.truth["unchanged_on_other_pages"] > 0  # the balance sheet's rows did move pages
    assert reflowed["old_pages"] == reflowed["new_pages"]  # over the same pages, broken elsewhere
    assert changes.changes == []
    assert changes.matched == changes.old_figures == changes.new_figures
    assert {t.status for t in changes.ties} == {"held"}


def test_an_inserted_paragraph_is_no_change() -> None:
    pair, changes = _pair(2, revise=False, reflow=False)
    pages = pair.truth["income_statement_pages"]
    assert pages["new"] == [p + 1 for p in pages["old"]]  # everything after it moved a page on
    assert changes.changes == [] and changes.matched_share == 1.0
    assert not changes.flags


def test_a_component_changed_without_its_total_breaks_the_tie_with_ver001() -> None:
    broke = _tie(*_pair(0), "broke", "broken")
    changes = _pair(0)[1]
    (flag,) = changes.flags
    assert broke[0].flag_id == flag.flag_id and broke[0].held_before and broke[0].held_after is False
    tot = RULES["TOT001"]
    assert (flag.rule, flag.kind, flag.severity) == ("VER001", tot.kind, tot.severity)
    assert flag.doc_id == changes.new_doc_id
    roles = Counter(e.role for e in flag.evidence)
    assert roles["total"] == 1 and roles["component"] >= 2 and roles["previous draft"] >= 1
    # the flag's pages are the later draft's: the earlier draft's printing is evidence only
    assert set(flag.pages) == {e.page for e in flag.evidence if e.role != "previous draft"}


def test_a_repaired_tie_is_reported_and_raises_no_flag() -> None:
    repaired = _tie(*_pair(0), "repaired", "repaired")
    changes = _pair(0)[1]
    assert repaired[0].held_before is False and repaired[0].held_after
    assert repaired[0].flag_id is None and len(changes.flags) == 1  # the broken tie's only


def test_a_total_changed_with_its_components_is_a_change_not_a_break() -> None:
    _, changes = _pair(0)
    assert _changed(changes, "changed", "total non current liabilities")
    ties = [t for t in changes.ties if normalise_label(t.place.line) == "total non current liabilities"]
    assert ties and {t.status for t in ties} == {"held"}


def test_a_draft_against_itself_changes_nothing() -> None:
    pair = render_pair(3)
    doc = process_bytes(pair.new, source="same.pdf")
    same = diff_documents(doc, doc)
    assert same.changes == [] and same.flags == []
    assert same.matched == same.old_figures > 100 and same.matched_share == 1.0
    # the later draft's broken tie is broken in both: still broken, neither broke nor repaired
    assert Counter(t.status for t in same.ties)["still_broken"] == 1
    assert {t.status for t in same.ties} == {"held", "still_broken"}


def test_ver001_is_declared_beside_the_checks_and_finds_nothing_in_one_document() -> None:
    pair = render_pair(0)
    doc = process_bytes(pair.new, source="new.pdf")
    assert "VER001" in RULES
    assert not [f for f in doc.flags if f.rule == "VER001"]


def test_cli_diff_prints_the_changes_and_writes_json(tmp_path: Path) -> None:
    pair = render_pair(4)
    old, new = tmp_path / pair.truth["old"], tmp_path / pair.truth["new"]
    old.write_bytes(pair.old)
    new.write_bytes(pair.new)
    out = tmp_path / "changes.json"
    res = CliRunner().invoke(app, ["diff", str(old), str(new), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "16 changed, 7 added, 3 removed" in res.output
    assert "tie broke" in res.output and "tie repaired" in res.output
    changes = DocumentChanges.model_validate_json(out.read_text(encoding="utf-8"))
    assert len(changes.changes) == len(pair.truth["changes"]) and len(changes.flags) == 1
    assert (changes.old_source, changes.new_source) == (old.name, new.name)


def test_cli_diff_reads_document_result_json(tmp_path: Path) -> None:
    pair, expected = _pair(0)
    paths = []
    for name, data in (("old", pair.old), ("new", pair.new)):
        path = tmp_path / f"{name}.json"
        path.write_text(process_bytes(data, source=f"{name}.pdf").model_dump_json(), encoding="utf-8")
        paths.append(str(path))
    out = tmp_path / "changes.json"
    res = CliRunner().invoke(app, ["diff", *paths, "--json", str(out)])
    assert res.exit_code == 0, res.output
    got = DocumentChanges.model_validate_json(out.read_text(encoding="utf-8"))
    assert got.changes == expected.changes
