"""The tick-and-tie PDF: what the annotated copy holds is what the checks found, placed where they found it.

Three documents: a sample with two cross-page breaks (Halvorsen: a cross-reference and a balance identity),
a sample with a narrative break (Northwind), and a real filing cut to its three statement pages with one
re-keyed figure (``tests/data``, see :mod:`tests.support.planted_filing`). The annotated pages are rendered
to ``out/test-artifacts/annotate/`` for a person to look at.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from typer.testing import CliRunner

from adapters.review.tickmarks import (
    SUBJECT_BREAK,
    SUBJECT_NOTE,
    SUBJECT_TICK,
    AnnotatedPdf,
    AnnotateError,
    annotate_pdf,
)
from pipeline.checks.sums import RULE as TREE_RULE
from pipeline.checks.ticks import Tick, cited, spot_key, ticks, ties
from pipeline.engine import process_bytes
from schemas.models import BBox, DocumentResult
from tieout.cli import app

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_docs"
FILING = REPO / "tests" / "data" / "ulta_2023q4_statements_planted.pdf"
ARTIFACTS = REPO / "out" / "test-artifacts" / "annotate"

DOCUMENTS = {
    "halvorsen": SAMPLES / "halvorsen_2025_form_10k.pdf",
    "northwind": SAMPLES / "northwind_2025_annual_report.pdf",
    "ulta": FILING,
}


@dataclass(frozen=True)
class Marked:
    name: str
    data: bytes
    result: DocumentResult
    ticks: list[Tick]
    out: AnnotatedPdf

    def open(self) -> Any:
        return pymupdf.open(stream=self.out.pdf, filetype="pdf")


_CACHE: dict[str, Marked] = {}


def _marked(name: str) -> Marked:
    if name not in _CACHE:
        data = DOCUMENTS[name].read_bytes()
        result = process_bytes(data, source=DOCUMENTS[name].name)
        _CACHE[name] = Marked(name, data, result, ticks(result), annotate_pdf(data, result))
    return _CACHE[name]


@pytest.fixture(params=sorted(DOCUMENTS))
def marked(request: pytest.FixtureRequest) -> Marked:
    return _marked(str(request.param))


def _ours(page: Any, subject: str) -> list[Any]:
    return [a for a in page.annots() if a.info.get("subject") == subject]


def _visible(page: Any, rect: Any) -> pymupdf.Rect:
    """An annotation's rect in the records' (rotated, visible) page space."""
    r = pymupdf.Rect(rect)
    return r * page.rotation_matrix if page.rotation else r


def _note_of(page: Any, link: dict[str, Any]) -> Any:
    """The label a link sits on: the link covers the label's text box, which shares a side edge and its top
    or bottom edge with the annotation (the leader line reaches out from the others)."""
    frm = pymupdf.Rect(link["from"])  # PyMuPDF reports a link's rect in the visible space
    found = []
    for a in _ours(page, SUBJECT_NOTE):
        r = _visible(page, a.rect)
        inside = pymupdf.Rect(r.x0 - 0.5, r.y0 - 0.5, r.x1 + 0.5, r.y1 + 0.5).contains(frm)
        side = abs(r.x1 - frm.x1) < 0.5 or abs(r.x0 - frm.x0) < 0.5
        if inside and side and (abs(r.y1 - frm.y1) < 0.5 or abs(r.y0 - frm.y0) < 0.5):
            found.append((r.width * r.height, a))
    if not found:
        raise AssertionError(f"no note under the link at {frm}")
    return min(found, key=lambda f: f[0])[1]


def _covers(outer: pymupdf.Rect, bbox: BBox) -> bool:
    return bool(outer.contains(pymupdf.Rect(bbox)))


# --- the documents are what the tests need --------------------------------------------------------


def test_the_documents_have_ticks_and_breaks() -> None:
    for name in DOCUMENTS:
        m = _marked(name)
        assert m.ticks, name
        assert m.result.flags, name
    # The real filing: the re-keyed cash breaks total current assets, and only that.
    ulta = _marked("ulta")
    assert [(f.rule, f.pages) for f in ulta.result.flags] == [(TREE_RULE.id, [2])]
    assert "Total current assets" in ulta.result.flags[0].message
    # Halvorsen's two breaks each span two pages: the links between pages have something to join.
    assert all(len(f.pages) == 2 for f in _marked("halvorsen").result.flags)


# --- counts -----------------------------------------------------------------------------------------


def test_annotation_counts_match_the_checks(marked: Marked) -> None:
    result, counts = marked.result, marked.out.counts
    boxed = [(n, e) for n, f in enumerate(result.flags, 1) for e in f.evidence if e.bbox is not None]
    flag_pages = [(n, p) for n, f in enumerate(result.flags, 1) for p in sorted({e.page for e in f.evidence})]
    assert counts.ticks == len(marked.ticks)
    assert counts.breaks == len(result.flags)
    assert counts.marks == len(boxed)
    assert counts.notes == len(flag_pages)
    assert counts.breaks_by_rule == dict(Counter(f.rule for f in result.flags))
    assert counts.ticks_by_rule == dict(Counter(r for t in marked.ticks for r in t.rules))
    with marked.open() as doc:
        offset = counts.summary_pages
        assert doc.page_count == offset + result.stats.pages
        # Nothing is added to the summary pages as annotations: they are the summary's own content.
        assert not any(list(doc[i].annots()) for i in range(offset))
        for pno in range(1, result.stats.pages + 1):
            page = doc[offset + pno - 1]
            assert len(_ours(page, SUBJECT_TICK)) == sum(1 for t in marked.ticks if t.page == pno)
            assert len(_ours(page, SUBJECT_BREAK)) == sum(1 for _, e in boxed if e.page == pno)
            assert len(_ours(page, SUBJECT_NOTE)) == sum(1 for _, p in flag_pages if p == pno)
            for number, flag in enumerate(result.flags, 1):
                head = f"#{number} {flag.rule} "
                ours = [a for a in _ours(page, SUBJECT_BREAK) if a.info["content"].startswith(head)]
                assert len(ours) == sum(1 for n, e in boxed if n == number and e.page == pno)


def test_ticks_are_comparisons_that_held_and_never_a_cited_figure(marked: Marked) -> None:
    result = marked.result
    breaks = cited(result.flags)
    assert not {spot_key(t.page, t.bbox) for t in marked.ticks} & breaks
    all_ties = ties(result)
    assert {t.kind for t in all_ties} <= {"footed", "cross_footed", "agreed"}
    for tie in all_ties:
        assert len(tie.figures) >= 2
        if tie.kind == "agreed":
            assert len({(s.text.replace("(", "-").strip(")")) for s in tie.figures}) >= 1
    # Every ticked figure belongs to some tie, and its notes say which.
    in_ties = {spot_key(s.page, s.bbox) for tie in all_ties for s in tie.figures}
    for t in marked.ticks:
        assert spot_key(t.page, t.bbox) in in_ties
        assert t.notes and all(note.split()[0] in t.rules for note in t.notes)


def test_a_flagged_total_is_a_break_in_its_column_and_ticked_where_it_held() -> None:
    m = _marked("northwind")
    flag = next(f for f in m.result.flags if f.rule == TREE_RULE.id)
    total = flag.evidence[0]
    assert total.bbox is not None
    ticked = {spot_key(t.page, t.bbox): t for t in m.ticks}
    assert spot_key(total.page, total.bbox) not in ticked
    # The same line in the prior-year column adds up: it is ticked, as footed.
    same_row = [
        t
        for t in m.ticks
        if t.page == total.page and abs(t.bbox[1] - total.bbox[1]) < 1 and t.bbox[0] > total.bbox[2]
    ]
    assert same_row and all("footed" in t.kinds for t in same_row)


# --- placement ----------------------------------------------------------------------------------------


def test_each_mark_covers_its_evidence(marked: Marked) -> None:
    result = marked.result
    with marked.open() as doc:
        offset = marked.out.counts.summary_pages
        for number, flag in enumerate(result.flags, 1):
            for e in flag.evidence:
                if e.bbox is None:
                    continue
                page = doc[offset + e.page - 1]
                head = f"#{number} {flag.rule} "
                rects = [
                    _visible(page, a.rect)
                    for a in _ours(page, SUBJECT_BREAK)
                    if a.info["content"].startswith(head)
                ]
                assert any(_covers(r, e.bbox) for r in rects), (number, e)
                # and no wider than a box around the figure: a mark points at one figure
                best = min((r for r in rects if _covers(r, e.bbox)), key=lambda r: r.width * r.height)
                assert best.width - (e.bbox[2] - e.bbox[0]) < 8 and best.height - (e.bbox[3] - e.bbox[1]) < 8


def test_marks_name_the_other_figures_and_their_pages(marked: Marked) -> None:
    with marked.open() as doc:
        offset = marked.out.counts.summary_pages
        for number, flag in enumerate(marked.result.flags, 1):
            main = flag.evidence[0]
            page = doc[offset + main.page - 1]
            note = next(a for a in _ours(page, SUBJECT_BREAK) if a.info["content"].startswith(f"#{number} "))
            content = note.info["content"]
            assert flag.message in content
            for other in flag.evidence[1:]:
                assert f"p.{other.page})" in content
                assert " ".join(other.text.split())[:40] in content


def test_ticks_sit_beside_their_figures_never_over_them(marked: Marked) -> None:
    with marked.open() as doc:
        offset = marked.out.counts.summary_pages
        for pno in range(1, marked.result.stats.pages + 1):
            page = doc[offset + pno - 1]
            inks = _ours(page, SUBJECT_TICK)
            mine = [t for t in marked.ticks if t.page == pno]
            assert len(inks) == len(mine)
            for ink, tick in zip(inks, mine, strict=True):  # drawn in the ticks' order
                assert ink.info["content"].startswith(tick.text)
                x0, y0, x1, y1 = tick.bbox
                points = [pymupdf.Point(p) for stroke in ink.vertices for p in stroke]
                if page.rotation:
                    points = [p * page.rotation_matrix for p in points]
                xs = [p.x for p in points]
                ys = [p.y for p in points]
                beside = min(xs) >= x1 - 0.5 or max(xs) <= x0 + 0.5
                assert beside, (tick.text, tick.bbox, xs)
                assert y0 - 2 <= min(ys) and max(ys) <= y1 + 2, (tick.text, tick.bbox, ys)
                # close to it: an auditor's tick is next to the figure, not across the page
                assert min(abs(min(xs) - x1), abs(max(xs) - x0)) < 20


# --- links and the summary ----------------------------------------------------------------------------


def test_links_join_the_pages_of_each_flag(marked: Marked) -> None:
    result = marked.result
    offset = marked.out.counts.summary_pages
    total = 0
    with marked.open() as doc:
        # The summary lists every break, linked to its first page.
        summary_links = [lnk for i in range(offset) for lnk in doc[i].get_links()]
        assert [lnk["page"] for lnk in summary_links] == [offset + f.pages[0] - 1 for f in result.flags]
        total += len(summary_links)
        for pno in range(1, result.stats.pages + 1):
            page = doc[offset + pno - 1]
            notes = _ours(page, SUBJECT_NOTE)
            links = [lnk for lnk in page.get_links() if lnk["kind"] == pymupdf.LINK_GOTO]
            assert len(links) == len(notes)
            total += len(links)
            for lnk in links:
                note = _note_of(page, lnk)
                number = int(note.info["content"].split()[0].lstrip("#"))
                flag = result.flags[number - 1]
                if len(flag.pages) > 1:
                    # to the flag's next page, in a cycle
                    k = flag.pages.index(pno)
                    assert lnk["page"] == offset + flag.pages[(k + 1) % len(flag.pages)] - 1
                else:
                    # back to the flag's entry in the summary
                    assert lnk["page"] < offset
    assert total == marked.out.counts.links


def test_the_summary_page_tells_the_story(marked: Marked) -> None:
    result = marked.result
    with marked.open() as doc:
        offset = marked.out.counts.summary_pages
        text = " ".join(doc[i].get_text() for i in range(offset))
        words = " ".join(text.split())
        assert "Tick-and-tie" in words and result.source in words
        assert f"{marked.out.counts.ticks} figures ticked" in words
        for number, flag in enumerate(result.flags, 1):
            assert f"#{number} p.{', '.join(map(str, flag.pages))} {flag.rule} {flag.severity}" in words
        # page labels: the summary is S-1…, the document keeps tieout's page numbers
        assert doc[0].get_label() == "S-1"
        assert [doc[offset + i].get_label() for i in range(result.stats.pages)] == [
            str(i + 1) for i in range(result.stats.pages)
        ]


def test_a_long_list_of_breaks_runs_over_several_summary_pages() -> None:
    m = _marked("northwind")
    many = [
        f.model_copy(update={"flag_id": f"{f.flag_id}-{k}", "message": f"{f.message} (copy {k})"})
        for k in range(10)
        for f in m.result.flags
    ]
    result = m.result.model_copy(update={"flags": many})
    out = annotate_pdf(m.data, result)
    offset = out.counts.summary_pages
    assert offset >= 2
    marked = Marked("many", m.data, result, m.ticks, out)
    test_links_join_the_pages_of_each_flag(marked)
    test_annotation_counts_match_the_checks(marked)
    with marked.open() as doc:
        # A one-page flag's note links back to the summary page that lists it.
        for pno in sorted({p for f in many for p in f.pages}):
            page = doc[offset + pno - 1]
            for link in page.get_links():
                head = _note_of(page, link).info["content"].split()[0]
                listed = " ".join(doc[link["page"]].get_text().split())
                assert f"{head} p.{pno} " in listed


def test_render_the_annotated_pages_as_artifacts(marked: Marked) -> None:
    out = ARTIFACTS / marked.name
    out.mkdir(parents=True, exist_ok=True)
    offset = marked.out.counts.summary_pages
    pages = sorted(
        {
            offset - 1,
            *(offset + t.page - 1 for t in marked.ticks),
            *(offset + p - 1 for f in marked.result.flags for p in f.pages),
        }
    )
    with marked.open() as doc:
        for i in pages:
            label = doc[i].get_label() or str(i)
            path = out / f"page-{label}.png"
            doc[i].get_pixmap(dpi=110).save(path)
            assert path.stat().st_size > 5_000
    (out / f"{marked.name}.annotated.pdf").write_bytes(marked.out.pdf)


# --- other inputs ----------------------------------------------------------------------------------


def _turned(path: Path, pno: int) -> bytes:
    """The PDF with page ``pno`` stored sideways and shown upright by its /Rotate, as scanned landscape
    tables are: the records' boxes are in the upright (visible) space, annotations take stored coordinates."""
    with pymupdf.open(path) as src, pymupdf.open() as out:
        for i in range(src.page_count):
            if i == pno - 1:
                r = src[i].rect
                page = out.new_page(width=r.height, height=r.width)
                page.show_pdf_page(page.rect, src, i, rotate=90)
                page.set_rotation(90)
            else:
                out.insert_pdf(src, from_page=i, to_page=i)
        data: bytes = out.tobytes()
    return data


