"""Every hostile file ends in a typed error or a result with per-page error items, never a crash or hang."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pipeline import engine, reader
from pipeline.config import EngineConfig
from pipeline.engine import process_bytes, process_path
from schemas.models import ErrorCategory

pytestmark = pytest.mark.corpus


def _cats(path: Path, **cfg: object) -> tuple[list[ErrorCategory], list[ErrorCategory], int]:
    r = process_path(path, EngineConfig(**cfg))  # type: ignore[arg-type]
    fatal = [e.category for e in r.errors if e.fatal]
    per_page = [e.category for e in r.errors if not e.fatal]
    return fatal, per_page, r.stats.pages


def test_encrypted(corpus: Path) -> None:
    fatal, _, _ = _cats(corpus / "hostile/pdfplumber__password-example.pdf")
    assert fatal == ["encrypted"]


def test_truncated_file_that_repairs_to_zero_pages_is_corrupt(corpus: Path) -> None:
    fatal, _, _ = _cats(corpus / "hostile/pdfjs__bug1020226.pdf")
    assert fatal == ["corrupt"]


def test_malformed_xref_is_repaired_and_read(corpus: Path) -> None:
    r = process_path(corpus / "hostile/pdfjs__xref_command_missing.pdf")
    assert not r.failed
    assert any("Reduced test-case" in c.text for c in r.chunks)


def test_recursive_xobjects_terminate(corpus: Path) -> None:
    r = process_path(corpus / "hostile/pdfminer__issue-1113-evil-xobjects.pdf")
    assert not r.failed
    assert any("Hello world" in c.text for c in r.chunks)


def test_cyclic_page_tree_contained_to_the_bad_page(corpus: Path) -> None:
    r = process_path(corpus / "hostile/pdfjs__Pages-tree-refs.pdf")
    assert not r.failed
    assert any("Pages loop" in c.text for c in r.chunks)
    # MuPDF claims two pages; whatever page 2 does is recorded against page 2 only.
    assert all(e.page == 2 for e in r.errors)


def test_fuzzed_scan_reports_pages_without_text_layer(corpus: Path) -> None:
    fatal, per_page, pages = _cats(corpus / "hostile/pdfjs__poppler-90-0-fuzzed.pdf")
    assert fatal == []
    assert pages == 16
    assert "no_text_layer" in per_page


def test_bad_colour_space_still_yields_text(corpus: Path) -> None:
    r = process_path(corpus / "hostile/unstructured__pdf-bad-color-space.pdf")
    assert not r.failed
    text = " ".join(c.text + " " + " ".join(c.heading_path) for c in r.chunks)
    assert "Environmental Report" in text and "Net-zero" in text


class SteppingTime:
    """The engine's ``time`` with a clock that moves a tenth of a second at each reading, however fast or
    slow the machine: a time budget runs out after a set amount of the engine's work, not of wall time."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.1
        return self.now


def test_limits_are_typed_errors(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = corpus / "hostile/unstructured__pdf2image-memory-error-test-400p.pdf"
    assert _cats(big, max_pages=100)[0] == ["too_many_pages"]
    assert _cats(big, max_bytes=1024)[0] == ["too_large"]
    # One clock for the engine, which sets the deadline, and the page reader, which checks it.
    clock = SteppingTime()
    monkeypatch.setattr(engine, "time", clock)
    monkeypatch.setattr(reader, "time", clock)
    r = process_path(big, EngineConfig(timeout_s=0.5))
    (budget,) = [e for e in r.errors if e.category == "timeout"]
    assert not r.failed and not budget.fatal  # the pages read so far are kept
    stopped_at = int(budget.message.rsplit(" ", 1)[1])
    assert 1 < stopped_at < r.stats.pages, budget.message  # part of the way through the 400 pages


def test_not_a_pdf_and_empty_bytes() -> None:
    assert [e.category for e in process_bytes(b"hello world", source="x.pdf").errors] == ["not_a_pdf"]
    assert [e.category for e in process_bytes(b"", source="x.pdf").errors] == ["empty"]
    assert [e.category for e in process_bytes(b"%PDF-1.7\n%%EOF", source="x.pdf").errors] == ["corrupt"]


def test_an_image_renamed_pdf_is_refused_not_parsed() -> None:
    # Regression: MuPDF opens a PNG as a one-page document, so a PNG renamed .pdf was accepted.
    png = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False).tobytes("png")
    result = process_bytes(png, source="scan.pdf")
    assert [(e.category, e.fatal) for e in result.errors] == [("not_a_pdf", True)]
    assert "PNG" in result.errors[0].message


@pytest.mark.slow
def test_400_pages_stay_under_400_mb(corpus: Path) -> None:
    from bench.peak_rss import measure_engine_peak_rss

    peak_mb, pages = measure_engine_peak_rss(
        corpus / "hostile/unstructured__pdf2image-memory-error-test-400p.pdf"
    )
    assert pages == 400
    assert peak_mb <= 400, f"peak RSS {peak_mb:.0f} MB"
