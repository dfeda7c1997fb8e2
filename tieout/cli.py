"""The ``tieout`` command line."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table as RichTable

from adapters.logs import configure_logging
from adapters.settings import Settings
from pipeline.config import EngineConfig

# Each command imports what only it needs where it runs: `tieout consume` starts (and restarts) services,
# whose start-up should not pay for the embedded run's worker pool, outputs and progress bars.
if TYPE_CHECKING:
    import uvicorn

    from adapters.review.store import ReviewStore
    from console.app import ConsoleConfig
    from consumers.runner import Incoming
    from schemas.models import DocumentResult

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Tie out financial documents.")
console = Console(stderr=True)


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False) -> None:
    configure_logging("DEBUG" if verbose else None)


def collect_inputs(paths: list[Path]) -> list[Path]:
    """Files named directly, and every ``*.pdf`` under folders, in a stable order."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() == ".pdf"))
        elif p.exists():
            files.append(p)
        else:
            raise typer.BadParameter(f"{p} does not exist", param_hint="PATH")
    seen: set[Path] = set()
    unique = []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            unique.append(f)
    return unique


_MiB = 1024 * 1024
_DEFAULTS = EngineConfig()
# Worker quotas (adapters/workers/quotas.py), shared by `run` and `consume`; each also read from the
# environment.
MemoryMb = Annotated[
    int,
    typer.Option(
        "--memory-mb",
        envvar="TIEOUT_MEMORY_MB",
        help="Address space of a worker process in MiB (RLIMIT_AS; 0: no limit); beyond it: memory_limit.",
    ),
]
CpuS = Annotated[
    float | None,
    typer.Option(
        "--cpu-s",
        envvar="TIEOUT_CPU_S",
        help="CPU seconds per document in a worker (RLIMIT_CPU; default: the timeout); beyond: cpu_limit.",
    ),
]
OpenFiles = Annotated[
    int,
    typer.Option(
        "--max-open-files",
        envvar="TIEOUT_MAX_OPEN_FILES",
        help="Open files of a worker process (RLIMIT_NOFILE); beyond them: file_limit.",
    ),
]
OutputMb = Annotated[
    int,
    typer.Option(
        "--max-output-mb",
        envvar="TIEOUT_MAX_OUTPUT_MB",
        help="Largest result a worker may return, in MiB of JSON; beyond it: output_too_large.",
    ),
]


def _quotas(memory_mb: int, cpu_s: float | None, open_files: int, output_mb: int) -> dict[str, Any]:
    """The EngineConfig fields of the worker quotas given on the command line."""
    return {
        "max_memory_bytes": memory_mb * _MiB if memory_mb > 0 else None,
        "max_cpu_s": cpu_s,
        "max_open_files": open_files,
        "max_output_bytes": output_mb * _MiB,
    }


_MEMORY_MB = (_DEFAULTS.max_memory_bytes or 0) // _MiB
_OUTPUT_MB = _DEFAULTS.max_output_bytes // _MiB


