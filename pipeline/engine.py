"""The core engine: one PDF in, a :class:`~schemas.models.DocumentResult` out.

A chain of small stages
(pages → identity → tables → second_opinion → chunks → facts → statements → checks), each a function
from one typed hand-off to the next (:data:`STAGES`; a test holds this list to it). Each hand-off is a
frozen record, the one before plus what its stage adds: :class:`Opened` → :class:`Pages` →
:class:`Identified` → :class:`Tables` → :class:`Chunks` → :class:`Facts` → :class:`Statements`, from which
the document's :class:`~schemas.models.DocumentResult` is assembled once the PDF is done with; the checks
then read that result (:mod:`pipeline.checks.stage`), as the verify service does. What belongs to a table
found on a page (what its page says about its scale, the heading above it) travels with it
(:class:`PageTable`).

Problems are data: a page that fails is an ``ErrorRecord`` with its page number and the other pages carry
on; only a document that cannot be read at all produces a fatal error. Pages are processed one at a time
and MuPDF's resource cache is released as the document is walked, so memory stays flat in the page count.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from itertools import groupby
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import pymupdf
import structlog

from pipeline.checks.stage import Checked, flagged, run_checks, verify
from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.failures import allocation_failed, raise_if_out_of_memory
from pipeline.figures.claims import claims_cache
from pipeline.figures.facts import extract_facts
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy, normalise_label
from pipeline.figures.text_facts import extract_text_facts
from pipeline.ids import document_id, stable_id
from pipeline.parse.chunks import build_chunks, classify_blocks
from pipeline.parse.identity import COVER_PAGES, read_identity
from pipeline.parse.layout import Word, build_lines, transform_words
from pipeline.parse.plumber import second_opinion
from pipeline.parse.scales import (
    ScaleResolution,
    document_default,
    resolve_group_scales,
    scale_errors,
    scan_page_scales,
)
from pipeline.parse.sniff import HEAD_BYTES, not_a_pdf
from pipeline.parse.stitch import join_split_tables, page_furniture, stitch_pages
from pipeline.parse.structure import infer_missing_scales, type_group
from pipeline.parse.table_types import RawTable, Rules
from pipeline.parse.tables import find_tables, rules_from_drawings
from pipeline.statements.build import annotate_facts, build_statements
from pipeline.statements.equity import equity_statement_facts
from schemas.models import (
    BBox,
    Block,
    Chunk,
    DocumentIdentity,
    DocumentResult,
    DocumentStats,
    ErrorCategory,
    ErrorRecord,
    Fact,
    PageInfo,
    Statement,
    Table,
)

__all__ = [
    "STAGES",
    "Chunks",
    "DocumentError",
    "EngineConfig",
    "Facts",
    "Identified",
    "Opened",
    "PageResult",
    "PageTable",
    "Pages",
    "Run",
    "Stage",
    "Statements",
    "Tables",
    "identify_bytes",
    "parse_bytes",
    "parse_path",
    "process_bytes",
    "process_path",
    "verify",
]

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


In = TypeVar("In")
Out = TypeVar("Out")
Handoff = TypeVar("Handoff", bound="Pages")


@dataclass(frozen=True, slots=True)
class Stage(Generic[In, Out]):
    """One stage of the engine: its name (the key of its time in ``stage_seconds``) and its function.

    Attributes:
        name: The stage's name.
        run: The stage, from its typed input to its typed output.
        phase: ``parse`` for the stages that read the open PDF (:func:`parse_bytes`); ``checks`` for those
            that read the parsed :class:`~schemas.models.DocumentResult`, as the verify service does.
    """

    name: str
    run: Callable[[In], Out]
    phase: Literal["parse", "checks"]


@dataclass(frozen=True, slots=True)
class Opened:
    """The first stage's input: the open PDF and its run."""

    run: Run
    doc: pymupdf.Document


