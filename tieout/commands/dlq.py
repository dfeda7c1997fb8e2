"""``tieout dlq``: the dead-letter topic, what failed and re-driving it.

The services' operations (Kafka) are imported inside the commands: every command module is imported for
every command, and the embedded ones need no Kafka client.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer

from adapters.settings import Settings
from tieout.commands import common
from tieout.commands.common import console

if TYPE_CHECKING:
    from consumers.runner import Incoming

__all__ = ["app", "dlq_list", "dlq_replay"]

app = typer.Typer(no_args_is_help=True, help="The dead-letter topic: what failed, and re-driving it.")


@app.command("list")
def dlq_list(
    category: Annotated[str | None, typer.Option(help="Only this category (not_a_pdf, corrupt, …).")] = None,
    stage: Annotated[str | None, typer.Option(help="Only this stage (parse, verify, sink).")] = None,
    env_file: common.EnvFile = None,
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


@app.command("replay")
def dlq_replay(
    category: Annotated[str | None, typer.Option(help="Only this category.")] = None,
    stage: Annotated[str | None, typer.Option(help="Only this stage.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Show what would be re-driven.")] = False,
    env_file: common.EnvFile = None,
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