@app.command()
def run(
    paths: Annotated[list[Path], typer.Argument(help="PDF files or folders of PDFs.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the JSONL results.")] = Path("out"),
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    timeout: Annotated[float, typer.Option(help="Seconds allowed per document.")] = 300.0,
    max_pages: Annotated[int, typer.Option(help="Reject documents with more pages.")] = 3000,
    max_mb: Annotated[int, typer.Option(help="Reject files larger than this many MiB.")] = 256,
    chunk_tokens: Annotated[int, typer.Option(help="Upper bound of a chunk's tokens.")] = 400,
    memory_mb: MemoryMb = _MEMORY_MB,
    cpu_s: CpuS = None,
    max_open_files: OpenFiles = _DEFAULTS.max_open_files,
    max_output_mb: OutputMb = _OUTPUT_MB,
) -> None:
    """Process PDFs in killable worker processes under quotas (no servers); write the results as JSONL."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from adapters.files import JsonlOutputs
    from adapters.workers.isolation import Job, run_isolated

    files = collect_inputs(paths)
    if not files:
        console.print("[yellow]No PDF files found.[/]")
        raise typer.Exit(0)
    config = EngineConfig(
        timeout_s=timeout,
        max_pages=max_pages,
        max_bytes=max_mb * 1024 * 1024,
        chunk_max_tokens=chunk_tokens,
        **_quotas(memory_mb, cpu_s, max_open_files, max_output_mb),
    )
    jobs = [Job(i, f, f.name) for i, f in enumerate(files)]
    results: dict[int, DocumentResult] = {}
    started = time.monotonic()
    with (
        JsonlOutputs(out) as outputs,
        Progress(
            TextColumn("[bold]tieout[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        ) as progress,
    ):
        task = progress.add_task("starting", total=len(jobs))
        next_to_write = 0
        for job, result in run_isolated(jobs, config, workers=workers):
            results[job.index] = result
            progress.update(task, advance=1, description=job.source)
            # Write in input order so that output files are deterministic whatever the worker count.
            while next_to_write in results:
                outputs.write(results[next_to_write])
                next_to_write += 1
    elapsed = time.monotonic() - started
    failed = _summary([results[i] for i in range(len(jobs))], elapsed, out, outputs.counts)
    raise typer.Exit(1 if failed else 0)


def _summary(results: list[DocumentResult], elapsed: float, out: Path, counts: dict[str, int]) -> int:
    from adapters.workers.quotas import QUOTA_CATEGORIES

    table = RichTable(title="tieout run", show_lines=False)
    for col in ("document", "pages", "tables", "facts", "flags", "chunks", "errors", "status"):
        table.add_column(col, justify="left" if col in ("document", "status") else "right")
    failed: dict[str, int] = {}
    pages = 0
    for r in results:
        fatal = [e for e in r.errors if e.fatal]
        if fatal:
            failed[fatal[0].category] = failed.get(fatal[0].category, 0) + 1
        status = (
            f"[red]failed: {fatal[0].category}[/]"
            if fatal
            else ("[yellow]flags[/]" if r.flags else "[green]ok[/]")
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


@app.command()
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
    timeout: Annotated[float, typer.Option(help="Seconds allowed for parsing the document.")] = 300.0,
    max_pages: Annotated[int, typer.Option(help="Reject documents with more pages.")] = 3000,
    max_mb: Annotated[int, typer.Option(help="Reject files larger than this many MiB.")] = 256,
) -> None:
    """Write a tick-and-tie copy of a PDF: the figures the checks confirmed ticked, the breaks marked."""
    from adapters.files import load_document
    from adapters.review.tickmarks import AnnotateError, annotate_pdf
    from adapters.workers.isolation import Job, run_isolated
    from pipeline.ids import document_id

    if not pdf.is_file():
        raise typer.BadParameter(f"{pdf} is not a file", param_hint="PDF")
    if results is not None and not results.is_dir():
        raise typer.BadParameter(f"{results} is not a folder", param_hint="--results")
    target = out or Path("out") / f"{pdf.stem}.annotated.pdf"
    data = pdf.read_bytes()
    started = time.monotonic()
    if results is not None:
        result = load_document(results, document_id(data))
        if result is None:
            console.print(f"[red]{results} holds no results for {pdf.name} (run `tieout run` on it first)[/]")
            raise typer.Exit(1)
    else:
        config = EngineConfig(timeout_s=timeout, max_pages=max_pages, max_bytes=max_mb * 1024 * 1024)
        with console.status(f"parsing and checking {pdf.name}..."):
            # The engine runs in a killable worker, as for `tieout run`: a hostile PDF cannot hang the CLI.
            _, result = next(run_isolated([Job(0, pdf, pdf.name)], config))
    try:
        with console.status(f"annotating {pdf.name}..."):
            marked = annotate_pdf(data, result)
    except AnnotateError as exc:
        console.print(f"[red]cannot annotate {pdf.name}: {exc.category}: {exc.message}[/]")
        raise typer.Exit(1) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(marked.pdf)
    c = marked.counts
    by_rule = ", ".join(f"{r} {n}" for r, n in c.breaks_by_rule.items())
    seconds = time.monotonic() - started
    console.print(
        f"{pdf.name}: {c.ticks} figure(s) ticked, {c.breaks} break(s){f' ({by_rule})' if by_rule else ''}, "
        f"{c.links} link(s), {c.summary_pages} summary page(s) in {seconds:.1f}s -> {target}"
    )
    if not c.trees:
        console.print("[yellow]no calculation trees in these results: breaks only, nothing ticked[/]")


schemas_app = typer.Typer(
    help="The records' JSON Schemas: write them, or register the topics' in a registry."
)
app.add_typer(schemas_app, name="schemas")


@schemas_app.callback(invoke_without_command=True)
def schemas(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="Folder for the JSON Schema files.")] = Path(
        "schemas/json"
    ),
) -> None:
    """Write the JSON Schema of every record (`tieout schemas register`: the topics' into a registry)."""
    if ctx.invoked_subcommand is not None:
        return
    from schemas.export import write_json_schemas

    for p in write_json_schemas(out):
        console.print(f"wrote {p}")


@schemas_app.command("register")
def schemas_register(
    registry: Annotated[
        str | None,
        typer.Option(
            "--registry",
            help="Schema registry API root (Confluent-compatible), e.g. "
            "http://127.0.0.1:8080/apis/ccompat/v7. "
            "Default: SCHEMA_REGISTRY_URL, else the one in .tieout/registry.env (infra/registry.sh up).",
        ),
    ] = None,
    compatibility: Annotated[
        str, typer.Option(help="Level set on subjects that have none of their own.")
    ] = "BACKWARD",
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
) -> None:
    """Register every topic's JSON Schema under <topic>-value; idempotent (same schema, same id)."""
    from adapters.registry import RegistryError, SchemaRegistry, register_topics, topic_schemas
    from adapters.settings import DEFAULT_ENV_FILE, read_env_file

    settings = Settings.load(env_file)
    local = (env_file or DEFAULT_ENV_FILE).with_name("registry.env")  # infra/registry.sh writes it
    url = registry or settings.schema_registry_url or read_env_file(local).get("SCHEMA_REGISTRY_URL")
    if not url:
        console.print(
            "[red]no registry: pass --registry URL, set SCHEMA_REGISTRY_URL or run infra/registry.sh up[/]"
        )
        raise typer.Exit(2)

    async def go() -> dict[str, int]:
        async with SchemaRegistry(url) as client:
            return await register_topics(client, topic_schemas(settings.topic), compatibility=compatibility)

    try:
        ids = asyncio.run(go())
    except RegistryError as exc:
        console.print(f"[red]{type(exc).__name__}: {exc}[/]")
        raise typer.Exit(1) from exc
    table = RichTable(title=f"registered in {url}")
    table.add_column("subject")
    table.add_column("schema id", justify="right")
    for topic, schema_id in ids.items():
        table.add_row(f"{topic}-value", str(schema_id))
    Console().print(table)


stack_app = typer.Typer(no_args_is_help=True, help="The local stack: Kafka and an S3 store (no Docker).")
app.add_typer(stack_app, name="stack")
REPO = Path(__file__).resolve().parent.parent


def _stack(cmd: str) -> None:
    script = REPO / "infra" / "stack.sh"
    if not script.exists():
        console.print(f"[red]{script} not found: the stack scripts ship with the repository checkout[/]")
        raise typer.Exit(2)
    raise typer.Exit(subprocess.call(["bash", str(script), cmd], cwd=REPO))


@stack_app.command("up")
def stack_up() -> None:
    """Fetch (once) and start Kafka and the S3 store; writes .tieout/stack.env."""
    _stack("up")


@stack_app.command("down")
def stack_down() -> None:
    """Stop the local stack (data is kept)."""
    _stack("down")


@stack_app.command("status")
def stack_status() -> None:
    """Health of each service of the local stack."""
    _stack("status")


@stack_app.command("env")
def stack_env() -> None:
    """Print the connection settings of the local stack."""
    _stack("env")


@app.command()
def consume(
    stage: Annotated[str, typer.Argument(help="parse | verify | sink")],
    worker_id: Annotated[
        str | None,
        typer.Option(
            help="Stable, unique id of this worker (default: <hostname>-<slot>, one slot per process)."
        ),
    ] = None,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed per document.")] = 300.0,
    memory_mb: MemoryMb = _MEMORY_MB,
    cpu_s: CpuS = None,
    max_open_files: OpenFiles = _DEFAULTS.max_open_files,
    max_output_mb: OutputMb = _OUTPUT_MB,
) -> None:
    """Run a Kafka service until SIGTERM: parse (landing -> parsed), verify (-> facts, flags), sink.

    The quota options bound the parse service's worker process; the other stages ignore them.
    """
    from consumers.wiring import INPUT_TOPIC, run_service

    if stage not in INPUT_TOPIC:
        raise typer.BadParameter("choose parse, verify or sink", param_hint="STAGE")
    settings = Settings.load(env_file)
    if worker_id:
        settings = settings.model_copy(update={"worker_id": worker_id})
    config = EngineConfig(timeout_s=timeout, **_quotas(memory_mb, cpu_s, max_open_files, max_output_mb))
    asyncio.run(run_service(stage, settings, config=config))


@app.command()
def submit(
    files: Annotated[list[Path], typer.Argument(help="PDF files or folders to upload.")],
    prefix: Annotated[str, typer.Option(help="Key prefix in the landing bucket.")] = "",
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
) -> None:
    """Upload PDFs to the landing bucket (and announce them when the store sends no notifications)."""
    from adapters.storage import ObjectStore, UnsafeKey
    from consumers.ingest import publish_events, s3_event, upload

    settings = Settings.load(env_file)
    paths = collect_inputs(files)
    store = ObjectStore(settings)
    try:
        done = upload(settings, store, paths, prefix)
    except UnsafeKey as exc:
        console.print(f"refused: {exc}", markup=False)
        raise typer.Exit(2) from exc
    if not settings.notifications:
        asyncio.run(publish_events(settings, [s3_event(d.bucket, d.key, d.size, d.etag) for d in done]))
    for d in done:
        console.print(f"uploaded s3://{d.bucket}/{d.key} ({d.size} bytes)", markup=False)
    console.print(f"{len(done)} file(s) submitted")


@app.command()
def reconcile(
    uri: Annotated[
        str | None, typer.Argument(help="s3://bucket/prefix to check (default: the whole landing bucket).")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Report, announce nothing.")] = False,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
) -> None:
    """Announce again every PDF without final results, whatever stage it stopped at."""
    from adapters.storage import ObjectStore
    from consumers.kafka import publish
    from consumers.ops import announcements
    from consumers.ops import reconcile as find

    settings = Settings.load(env_file)
    store = ObjectStore(settings)
    with console.status("checking objects...") as status:
        report = find(settings, store, uri, progress=lambda k: status.update(f"checking {k}"))
    for key, why in report.refused:
        console.print(f"refused {key!r}: {why}", markup=False, highlight=False)
    for bucket, key, _, _ in report.missing:
        console.print(f"{'would announce' if dry_run else 'announcing'} s3://{bucket}/{key}", markup=False)
    if report.missing and not dry_run:
        asyncio.run(publish(settings, announcements(settings, report)))
    console.print(
        f"{len(report.done)} done, {len(report.rejected)} rejected (see `tieout dlq list`), "
        f"{len(report.refused)} refused by their key (not announced; re-upload under a plain key), "
        f"{len(report.missing)} object(s) without results"
    )


@app.command()
def backfill(
    uri: Annotated[str, typer.Argument(help="s3://bucket/prefix to reconcile.")],
    dry_run: Annotated[bool, typer.Option(help="List what would be re-announced.")] = False,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
) -> None:
    """Same as ``reconcile URI`` (kept for scripts written before reconcile)."""
    reconcile(uri, dry_run=dry_run, env_file=env_file)


dlq_app = typer.Typer(no_args_is_help=True, help="The dead-letter topic: what failed, and re-driving it.")
app.add_typer(dlq_app, name="dlq")


@dlq_app.command("list")
def dlq_list(
    category: Annotated[str | None, typer.Option(help="Only this category (not_a_pdf, corrupt, …).")] = None,
    stage: Annotated[str | None, typer.Option(help="Only this stage (parse, verify, sink).")] = None,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
) -> None:
    """Count dead letters by stage and category, then list the chosen ones."""
    from consumers.ops import parse_dead, read_dlq, select, summary

    settings = Settings.load(env_file)

    async def read() -> list[Incoming]:
        records, consumer = await read_dlq(settings)
        await consumer.stop()
        return records

    dead, bad = parse_dead(asyncio.run(read()))
    for (st, cat), n in sorted(summary(dead).items()):
        console.print(f"{n:6d}  {st:8s} {cat}")
    chosen = select(dead, category=category, stage=stage)
    for d in chosen:
        letter = d.letter
        console.print(  # keys and messages are the documents' own text: no markup, shown as they are
            f"{d.partition}:{d.offset}  {letter.stage}/{letter.category}  {letter.source or '-'!r}  "
            f"{letter.message[:120]!r}",
            markup=False,
            highlight=False,
        )
    console.print(
        f"{len(chosen)} of {len(dead)} dead letter(s) shown" + (f"; {bad} unreadable" if bad else "")
    )


@dlq_app.command("replay")
def dlq_replay(
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    stage: Annotated[str | None, typer.Option(help="Only this stage.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Show what would be re-driven.")] = False,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
) -> None:
    """Send chosen dead letters back to their original topics (each letter once)."""
    from consumers.ops import replay

    settings = Settings.load(env_file)
    chosen, skipped = asyncio.run(replay(settings, category=category, stage=stage, dry_run=dry_run))
    for d in chosen:
        verb = "would replay" if dry_run else "replayed"
        console.print(f"{verb} {d.letter.stage}/{d.letter.category} {d.letter.source or '-'!r}", markup=False)
    console.print(
        f"{len(chosen)} dead letter(s) {'to replay' if dry_run else 'replayed'}, {skipped} not chosen"
    )


export_app = typer.Typer(no_args_is_help=True, help="Export datasets for ML teams.")
app.add_typer(export_app, name="export")


@export_app.command("rewards")
def export_rewards_cmd(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="PDF files or folders (default sample_docs).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("out/rewards"),
    reviews: Annotated[
        Path | None,
        typer.Option(help="A reviewed `tieout run` folder: fold its analysts' decisions into the rewards."),
    ] = None,
) -> None:
    """Reward records (JSONL + Parquet) and a prompt dataset for TRL/verl from the given documents.

    With --reviews, a dismissed flag no longer lowers its figures' consistency, a confirmed one counts
    as an error, and each judged flag becomes a labelled example for its rule (task ``check_flag``).
    """
    from adapters.rewards_dataset import build_dataset, export_dataset, export_rewards
    from pipeline.engine import process_path
    from pipeline.rewards.decisions import check_records
    from pipeline.rewards.records import build_reward_records

    try:
        judged, decisions = _folded_reviews(reviews)
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from exc
    results = []
    records = []
    for f in collect_inputs(paths or [Path("sample_docs")]):
        r = process_path(f)
        if r.failed:
            console.print(f"[yellow]skipped {f.name}: {r.errors[0].category}[/]")
            continue
        results.append(r)
        records.extend(build_reward_records(r, reviews=judged))
    flags = {f.flag_id: f for r in results for f in r.flags}
    records.extend(check_records(decisions, flags))
    written = export_rewards(records, out) + export_dataset(build_dataset(results), out)
    for p in written:
        console.print(f"wrote {p}")
    console.print(f"{len(records)} reward records from {len(results)} documents")


def _folded_reviews(reviews: Path | None) -> tuple[dict[str, Any], list[Any]]:
    """The standing decisions of a run folder's review store (by flag id), and every decision."""
    if reviews is None:
        return {}, []
    from pipeline.rewards.regressions import standing

    decisions = _review_store(reviews, False, None).latest_decisions()
    return standing(decisions), decisions


@export_app.command("reviews")
def export_reviews_cmd(
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder of a `tieout run` whose flags were reviewed.")
    ] = None,
    services: Annotated[bool, typer.Option(help="The services' decisions (PostgreSQL).")] = False,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
    dest: Annotated[Path, typer.Option("--dest", help="Where to write the cases.")] = Path("out/reviews"),
) -> None:
    """Dismissed flags as regression cases (document, pages, rule, reason) for new tests."""
    from pipeline.rewards.regressions import regression_cases

    try:
        store = _review_store(out, services, env_file)
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from exc
    decisions = store.latest_decisions("dismissed")
    flags = {d.flag_id: row.flag for d in decisions if (row := store.get(d.flag_id)) is not None}
    cases = regression_cases(decisions, flags)
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / "regression_cases.jsonl"
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(c.model_dump_json() + "\n" for c in cases), encoding="utf-8")
    tmp.replace(path)
    summary = RichTable("rule", "reason", "cases", title=f"{len(cases)} regression cases")
    by: dict[tuple[str, str], int] = {}
    for c in cases:
        by[(c.rule, c.reason)] = by.get((c.rule, c.reason), 0) + 1
    for (rule, reason), n in sorted(by.items()):
        summary.add_row(rule, reason, str(n))
    console.print(summary)
    console.print(f"wrote {path}")


