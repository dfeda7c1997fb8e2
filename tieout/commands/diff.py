"""``tieout diff OLD NEW``: what changed between two drafts of a document, figure by figure.

Both drafts run through the engine as ``tieout run`` runs it (killable workers under quotas, no servers),
or are read from DocumentResult JSON files written earlier (a ``.json`` path). ``tieout run``'s JSONL
folders carry no calculation trees, so they cannot be compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table as RichTable

from pipeline.config import EngineConfig
from tieout.commands import common
from tieout.commands.common import console, fail

if TYPE_CHECKING:
    from schemas.models import DocumentChanges, DocumentResult, Evidence, FigureChange

__all__ = ["diff"]


def diff(
    old: Annotated[Path, typer.Argument(help="The earlier draft: a PDF, or a DocumentResult JSON.")],
    new: Annotated[Path, typer.Argument(help="The later draft: a PDF, or a DocumentResult JSON.")],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the changes (a DocumentChanges record) here.")
    ] = None,
    timeout: common.Timeout = 300.0,
    max_pages: common.MaxPages = 3000,
    max_mb: common.MaxMb = 256,
) -> None:
    """Compare two drafts' figures by statement, line and column: added, removed, changed, ties broken."""
    from pipeline.across import diff_documents

    for path, hint in ((old, "OLD"), (new, "NEW")):
        if not path.is_file():
            raise typer.BadParameter(f"{path} is not a file", param_hint=hint)
    config = EngineConfig(timeout_s=timeout, max_pages=max_pages, max_bytes=max_mb * common.MIB)
    before, after = _results([old, new], config)
    changes = diff_documents(before, after)
    _print(changes)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(changes.model_dump_json(indent=1) + "\n", encoding="utf-8")
        console.print(f"changes written to {json_out}")


def _results(paths: list[Path], config: EngineConfig) -> list[DocumentResult]:
    """Each draft's checked result: read from its JSON, or the engine run on its PDF in a worker."""
    from adapters.workers.isolation import Job, run_isolated
    from schemas.models import DocumentResult

    results: dict[int, DocumentResult] = {
        i: DocumentResult.model_validate_json(p.read_text(encoding="utf-8"))
        for i, p in enumerate(paths)
        if p.suffix.lower() == ".json"
    }
    jobs = [Job(i, p, p.name) for i, p in enumerate(paths) if i not in results]
    if jobs:
        with console.status(f"parsing and checking {', '.join(j.source for j in jobs)}..."):
            results.update(
                (job.index, result) for job, result in run_isolated(jobs, config, workers=len(jobs))
            )
    for i, p in enumerate(paths):
        errors = [e for e in results[i].errors if e.fatal]
        if errors:
            raise fail(f"cannot read {p.name}: {errors[0].category}: {errors[0].message}", 1)
    return [results[i] for i in range(len(paths))]


def _at(e: Evidence | None) -> str:
    return "" if e is None else escape(f"{e.text} (p. {e.page})")


def _print(changes: DocumentChanges) -> None:
    """One table a statement of the changes, then the counts and the ties broken and repaired."""
    c = changes
    style = {"added": "green", "removed": "red", "changed": "yellow"}
    by_statement: dict[str, list[FigureChange]] = {}
    for ch in c.changes:
        by_statement.setdefault(ch.place.title or ch.place.statement.replace("_", " "), []).append(ch)
    for title, found in by_statement.items():
        table = RichTable(title=escape(f"{title} ({found[0].place.statement.replace('_', ' ')})"))
        for head in ("", "line", "column", "old", "new"):
            table.add_column(head)
        for ch in found:
            column = ch.place.period or ch.place.column
            table.add_row(
                f"[{style[ch.kind]}]{ch.kind}[/]",
                escape(ch.place.line),
                escape(column),
                _at(ch.old),
                _at(ch.new),
            )
        console.print(table)
    kinds = {k: sum(1 for ch in c.changes if ch.kind == k) for k in style}
    console.print(
        f"{c.old_source} → {c.new_source}: {kinds['changed']} changed, {kinds['added']} added, "
        f"{kinds['removed']} removed; {c.matched} of the earlier draft's {c.old_figures} statement figures "
        f"matched ({c.matched_share:.1%})"
    )
    for tie in c.ties:
        if tie.status in ("broke", "repaired"):
            colour = "red" if tie.status == "broke" else "green"
            p = tie.place
            what = escape(f"{tie.rule} {p.line} {p.period or p.column} ({p.title or p.statement})")
            flag = f" flag {tie.flag_id}" if tie.flag_id else ""
            console.print(f"[{colour}]tie {tie.status}[/] {what}{flag}")
