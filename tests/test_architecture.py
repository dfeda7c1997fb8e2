"""The architecture as written down: the README's package tree and document path, and "stages do no I/O".

import-linter checks which packages may import which (``make lint``); these tests check what it cannot:
that the README's tree lists every package and nothing that is gone, that each module the README names on
one document's way from the bucket to the sinks exists with the name it gives, and that no module of the
flow writes a file.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("schemas", "pipeline", "adapters", "consumers", "console", "tieout")
_TREE_LINE = re.compile(r"^(?P<indent> *)(?P<name>[a-z_]+(?:/|\.py))\s{2,}\S")
# `consumers/services.py: ParseHandler` or `pipeline/engine.py` in the numbered path.
_MODULE_REF = re.compile(r"`(?P<path>[a-z_]+(?:/[a-z_]+)*\.py)(?:: (?P<name>[A-Za-z_][\w.]*))?`")


def _architecture() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Architecture\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def _tree() -> list[str]:
    """The paths of the README's package tree, rebuilt from its indentation (two spaces a level)."""
    block = _architecture().split("```text\n", 1)[1].split("```", 1)[0]
    stack: list[str] = []
    paths = []
    for line in block.splitlines():
        m = _TREE_LINE.match(line)
        assert m, f"a tree line is a path, two spaces or more, then what it holds: {line!r}"
        depth = len(m["indent"]) // 2
        stack = [*stack[:depth], m["name"]]
        paths.append("".join(stack))
    return paths


def test_every_path_in_the_readme_tree_exists() -> None:
    missing = [p for p in _tree() if not (REPO / p).exists()]
    assert not missing, f"the README's architecture tree names paths that do not exist: {missing}"


def test_every_package_is_in_the_readme_tree() -> None:
    listed = set(_tree())
    packages = sorted(
        f"{init.parent.relative_to(REPO).as_posix()}/"
        for root in ROOTS
        for init in (REPO / root).rglob("__init__.py")
    )
    assert packages, "no package found: wrong repository root?"
    absent = [p for p in packages if p not in listed]
    assert not absent, f"packages missing from the README's architecture tree: {absent}"


def test_modules_named_on_one_documents_path_exist() -> None:
    path = _architecture().split("One document, from bucket to sinks:", 1)[1]
    refs = [(m["path"], m["name"]) for m in _MODULE_REF.finditer(path)]
    assert len(refs) >= 8, "the document's path names the modules it passes"
    for file, name in refs:
        assert (REPO / file).is_file(), f"{file} named on the document's path does not exist"
        module = importlib.import_module(file.removesuffix(".py").replace("/", "."))
        if name:
            obj: object = module
            for part in name.split("."):
                assert hasattr(obj, part), f"{file} has no {name}"
                obj = getattr(obj, part)


# Calls that write, move or delete files, and modules whose only use is doing so.
_WRITES = frozenset({"write_text", "write_bytes", "mkdir", "unlink", "rmdir", "touch", "save", "ez_save"})
_WRITER_MODULES = frozenset({"shutil", "tempfile"})


def _file_writes(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"import {n}" for n in names if n.split(".")[0] in _WRITER_MODULES]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _WRITES:
            found.append(f".{func.attr}() at line {node.lineno}")
        os_call = (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "os"
        )
        if os_call and isinstance(func, ast.Attribute) and func.attr in {"remove", "rename"}:
            found.append(f"os.{func.attr}() at line {node.lineno}")
        if isinstance(func, ast.Name) and func.id == "open":
            mode = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "mode"), None)
            )
            read_only = isinstance(mode, ast.Constant) and set(str(mode.value)) <= {"r", "b", "t"}
            reads = mode is None or read_only
            if not reads:
                found.append(f"open(..., mode) at line {node.lineno}")
    return found


_FLOW = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "pipeline").rglob("*.py"))


@pytest.mark.parametrize("source", _FLOW)
def test_stages_write_no_file(source: str) -> None:
    writes = _file_writes(ast.parse((REPO / source).read_text(encoding="utf-8")))
    assert not writes, f"{source} writes files, which belongs to an adapter: {writes}"


