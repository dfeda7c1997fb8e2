"""The "changed since the previous version" view, without servers: the run's changes output, the embedded
store's import of it, and the page's handler (Starlette's TestClient).

The documents are a generated prospectus and its next draft (``sample_docs/drafts.py``): figures changed,
added and removed, one tie broken (VER001) and one repaired. The same page in Chromium:
tests/integration/test_console_changes_browser.py; the PostgreSQL store: tests/integration/
test_review_changes_postgres.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from adapters.review.sqlite import SqliteReviewStore
from console.app import create_app
from console.changes import changes_view
from pipeline.across.versions import previous_version
from schemas.models import DocumentChanges, Flag
from tests.support.changes import DraftRun, drafts_config, drafts_run
from tests.support.review import login
from tieout.cli import app


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> DraftRun:
    return drafts_run(tmp_path_factory.mktemp("drafts"))


@pytest.fixture(scope="module")
def client(run: DraftRun, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config = drafts_config(run, tmp_path_factory.mktemp("console"))
    with TestClient(create_app(config), base_url="http://testserver") as c:
        login(c)
        yield c
    config.store.close()


def _flags(run: DraftRun) -> list[Flag]:
    lines = (run.out / "flags.jsonl").read_text(encoding="utf-8").splitlines()
    return [Flag.model_validate_json(x) for x in lines if x.strip()]


# --------------------------------------------------------------------------------- the run's output


def test_a_run_of_two_versions_writes_their_changes_and_the_broken_tie(run: DraftRun) -> None:
    (changes,) = run.changes()
    assert (changes.old_source, changes.new_source) == (run.truth["old"], run.truth["new"])
    broke = [t for t in changes.ties if t.status == "broke"]
    repaired = [t for t in changes.ties if t.status == "repaired"]
    assert len(broke) == 1 and len(repaired) == 1
    ver = [f for f in _flags(run) if f.rule == "VER001"]
    assert [f.flag_id for f in ver] == [broke[0].flag_id] == [f.flag_id for f in changes.flags]
    assert ver[0].doc_id == changes.new_doc_id
    # the tie's changed figures are named by index, in either draft
    moved = {changes.changes[i].place.line for i in broke[0].changed}
    assert "Property, plant and equipment 12" in moved and "Right-of-use assets" in moved
    assert {changes.changes[i].place.line for i in repaired[0].changed} == {"Trade and other payables 17"}
    # the earlier draft's printings are cited as another document's, never drawn on this one's pages
    previous = [e for e in ver[0].evidence if e.role == "previous draft"]
    assert previous and {e.source for e in previous} == {changes.old_source}


def _run(history: Path, out: Path, *pdfs: Path) -> list[DocumentChanges]:
    args = ["run", "--history", str(history), "--out", str(out), *map(str, pdfs)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = (out / "changes.jsonl").read_text(encoding="utf-8").splitlines()
    return [DocumentChanges.model_validate_json(x) for x in lines]


def test_a_version_is_compared_with_the_one_an_earlier_run_kept(tmp_path: Path, run: DraftRun) -> None:
    old, new = run.pdfs / str(run.truth["old"]), run.pdfs / str(run.truth["new"])
    history = tmp_path / "history"
    assert _run(history, tmp_path / "first", old) == []  # a first version: nothing to compare with
    (later,) = _run(history, tmp_path / "second", new)
    assert later == run.changes()[0]
    # run again, both at once: each compared with the version listed before it, the same record
    assert _run(history, tmp_path / "again", old, new) == run.changes()


def test_the_version_a_document_is_compared_with() -> None:
    assert previous_version([], "a") == (None, True)
    assert previous_version(["a"], "b") == (0, True)
    assert previous_version(["a", "b"], "c") == (1, True)
    assert previous_version(["a", "b"], "b") == (0, False)  # a rerun: the one listed before it
    assert previous_version(["a", "b"], "a") == (None, False)


# --------------------------------------------------------------------------------- the embedded store


def test_the_store_imports_the_changes_once_and_again_when_they_change(run: DraftRun, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    for f in run.out.glob("*.jsonl"):
        (out / f.name).write_bytes(f.read_bytes())
    (expected,) = run.changes()
    with closing(SqliteReviewStore.for_run(out)) as store:
        assert store.changes_of(expected.new_doc_id) == expected
        assert store.changes_of(expected.old_doc_id) is None
        assert [(v.doc_id, v.previous_id) for v in store.versions()] == [
            (expected.new_doc_id, expected.old_doc_id)
        ]
        # both versions' pages can be served, the earlier one's whatever its flags
        assert {expected.old_doc_id, expected.new_doc_id} <= dict(store.sources()).keys()
        assert store.import_run(out)["changes"] == 0  # unchanged: not read again
        (out / "changes.jsonl").write_text("")  # a later run compared nothing
        assert store.import_run(out)["changes"] == 0
        assert store.versions() == [] and store.changes_of(expected.new_doc_id) is None


# --------------------------------------------------------------------------------- the view, no I/O


def test_changes_that_broke_a_tie_come_first_then_those_that_repaired_one(run: DraftRun) -> None:
    (changes,) = run.changes()
    view = changes_view(changes, ([(595.0, 842.0)] * 9, [(595.0, 842.0)] * 9), 0.75)
    marks = [r.marks for r in view.marked]
    assert marks and marks[0] == ("broke",) and marks[-1] == ("repaired",)
    assert marks == sorted(marks, key=lambda m: m != ("broke",))
    assert {r.change.kind for r in view.changed} == {"changed"}
    shown = {r.n for r in (*view.marked, *view.changed, *view.added, *view.removed)}
    assert shown == set(range(1, len(changes.changes) + 1))
    assert {r.change.kind for r in view.added} == {"added"}
    assert {r.change.kind for r in view.removed} == {"removed"}
    first = view.marked[0]
    for side, css in ((first.old, "other-page"), (first.new, "total")):
        if side.evidence is None:
            assert side.page is None
            continue
        assert side.page is not None and side.page.page == side.evidence.page
        assert [b.css for b in side.page.boxes] == [css]
    assert view.counts["broke"] == 1 and view.counts["repaired"] == 1


# --------------------------------------------------------------------------------- the page


def test_the_page_lists_the_changes_marks_the_broken_tie_and_shows_both_pages(
    client: TestClient, run: DraftRun
) -> None:
    (changes,) = run.changes()
    r = client.get(f"/documents/{changes.new_doc_id}/changes")
    assert r.status_code == 200, r.text
    html = r.text
    assert "Changed since the previous version" in html
    assert "Property, plant and equipment 12" in html and "124,596" in html and "128,643" in html
    # the broken tie's changes come before the other changed figures, marked
    assert html.index("broke a tie") < html.index('id="changed"')
    assert 'class="tie-mark tie-broke"' in html and 'class="tie-mark tie-repaired"' in html
    assert f'href="/flags/{changes.flags[0].flag_id}"' in html
    # each changed figure on both versions' pages
    old_pages = set(re.findall(rf"/documents/{changes.old_doc_id}/pages/(\d+)\.png", html))
    new_pages = set(re.findall(rf"/documents/{changes.new_doc_id}/pages/(\d+)\.png", html))
    assert old_pages and new_pages
    for doc_id, pages in ((changes.old_doc_id, old_pages), (changes.new_doc_id, new_pages)):
        png = client.get(f"/documents/{doc_id}/pages/{min(pages)}.png?zoom=0.75")
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    # added and removed: counted and listed
    added = sum(1 for c in changes.changes if c.kind == "added")
    assert f"Added ({added})" in html and "Right-of-use assets" in html
    assert "Other current assets" in html


def test_the_page_is_linked_from_the_documents_and_from_the_ver001_flag(
    client: TestClient, run: DraftRun
) -> None:
    (changes,) = run.changes()
    link = f'href="/documents/{changes.new_doc_id}/changes"'
    assert link in client.get("/documents").text
    assert link in client.get(f"/documents/{changes.new_doc_id}").text
    assert link in client.get(f"/flags/{changes.flags[0].flag_id}").text
    other = client.get("/?rule=TOT001&cmin=0").text
    tot = re.findall(r'href="/flags/([0-9a-f]+)', other)
    assert tot and link not in client.get(f"/flags/{tot[0]}").text


def test_a_first_version_has_no_changes_and_an_unknown_one_or_a_bad_zoom_is_refused(
    client: TestClient, run: DraftRun
) -> None:
    (changes,) = run.changes()
    first = client.get(f"/documents/{changes.old_doc_id}/changes")
    assert first.status_code == 200 and 'id="no-previous"' in first.text and "broke a tie" not in first.text
    assert client.get(f"/documents/{'0' * 64}/changes").status_code == 404
    assert client.get(f"/documents/{changes.new_doc_id}/changes?zoom=9").status_code == 400


def test_the_page_escapes_what_the_documents_print(run: DraftRun, tmp_path: Path) -> None:
    (changes,) = run.changes()
    script = "<script>window.__pwned = 1</script>"
    rtl = "\u202eTotal\u202c"
    first = changes.changes[0]
    hostile = first.model_copy(update={"place": first.place.model_copy(update={"line": script + rtl})})
    record = changes.model_copy(update={"changes": [hostile, *changes.changes[1:]], "new_source": script})
    config = drafts_config(run, tmp_path)
    assert isinstance(config.store, SqliteReviewStore)
    config.store.import_changes([record])
    try:
        with TestClient(create_app(config), base_url="http://testserver") as c:
            login(c)
            html = c.get(f"/documents/{changes.new_doc_id}/changes").text
    finally:
        config.store.close()
    assert script not in html and "&lt;script&gt;" in html
    assert "\u202e" not in html
