"""``tieout stack``: the local stack (Kafka and an S3 store, no Docker), run by ``infra/stack.sh``."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import typer

from tieout.commands.common import fail

__all__ = ["REPO", "app"]

app = typer.Typer(no_args_is_help=True, help="The local stack: Kafka and an S3 store (no Docker).")
REPO = Path(__file__).resolve().parents[2]
"""The repository checkout the stack scripts ship with."""

_COMMANDS = {
    "up": "Fetch (once) and start Kafka and the S3 store; writes .tieout/stack.env.",
    "down": "Stop the local stack (data is kept).",
    "status": "Health of each service of the local stack.",
    "env": "Print the connection settings of the local stack.",
}
"""Each ``infra/stack.sh`` command and its help."""


def _stack(cmd: str) -> None:
    """Run ``infra/stack.sh cmd`` and exit with its status."""
    script = REPO / "infra" / "stack.sh"
    if not script.exists():
        raise fail(f"{script} not found: the stack scripts ship with the repository checkout", 2)
    raise typer.Exit(subprocess.call(["bash", str(script), cmd], cwd=REPO))


def _command(cmd: str) -> Callable[[], None]:
    """The command that runs ``infra/stack.sh cmd``."""

    def command() -> None:
        _stack(cmd)

    return command


for _cmd, _help in _COMMANDS.items():
    app.command(_cmd, help=_help)(_command(_cmd))
