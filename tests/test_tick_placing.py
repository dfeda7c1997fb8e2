"""The tick-and-tie labels go where the page has nothing printed: never over a word, a box or each other.

Each document gets its own flags and, to crowd its pages, a made-up flag on every figure of the last
column of each table (where a margin note covers the most). The pages are the samples, a real filing's
statements (``tests/data/ulta_…``), the same turned sideways, and a real filing page whose text runs to 22 pt
from the edge (:mod:`tests.support.crowded_page`). What a label may not cover is read from the original
PDF, not from the annotated copy (whose words include the labels' own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

from adapters.review.tick_style import SUBJECT_BREAK, SUBJECT_NOTE
from adapters.review.tickmarks import AnnotatedPdf, annotate_pdf
from pipeline.engine import process_bytes
from schemas.models import DocumentResult, Evidence, Flag
from tests.test_annotate import DOCUMENTS, FILING, _ours, _turned, _visible

REPO = Path(__file__).resolve().parent.parent
CROWDED = REPO / "tests" / "data" / "ebay_2020_10k_p79.pdf"
PAGES = {
    **{name: path.read_bytes() for name, path in DOCUMENTS.items()},
    "kaizen": (REPO / "sample_docs" / "kaizen_fy2025_annual_report.pdf").read_bytes(),
    "ebay_p79": CROWDED.read_bytes(),
}


def crowd(result: DocumentResult) -> DocumentResult:
    """The result with a made-up flag on every figure of the last column of each table."""
    flags = []
    for table in result.tables:
        last = max(c.col for c in table.cells)
        for k, c in enumerate(x for x in table.cells if x.col == last and x.number and x.bbox):
            ev = Evidence(page=c.page, bbox=c.bbox, text=f"{c.text}: {c.text}", role="total")
            flags.append(
                Flag(
                    flag_id=f"crowd-{table.table_id}-{k}",
                    doc_id=result.doc_id,
                    source=result.source,
                    rule="TOT001",
                    kind="sum_mismatch",
                    severity="warning",
                    message=f"made up, on {c.text}",
                    pages=[c.page],
                    evidence=[ev],
                )
            )
    return result.model_copy(update={"flags": [*result.flags, *flags]})


def _words(page: Any) -> list[pymupdf.Rect]:
    """A page's word boxes in its visible space."""
    rects = [pymupdf.Rect(w[:4]) for w in page.get_text("words")]
    return [r * page.rotation_matrix for r in rects] if page.rotation else rects


def _labels(page: Any) -> list[pymupdf.Rect]:
    """The labels' text boxes: each label carries one link, over exactly its text box (visible space)."""
    return [pymupdf.Rect(link["from"]) for link in page.get_links()]


def _check_clear(data: bytes, out: AnnotatedPdf) -> int:
    """Assert that no label covers a word, a box or another label; returns the labels seen."""
    seen = 0
    with (
        pymupdf.open(stream=data, filetype="pdf") as src,
        pymupdf.open(stream=out.pdf, filetype="pdf") as doc,
    ):
        offset = out.counts.summary_pages
        for i in range(src.page_count):
            page = doc[offset + i]
            labels = _labels(page)
            assert len(labels) == len(_ours(page, SUBJECT_NOTE)), i + 1
            words = _words(src[i])
            boxes = [_visible(page, a.rect) for a in _ours(page, SUBJECT_BREAK)]
            for k, label in enumerate(labels):
                assert page.rect.contains(label), (i + 1, label)
                covered = [w for w in words if w.intersects(label)]
                assert not covered, (i + 1, label, [src[i].get_textbox(w) for w in covered])
                assert not [b for b in boxes if b.intersects(label)], (i + 1, label)
                assert not [o for o in labels[k + 1 :] if o.intersects(label)], (i + 1, label)
            seen += len(labels)
    return seen


@pytest.mark.parametrize("name", sorted(PAGES))
def test_no_label_covers_a_word_a_box_or_another_label(name: str) -> None:
    data = PAGES[name]
    result = crowd(process_bytes(data, source=f"{name}.pdf"))
    out = annotate_pdf(data, result)
    assert len(result.flags) > 5
    assert _check_clear(data, out) == out.counts.notes >= len(result.flags)


