"""The README's code snippets for data teams, found by name and run as a reader would run them.

A snippet is the fenced ``python`` block right after an HTML comment ``<!-- snippet: NAME -->``. Tests run
it in a fresh interpreter with its inputs in environment variables, and check what it prints, so the
README cannot drift from the project: a missing or renamed block fails the test that runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.corpus import REPO

__all__ = ["README", "SNIPPETS", "run_snippet", "snippet", "snippet_names"]

README = REPO / "README.md"
SNIPPETS = ("facts-topic", "parquet-datasets", "xbrl-report")
"""Every snippet the README marks, each run by a test: the Kafka one in the integration tier."""

_BLOCK = re.compile(r"^<!-- snippet: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)^```$", re.M | re.S)


def snippet_names(doc: Path = README) -> list[str]:
    """The names of the snippets ``doc`` marks, in order (a name twice is listed twice)."""
    return [m["name"] for m in _BLOCK.finditer(doc.read_text(encoding="utf-8"))]


def snippet(name: str, doc: Path = README) -> str:
    """The code of the snippet ``name`` in ``doc``.

    Raises:
        LookupError: ``doc`` marks no snippet ``name`` (or marks it twice).
    """
    found = [m["code"] for m in _BLOCK.finditer(doc.read_text(encoding="utf-8")) if m["name"] == name]
    if len(found) != 1:
        raise LookupError(
            f"{doc.name} should have one ```python block right after <!-- snippet: {name} -->, "
            f"found {len(found)}"
        )
    return found[0]


def run_snippet(name: str, env: dict[str, str], *, cwd: Path, timeout_s: float = 240.0) -> str:
    """Run the snippet ``name`` in a new Python process in ``cwd``, with ``env`` added to the environment.

    Returns:
        What it printed.

    Raises:
        AssertionError: It exited non-zero (the message has its stderr).
    """
    done = subprocess.run(
        [sys.executable, "-c", snippet(name)],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    assert done.returncode == 0, f"snippet {name} exited {done.returncode}:\n{done.stderr[-4000:]}"
    return done.stdout
