"""The ``tieout`` command line: the app assembled from the command groups of :mod:`tieout.commands`.

``python -m tieout.cli ...`` runs it as the ``tieout`` script does.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from adapters.logs import configure_logging
from tieout.commands import consume, diff, dlq, export, plan, review, run, schemas, stack
from tieout.commands.common import console

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Tie out financial documents.")

# The order of `tieout --help`: the commands, then the groups.
for _command in (
    run.run,
    run.annotate,
    diff.diff,
    consume.consume,
    consume.submit,
    consume.reconcile,
    consume.backfill,
    plan.plan,
):
    app.command()(_command)
for _name, _group in (
    ("schemas", schemas.app),
    ("stack", stack.app),
    ("dlq", dlq.app),
    ("export", export.app),
    ("review", review.app),
):
    app.add_typer(_group, name=_name)


@app.callback()
def _main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False) -> None:
    configure_logging("DEBUG" if verbose else None)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        sys.exit(130)


if __name__ == "__main__":
    main()