review_app = typer.Typer(
    help="The analyst review console: judge flags on the evidence (serve, or `adduser` to create a login).",
)
app.add_typer(review_app, name="review")


@review_app.callback(invoke_without_command=True)
def review(
    ctx: typer.Context,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder of a `tieout run` (embedded mode).")
    ] = None,
    pdfs: Annotated[
        list[Path] | None,
        typer.Option(help="Folder(s) holding the run's PDFs (repeatable; default: the current folder)."),
    ] = None,
    services: Annotated[
        bool, typer.Option(help="Serve the services' results: flags from PostgreSQL, PDFs from the store.")
    ] = False,
    env_file: Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")] = None,
    host: Annotated[str, typer.Option(help="Address to listen on (loopback unless you mean otherwise).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8700,
    users: Annotated[Path, typer.Option(help="Users file (see `tieout review adduser`).")] = Path(
        ".tieout/review-users.json"
    ),
    secure_cookie: Annotated[bool, typer.Option(help="Mark the session cookie Secure (HTTPS only).")] = False,
    publish: Annotated[
        bool | None,
        typer.Option(
            "--publish/--no-publish",
            help="Publish decisions to the reviews topic (default: with --services; KAFKA_* settings).",
        ),
    ] = None,
) -> None:
    """Serve the review console for an embedded run (--out DIR) or for the services (--services)."""
    if ctx.invoked_subcommand is not None:
        return
    import uvicorn

    from console.app import create_app

    if (out is None) == (not services):
        raise typer.BadParameter("give --out DIR (a `tieout run` folder) or --services", param_hint="--out")
    try:
        config = _review_config(out, pdfs or [Path(".")], services, env_file, users, secure_cookie)
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from exc
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"[yellow]listening on {host}: the console is reachable from other machines[/]")
    # bind here, so that a port in use is a clear error and --port 0 can say which port it got
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        console.print(f"[red]cannot listen on {host}:{port}: {exc.strerror}; choose another --port[/]")
        raise typer.Exit(2) from exc
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    console.print(f"tieout review on http://{shown}:{bound}/ (Ctrl-C to stop)")
    server = uvicorn.Server(uvicorn.Config(create_app(config), log_level="warning", proxy_headers=False))
    if not (services if publish is None else publish):
        server.run(sockets=[sock])
        return
    settings = Settings.load(env_file)
    console.print(f"publishing decisions to {settings.topic('reviews')} on {settings.kafka_bootstrap}")
    asyncio.run(_serve_and_publish(server, sock, config.store, settings))