def test_rotated_pages_are_marked_where_the_figures_are() -> None:
    data = _turned(FILING, 2)
    result = process_bytes(data, source="rotated.pdf")
    assert result.flags and any(t.page == 2 for t in ticks(result))
    m = Marked("rotated", data, result, ticks(result), annotate_pdf(data, result))
    test_each_mark_covers_its_evidence(m)
    test_ticks_sit_beside_their_figures_never_over_them(m)
    test_links_join_the_pages_of_each_flag(m)


def test_results_without_trees_mark_the_breaks_only() -> None:
    m = _marked("halvorsen")
    bare = m.result.model_copy(update={"statements": [], "blocks": []})
    out = annotate_pdf(m.data, bare)
    assert out.counts.ticks == 0 and not out.counts.trees
    assert (out.counts.breaks, out.counts.marks, out.counts.notes) == (
        m.out.counts.breaks,
        m.out.counts.marks,
        m.out.counts.notes,
    )
    with pymupdf.open(stream=out.pdf, filetype="pdf") as doc:
        assert "no calculation trees" in " ".join(doc[0].get_text().split())


def test_a_clean_document_gets_ticks_and_no_breaks() -> None:
    data = (SAMPLES / "aurelia_2025_prospectus.pdf").read_bytes()
    result = process_bytes(data, source="aurelia_2025_prospectus.pdf")
    assert not result.flags
    out = annotate_pdf(data, result)
    assert out.counts.ticks > 100 and out.counts.breaks == out.counts.marks == out.counts.links == 0


