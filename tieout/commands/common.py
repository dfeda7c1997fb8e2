"""What several command groups share: the console, the option types and the inputs named on the command line.

Every command module is imported for every command (typer reads all the commands' signatures to build the
app), so this module imports only what the entry point loads anyway. Commands name the shared option types
through the module (``env_file: common.EnvFile = None``), so that a signature says where an option is
defined once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from pipeline.config import EngineConfig

__all__ = [
    "MEMORY_MB",
    "MIB",
    "OPEN_FILES",
    "OUTPUT_MB",
    "CpuS",
    "EnvFile",
    "MaxMb",
    "MaxPages",
    "MemoryMb",
    "OpenFiles",
    "OutputMb",
    "Timeout",
    "collect_inputs",
    "console",
    "fail",
    "quotas",
    "refused",
]

console = Console(stderr=True)
"""Where the commands talk to the user (stderr: stdout is left to what a command prints as its result)."""

MIB = 1024 * 1024

EnvFile = Annotated[Path | None, typer.Option(help="Settings file (default .tieout/stack.env).")]
Timeout = Annotated[float, typer.Option(help="Seconds allowed per document.")]
MaxPages = Annotated[int, typer.Option(help="Reject documents with more pages.")]
MaxMb = Annotated[int, typer.Option(help="Reject files larger than this many MiB.")]

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

_DEFAULTS = EngineConfig()
MEMORY_MB = (_DEFAULTS.max_memory_bytes or 0) // MIB
"""Default of ``--memory-mb``: the engine's own."""
OPEN_FILES = _DEFAULTS.max_open_files
"""Default of ``--max-open-files``: the engine's own."""
OUTPUT_MB = _DEFAULTS.max_output_bytes // MIB
"""Default of ``--max-output-mb``: the engine's own."""


def quotas(memory_mb: int, cpu_s: float | None, open_files: int, output_mb: int) -> dict[str, Any]:
    """The EngineConfig fields of the worker quotas given on the command line.

    Args:
        memory_mb: ``--memory-mb`` (0: no limit).
        cpu_s: ``--cpu-s`` (None: the timeout).
        open_files: ``--max-open-files``.
        output_mb: ``--max-output-mb``.

    Returns:
        Keyword arguments for :class:`~pipeline.config.EngineConfig`.
    """
    return {
        "max_memory_bytes": memory_mb * MIB if memory_mb > 0 else None,
        "max_cpu_s": cpu_s,
        "max_open_files": open_files,
        "max_output_bytes": output_mb * MIB,
    }


def collect_inputs(paths: list[Path]) -> list[Path]:
    """Files named directly, and every ``*.pdf`` under folders, in a stable order.

    Args:
        paths: Files and folders as given on the command line.

    Returns:
        The files, each once (by resolved path), in the order given, a folder's sorted by path.

    Raises:
        typer.BadParameter: A path does not exist.
    """
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


def fail(message: str, code: int) -> typer.Exit:
    """Print ``message`` in red; the exit for the caller to raise (from the exception it reports).

    Args:
        message: What went wrong, in the console's markup.
        code: The exit status (2: the command line or the settings, 1: the work itself).

    Returns:
        The :class:`typer.Exit` to raise.
    """
    # not wrapped at the console's width: a terminal wraps it, a log or a pipe keeps the one line whole
    console.print(f"[red]{message}[/]", soft_wrap=True)
    return typer.Exit(code)


@contextmanager
def refused(*errors: type[Exception]) -> Iterator[None]:
    """End the command with status 2 and the error's own message when the block raises one of ``errors``.

    For the errors that mean the command line or the settings are wrong (a file that is not there, a value
    refused, a service out of reach): the message says what to change, without a traceback.

    Args:
        *errors: The exception types that the block raises when its input is refused.

    Yields:
        Nothing: the block runs inside.

    Raises:
        typer.Exit: Status 2, once the message is printed (:func:`fail`), chained to the error.
    """
    try:
        yield
    except errors as exc:
        raise fail(str(exc), 2) from exc