async def _serve_and_publish(
    server: uvicorn.Server, sock: socket.socket, store: ReviewStore, settings: Settings
) -> None:
    """Serve the console while a publisher copies its decisions to the reviews topic (outbox)."""
    from consumers.outbox import ReviewPublisher, kafka_publish

    stop = asyncio.Event()
    publisher = asyncio.create_task(
        ReviewPublisher(store, kafka_publish(settings), settings.topic("reviews")).run(stop)
    )
    try:
        await server.serve(sockets=[sock])
    finally:
        stop.set()
        await publisher


def _review_store(out: Path | None, services: bool, env_file: Path | None) -> ReviewStore:
    """The decisions' store: the run folder's SQLite file (embedded) or the services' PostgreSQL."""
    from adapters.review.sqlite import SqliteReviewStore

    if (out is None) == (not services):
        raise typer.BadParameter("give --out DIR (a `tieout run` folder) or --services", param_hint="--out")
    if out is not None:
        return SqliteReviewStore.for_run(out)
    from adapters.review.postgres import PostgresReviewStore

    settings = Settings.load(env_file)
    if not settings.pg_dsn:
        raise ValueError("--services needs PG_DSN (from .tieout/stack.env, or the environment)")
    return PostgresReviewStore(settings.pg_dsn)


