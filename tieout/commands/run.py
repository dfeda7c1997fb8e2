"""The embedded commands: ``run`` (PDFs in, JSONL out, no servers) and ``annotate`` (a tick-and-tie copy).

The worker pool, the outputs, the progress bars and MuPDF are imported inside the commands that use them:
every command module is imported for every command, and the restarted ``tieout consume`` services should
not pay for them at start-up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table as RichTable

from pipeline.config import EngineConfig
from pipeline.ids import document_id
from tieout.commands import common
from tieout.commands.common import collect_inputs, console, fail, refused

if TYPE_CHECKING:
    from rich.progress import Progress

    from adapters.files import JsonlOutputs
    from adapters.history.sqlite import SqliteHistory, StoredDocument
    from schemas.models import DocumentResult, DocumentStats, ErrorCategory

__all__ = ["annotate", "run"]


def run(
    paths: Annotated[list[Path], typer.Argument(help="PDF files or folders of PDFs.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the JSONL results.")] = Path("out"),
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    timeout: common.Timeout = 300.0,
    max_pages: common.MaxPages = 3000,
    max_mb: common.MaxMb = 256,
    chunk_tokens: Annotated[int, typer.Option(help="Upper bound of a chunk's tokens.")] = 400,
    memory_mb: common.MemoryMb = common.MEMORY_MB,
    cpu_s: common.CpuS = None,
    max_open_files: common.OpenFiles = common.OPEN_FILES,
    max_output_mb: common.OutputMb = common.OUTPUT_MB,
    history: Annotated[
        Path | None,
        typer.Option(
            help=(
                "Folder of the issuers' published figures (one SQLite file, kept across runs): each document "
                "is compared with its issuer's earlier documents there (PRI001, PRI002), and with its "
                "previous version there (same issuer, form and period: changes.jsonl, VER001)."
            )
        ),
    ] = None,
) -> None:
    """Process PDFs in killable worker processes under quotas (no servers); write the results as JSONL."""
    from contextlib import closing, nullcontext

    from adapters.files import JsonlOutputs
    from adapters.history.published import record_document
    from adapters.history.sqlite import SqliteHistory
    from adapters.workers.isolation import Job, run_isolated

    files = collect_inputs(paths)
    if not files:
        console.print("[yellow]No PDF files found.[/]")
        raise typer.Exit(0)
    config = EngineConfig(
        timeout_s=timeout,
        max_pages=max_pages,
        max_bytes=max_mb * common.MIB,
        chunk_max_tokens=chunk_tokens,
        **common.quotas(memory_mb, cpu_s, max_open_files, max_output_mb),
    )
    jobs = [Job(i, f, f.name) for i, f in enumerate(files)]
    # A result is dropped once written, its summary row kept (with a history, whose comparison of versions
    # reads every result at the end, it is kept too): holding every document's tables until the run ended
    # made each garbage collection of this process walk all of them, most of its CPU beside the workers.
    pending: dict[int, DocumentResult] = {}  # done, waiting for the documents before it to be written
    rows: list[_Row] = []
    kept: list[DocumentResult] = []
    started = time.monotonic()
    stored: list[StoredDocument] = []
    with (
        closing(SqliteHistory(history)) if history is not None else nullcontext() as store,
        JsonlOutputs(out) as outputs,
        _progress() as progress,
    ):
        task = progress.add_task("starting", total=len(jobs))
        for job, result in run_isolated(jobs, config, workers=workers):
            pending[job.index] = result
            progress.update(task, advance=1, description=job.source)
            # Write in input order so that output files are deterministic whatever the worker count.
            while len(rows) in pending:
                done = pending.pop(len(rows))
                outputs.write(done)
                rows.append(_Row.of(done))
                if store is not None:
                    kept.append(done)
                    if (doc := record_document(store, done)) is not None:
                        stored.append(doc)
        if store is not None:
            # Across documents once all are in the history: a folder of several years ties out whatever
            # order its files were processed in.
            _across(store, stored, outputs)
            _versions(store.path.parent, kept, outputs)
    elapsed = time.monotonic() - started
    failed = _summary(rows, elapsed, out, outputs.counts)
    raise typer.Exit(1 if failed else 0)


def _progress() -> Progress:
    """The run's progress bar: documents done of all, the last one's name, the time taken."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]tieout[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def _across(store: SqliteHistory, stored: list[StoredDocument], outputs: JsonlOutputs) -> None:
    """Compare each document of the run with its issuer's earlier ones; write the flags; print the counts."""
    from adapters.history.published import check_against_history

    counts: dict[str, int] = {"compared": 0, "agree": 0, "restatement": 0, "inconsistency": 0}
    for doc in stored:
        report, flags = check_against_history(store, doc)
        outputs.add("flags", flags)
        counts["compared"] += report.compared
        for verdict in ("agree", "restatement", "inconsistency"):
            counts[verdict] += report.count(verdict)
    console.print(
        f"prior periods: {len(stored)} document(s) with issuer and period end in {store.path}; "
        f"{counts['compared']} figures printed before, {counts['agree']} agree, "
        f"{counts['restatement']} restated (PRI002), {counts['inconsistency']} inconsistent (PRI001)"
    )


