"""``tieout export``: datasets for ML teams (rewards and prompts) and regression cases from the reviews.

The engine, the rewards and the Parquet writer are imported inside the commands: every command module is
imported for every command, and the others, the restarted services above all, should not pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table as RichTable

from adapters.files import write_private
from tieout.commands import common
from tieout.commands.common import collect_inputs, console, fail
from tieout.commands.review import review_store

if TYPE_CHECKING:
    from schemas.reviews import ReviewDecision

__all__ = ["app", "export_reviews_cmd", "export_rewards_cmd"]

app = typer.Typer(no_args_is_help=True, help="Export datasets for ML teams.")


@app.command("rewards")
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
        raise fail(str(exc), 2) from exc
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

    try:
        store = review_store(out, services, env_file)
    except (FileNotFoundError, ValueError, ConnectionError) as exc:
        raise fail(str(exc), 2) from exc
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