@dataclass(frozen=True, slots=True)
class Pages:
    """Stage ``pages``' output: every page read, in order.

    Attributes:
        run: The document's run.
        page_info: One entry per page read (a page that failed to read has none).
        blocks: Text blocks of every page, in reading order, outside the tables.
        page_tables: Each read page's tables, top to bottom, parallel to ``page_info``.
        defaults: Page → the document-wide scale statement printed on it.
        words: Words on the pages read.
        errors: Error items so far, in the order found.
        cover: One block per printed line of the first pages (:data:`COVER_PAGES`), tables' text included.
    """

    run: Run
    page_info: tuple[PageInfo, ...]
    blocks: tuple[Block, ...]
    page_tables: tuple[tuple[PageTable, ...], ...]
    defaults: Mapping[int, ScaleResolution]
    words: int
    errors: tuple[ErrorRecord, ...]
    cover: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class Identified(Pages):
    """Stage ``identity``'s output: the pages, and who published the document, what it is and when."""

    identity: DocumentIdentity


@dataclass(frozen=True, slots=True)
class Tables(Identified):
    """Stage ``tables``' output (and ``second_opinion``'s): the pages and the typed logical tables.

    Attributes:
        tables: Logical tables, stitched across pages, scales resolved, cells typed.
        headings: Table id → the heading printed above its first fragment.
    """

    tables: tuple[Table, ...]
    headings: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Chunks(Tables):
    """Stage ``chunks``' output: the tables, and the narrative cut into heading-aware chunks.

    Attributes:
        chunks: Chunks of text and tables.
        text_blocks: The narrative blocks (headings left out), as the facts and checks read them.
    """

    chunks: tuple[Chunk, ...]
    text_blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class Facts(Chunks):
    """Stage ``facts``' output: the chunks, and the key facts of the tables and the narrative."""

    facts: tuple[Fact, ...]


@dataclass(frozen=True, slots=True)
class Statements(Facts):
    """Stage ``statements``' output: the calculation trees, and every fact with its role in them."""

    statements: tuple[Statement, ...]


def _extend(kind: type[Handoff], before: Pages, **added: Any) -> Handoff:
    """The next hand-off: ``before``'s fields with what its stage ``added`` (or replaced, e.g. errors)."""
    return kind(**{**{f.name: getattr(before, f.name) for f in fields(before)}, **added})


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
        block = _block(ws, pno)
        x0, y0, x1, y1 = block.bbox
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if not any(a - 1 <= cx <= c + 1 and b - 1 <= cy <= d + 1 for a, b, c, d in skip):
            out.append(block)
    return out


