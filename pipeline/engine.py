"""The core engine: one PDF in, a :class:`~schemas.models.DocumentResult` out.

A chain of small stages (open → pages → tables → stitch → types → chunks → facts → checks), each a
function from typed input to typed output. Problems are data: a page that fails is an ``ErrorRecord``
with its page number and the other pages carry on; only a document that cannot be read at all produces a
fatal error. Pages are processed one at a time and MuPDF's resource cache is released as the document is
walked, so memory stays flat in the page count.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

import pymupdf
import structlog

from pipeline.checks.stage import verify
from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.failures import allocation_failed, raise_if_out_of_memory
from pipeline.figures.claims import claims_cache
from pipeline.figures.facts import extract_facts
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy, normalise_label
from pipeline.figures.text_facts import extract_text_facts
from pipeline.ids import document_id, stable_id
from pipeline.parse.chunks import build_chunks, classify_blocks
from pipeline.parse.layout import Word, build_lines, transform_words
from pipeline.parse.plumber import second_opinion
from pipeline.parse.scales import (
    PageContext,
    ScaleResolution,
    document_default,
    resolve_group_scales,
    scale_errors,
    scan_page_scales,
)
from pipeline.parse.sniff import HEAD_BYTES, not_a_pdf
from pipeline.parse.stitch import join_split_tables, page_furniture, stitch_pages
from pipeline.parse.structure import infer_missing_scales, type_group
from pipeline.parse.tables import RawTable, Rules, find_tables, rules_from_drawings
from pipeline.statements.build import annotate_facts, build_statements
from pipeline.statements.equity import equity_statement_facts
from schemas.models import (
    BBox,
    Block,
    Chunk,
    DocumentResult,
    DocumentStats,
    ErrorCategory,
    ErrorRecord,
    Fact,
    PageInfo,
    Statement,
    Table,
)

__all__ = ["EngineConfig", "parse_bytes", "parse_path", "process_bytes", "process_path", "verify"]

log = structlog.get_logger(__name__)

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


@dataclass(slots=True)
class PageResult:
    """What one page contributes before document-level stages."""

    info: PageInfo
    blocks: list[Block]
    tables: list[RawTable]
    words: int
    error: ErrorRecord | None = None
    contexts: list[PageContext] = field(default_factory=list)
    default_scale: ScaleResolution | None = None


@dataclass(slots=True)
class _Ctx:
    doc_id: str
    source: str
    config: EngineConfig
    errors: list[ErrorRecord] = field(default_factory=list)

    def error(
        self, stage: str, category: ErrorCategory, message: str, page: int | None = None
    ) -> ErrorRecord:
        rec = ErrorRecord(
            doc_id=self.doc_id, source=self.source, stage=stage, category=category, message=message, page=page
        )
        self.errors.append(rec)
        return rec


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
        x0 = min(w[0] for w in ws)
        y0 = min(w[1] for w in ws)
        x1 = max(w[2] for w in ws)
        y1 = max(w[3] for w in ws)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if any(a - 1 <= cx <= c + 1 and b - 1 <= cy <= d + 1 for a, b, c, d in skip):
            continue
        lines = [" ".join(w[4] for w in line) for _, line in groupby(ws, key=_line_no)]
        heights = sorted(w[3] - w[1] for w in ws)
        size = round(heights[len(heights) // 2] / 1.15, 1)
        out.append(
            Block(page=pno, bbox=(x0, y0, x1, y1), text=" ".join(lines), font_size=size, n_lines=len(lines))
        )
    return out


def read_page(page: pymupdf.Page, pno: int, ctx: _Ctx) -> PageResult:
    """Stage: one page to words, lines, blocks and raw tables."""
    matrix = _matrix(page)
    tp = page.get_textpage(flags=_TEXT_FLAGS)
    raw = tp.extractWORDS()
    words = transform_words(raw, matrix)
    rect = page.rect
    info_kw: dict[str, Any] = {
        "doc_id": ctx.doc_id,
        "source": ctx.source,
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
        err = None
        if has_content:
            err = ctx.error(
                "parse", "no_text_layer", "page has content but no text layer (OCR is not run)", pno
            )
        return PageResult(PageInfo(**info_kw, has_text_layer=False), [], [], 0, err)
    lines = build_lines(words)

    def collect_rules() -> Rules | None:
        # Rules only matter where the text already looks tabular; most pages never walk their drawings.
        if not _may_have_rules(page, pno, ctx):
            return None
        drawings = page.get_cdrawings()
        if not drawings:
            return None
        rules = rules_from_drawings(drawings, rect.height)
        return _rotate_rules(rules, matrix) if matrix is not None else rules

    found = find_tables(lines, pno, rect.width, collect_rules, ctx.config.table_finder)
    tables = join_split_tables(found, lines)
    blocks = _blocks(words, pno, [t.bbox for t in tables])
    info = PageInfo(**info_kw, n_words=len(words), n_blocks=len(blocks), n_tables=len(tables))
    contexts = scan_page_scales(tables, lines) if tables else []
    return PageResult(info, blocks, tables, len(words), None, contexts, document_default(lines))


_HEAD_BYTES = 200_000
_MAX_DRAWING_OPS = 200_000
"""Path operators beyond which a page's drawings are not walked for table rules. The busiest page of the
4,135 in the shared corpus has ~14,600; walking a million tiny shapes costs ~1 GB and ~6 s for nothing."""


def _path_ops(content: bytes) -> int:
    return content.count(b" re") + content.count(b" l\n") + content.count(b" l ")


def _may_have_rules(page: pymupdf.Page, pno: int, ctx: _Ctx) -> bool:
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
            ctx.error("parse", "unsupported", f"content stream not searched for table rules: {exc}", pno)
            return False
        return True
    if len(content) > _HEAD_BYTES and (ops := _path_ops(content)) > _MAX_DRAWING_OPS:
        ctx.error(
            "parse",
            "unsupported",
            f"{ops:,} drawing operations: too many to look for table rules among; "
            "this page's tables are found from the text alone",
            pno,
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


def iter_pages(doc: pymupdf.Document, ctx: _Ctx, deadline: float) -> Iterator[PageResult]:
    """Stage: walk the pages in order, containing each page's failure to that page."""
    n = doc.page_count if ctx.config.first_pages is None else min(doc.page_count, ctx.config.first_pages)
    for i in range(n):
        pno = i + 1
        if time.monotonic() > deadline:
            ctx.error(
                "parse", "timeout", f"time budget of {ctx.config.timeout_s:.0f}s spent; stopped at page {pno}"
            )
            return
        try:
            page = doc.load_page(i)
            yield read_page(page, pno, ctx)
        except Exception as exc:  # one bad page must not sink the document, unless memory ran out
            raise_if_out_of_memory(exc)
            ctx.error("parse", "page_error", f"{type(exc).__name__}: {exc}", pno)
        if pno % ctx.config.store_shrink_every == 0:
            pymupdf.TOOLS.store_shrink(100)


