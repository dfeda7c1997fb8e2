"""Reading a PDF with MuPDF, page by page: words, lines, blocks, rules and the tables found on each page.

The engine's first stage (:mod:`pipeline.engine`) walks a document with :func:`iter_pages`; each page is
read by :func:`read_page` into a :class:`PageResult` (its blocks, its tables with what the page says about
them, and the printed lines of the cover pages), under the run's limits (:class:`Run`). A page that fails
is an ``ErrorRecord`` and the walk goes on; a document that cannot be opened raises :class:`DocumentError`.
MuPDF's resource cache is released as the document is walked, so memory stays flat in the page count.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import pymupdf

from pipeline.config import EngineConfig
from pipeline.failures import raise_if_out_of_memory
from pipeline.figures.taxonomy import Taxonomy
from pipeline.parse.columns import find_gutter, split_columns
from pipeline.parse.cover_ocr import unreadable_share
from pipeline.parse.identity import COVER_PAGES
from pipeline.parse.layout import Line, Word, build_lines, transform_words, without_superscript_marks
from pipeline.parse.scales import (
    ScaleResolution,
    document_default,
    scan_page_scales,
)
from pipeline.parse.sniff import HEAD_BYTES, not_a_pdf
from pipeline.parse.stitch import join_split_tables
from pipeline.parse.table_types import RawTable, Rules
from pipeline.parse.tables import find_tables, rules_from_drawings
from schemas.models import (
    BBox,
    Block,
    ErrorCategory,
    ErrorRecord,
    PageInfo,
)

__all__ = [
    "DocumentError",
    "PageResult",
    "PageTable",
    "Run",
    "cover_lines",
    "iter_pages",
    "open_document",
    "read_page",
]

_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

# MuPDF reports repairs and bad streams on stderr; they are collected per document instead.
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


class DocumentError(Exception):
    """A document that cannot be processed at all."""

    def __init__(self, category: ErrorCategory, message: str) -> None:
        super().__init__(message)
        self.category: ErrorCategory = category
        self.message = message


@dataclass(frozen=True, slots=True)
class Run:
    """What every stage of one document's run reads: which document, its bytes, the limits and the metrics.

    Attributes:
        doc_id: The document's id (:func:`pipeline.ids.document_id`).
        source: File name or object key, carried on every record.
        data: The PDF's bytes (pdfplumber's second opinion reads them again).
        config: Limits and tuning.
        deadline: ``time.monotonic()`` past which no further page is read.
        taxonomy: The metric taxonomy.
    """

    doc_id: str
    source: str
    data: bytes
    config: EngineConfig
    deadline: float
    taxonomy: Taxonomy

    def error(
        self, stage: str, category: ErrorCategory, message: str, page: int | None = None
    ) -> ErrorRecord:
        """An error item of this document; the stage that found it keeps it with its output."""
        return ErrorRecord(
            doc_id=self.doc_id, source=self.source, stage=stage, category=category, message=message, page=page
        )


@dataclass(frozen=True, slots=True)
class PageTable:
    """A table found on one page, with what that page says about it outside the table.

    Attributes:
        raw: The table as found (stitching may later drop running heads from its caption, in place).
        scale: The scale stated above it on its page (caption or page header), None when none is.
        heading: The text above it on its page, where a statement's title is printed.
    """

    raw: RawTable
    scale: ScaleResolution | None
    heading: str


@dataclass(frozen=True, slots=True)
class PageResult:
    """What one page contributes before the document-level stages."""

    info: PageInfo
    blocks: tuple[Block, ...]
    tables: tuple[PageTable, ...]
    words: int
    default_scale: ScaleResolution | None = None
    cover: tuple[Block, ...] = ()


def open_document(data: bytes, config: EngineConfig) -> pymupdf.Document:
    """Open PDF bytes, or raise :class:`DocumentError` saying why it cannot be read.

    A file that MuPDF "repairs" to zero pages is corrupt, not an empty success.
    """
    if len(data) > config.max_bytes:
        raise DocumentError("too_large", f"{len(data)} bytes exceeds the limit of {config.max_bytes}")
    if not data:
        raise DocumentError("empty", "the file is empty")
    if why := not_a_pdf(data[:HEAD_BYTES]):
        # MuPDF opens images and other formats as documents: refuse them before it gets the chance.
        raise DocumentError("not_a_pdf", why)
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # MuPDF raises plain RuntimeError/FileDataError variants
        raise_if_out_of_memory(exc)
        raise DocumentError("corrupt", f"not a readable PDF: {exc}") from exc
    try:
        encrypted = doc.needs_pass and not doc.authenticate("")
        # Counting pages walks the page tree, which MuPDF may refuse (a tree claiming more pages than the
        # file has objects: "Invalid number of pages").
        n = 0 if encrypted else doc.page_count
    except Exception as exc:
        doc.close()
        raise_if_out_of_memory(exc)
        raise DocumentError("corrupt", f"unreadable page tree: {exc}") from exc
    if encrypted:
        doc.close()
        raise DocumentError("encrypted", "the PDF is encrypted and needs a password")
    if n == 0:
        doc.close()
        raise DocumentError("corrupt", "no pages could be recovered from the file")
    if n > config.max_pages:
        doc.close()
        raise DocumentError("too_many_pages", f"{n} pages exceeds the limit of {config.max_pages}")
    return doc


def _matrix(page: pymupdf.Page) -> tuple[float, float, float, float, float, float] | None:
    if page.rotation % 360 == 0:
        return None
    m = page.rotation_matrix
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _block_no(w: Word) -> int:
    return w[5]


def _line_no(w: Word) -> int:
    return w[6]


def _blocks(words: list[Word], pno: int, skip: Sequence[BBox]) -> list[Block]:
    """Text blocks rebuilt from MuPDF's words (block and line numbers ride along with each word).

    Blocks whose centre lies inside a table (``skip``) are left out: the table carries that text. The
    font size is estimated from the glyph boxes' height: walking MuPDF's span dictionaries for real sizes
    and weights costs more than the rest of the page's parsing together, and headings are told apart by
    relative size and layout, for which the estimate suffices.
    """
    out: list[Block] = []
    # extractWORDS lists words block by block and line by line, so grouping is a single pass.
    for _, group in groupby(words, key=_block_no):
        ws = list(group)
        bbox = _bbox(ws)
        cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
        # A table's block is left out before it is built: most of a filing's words are in tables.
        if not any(a - 1 <= cx <= c + 1 and b - 1 <= cy <= d + 1 for a, b, c, d in skip):
            out.append(_block(ws, pno, bbox))
    return out


def _bbox(ws: list[Word]) -> BBox:
    return (min(w[0] for w in ws), min(w[1] for w in ws), max(w[2] for w in ws), max(w[3] for w in ws))


def _block(ws: list[Word], pno: int, bbox: BBox | None = None) -> Block:
    """One block of words, its lines joined; the font size estimated from the glyph boxes' height."""
    lines = [" ".join(w[4] for w in line) for _, line in groupby(ws, key=_line_no)]
    heights = sorted(w[3] - w[1] for w in ws)
    size = round(heights[len(heights) // 2] / 1.15, 1)
    box = _bbox(ws) if bbox is None else bbox
    return Block(page=pno, bbox=box, text=" ".join(lines), font_size=size, n_lines=len(lines))


def _printed_lines(words: list[Word], pno: int) -> list[Block]:
    """One block per line as MuPDF printed it, tables included: what the identity is read from.

    MuPDF's lines, not :func:`~pipeline.parse.layout.build_lines`' rows: a cover's two columns ("For the
    quarterly period ended" beside "Commission file") stay apart, each with its own box.
    """
    return [_block(list(ws), pno) for _, ws in groupby(words, key=lambda w: (w[5], w[6]))]


def _page_words(
    page: pymupdf.Page, matrix: tuple[float, float, float, float, float, float] | None
) -> list[Word]:
    """The page's words in visual space (rotation undone by ``matrix``), dot leaders dropped."""
    return transform_words(page.get_textpage(flags=_TEXT_FLAGS).extractWORDS(), matrix)


def read_page(page: pymupdf.Page, pno: int, run: Run, errors: list[ErrorRecord]) -> PageResult:
    """One page to words, lines, blocks and raw tables, each table with what the page says about it.

    Args:
        page: The page.
        pno: Its number, from 1.
        run: The document's run.
        errors: Where the page's error items go, as they are found (kept when the page fails later).

    Returns:
        The page's contribution.
    """
    matrix = _matrix(page)
    words = _page_words(page, matrix)
    rect = page.rect
    info_kw: dict[str, Any] = {
        "doc_id": run.doc_id,
        "source": run.source,
        "page": pno,
        "width": rect.width,
        "height": rect.height,
        "rotation": page.rotation,
    }
    if not words:
        try:
            page.parent.xref_get_key(page.xref, "Type")
        except Exception as exc:  # the page's own dictionary is unreadable (MuPDF's nesting limit, …)
            raise_if_out_of_memory(exc)
            raise RuntimeError(f"the page's object cannot be read: {exc}") from exc
        # Scans are often inline images, which get_images() does not list; any drawing content counts.
        has_content = bool(page.get_image_info()) or len(page.read_contents().strip()) > 32
        if has_content:
            why = "page has content but no text layer (OCR is not run)"
            errors.append(run.error("parse", "no_text_layer", why, pno))
        return PageResult(PageInfo(**info_kw, has_text_layer=False), (), (), 0)
    if (share := unreadable_share(w[4] for w in words)) is not None:
        # Glyph codes of a font without a Unicode map: the words are not what the page shows, so labels and
        # figures read from them are not either. The page is still read (the cover's lines go to the
        # identity stage, which reads such a page by OCR) and says so, never silently.
        why = f"text layer does not read ({share:.0%} of its words read: glyph codes without a Unicode map)"
        errors.append(run.error("parse", "no_text_layer", why, pno))
    # Tables are read without the superscript footnote marks (their own column of "(1)"s otherwise); the
    # page's text blocks keep them.
    table_words = without_superscript_marks(words)
    lines = build_lines(table_words)

    def collect_rules() -> Rules | None:
        # Rules only matter where the text already looks tabular; most pages never walk their drawings.
        if not _may_have_rules(page, pno, run, errors):
            return None
        drawings = page.get_cdrawings()
        if not drawings:
            return None
        rules = rules_from_drawings(drawings, rect.height)
        return _rotate_rules(rules, matrix) if matrix is not None else rules

    size = (rect.width, rect.height)
    on_page = tuple(_column_tables(table_words, lines, (pno, size), run, functools.cache(collect_rules)))
    kept = [pt.raw for pt in on_page if not pt.raw.lone]
    blocks = _blocks(words, pno, [t.bbox for t in kept])
    info = PageInfo(**info_kw, n_words=len(words), n_blocks=len(blocks), n_tables=len(kept))
    cover = tuple(_printed_lines(words, pno)) if pno <= COVER_PAGES else ()
    return PageResult(info, tuple(blocks), on_page, len(words), document_default(lines), cover)


def _column_tables(
    words: Sequence[Word],
    lines: Sequence[Line],
    page: tuple[int, tuple[float, float]],
    run: Run,
    rules: Callable[[], Rules | None],
) -> Iterator[PageTable]:
    """The page's tables with what the page says about each, one text column at a time, left column first.

    A page set in two columns of running text (:mod:`pipeline.parse.columns`) is read column by column, so
    a table in one column does not take the prose beside it into its labels; any other page is one column.
    """
    pno, (page_width, page_height) = page
    gutter = find_gutter(words, page_width, page_height)
    for column in split_columns(words, gutter):
        col_lines = lines if gutter is None else build_lines(column)
        # The finder reads running text as lines across most of the text's width; a column's is its own.
        width = page_width if gutter is None else max(w[2] for w in column) - min(w[0] for w in column) + 100
        found = find_tables(col_lines, pno, width, rules, run.config.table_finder)
        tables = join_split_tables(found, col_lines)
        # A lone line of figures is a table only if it turns out to continue one (RawTable.lone): its words
        # stay in the page's text, it is not counted among the page's tables, and the page's captions and
        # header are read for the others as if it were not there.
        kept = [t for t in tables if not t.lone]
        kept_contexts = iter(scan_page_scales(kept, col_lines) if kept else [])
        for t in tables:
            c = scan_page_scales([t], col_lines)[0] if t.lone else next(kept_contexts)
            yield PageTable(t, c.scale, c.heading)


_HEAD_BYTES = 200_000
_MAX_DRAWING_OPS = 200_000
"""Path operators beyond which a page's drawings are not walked for table rules. The busiest page of the
4,135 in the shared corpus has ~14,600; walking a million tiny shapes costs ~1 GB and ~6 s for nothing."""


def _path_ops(content: bytes) -> int:
    return content.count(b" re") + content.count(b" l\n") + content.count(b" l ")


def _may_have_rules(page: pymupdf.Page, pno: int, run: Run, errors: list[ErrorRecord]) -> bool:
    """Cheap look at the content stream: are there enough paths (or forms) to hold table rules?

    Walking the drawings costs ~1 ms a page; reading the raw stream ~0.1 ms. A page with an absurd number
    of paths is not walked at all (its tables are found from the text alone) and says so.
    """
    try:
        content: bytes = page.read_contents()
    except Exception as exc:
        raise_if_out_of_memory(exc)
        if "compression bomb" in str(exc).lower():
            # MuPDF refuses to hold a stream that inflates hundreds of times over; interpreting it again
            # to walk its drawings would cost as much as the text did, for rules nobody drew that way.
            errors.append(
                run.error("parse", "unsupported", f"content stream not searched for table rules: {exc}", pno)
            )
            return False
        return True
    if len(content) > _HEAD_BYTES and (ops := _path_ops(content)) > _MAX_DRAWING_OPS:
        errors.append(
            run.error(
                "parse",
                "unsupported",
                f"{ops:,} drawing operations: too many to look for table rules among; "
                "this page's tables are found from the text alone",
                pno,
            )
        )
        return False
    if b"Do" in content:  # drawings inside form XObjects are not in this stream
        return True
    return _path_ops(content[:_HEAD_BYTES]) >= 4


def _rotate_rules(rules: Rules, m: tuple[float, float, float, float, float, float]) -> Rules:
    a, b, c, d, e, f = m
    out = Rules()

    def tr(x: float, y: float) -> tuple[float, float]:
        return a * x + c * y + e, b * x + d * y + f

    for y, x0, x1 in rules.horizontal:
        (px0, py0), (px1, py1) = tr(x0, y), tr(x1, y)
        _add_rule(out, px0, py0, px1, py1)
    for x, y0, y1 in rules.vertical:
        (px0, py0), (px1, py1) = tr(x, y0), tr(x, y1)
        _add_rule(out, px0, py0, px1, py1)
    return out


def _add_rule(out: Rules, x0: float, y0: float, x1: float, y1: float) -> None:
    if abs(y1 - y0) < abs(x1 - x0):
        out.horizontal.append(((y0 + y1) / 2, min(x0, x1), max(x0, x1)))
    else:
        out.vertical.append(((x0 + x1) / 2, min(y0, y1), max(y0, y1)))


def iter_pages(doc: pymupdf.Document, run: Run, errors: list[ErrorRecord]) -> Iterator[PageResult]:
    """Walk the pages in order, containing each page's failure to that page.

    Args:
        doc: The open PDF.
        run: The document's run; no page is started past its deadline.
        errors: Where error items go, as they are found.

    Yields:
        Each page read, in order.
    """
    n = doc.page_count if run.config.first_pages is None else min(doc.page_count, run.config.first_pages)
    for i in range(n):
        pno = i + 1
        if time.monotonic() > run.deadline:
            errors.append(
                run.error(
                    "parse",
                    "timeout",
                    f"time budget of {run.config.timeout_s:.0f}s spent; stopped at page {pno}",
                )
            )
            return
        try:
            page = doc.load_page(i)
            yield read_page(page, pno, run, errors)
        except Exception as exc:  # one bad page must not sink the document, unless memory ran out
            raise_if_out_of_memory(exc)
            errors.append(run.error("parse", "page_error", f"{type(exc).__name__}: {exc}", pno))
        if pno % run.config.store_shrink_every == 0:
            pymupdf.TOOLS.store_shrink(100)


def cover_lines(doc: pymupdf.Document, pages: int) -> tuple[list[Block], int]:
    """One block per printed line of the first ``pages`` pages, and how many of them had words.

    A page that cannot be read is left out, as the pages stage leaves it out.
    """
    lines: list[Block] = []
    read = 0
    for i in range(min(doc.page_count, pages)):
        try:
            page = doc.load_page(i)
            words = _page_words(page, _matrix(page))
        except Exception as exc:
            raise_if_out_of_memory(exc)
            continue
        read += bool(words)
        lines += _printed_lines(words, i + 1)
    return lines, read