def _versions(history: Path, results: list[DocumentResult], outputs: JsonlOutputs) -> None:
    """Compare each document with its previous version in the history folder; write changes and flags.

    Versions of one document share a :attr:`~schemas.models.DocumentIdentity.version_key` (issuer, form
    family, period) and are listed in the history in the order they came, this run's in input order: each
    is compared with the version before it (:func:`previous_version`, :func:`diff_documents`: the sink's
    rule and diff), whether that came earlier in this run or in an earlier one. What changed goes to
    ``changes.jsonl``, one :class:`~schemas.models.DocumentChanges` per later version, and the ties the
    changes broke to ``flags.jsonl`` as VER001 flags of the later version.
    """
    from contextlib import closing

    from adapters.history.versions import SqliteVersions
    from pipeline.across import diff_documents
    from pipeline.across.versions import previous_version

    compared = broken = 0
    with closing(SqliteVersions(history)) as versions:
        for result in results:
            key = result.identity.version_key if result.identity is not None and not result.failed else None
            if key is None:
                continue
            listed = versions.listed(key)
            at, joins = previous_version(listed, result.doc_id)
            if joins:
                versions.add(key, result)
            old = versions.result(key, listed[at]) if at is not None else None
            if old is None:
                continue
            changes = diff_documents(old, result)
            outputs.add("changes", [changes])
            outputs.add("flags", changes.flags)
            compared += 1
            broken += len(changes.flags)
    if compared:
        console.print(
            f"versions: {compared} document(s) compared with their previous version; "
            f"{broken} tie(s) broken since (VER001) -> changes.jsonl"
        )


@dataclass(frozen=True, slots=True)
class _Row:
    """What the run's table shows of one document: its source, statistics, first fatal error and flags."""

    source: str
    stats: DocumentStats
    fatal: ErrorCategory | None
    flagged: bool

    @classmethod
    def of(cls, result: DocumentResult) -> _Row:
        """The row of a document's result."""
        fatal = next((e.category for e in result.errors if e.fatal), None)
        return cls(result.source, result.stats, fatal, bool(result.flags))


def _summary(results: list[_Row], elapsed: float, out: Path, counts: dict[str, int]) -> int:
    """Print a run's table, totals and failures; the number of documents that could not be processed."""
    from adapters.workers.quotas import QUOTA_CATEGORIES

    table = RichTable(title="tieout run", show_lines=False)
    for col in ("document", "pages", "tables", "facts", "flags", "chunks", "errors", "status"):
        table.add_column(col, justify="left" if col in ("document", "status") else "right")
    failed: dict[str, int] = {}
    pages = 0
    for r in results:
        if r.fatal is not None:
            failed[r.fatal] = failed.get(r.fatal, 0) + 1
        status = (
            f"[red]failed: {r.fatal}[/]"
            if r.fatal is not None
            else ("[yellow]flags[/]" if r.flagged else "[green]ok[/]")
        )
        pages += r.stats.pages_parsed
        table.add_row(
            r.source,
            str(r.stats.pages),
            str(r.stats.tables),
            str(r.stats.facts),
            str(r.stats.flags),
            str(r.stats.chunks),
            str(r.stats.errors),
            status,
        )
    console.print(table)
    rate = pages / elapsed if elapsed > 0 else 0.0
    console.print(
        f"{len(results)} documents, {pages} pages in {elapsed:.1f}s ({rate:.1f} pages/s); "
        f"{counts['facts']} facts, {counts['flags']} flags, {counts['errors']} errors -> {out}/"
    )
    if failed:
        by = ", ".join(f"{c} {n}" for c, n in sorted(failed.items()))
        n = sum(failed.values())
        console.print(f"[red]{n} document(s) could not be processed ({by}); see {out}/errors.jsonl[/]")
    if QUOTA_CATEGORIES & failed.keys():
        console.print(
            "[yellow]over a worker quota: --memory-mb, --cpu-s, --max-open-files, --max-output-mb and "
            "--timeout give more room[/]"
        )
    return sum(failed.values())