def _block(ws: list[Word], pno: int) -> Block:
    """One block of words, its lines joined; the font size estimated from the glyph boxes' height."""
    lines = [" ".join(w[4] for w in line) for _, line in groupby(ws, key=_line_no)]
    heights = sorted(w[3] - w[1] for w in ws)
    size = round(heights[len(heights) // 2] / 1.15, 1)
    bbox = (min(w[0] for w in ws), min(w[1] for w in ws), max(w[2] for w in ws), max(w[3] for w in ws))
    return Block(page=pno, bbox=bbox, text=" ".join(lines), font_size=size, n_lines=len(lines))


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
    lines = build_lines(words)

    def collect_rules() -> Rules | None:
        # Rules only matter where the text already looks tabular; most pages never walk their drawings.
        if not _may_have_rules(page, pno, run, errors):
            return None
        drawings = page.get_cdrawings()
        if not drawings:
            return None
        rules = rules_from_drawings(drawings, rect.height)
        return _rotate_rules(rules, matrix) if matrix is not None else rules

    found = find_tables(lines, pno, rect.width, collect_rules, run.config.table_finder)
    tables = join_split_tables(found, lines)
    blocks = _blocks(words, pno, [t.bbox for t in tables])
    info = PageInfo(**info_kw, n_words=len(words), n_blocks=len(blocks), n_tables=len(tables))
    contexts = scan_page_scales(tables, lines) if tables else []
    on_page = tuple(PageTable(t, c.scale, c.heading) for t, c in zip(tables, contexts, strict=True))
    cover = tuple(_printed_lines(words, pno)) if pno <= COVER_PAGES else ()
    return PageResult(info, tuple(blocks), on_page, len(words), document_default(lines), cover)


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


def _label_key(taxonomy: Taxonomy) -> Callable[[str], str]:
    """Compare row labels by metric where the taxonomy knows them, else by their normalised text."""

    def key(label: str) -> str:
        m = taxonomy.match(label)
        return m.id if m is not None else normalise_label(label)

    return key


def _read_pages(opened: Opened) -> Pages:
    """Stage ``pages``: words, lines, blocks and raw tables of every page, each table with its context.

    Raises:
        DocumentError: No page could be read at all.
    """
    run = opened.run
    errors: list[ErrorRecord] = []
    info: list[PageInfo] = []
    blocks: list[Block] = []
    tables: list[tuple[PageTable, ...]] = []
    defaults: dict[int, ScaleResolution] = {}
    cover: list[Block] = []
    words = 0
    for page in iter_pages(opened.doc, run, errors):
        info.append(page.info)
        words += page.words
        blocks.extend(page.blocks)
        cover.extend(page.cover)
        tables.append(page.tables)
        if page.default_scale is not None:
            defaults[page.info.page] = page.default_scale
    failed = [e for e in errors if e.category == "page_error"]
    if failed and not info:
        first = failed[0]
        raise DocumentError(
            "corrupt", f"no page could be read ({len(failed)} failed; page {first.page}: {first.message})"
        )
    if info and all(not p.has_text_layer for p in info):
        errors.append(run.error("parse", "no_text_layer", "no page of the document has a text layer"))
    return Pages(run, tuple(info), tuple(blocks), tuple(tables), defaults, words, tuple(errors), tuple(cover))


def _identity(pages: Pages) -> Identified:
    """Stage ``identity``: issuer, identifiers, form and period end, from the first pages' printed lines."""
    read = sum(1 for p in pages.page_info if p.page <= COVER_PAGES and p.has_text_layer)
    return _extend(Identified, pages, identity=read_identity(pages.cover, pages_read=read))


def _starting(first: RawTable, on_its_page: Sequence[PageTable]) -> PageTable:
    """The page table a logical table starts with.

    Found by identity: stitching hands back the very tables the page found, and a :class:`RawTable` is a
    mutable record compared by value, so two tables of one page printed alike would be equal.
    """
    for found in on_its_page:
        if found.raw is first:
            return found
    raise LookupError(f"a table of page {first.page} that its page did not find")


def _type_tables(pages: Identified) -> Tables:
    """Stage ``tables``: tables stitched across pages, their scales resolved, their cells typed."""
    run = pages.run
    read = list(zip(pages.page_info, pages.page_tables, strict=True))
    by_page = {p.page: found for p, found in read}
    heights = {p.page: p.height for p in pages.page_info}
    groups = stitch_pages(
        [([t.raw for t in found], p.height) for p, found in read], page_furniture(pages.blocks, heights)
    )
    starts = [_starting(g.first, by_page[g.first.page]) for g in groups]
    stated = [start.scale for start in starts]
    resolved = resolve_group_scales([g.fragments for g in groups], stated, pages.defaults)
    tables: list[Table] = []
    headings: dict[str, str] = {}
    errors: list[ErrorRecord] = []
    for i, (g, start, scale) in enumerate(zip(groups, starts, resolved, strict=True)):
        try:
            table_id = stable_id(run.doc_id, "table", i)
            tables.append(type_group(g, doc_id=run.doc_id, source=run.source, table_id=table_id, scale=scale))
            headings[table_id] = start.heading
        except Exception as exc:  # a table that cannot be typed is reported, the rest go on
            raise_if_out_of_memory(exc)
            errors.append(run.error("tables", "table_error", f"{type(exc).__name__}: {exc}", g.first.page))
    typed = infer_missing_scales(tables, _label_key(run.taxonomy))
    return _extend(Tables, pages, tables=tuple(typed), headings=headings, errors=(*pages.errors, *errors))


def _second_opinion(tables: Tables) -> Tables:
    """Stage ``second_opinion``: pdfplumber re-reads ruled tables (when configured) for their confidence."""
    config = tables.run.config
    if not config.plumber_second_opinion:
        return tables
    reread = second_opinion(tables.run.data, list(tables.tables), max_pages=config.plumber_max_pages)
    return replace(tables, tables=tuple(reread))


def _chunks(tables: Tables) -> Chunks:
    """Stage ``chunks``: blocks classified (headings, text) and cut into heading-aware chunks, with tables."""
    run = tables.run
    blocks = classify_blocks(tables.blocks)
    chunks = build_chunks(
        blocks, tables.tables, doc_id=run.doc_id, source=run.source, max_tokens=run.config.chunk_max_tokens
    )
    text = tuple(b for b in blocks if b.kind == "text")
    return _extend(Chunks, tables, chunks=tuple(chunks), text_blocks=text)


def _facts(chunks: Chunks) -> Facts:
    """Stage ``facts``: key facts from the tables, then from the narrative.

    A sentence that names no fiscal year is read as of the latest one the tables' facts have.
    """
    run = chunks.run
    facts = extract_facts(chunks.tables, run.taxonomy)
    years = [f.period.fiscal_year for f in facts if f.period is not None and f.period.fiscal_year]
    facts += extract_text_facts(
        chunks.text_blocks,
        run.taxonomy,
        doc_id=run.doc_id,
        source=run.source,
        default_year=max(years) if years else None,
    )
    errors = (*chunks.errors, *scale_errors(chunks.tables, facts))
    return _extend(Facts, chunks, facts=tuple(facts), errors=errors)


def _statements(facts: Facts) -> Statements:
    """Stage ``statements``: statements as calculation trees; each fact gets its role, parent, statement."""
    taxonomy = facts.run.taxonomy
    trees = build_statements(facts.tables, facts.headings, taxonomy)
    more = equity_statement_facts(facts.tables, trees, taxonomy)
    annotated = annotate_facts([*facts.facts, *more], trees)
    return _extend(Statements, facts, statements=tuple(trees), facts=tuple(annotated))


STAGES: tuple[Stage[Any, Any], ...] = (
    Stage("pages", _read_pages, "parse"),
    Stage("identity", _identity, "parse"),
    Stage("tables", _type_tables, "parse"),
    Stage("second_opinion", _second_opinion, "parse"),
    Stage("chunks", _chunks, "parse"),
    Stage("facts", _facts, "parse"),
    Stage("statements", _statements, "parse"),
    Stage("checks", run_checks, "checks"),
)
"""Every stage, in order; each one's input is the output of the one before, except that the checks read
the :class:`~schemas.models.DocumentResult` assembled from the last parse stage's :class:`Statements`.
Each stage's wall time goes into ``DocumentStats.stage_seconds`` under its name (the checks add how much
of theirs the localization took, ``localize``)."""


def _run_stages(phase: Literal["parse", "checks"], value: Any, timings: dict[str, float]) -> Any:
    """Run the stages of ``phase`` in order from ``value``, each one's wall time into ``timings``."""
    for stage in STAGES:
        if stage.phase == phase:
            t = time.monotonic()
            value = stage.run(value)
            timings[stage.name] = round(time.monotonic() - t, 4)
    return value


def parse_bytes(data: bytes, *, source: str, config: EngineConfig | None = None) -> DocumentResult:
    """Parse one PDF held in memory into tables, chunks and facts: the ``parse`` stages, no checks.

    Arguments are those of :func:`process_bytes`; ``result.failed`` tells whether the document could not
    be processed at all.
    """
    cfg = config or EngineConfig()
    t0 = time.monotonic()
    doc_id = document_id(data)
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
            run = Run(doc_id, source, data, cfg, t0 + cfg.timeout_s, load_taxonomy())
            return _process_open(Opened(run, doc), t0)
    except DocumentError as exc:  # opened, but nothing in it could be read
        return rejected(exc, "parse")
    finally:
        doc.close()
        pymupdf.TOOLS.store_shrink(100)


def process_bytes(data: bytes, *, source: str, config: EngineConfig | None = None) -> DocumentResult:
    """Run the whole engine on one PDF held in memory: :func:`parse_bytes`, then the ``checks`` stages.

    Args:
        data: The PDF's bytes.
        source: File name or object key, carried on every record.
        config: Limits and tuning; defaults when None.

    Returns:
        The document's tables, chunks, facts, flags and errors. ``result.failed`` tells whether the
        document could not be processed at all.
    """
    with claims_cache():  # parse and the checks read the same narrative: parse each block once
        parsed = parse_bytes(data, source=source, config=config)
        if parsed.failed:
            return parsed
        timings: dict[str, float] = {}
        checked: Checked = _run_stages("checks", parsed, timings)
        return flagged(checked, timings)


def _process_open(opened: Opened, t0: float) -> DocumentResult:
    """The ``parse`` stages over an open PDF, and the result they add up to."""
    timings: dict[str, float] = {}
    done: Statements = _run_stages("parse", opened, timings)
    # MuPDF contains some failures itself (a font it cannot load is replaced) and only warns: a failed
    # allocation among them means parts of the document are missing for want of memory.
    warnings = pymupdf.TOOLS.mupdf_warnings(reset=False)
    if allocation_failed(warnings):
        oom = next(line for line in warnings.splitlines() if allocation_failed(line))
        raise MemoryError(f"MuPDF ran out of memory and left parts of the document out: {oom}")
    return _result(done, opened.doc.page_count, timings, t0)


def _result(done: Statements, pages: int, timings: dict[str, float], t0: float) -> DocumentResult:
    """The parsed document: what the stages handed on, with its statistics."""
    run = done.run
    stats = DocumentStats(
        pages=pages,
        pages_parsed=sum(1 for p in done.page_info if p.has_text_layer),
        words=done.words,
        tables=len(done.tables),
        facts=len(done.facts),
        chunks=len(done.chunks),
        errors=len(done.errors),
        seconds=round(time.monotonic() - t0, 4),
        stage_seconds=timings,
    )
    log.bind(doc_id=run.doc_id[:12], source=run.source).debug("document processed", **stats.model_dump())
    return DocumentResult(
        doc_id=run.doc_id,
        source=run.source,
        pipeline_version=PIPELINE_VERSION,
        page_info=list(done.page_info),
        tables=list(done.tables),
        chunks=list(done.chunks),
        facts=list(done.facts),
        blocks=list(done.text_blocks),
        statements=list(done.statements),
        errors=list(done.errors),
        stats=stats,
        identity=done.identity,
    )


def identify_bytes(data: bytes, config: EngineConfig | None = None) -> DocumentIdentity:
    """Only the ``identity`` stage, on the first pages (:data:`COVER_PAGES`) of a PDF held in memory.

    What :func:`parse_bytes` puts in ``DocumentResult.identity``, at the cost of reading a few pages'
    words (the identity benchmark's way of reading a corpus). A page that cannot be read is skipped.

    Raises:
        DocumentError: The PDF cannot be opened.
    """
    doc = open_document(data, config or EngineConfig())
    lines: list[Block] = []
    read = 0
    try:
        for i in range(min(doc.page_count, COVER_PAGES)):
            try:
                page = doc.load_page(i)
                words = _page_words(page, _matrix(page))
            except Exception as exc:  # a bad page is left out, as the pages stage leaves it
                raise_if_out_of_memory(exc)
                continue
            read += bool(words)
            lines += _printed_lines(words, i + 1)
    finally:
        doc.close()
    return read_identity(lines, pages_read=read)


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
