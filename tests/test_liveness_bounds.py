"""No test asserts a wall-clock duration under a minute: tests assert behaviour, bench/ measures time.

A test that asserts "this took under 5 s" fails on a loaded or slow machine while the behaviour is right,
and teaches people to re-run until green. The rule (README, issue 22): a test proves what happened (the
error category, the waits asked for, an injected clock, a fixture that hangs on purpose); where a bound on
wall time must stay, it is a liveness bound of a minute or more, and says so (``liveness bound`` in the
assertion's message or in a comment on or just above it).

This file scans the test files' syntax (no test is run): an ``assert`` comparing a wall-clock reading with a
number is a violation when the number is under 60, or when it is 60 or more without the marker. A
wall-clock reading is an expression that calls a clock (``time.monotonic()``, ``time.time()``,
``perf_counter()``), a name that says it holds one (``elapsed``, ``seconds``, ``took``, ``duration``, ...),
an item of a collection named so (``for s in resume_s``), or a call of a local function that reads a clock
(``asyncio.run(main())`` where ``main`` times itself).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
MIN_LIVENESS_S = 60
MARKER = "liveness bound"
CLOCKS = frozenset({"monotonic", "monotonic_ns", "time", "perf_counter", "perf_counter_ns"})
DURATION_NAME = re.compile(r"(^|_)(elapsed|seconds|secs|took|duration|durations|wall|wall_s|latency)$")
"""A variable that holds a duration by its name (``deadline_s`` of a config is not one: ``_s`` alone is not
enough)."""
DURATION_COLLECTION = re.compile(r"(^|_)(elapsed|seconds|secs|took|durations?|latenc(y|ies)|times|s)$")
"""A collection whose items are durations (``resume_s``, ``durations``)."""


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    source: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.why}: {self.source}"


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_clock_call(node: ast.AST) -> bool:
    """``time.monotonic()``, ``time.time()``, ``loop.time()``, ``perf_counter()``, ..."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute):
        return node.func.attr in CLOCKS
    return isinstance(node.func, ast.Name) and node.func.id in CLOCKS - {"time"}


def _calls_clock(node: ast.AST) -> bool:
    return any(_is_clock_call(n) for n in ast.walk(node))


class _Scanner(ast.NodeVisitor):
    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.found: list[Violation] = []
        self.timed_functions: list[set[str]] = [set()]
        """Per enclosing scope: local functions that read a clock."""

    def _scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module) -> None:
        timed = {
            f.name
            for f in ast.walk(node)
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f is not node and _calls_clock(f)
        }
        self.timed_functions.append(timed)
        self.generic_visit(node)
        self.timed_functions.pop()

    visit_FunctionDef = _scope
    visit_AsyncFunctionDef = _scope
    visit_Module = _scope

    def _is_duration(self, node: ast.AST, items: set[str]) -> bool:
        if _calls_clock(node):
            return True
        name = _name(node)
        if name is not None and (DURATION_NAME.search(name) or name in items):
            return True
        timed = set().union(*self.timed_functions)
        return any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in timed
            for n in ast.walk(node)
        )

    def _marked(self, node: ast.Assert) -> bool:
        first, last = node.lineno, node.end_lineno or node.lineno
        nearby = self.lines[max(0, first - 2) : last]
        return any(MARKER in line for line in nearby)

    def visit_Assert(self, node: ast.Assert) -> None:
        # items of duration-named collections, bound by comprehensions inside the assertion
        items = {
            t.id
            for c in ast.walk(node.test)
            if isinstance(c, ast.comprehension) and DURATION_COLLECTION.search(_name(c.iter) or "")
            for t in ast.walk(c.target)
            if isinstance(t, ast.Name)
        }
        for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            operands = [cmp.left, *cmp.comparators]
            for left, op, right in zip(operands, cmp.ops, operands[1:], strict=False):
                if isinstance(op, ast.Lt | ast.LtE):
                    timed, bound = left, right
                elif isinstance(op, ast.Gt | ast.GtE):
                    timed, bound = right, left
                else:
                    continue
                if not (isinstance(bound, ast.Constant) and isinstance(bound.value, int | float)):
                    continue
                if not self._is_duration(timed, items):
                    continue
                source = ast.get_source_segment("\n".join(self.lines), node) or ""
                if bound.value < MIN_LIVENESS_S:
                    why = f"asserts a wall-clock duration under {MIN_LIVENESS_S} s ({bound.value!r})"
                elif not self._marked(node):
                    why = f"a wall-clock bound without the words {MARKER!r} beside it"
                else:
                    continue
                self.found.append(Violation(self.path, node.lineno, source.splitlines()[0], why))
        self.generic_visit(node)


def violations(text: str, path: str = "<test>") -> list[Violation]:
    """The wall-clock assertions in one test file's source that break the rule."""
    scanner = _Scanner(path, text)
    scanner.visit(ast.parse(text))
    return scanner.found


def scan(root: Path) -> list[Violation]:
    """Every violation in the Python files under ``root``."""
    return [
        v for f in sorted(root.rglob("*.py")) for v in violations(f.read_text(), str(f.relative_to(root)))
    ]


