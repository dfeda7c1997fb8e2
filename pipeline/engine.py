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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import partial
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

import pymupdf
import structlog

from pipeline.checks.stage import Checked, flagged, run_checks, verify
from pipeline.config import PIPELINE_VERSION, EngineConfig
from pipeline.failures import allocation_failed, raise_if_out_of_memory
from pipeline.figures.facts import extract_facts, other_figures
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy, normalise_label
from pipeline.figures.text_facts import extract_text_facts
from pipeline.ids import document_id, stable_id
from pipeline.memo import document_scope
from pipeline.parse.chunks import build_chunks, classify_blocks
from pipeline.parse.cover_ocr import ocr_lines
from pipeline.parse.identity import COVER_PAGES, read_identity
from pipeline.parse.plumber import second_opinion
from pipeline.parse.scales import (
    ScaleResolution,
    resolve_group_scales,
    scale_errors,
)
from pipeline.parse.stitch import page_furniture, stitch_pages
from pipeline.parse.structure import infer_missing_scales, type_group
from pipeline.parse.table_types import RawTable
from pipeline.reader import (
    DocumentError,
    PageResult,
    PageTable,
    Run,
    cover_lines,
    iter_pages,
    open_document,
)
from pipeline.statements.build import annotate_facts, build_statements
from pipeline.statements.equity import equity_statement_facts
from schemas.models import (
    Block,
    Chunk,
    DocumentIdentity,
    DocumentResult,
    DocumentStats,
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
    ocr = partial(ocr_lines, pages.run.data)  # called only for a cover whose text layer does not read
    return _extend(Identified, pages, identity=read_identity(pages.cover, pages_read=read, ocr=ocr))


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
    entities = {t.table_id: t.entity for t in trees}
    annotated = other_figures(annotate_facts([*facts.facts, *more], trees), entities)
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
        with document_scope():
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
    with document_scope():  # parse and the checks read the same blocks and tables: each read once
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
    try:
        lines, read = cover_lines(doc, COVER_PAGES)
    finally:
        doc.close()
    return read_identity(lines, pages_read=read, ocr=partial(ocr_lines, data))


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