def _review_config(
    out: Path | None, pdfs: list[Path], services: bool, env_file: Path | None, users: Path, secure: bool
) -> ConsoleConfig:
    """Compose the console: a store, the page images and the users (embedded or services mode)."""
    from adapters.review.documents import LocalDocuments, PageImages, StoreDocuments
    from console.app import ConsoleConfig
    from console.auth import Users, session_secret

    user_list = Users.load(users)
    secret = session_secret(users.parent / "review-session.secret")
    store = _review_store(out, services, env_file)
    if out is not None:
        images = PageImages(LocalDocuments(pdfs))
    else:
        from adapters.storage import ObjectStore

        settings = Settings.load(env_file)
        images = PageImages(StoreDocuments(ObjectStore(settings), settings.landing_bucket))
    return ConsoleConfig(store=store, images=images, users=user_list, secret=secret, secure_cookie=secure)


@review_app.command("adduser")
def review_adduser(
    name: Annotated[str, typer.Argument(help="User name (letters, digits, . _ @ -).")],
    users: Annotated[Path, typer.Option(help="Users file to create or update.")] = Path(
        ".tieout/review-users.json"
    ),
    display: Annotated[str | None, typer.Option(help="Name shown in the console.")] = None,
    password_stdin: Annotated[
        bool, typer.Option(help="Read the password from standard input (for scripts).")
    ] = False,
) -> None:
    """Create a console user (or set a new password); the file keeps only a scrypt hash (mode 0600)."""
    from console.auth import add_user

    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        new = add_user(users, name, password, display=display)
    except ValueError as exc:
        console.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from exc
    console.print(f"{'added' if new else 'updated'} {name} in {users}")