def _label_key(taxonomy: Taxonomy) -> Callable[[str], str]:
    """Compare row labels by metric where the taxonomy knows them, else by their normalised text."""

    def key(label: str) -> str:
        m = taxonomy.match(label)
        return m.id if m is not None else normalise_label(label)

    return key


def parse_bytes(data: bytes, *, source: str, config: EngineConfig | None = None) -> DocumentResult:
    """Stage: parse one PDF held in memory into tables, chunks and facts; :func:`verify` adds the flags.

    Arguments are those of :func:`process_bytes`; ``result.failed`` tells whether the document could not
    be processed at all.
    """
    cfg = config or EngineConfig()
    t0 = time.monotonic()
    doc_id = document_id(data)
    ctx = _Ctx(doc_id=doc_id, source=source, config=cfg)
    bound = log.bind(doc_id=doc_id[:12], source=source)
    pymupdf.TOOLS.reset_mupdf_warnings()

    def rejected(exc: DocumentError, stage: str) -> DocumentResult:
        err = ErrorRecord(
            doc_id=doc_id, source=source, stage=stage, category=exc.category, message=exc.message, fatal=True
        )
        bound.warning("document rejected", category=exc.category, reason=exc.message)
        return DocumentResult(
            doc_id=doc_id,
            source=source,
            pipeline_version=PIPELINE_VERSION,
            errors=[err],
            stats=DocumentStats(errors=1, seconds=time.monotonic() - t0),
        )

    try:
        doc = open_document(data, cfg)
    except DocumentError as exc:
        return rejected(exc, "open")
    try:
        with claims_cache():
            return _process_open(doc, data, ctx, t0)
    except DocumentError as exc:  # opened, but nothing in it could be read
        return rejected(exc, "parse")
    finally:
        doc.close()
        pymupdf.TOOLS.store_shrink(100)