def test_the_crowded_filing_page_has_its_labels_in_its_white_space() -> None:
    """The page that a margin note covers most: every label on the page, none moved to the summary."""
    data = PAGES["ebay_p79"]
    result = crowd(process_bytes(data, source="ebay_p79.pdf"))
    assert len(result.flags) >= 30
    out = annotate_pdf(data, result)
    assert out.counts.moved == 0 and out.counts.notes == len(result.flags)
    with pymupdf.open(stream=out.pdf, filetype="pdf") as doc:
        page = doc[out.counts.summary_pages]
        # each label is near its figure (within a third of the page), and a leader joins those apart
        notes = {a.info["content"].split()[0]: a for a in _ours(page, SUBJECT_NOTE)}
        for number, flag in enumerate(result.flags, 1):
            note = notes[f"#{number}"]
            box = pymupdf.Rect(flag.evidence[0].bbox)
            text = next(r for r in _labels(page) if pymupdf.Rect(note.rect).contains(r))
            gap = max(0.0, box.x0 - text.x1, text.x0 - box.x1, box.y0 - text.y1, text.y0 - box.y1)
            assert gap < page.rect.height / 3, (number, box, text)
            if gap > 3:
                assert doc.xref_get_key(note.xref, "CL")[0] == "array", number  # the leader line


def test_a_rotated_page_keeps_its_labels_clear() -> None:
    data = _turned(FILING, 2)
    result = crowd(process_bytes(data, source="rotated.pdf"))
    out = annotate_pdf(data, result)
    assert _check_clear(data, out) == out.counts.notes > 10


def _full_page(hole: tuple[float, float, float, float]) -> bytes:
    """A page of words in a grid but for a hole, and one figure at the hole's left end; a second page
    with the figure's other copy."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=300, height=200)
        for y in range(14, 200, 9):
            for x in range(2, 290, 26):
                if not pymupdf.Rect(x, y - 8, x + 24, y + 1).intersects(pymupdf.Rect(hole)):
                    page.insert_text((x, y), "9,999", fontsize=8)
        page.insert_text((hole[0] + 2, (hole[1] + hole[3]) / 2 + 3), "1,234", fontsize=8)
        doc.new_page(width=300, height=200).insert_text((100, 100), "5,678", fontsize=8)
        data: bytes = doc.tobytes()
    return data


def test_a_note_with_no_room_goes_to_the_summary_and_its_number_stays() -> None:
    # room beside the figure for "#1" (14 pt wide) but for no shape of its note (37 pt at the narrowest)
    data = _full_page((124, 95, 178, 117))
    result = process_bytes(data, source="full.pdf")
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        figure = next(w for w in doc[0].get_text("words") if w[4] == "1,234")
        other = next(w for w in doc[1].get_text("words") if w[4] == "5,678")
    flag = Flag(
        flag_id="full-1",
        doc_id=result.doc_id,
        source="full.pdf",
        rule="XREF001",
        kind="cross_reference_mismatch",
        severity="error",
        message="a figure on a page with no margin",
        pages=[1, 2],
        evidence=[
            Evidence(page=1, bbox=tuple(figure[:4]), text="Total: 1,234", role="total"),
            Evidence(page=2, bbox=tuple(other[:4]), text="Total: 5,678", role="total"),
        ],
    )
    result = result.model_copy(update={"flags": [flag]})
    out = annotate_pdf(data, result)
    assert out.counts.moved == 1 and out.counts.notes == 2  # the number on page 1, the note on page 2
    _check_clear(data, out)
    with pymupdf.open(stream=out.pdf, filetype="pdf") as doc:
        page = doc[out.counts.summary_pages]
        [label] = _ours(page, SUBJECT_NOTE)
        assert label.info["content"] == "#1"
        [link] = page.get_links()
        assert link["page"] < out.counts.summary_pages  # to the break's entry in the summary
        summary = " ".join(" ".join(doc[i].get_text() for i in range(out.counts.summary_pages)).split())
        assert "Note on p.1 (no room on the page, #1 there): #1 XREF001: 5,678 on p.2" in summary


def test_space_finds_free_runs_and_refuses_what_is_printed() -> None:
    from adapters.review.tick_placing import CLEARANCE as C
    from adapters.review.tick_placing import EDGE, Space

    space = Space(100, 100, [(10, 10, 40, 20), (60, 12, 90, 18)])
    runs = space.runs(11, 19)
    assert runs == [(EDGE, 10 - C), (40 + C, 60 - C), (90 + C, 100 - EDGE)]
    assert space.free((42, 11, 58, 19)) and not space.free((35, 11, 50, 19))
    assert space.free((10, 30, 40, 40)) and not space.free((10, 98, 20, 99.5))  # off the page's edge