def test_the_file_write_check_can_fail() -> None:
    sample = "import shutil\nfrom pathlib import Path\nPath('x').write_text('y')\nopen('x', 'w')\nopen('x')\n"
    assert _file_writes(ast.parse(sample)) == [
        "import shutil",
        ".write_text() at line 3",
        "open(..., mode) at line 4",
    ]


# Size bounds (issue 24): a function a reader can hold in view, a file a reader can find their way in.
MAX_FUNCTION_LINES = 80
MAX_FILE_LINES = 800
_PRODUCTION = (*ROOTS, "infra", "sample_docs")
# Every folder that holds code, tests and tools included; prose (Markdown) and data (JSON, YAML) do not count.
_CODE_FOLDERS = (*_PRODUCTION, "bench", "tests", "docs", ".ci")
_CODE_SUFFIXES = frozenset({".py", ".sh", ".sql", ".js", ".css", ".html", ".tpl", ".tmpl"})
# The sample generator: most of it is the issuers' settings and labels, data written as code.
_LONG_FILES = frozenset({"sample_docs/generate.py"})


def _long_functions(tree: ast.AST, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """Each function (or method) longer than ``limit`` lines, from its ``def`` to its last line."""
    return [
        f"{node.name} at line {node.lineno}: {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_production_function_is_longer_than_the_bound() -> None:
    found = {
        path.relative_to(REPO).as_posix(): long
        for root in _PRODUCTION
        for path in sorted((REPO / root).rglob("*.py"))
        if (long := _long_functions(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert not found, f"functions over {MAX_FUNCTION_LINES} lines (split them into named steps): {found}"


def test_the_function_length_check_can_fail() -> None:
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    sample = f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}        return 0\n"
    assert _long_functions(ast.parse(sample)) == [f"long at line 6: {MAX_FUNCTION_LINES + 2} lines"]
    assert _long_functions(ast.parse(sample), limit=MAX_FUNCTION_LINES + 2) == []


def _long_files(paths: list[Path], root: Path = REPO, limit: int = MAX_FILE_LINES) -> list[str]:
    """Each code file of ``paths`` (by its suffix) longer than ``limit`` lines, as ``path: lines``."""
    found = []
    for path in paths:
        if path.suffix in _CODE_SUFFIXES and path.is_file():
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                found.append(f"{path.relative_to(root).as_posix()}: {lines}")
    return found


def test_no_code_file_is_longer_than_the_bound() -> None:
    paths = [
        path
        for folder in _CODE_FOLDERS
        for path in sorted((REPO / folder).rglob("*"))
        if path.relative_to(REPO).as_posix() not in _LONG_FILES
    ]
    assert any(p.suffix == ".sql" for p in paths), "the walk reaches every kind of code file"
    long = _long_files(paths)
    assert not long, f"files over {MAX_FILE_LINES} lines (split them along a seam): {long}"


def test_the_file_length_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_FILE_LINES + 1), encoding="utf-8")
    (tmp_path / "short.sql").write_text("SELECT 1;\n" * MAX_FILE_LINES, encoding="utf-8")
    (tmp_path / "data.json").write_text("[]\n" * (MAX_FILE_LINES + 1), encoding="utf-8")
    assert _long_files(sorted(tmp_path.iterdir()), root=tmp_path) == [f"long.py: {MAX_FILE_LINES + 1}"]


_MODULES = sorted(
    p.relative_to(REPO).as_posix()
    for root in ROOTS
    for p in (REPO / root).rglob("*.py")
    if p.name != "__init__.py" and not p.name.startswith("_")
)


@pytest.mark.parametrize("source", _MODULES)
def test_public_modules_declare_their_api(source: str) -> None:
    module = importlib.import_module(source.removesuffix(".py").replace("/", "."))
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{source} declares no __all__"
    assert len(set(exported)) == len(exported), f"{source}: a name is listed twice in __all__"
    missing = [name for name in exported if not hasattr(module, name)]
    assert not missing, f"{source}.__all__ names what the module does not define: {missing}"