def process_bytes(data: bytes, *, source: str, config: EngineConfig | None = None) -> DocumentResult:
    """Run the whole engine on one PDF held in memory: :func:`parse_bytes`, then :func:`verify`.

    Args:
        data: The PDF's bytes.
        source: File name or object key, carried on every record.
        config: Limits and tuning; defaults when None.

    Returns:
        The document's tables, chunks, facts, flags and errors. ``result.failed`` tells whether the
        document could not be processed at all.
    """
    with claims_cache():  # parse and verify read the same narrative: parse each block once
        return verify(parse_bytes(data, source=source, config=config))


@dataclass
class _Work:
    """What the stages of one document hand to each other (each stage reads some fields and fills others)."""

    doc: pymupdf.Document
    data: bytes
    ctx: _Ctx
    deadline: float
    taxonomy: Taxonomy = field(default_factory=load_taxonomy)
    page_info: list[PageInfo] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    per_page_tables: list[tuple[list[RawTable], float]] = field(default_factory=list)
    page_scales: dict[int, ScaleResolution | None] = field(default_factory=dict)
    headings: dict[int, str] = field(default_factory=dict)
    defaults: dict[int, ScaleResolution] = field(default_factory=dict)
    words: int = 0
    tables: list[Table] = field(default_factory=list)
    table_headings: dict[str, str] = field(default_factory=dict)
    chunks: list[Chunk] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    text_blocks: list[Block] = field(default_factory=list)
    statements: list[Statement] = field(default_factory=list)


def _pages(w: _Work) -> None:
    """Words, lines, blocks and raw tables of every page, with each table's scale context."""
    for pr in iter_pages(w.doc, w.ctx, w.deadline):
        w.page_info.append(pr.info)
        w.words += pr.words
        w.blocks.extend(pr.blocks)
        w.per_page_tables.append((pr.tables, pr.info.height))
        for raw, context in zip(pr.tables, pr.contexts, strict=True):
            w.page_scales[id(raw)] = context.scale
            w.headings[id(raw)] = context.heading
        if pr.default_scale is not None:
            w.defaults[pr.info.page] = pr.default_scale
    failed = [e for e in w.ctx.errors if e.category == "page_error"]
    if failed and not w.page_info:
        first = failed[0]
        raise DocumentError(
            "corrupt", f"no page could be read ({len(failed)} failed; page {first.page}: {first.message})"
        )
    if w.page_info and all(not p.has_text_layer for p in w.page_info):
        w.ctx.error("parse", "no_text_layer", "no page of the document has a text layer")


def _tables(w: _Work) -> None:
    """Tables stitched across pages, their scales resolved, their cells typed."""
    heights = {p.page: p.height for p in w.page_info}
    groups = stitch_pages(w.per_page_tables, page_furniture(w.blocks, heights))
    resolved = resolve_group_scales([g.fragments for g in groups], w.page_scales, w.defaults)
    for i, (g, scale) in enumerate(zip(groups, resolved, strict=True)):
        try:
            table_id = stable_id(w.ctx.doc_id, "table", i)
            w.tables.append(
                type_group(g, doc_id=w.ctx.doc_id, source=w.ctx.source, table_id=table_id, scale=scale)
            )
            w.table_headings[table_id] = w.headings.get(id(g.first), "")
        except Exception as exc:  # a table that cannot be typed is reported, the rest go on
            raise_if_out_of_memory(exc)
            w.ctx.error("tables", "table_error", f"{type(exc).__name__}: {exc}", g.first.page)
    w.tables = infer_missing_scales(w.tables, _label_key(w.taxonomy))


def _second_opinion(w: _Work) -> None:
    """Pdfplumber re-reads ruled tables (when configured); agreement becomes each table's confidence."""
    if w.ctx.config.plumber_second_opinion:
        w.tables = second_opinion(w.data, w.tables, max_pages=w.ctx.config.plumber_max_pages)


