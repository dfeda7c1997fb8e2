"""What a committed result file says about where and when it was measured.

``tieout plan`` prints these with every figure it takes from ``bench/results/``: a per-page cost is only as
good as the machine, the commit and the load it was measured under.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip()


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def usable_cores() -> int:
    """Cores this process may run on (its affinity), which can be fewer than ``os.cpu_count()``."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages (what ``uptime`` prints)."""
    return [round(x, 2) for x in os.getloadavg()]


def run_meta() -> dict[str, Any]:
    """Date, commit and machine of a measurement, for the ``meta`` key of a result file."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": _git("rev-parse", "--short", "HEAD") + ("-dirty" if status.strip() else ""),
        "machine": {
            "host": platform.node(),
            "cpu": _cpu_model(),
            "cpu_count": os.cpu_count(),
            "usable_cores": usable_cores(),
            "python": platform.python_version(),
        },
        "load_average_start": load_average(),
    }
