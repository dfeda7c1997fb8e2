"""The services' commands: ``consume`` (run a stage), ``submit``, ``reconcile`` and ``backfill``.

Each command imports the services' modules (Kafka, object storage) where it runs: every command module is
imported for every command, and the embedded ones (``run``, ``plan``, ...) need no Kafka client.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from adapters.settings import Settings
from pipeline.config import EngineConfig
from tieout.commands import common
from tieout.commands.common import collect_inputs, console

__all__ = ["backfill", "consume", "reconcile", "submit"]


def consume(
    stage: Annotated[str, typer.Argument(help="parse | verify | sink")],
    worker_id: Annotated[
        str | None,
        typer.Option(
            help="Stable, unique id of this worker (default: <hostname>-<slot>, one slot per process)."
        ),
    ] = None,
    env_file: common.EnvFile = None,
    timeout: common.Timeout = 300.0,
    memory_mb: common.MemoryMb = common.MEMORY_MB,
    cpu_s: common.CpuS = None,
    max_open_files: common.OpenFiles = common.OPEN_FILES,
    max_output_mb: common.OutputMb = common.OUTPUT_MB,
) -> None:
    """Run a Kafka service until SIGTERM: parse (landing -> parsed), verify (-> verified), sink (-> results).

    The sink publishes each document's facts, flags, rewards and summaries, behind the quality gate.

    The quota options bound the parse service's worker process; the other stages ignore them.
    """
    from consumers.wiring import run_service
    from schemas.topology import TOPOLOGY

    if stage not in {s.name for s in TOPOLOGY.stages}:
        raise typer.BadParameter(f"choose {', '.join(s.name for s in TOPOLOGY.stages)}", param_hint="STAGE")
    settings = Settings.load(env_file)
    if worker_id:
        settings = settings.model_copy(update={"worker_id": worker_id})
    config = EngineConfig(timeout_s=timeout, **common.quotas(memory_mb, cpu_s, max_open_files, max_output_mb))
    asyncio.run(run_service(stage, settings, config=config))


def submit(
    files: Annotated[list[Path], typer.Argument(help="PDF files or folders to upload.")],
    prefix: Annotated[str, typer.Option(help="Key prefix in the landing bucket.")] = "",
    env_file: common.EnvFile = None,
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


def reconcile(
    uri: Annotated[
        str | None, typer.Argument(help="s3://bucket/prefix to check (default: the whole landing bucket).")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Report, announce nothing.")] = False,
    env_file: common.EnvFile = None,
) -> None:
    """Announce again every PDF without results or a dead letter, wherever it stopped."""
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


def backfill(
    uri: Annotated[str, typer.Argument(help="s3://bucket/prefix to reconcile.")],
    dry_run: Annotated[bool, typer.Option(help="List what would be re-announced.")] = False,
    env_file: common.EnvFile = None,
) -> None:
    """Same as ``reconcile URI`` (kept for scripts written before reconcile)."""
    reconcile(uri, dry_run=dry_run, env_file=env_file)