def _chunks(w: _Work) -> None:
    """Blocks classified (headings, text) and cut into heading-aware chunks, tables included."""
    w.blocks = classify_blocks(w.blocks)
    w.text_blocks = [b for b in w.blocks if b.kind == "text"]
    w.chunks = build_chunks(
        w.blocks, w.tables, doc_id=w.ctx.doc_id, source=w.ctx.source, max_tokens=w.ctx.config.chunk_max_tokens
    )


def _facts(w: _Work) -> None:
    """Key facts from the tables, then from the narrative (defaulting to the latest fiscal year seen)."""
    w.facts = extract_facts(w.tables, w.taxonomy)
    years = [f.period.fiscal_year for f in w.facts if f.period is not None and f.period.fiscal_year]
    w.facts += extract_text_facts(
        w.text_blocks,
        w.taxonomy,
        doc_id=w.ctx.doc_id,
        source=w.ctx.source,
        default_year=max(years) if years else None,
    )
    w.ctx.errors.extend(scale_errors(w.tables, w.facts))


def _statements(w: _Work) -> None:
    """Statements as calculation trees; every fact gets its role, parent and statement."""
    w.statements = build_statements(w.tables, w.table_headings, w.taxonomy)
    w.facts = annotate_facts(
        [*w.facts, *equity_statement_facts(w.tables, w.statements, w.taxonomy)], w.statements
    )


STAGES: tuple[tuple[str, Callable[[_Work], None]], ...] = (
    ("pages", _pages),
    ("tables", _tables),
    ("second_opinion", _second_opinion),
    ("chunks", _chunks),
    ("facts", _facts),
    ("statements", _statements),
)
"""The parse, in order; each stage's wall time goes into ``DocumentStats.stage_seconds``. The checks
(:func:`pipeline.checks.stage.verify`) run after it, as the verify service runs them."""


def _process_open(doc: pymupdf.Document, data: bytes, ctx: _Ctx, t0: float) -> DocumentResult:
    w = _Work(doc=doc, data=data, ctx=ctx, deadline=t0 + ctx.config.timeout_s)
    timings: dict[str, float] = {}
    for name, stage in STAGES:
        t = time.monotonic()
        stage(w)
        timings[name] = round(time.monotonic() - t, 4)
    # MuPDF contains some failures itself (a font it cannot load is replaced) and only warns: a failed
    # allocation among them means parts of the document are missing for want of memory.
    warnings = pymupdf.TOOLS.mupdf_warnings(reset=False)
    if allocation_failed(warnings):
        oom = next(line for line in warnings.splitlines() if allocation_failed(line))
        raise MemoryError(f"MuPDF ran out of memory and left parts of the document out: {oom}")
    stats = DocumentStats(
        pages=doc.page_count,
        pages_parsed=sum(1 for p in w.page_info if p.has_text_layer),
        words=w.words,
        tables=len(w.tables),
        facts=len(w.facts),
        chunks=len(w.chunks),
        errors=len(ctx.errors),
        seconds=round(time.monotonic() - t0, 4),
        stage_seconds=timings,
    )
    log.bind(doc_id=ctx.doc_id[:12], source=ctx.source).debug("document processed", **stats.model_dump())
    return DocumentResult(
        doc_id=ctx.doc_id,
        source=ctx.source,
        pipeline_version=PIPELINE_VERSION,
        page_info=w.page_info,
        tables=w.tables,
        chunks=w.chunks,
        facts=w.facts,
        blocks=w.text_blocks,
        statements=w.statements,
        errors=ctx.errors,
        stats=stats,
    )


def parse_path(
    path: Path, config: EngineConfig | None = None, *, source: str | None = None
) -> DocumentResult:
    """Parse a file (no checks); ``source`` defaults to the file name."""
    return parse_bytes(path.read_bytes(), source=source or path.name, config=config)


def process_path(
    path: Path, config: EngineConfig | None = None, *, source: str | None = None
) -> DocumentResult:
    """Run the engine on a file; ``source`` defaults to the file name."""
    return process_bytes(path.read_bytes(), source=source or path.name, config=config)