def test_unreadable_inputs_raise_typed_errors(tmp_path: Path) -> None:
    with pymupdf.open(SAMPLES / "northwind_2025_annual_report.pdf") as doc:
        aes = pymupdf.PDF_ENCRYPT_AES_256  # type: ignore[attr-defined]  # (not in PyMuPDF's type hints)
        locked = doc.tobytes(encryption=aes, user_pw="secret", owner_pw="owner")
    result = process_bytes(locked, source="locked.pdf")
    with pytest.raises(AnnotateError) as info:
        annotate_pdf(locked, result)
    assert info.value.category == "encrypted"
    junk = b"%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF"
    with pytest.raises(AnnotateError) as info:
        annotate_pdf(junk, process_bytes(junk, source="junk.pdf"))
    assert info.value.category == "corrupt"
    # the results of one document over the bytes of another would put every mark in the wrong place
    with pytest.raises(AnnotateError) as info:
        annotate_pdf((SAMPLES / "halvorsen_2025_form_10k.pdf").read_bytes(), _marked("northwind").result)
    assert info.value.category == "unsupported"


# --- the command --------------------------------------------------------------------------------------


def test_cli_annotate_writes_the_copy(tmp_path: Path) -> None:
    target = tmp_path / "marked.pdf"
    res = CliRunner().invoke(app, ["annotate", str(FILING), "--out", str(target)])
    assert res.exit_code == 0, res.output
    counts = _marked("ulta").out.counts
    assert f"{counts.ticks} figure(s) ticked, 1 break(s) (TOT001 1)" in " ".join(res.output.split())
    with pymupdf.open(target) as doc:
        assert doc.page_count == counts.summary_pages + 3
        assert sum(len(_ours(doc[i], SUBJECT_TICK)) for i in range(doc.page_count)) == counts.ticks


