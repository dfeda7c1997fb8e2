"""``tieout export``: datasets for ML teams (rewards and prompts) and regression cases from the reviews.

The engine, the rewards and the Parquet writer are imported inside the commands: every command module is
imported for every command, and the others, the restarted services above all, should not pay for them.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table as RichTable

from adapters.files import write_private
from tieout.commands import common
from tieout.commands.common import collect_inputs, console, refused
from tieout.commands.review import review_store

if TYPE_CHECKING:
    from collections.abc import Iterator

    from adapters.xbrl.report import XbrlReport
    from schemas.models import DocumentResult
    from schemas.reviews import ReviewDecision

__all__ = ["app", "export_reviews_cmd", "export_rewards_cmd", "export_xbrl_cmd"]

app = typer.Typer(no_args_is_help=True, help="Export datasets for ML teams.")

_Pdfs = Annotated[list[Path] | None, typer.Argument(help="PDF files or folders (default sample_docs).")]
_Out = Annotated[Path, typer.Option("--out", "-o", help="Output folder.")]


def _processed(paths: list[Path] | None) -> Iterator[DocumentResult]:
    """The engine's result for each document given (default sample_docs), skipping those it cannot read."""
    from pipeline.engine import process_path

    for f in collect_inputs(paths or [Path("sample_docs")]):
        r = process_path(f)
        if r.failed:
            console.print(f"[yellow]skipped {f.name}: {r.errors[0].category}[/]")
            continue
        yield r


@app.command("rewards")
def export_rewards_cmd(
    paths: _Pdfs = None,
    out: _Out = Path("out/rewards"),
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
    from pipeline.rewards.decisions import check_records
    from pipeline.rewards.records import build_reward_records

    with refused(FileNotFoundError):
        judged, decisions = _folded_reviews(reviews)
    results = []
    records = []
    for r in _processed(paths):
        results.append(r)
        records.extend(build_reward_records(r, reviews=judged))
    flags = {f.flag_id: f for r in results for f in r.flags}
    records.extend(check_records(decisions, flags))
    written = export_rewards(records, out) + export_dataset(build_dataset(results), out)
    for p in written:
        console.print(f"wrote {p}")
    console.print(f"{len(records)} reward records from {len(results)} documents")


def _folded_reviews(reviews: Path | None) -> tuple[dict[str, ReviewDecision], list[ReviewDecision]]:
    """The standing decisions of a run folder's review store (by flag id), and every decision.

    Args:
        reviews: The folder of a reviewed ``tieout run``, or None (no decisions).

    Returns:
        The standing decision by flag id, and the store's latest decisions in its order.

    Raises:
        FileNotFoundError: The folder holds no review store.
    """
    if reviews is None:
        return {}, []
    from pipeline.rewards.regressions import standing

    decisions = review_store(reviews, False, None).latest_decisions()
    return standing(decisions), decisions


@app.command("reviews")
def export_reviews_cmd(
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder of a `tieout run` whose flags were reviewed.")
    ] = None,
    services: Annotated[bool, typer.Option(help="The services' decisions (PostgreSQL).")] = False,
    env_file: common.EnvFile = None,
    dest: Annotated[Path, typer.Option("--dest", help="Where to write the cases.")] = Path("out/reviews"),
) -> None:
    """Dismissed flags as regression cases (document, pages, rule, reason) for new tests."""
    from pipeline.rewards.regressions import regression_cases

    with refused(FileNotFoundError, ValueError, ConnectionError):
        store = review_store(out, services, env_file)
    decisions = store.latest_decisions("dismissed")
    flags = {d.flag_id: row.flag for d in decisions if (row := store.get(d.flag_id)) is not None}
    cases = regression_cases(decisions, flags)
    path = dest / "regression_cases.jsonl"
    # the analysts' notes and reasons: private (0600 in a 0700 folder), like the store they come from
    write_private(path, "".join(c.model_dump_json() + "\n" for c in cases).encode("utf-8"))
    summary = RichTable("rule", "reason", "cases", title=f"{len(cases)} regression cases")
    by: dict[tuple[str, str], int] = {}
    for c in cases:
        by[(c.rule, c.reason)] = by.get((c.rule, c.reason), 0) + 1
    for (rule, reason), n in sorted(by.items()):
        summary.add_row(rule, reason, str(n))
    console.print(summary)
    console.print(f"wrote {path}")


@app.command("xbrl")
def export_xbrl_cmd(
    paths: _Pdfs = None,
    out: _Out = Path("out/xbrl"),
    check: Annotated[
        bool, typer.Option(help="Load each report in Arelle, offline (needs the xbrl extra).")
    ] = True,
) -> None:
    """xBRL-JSON reports: ``<out>/<doc_id>/`` holds report.json, its extension taxonomy and linkbase.

    Only clean figures are published; the others are listed with their reasons in ``excluded.jsonl``.
    With --check (the default) each report is validated by Arelle and the command fails on any error;
    a summation Arelle finds inconsistent is shown, not failed: it is a finding, not an export error.
    """
    from adapters.xbrl.artifact import write_artifact, xbrl_artifact
    from adapters.xbrl.check import check_reports

    exported: list[tuple[str, Path, XbrlReport]] = []
    for r in _processed(paths):
        artifact = xbrl_artifact(r)
        folder = out / r.doc_id
        exported.append((r.source, write_artifact(artifact, folder), artifact.report))
        console.print(f"wrote {folder}", soft_wrap=True)
    with refused(RuntimeError):
        checks = check_reports([p for _, p, _ in exported]) if check else []
    summary = RichTable("document", "facts", "excluded", "Arelle errors", "inconsistent sums", title="xBRL")
    for (name, _, report), verdict in itertools.zip_longest(exported, checks):
        errors = "-" if verdict is None else str(len(verdict.errors))
        sums = "-" if verdict is None else str(len(verdict.inconsistencies))
        summary.add_row(name, str(len(report.published)), str(len(report.excluded)), errors, sums)
    console.print(summary)
    for verdict in checks:
        for m in verdict.errors:
            console.print(f"[red]{verdict.report}: {m.code} {m.text}[/]", soft_wrap=True)
    if any(not v.report_ok for v in checks):
        raise typer.Exit(1)
