"""`tieout run` over the shared filings: this checkout beside a fixed older commit, alternated, as a ratio.

Issue 23's speed budget is "at most 10 % longer than before this issue". Measured round by round, each
round against the one before, five to eight per cent a round added up unseen to +44 % against the commit
before the issue. This bench always compares with the commit named (``--base``; the default is the one
before issue 23), never with the last round.

The older commit is checked out once as a git worktree under ``$TIEOUT_CACHE/bench/worktrees/<sha>``
(default ``~/.cache/tieout``) and kept for the next run; both engines run with this checkout's Python
environment, as separate processes, one after the other, in the order alternated between pairs (on a
loaded machine whichever runs second tends to be slower). Each run writes its JSONL into a temporary
folder that is removed afterwards.

Usage::

    python -m bench.paired_speed [--base 1d9f924] [--pairs 2] [--workers 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as ``python bench/paired_speed.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
BEFORE_ISSUE_23 = "1d9f924"
"""The last commit before issue 23's first change (the bench that reports the validation split)."""
BUDGET = 1.10
"""Issue 23: one run over the shared filings at most 10 % longer than before it."""
RUN_TIMEOUT_S = 1800.0
"""A run that takes longer has hung: the corpus takes two minutes on a 2-core machine."""


def _git(*args: str, cwd: Path = REPO_ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


def base_checkout(rev: str) -> tuple[Path, str]:
    """A worktree of ``rev`` under the cache (created once), and its full sha."""
    sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    cache = Path(os.environ.get("TIEOUT_CACHE") or Path.home() / ".cache" / "tieout")
    path = cache / "bench" / "worktrees" / sha
    if not (path / "pipeline").is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        _git("worktree", "add", "--force", "--detach", str(path), sha)
    return path, sha


def timed_run(checkout: Path, inputs: list[Path], workers: int) -> float:
    """Wall seconds of one ``tieout run`` of ``checkout``'s engine over ``inputs``."""
    out = Path(tempfile.mkdtemp(prefix="tieout-speed-"))
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    cmd = [sys.executable, "-W", "ignore", "-m", "tieout.cli", "run", "--workers", str(workers), "--out"]
    try:
        start = time.monotonic()
        # Its progress is captured, not shown: two runs' bars would interleave with the pair lines.
        subprocess.run(
            [*cmd, str(out), *map(str, inputs)],
            cwd=checkout,
            env=env,
            capture_output=True,
            timeout=RUN_TIMEOUT_S,
            check=True,
        )
        return time.monotonic() - start
    finally:
        shutil.rmtree(out, ignore_errors=True)


def compare(base: Path, head: Path, inputs: list[Path], *, pairs: int, workers: int) -> dict[str, Any]:
    """Alternated runs of both engines; per-pair and mean ratios (head over base)."""
    runs: list[dict[str, Any]] = []
    for i in range(pairs):
        order = [("base", base), ("head", head)] if i % 2 == 0 else [("head", head), ("base", base)]
        seconds: dict[str, float] = {}
        for name, checkout in order:
            seconds[name] = timed_run(checkout, inputs, workers)
            print(f"pair {i + 1} {name}: {seconds[name]:.1f} s", flush=True)
        runs.append(
            {"pair": i + 1, "first": order[0][0], **seconds, "ratio": seconds["head"] / seconds["base"]}
        )
    mean_base = statistics.mean(r["base"] for r in runs)
    mean_head = statistics.mean(r["head"] for r in runs)
    return {"runs": runs, "mean_base_s": mean_base, "mean_head_s": mean_head, "ratio": mean_head / mean_base}


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; exit 1 when the ratio of the means is over the budget."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=BEFORE_ISSUE_23, help="the older commit (default: before issue 23)")
    ap.add_argument("--pairs", type=int, default=2, help="pairs of runs, the order alternated")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    corpus = corpus_dir()
    inputs = [p for p in (corpus / "filings", corpus / "financial") if p.is_dir()]
    if not inputs:
        print(f"no corpus under {corpus} (set TIEOUT_CORPUS)", file=sys.stderr)
        return 2
    base, sha = base_checkout(args.base)
    result = compare(base, REPO_ROOT, inputs, pairs=args.pairs, workers=args.workers)
    result |= {"base": sha[:12], "head": _git("rev-parse", "--short=12", "HEAD"), "budget": BUDGET}
    for r in result["runs"]:
        print(
            f"pair {r['pair']} ({r['first']} first): base {r['base']:.1f} s, head {r['head']:.1f} s, "
            f"x{r['ratio']:.3f}"
        )
    print(
        f"means: base {result['mean_base_s']:.1f} s, head {result['mean_head_s']:.1f} s: "
        f"x{result['ratio']:.3f} (budget x{BUDGET:.2f})"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["ratio"] <= BUDGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