def test_cli_annotate_from_an_earlier_run(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "run"
    pdf = DOCUMENTS["halvorsen"]
    assert runner.invoke(app, ["run", str(pdf), "--out", str(out)]).exit_code == 0
    target = tmp_path / "marked.pdf"
    res = runner.invoke(app, ["annotate", str(pdf), "--results", str(out), "--out", str(target)])
    assert res.exit_code == 0, res.output
    assert "breaks only" in " ".join(res.output.split())
    with pymupdf.open(target) as doc:
        subjects = Counter(a.info["subject"] for page in doc for a in page.annots())
    assert subjects == {SUBJECT_BREAK: _marked("halvorsen").out.counts.marks, SUBJECT_NOTE: 4}
    # another document's results are not mistaken for this one's
    other = runner.invoke(
        app, ["annotate", str(DOCUMENTS["northwind"]), "--results", str(out), "--out", str(target)]
    )
    assert other.exit_code == 1 and "holds no results" in " ".join(other.output.split())


def test_cli_annotate_reports_unreadable_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"not a pdf at all")
    res = CliRunner().invoke(app, ["annotate", str(bad), "--out", str(tmp_path / "x.pdf")])
    assert res.exit_code == 1
    assert "cannot annotate bad.pdf: not_a_pdf" in " ".join(res.output.split())
    assert "Traceback" not in res.output
    assert not (tmp_path / "x.pdf").exists()
    missing = CliRunner().invoke(app, ["annotate", str(tmp_path / "nope.pdf")])
    assert missing.exit_code == 2
