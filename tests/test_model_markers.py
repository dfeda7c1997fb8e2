"""Every test module that talks to the model servers says so with the ``model_servers`` marker.

``make test`` runs the model tests that need no server (``model and not model_servers``) beside the fault
suite, while the servers are still starting, and the rest once they are up (infra/test.sh). A module that
reads the servers' addresses (``MODEL_ENV``, ``servers()``) without the marker would run before the servers
answer and fail for that reason alone; this scan (no test is run) catches it at review time.
"""

from __future__ import annotations

import ast
from pathlib import Path

INTEGRATION = Path(__file__).resolve().parent / "integration"
SERVER_NAMES = frozenset({"MODEL_ENV", "servers", "wait_idle", "load"})
"""Names (imported from conftest or model_fixtures) through which a test reaches a running model server."""


def _marks(tree: ast.Module) -> set[str]:
    """The ``pytest.mark.X`` names in the module's ``pytestmark``."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets):
            return {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)} - {"mark"}
    return set()


def _server_imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests.integration"):
            names |= {a.name for a in node.names} & SERVER_NAMES
    return names


def test_modules_that_reach_the_model_servers_are_marked_model_servers() -> None:
    unmarked = {}
    for path in sorted(INTEGRATION.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = _server_imports(tree)
        if used and "model_servers" not in _marks(tree):
            unmarked[path.name] = sorted(used)
    assert not unmarked, f"add pytest.mark.model_servers to pytestmark (they reach the servers): {unmarked}"


def test_the_scan_sees_a_marked_and_an_unmarked_module() -> None:
    marked = ast.parse(
        "from tests.integration.conftest import MODEL_ENV\n"
        "pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.model_servers]\n"
    )
    plain = ast.parse("from tests.integration.conftest import MODEL_ENV\npytestmark = [pytest.mark.model]\n")
    assert _server_imports(marked) == {"MODEL_ENV"} and "model_servers" in _marks(marked)
    assert _server_imports(plain) == {"MODEL_ENV"} and "model_servers" not in _marks(plain)