@app.command()
def plan(
    docs_per_hour: Annotated[float, typer.Option(help="Documents arriving per hour (steady rate).")],
    pages_per_doc: Annotated[float, typer.Option(help="Mean pages per document.")],
    model_tier: Annotated[str, typer.Option(help="Model stage tier: none, standard or deep.")] = "none",
    burst_docs: Annotated[int, typer.Option(help="Documents arriving at once on top of the rate.")] = 0,
    outage_hours: Annotated[
        float, typer.Option(help="Longest consumer outage the topics' retention must absorb.")
    ] = 72.0,
    target_utilisation: Annotated[float, typer.Option(help="Share of each replica planned busy.")] = 0.7,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    helm_values: Annotated[
        Path | None, typer.Option(help="Write the Helm chart's topics/stages values fragment here.")
    ] = None,
    results: Annotated[
        Path | None, typer.Option(help="Folder of the benchmarks' result files (default bench/results).")
    ] = None,
) -> None:
    """Partitions, replicas and lag recovery from the per-page costs the benchmarks measured."""
    import json

    import yaml

    from adapters.deploy.capacity import RESULTS, load_costs
    from adapters.deploy.planning import Demand, PlanError, Policy, format_plan, make_plan, plan_dict
    from adapters.deploy.planning import helm_values as values

    try:
        demand = Demand(docs_per_hour, pages_per_doc, model_tier, burst_docs)
        policy = Policy(target_utilisation=target_utilisation, outage_hours=outage_hours)
        made = make_plan(demand, load_costs(results or RESULTS), policy)
    except PlanError as exc:
        raise typer.BadParameter(str(exc)) from exc
    typer.echo(json.dumps(plan_dict(made), indent=2) if as_json else "\n".join(format_plan(made)))
    if helm_values is not None:
        helm_values.write_text(yaml.safe_dump(values(made), sort_keys=False), encoding="utf-8")
        sys.stdout.flush()  # the plan first, then the note on stderr
        console.print(f"wrote {helm_values}")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)


if __name__ == "__main__":
    main()