def test_no_test_asserts_a_wall_clock_duration_under_a_minute() -> None:
    found = scan(TESTS)
    assert not found, "assert behaviour, not seconds (see this file's docstring):\n" + "\n".join(
        map(str, found)
    )


# The forms the rule must catch: each was in the suite once, and each failed on a loaded machine or could.
CAUGHT = {
    "a clock call": "t0 = time.monotonic()\nwork()\nassert time.monotonic() - t0 < 5",
    "a clock call, reversed": "assert 15 > time.time() - started",
    "a duration name": "seconds = took()\nassert seconds < 45, 'slow'",
    "in a conjunction": "assert after.facts and seconds < 30",
    "elapsed": "assert elapsed < 120, f'took {elapsed}'",
    "items of a duration list": "assert all(s < 10 for _, s in fleet.resume_s), report",
    "a local function that times itself": (
        "def test():\n"
        "    async def main():\n"
        "        t0 = time.monotonic()\n"
        "        await work()\n"
        "        return time.monotonic() - t0\n"
        "    assert asyncio.run(main()) < 5  # not the minute's wait\n"
    ),
    "a minute, unmarked": "assert time.monotonic() - t0 < 600, 'the suite took too long'",
}
ALLOWED = {
    "a marked liveness bound (message)": "assert elapsed < 600, f'liveness bound: {elapsed:.0f}s'",
    "a marked liveness bound (comment above)": "# liveness bound\nassert time.monotonic() - t0 < 300",
    "a configured deadline is no reading": "assert d.deadline_s is not None and d.deadline_s < 300",
    "a lower bound on the interval between probes": "assert probes[1] - probes[0] >= 0.02",
    "a count": "assert len(probes) < 5",
    "a comparison with the wait asked for": "assert time.monotonic() - t0 < asked[0]",
}


def test_the_rule_catches_each_form_it_names() -> None:
    for what, source in CAUGHT.items():
        assert len(violations(source)) == 1, what
    for what, source in ALLOWED.items():
        assert violations(source) == [], what


WAITS_FOR_WORK = frozenset({"read", "eventually"})
"""Helpers that wait for the services' real work (``Isolated.read``, ``eventually`` of the integration
conftest): a deadline passed to them is a liveness bound too, and a short one fails a loaded machine."""


BROWSER_DEFAULTS = frozenset({"set_default_timeout", "set_default_navigation_timeout"})
"""Playwright's default wait for every action (milliseconds): each click and navigation of a browser test
waits for the console's real work (a page rendered, a tick-and-tie PDF made in a worker process)."""


def short_waits(text: str, path: str = "<test>") -> list[Violation]:
    """Calls of a work-waiting helper with a literal ``timeout_s`` (or a browser default) under a minute."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and _name(node.func) in BROWSER_DEFAULTS and node.args:
            ms = node.args[0]
            if (
                isinstance(ms, ast.Constant)
                and isinstance(ms.value, int | float)
                and ms.value < 1000 * MIN_LIVENESS_S
            ):
                why = f"every browser action waits for the console's work at most {ms.value / 1000:g}s"
                found.append(Violation(path, node.lineno, ast.get_source_segment(text, node) or "", why))
            continue
        if not (isinstance(node, ast.Call) and _name(node.func) in WAITS_FOR_WORK):
            continue
        for kw in node.keywords:
            value = kw.value
            if (
                kw.arg == "timeout_s"
                and isinstance(value, ast.Constant)
                and isinstance(value.value, int | float)
                and value.value < MIN_LIVENESS_S
            ):
                why = f"waits for the services' work at most {value.value}s"
                found.append(Violation(path, node.lineno, ast.get_source_segment(text, node) or "", why))
    return found


def test_no_test_waits_for_the_services_work_under_a_minute() -> None:
    # Regression: the model group's pending test read the flags topic with timeout_s=30 and failed a
    # fresh run beside a CPU-heavy job (2026-12-01) while the sink was still starting.
    found = [
        v
        for f in sorted((TESTS / "integration").rglob("*.py"))
        for v in short_waits(f.read_text(), str(f.relative_to(TESTS)))
    ]
    assert not found, "wait LIVENESS_S (a liveness bound) for real work:\n" + "\n".join(map(str, found))


def test_the_wait_rule_catches_a_short_read_and_allows_liveness_bounds() -> None:
    assert len(short_waits("it.read(topic, until=done, timeout_s=30)")) == 1
    assert short_waits("it.read(topic, until=done, timeout_s=LIVENESS_S)") == []
    assert short_waits("it.read(topic, until=done, timeout_s=600)") == []
    assert short_waits("client.get(url, timeout_s=5)") == []  # a client's own timeout is not a wait for work
    # Regression: the browser test's 20 s default made a click on the tick-and-tie download wait 20 s for the
    # PDF to be made, and it failed a fresh run beside a CPU-heavy job (2026-12-01).
    assert len(short_waits("page.set_default_timeout(20_000)")) == 1
    assert short_waits("page.set_default_timeout(LIVENESS_S * 1000)") == []