def annotate(
    pdf: Annotated[Path, typer.Argument(help="The PDF to mark up.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Annotated copy (default out/<name>.annotated.pdf).")
    ] = None,
    results: Annotated[
        Path | None,
        typer.Option(
            help="Folder of an earlier `tieout run --out`: mark its flags instead of parsing again "
            "(breaks only: those files carry no calculation trees, so nothing is ticked)."
        ),
    ] = None,
    reviews: Annotated[
        Path | None,
        typer.Option(
            help="A reviewed `tieout run` folder: draw its analysts' decisions (dismissed breaks cleared "
            "with their reason, confirmed ones confirmed; who and when in the summary)."
        ),
    ] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed for parsing the document.")] = 300.0,
    max_pages: common.MaxPages = 3000,
    max_mb: common.MaxMb = 256,
) -> None:
    """Write a tick-and-tie copy of a PDF: the figures the checks confirmed ticked, the breaks marked."""
    from adapters.review.tickmarks import AnnotateError, annotate_pdf
    from pipeline.rewards.regressions import standing
    from tieout.commands.review import review_store

    if not pdf.is_file():
        raise typer.BadParameter(f"{pdf} is not a file", param_hint="PDF")
    for folder, hint in ((results, "--results"), (reviews, "--reviews")):
        if folder is not None and not folder.is_dir():
            raise typer.BadParameter(f"{folder} is not a folder", param_hint=hint)
    with refused(FileNotFoundError):
        decisions = standing(review_store(reviews, False, None).latest_decisions()) if reviews else {}
    target = out or Path("out") / f"{pdf.stem}.annotated.pdf"
    data = pdf.read_bytes()
    started = time.monotonic()
    result = _checked(
        pdf,
        data,
        results,
        EngineConfig(timeout_s=timeout, max_pages=max_pages, max_bytes=max_mb * common.MIB),
    )
    try:
        with console.status(f"annotating {pdf.name}..."):
            marked = annotate_pdf(data, result, decisions)
    except AnnotateError as exc:
        raise fail(f"cannot annotate {pdf.name}: {exc.category}: {exc.message}", 1) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(marked.pdf)
    c = marked.counts
    by_rule = ", ".join(f"{r} {n}" for r, n in c.breaks_by_rule.items())
    seconds = time.monotonic() - started
    console.print(
        f"{pdf.name}: {c.ticks} figure(s) ticked, {c.breaks} break(s){f' ({by_rule})' if by_rule else ''}, "
        f"{c.links} link(s), {c.summary_pages} summary page(s) in {seconds:.1f}s -> {target}"
    )
    if reviews is not None:
        console.print(f"decisions drawn: {c.confirmed} confirmed, {c.cleared} dismissed (cleared)")
    if c.moved:
        console.print(f"{c.moved} note(s) had no free place on their page: listed in the summary")
    if not c.trees:
        console.print("[yellow]no calculation trees in these results: breaks only, nothing ticked[/]")


def _checked(pdf: Path, data: bytes, results: Path | None, config: EngineConfig) -> DocumentResult:
    """The checked document to annotate: an earlier run's records of it, or a fresh parse under ``config``.

    Args:
        pdf: The PDF (for its name, and to parse).
        data: Its bytes (its document id names it in an earlier run's files).
        results: The folder of an earlier ``tieout run``, or None to parse the PDF now.
        config: The engine's limits for parsing it.

    Returns:
        The document's result.

    Raises:
        typer.Exit: ``results`` holds nothing for this PDF.
    """
    from adapters.files import load_document
    from adapters.workers.isolation import Job, run_isolated

    if results is not None:
        found = load_document(results, document_id(data))
        if found is None:
            raise fail(f"{results} holds no results for {pdf.name} (run `tieout run` on it first)", 1)
        return found
    with console.status(f"parsing and checking {pdf.name}..."):
        # The engine runs in a killable worker, as for `tieout run`: a hostile PDF cannot hang the CLI.
        _, result = next(run_isolated([Job(0, pdf, pdf.name)], config))
    return result
