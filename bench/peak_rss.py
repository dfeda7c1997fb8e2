"""Peak resident memory of the engine on one document, measured in a child process.

``resource.getrusage().ru_maxrss`` is unreliable on this machine (it reports the container's figures), so
peak RSS is read from ``VmHWM`` in ``/proc/<pid>/status``. The child reads its *own* ``VmHWM`` just before
exiting (a dead process's ``/proc`` entry is gone) and hands it back as JSON in a temporary file, so
nothing the child prints on stdout can corrupt the answer.

Usage::

    python -m bench.peak_rss FILE [--limit-mb 400] [--method tieout|pymupdf]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as ``python bench/peak_rss.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_LIMIT_MB = 400.0


def peak_rss_mb(pid: int | str = "self") -> float:
    """Peak resident set size (``VmHWM``) of a live process, in MiB.

    Args:
        pid: Process id, or ``"self"`` for the calling process.

    Returns:
        The high-water mark of resident memory in MiB (1024 * 1024 bytes).

    Raises:
        RuntimeError: if ``/proc/<pid>/status`` has no ``VmHWM`` line (not Linux, or a kernel thread).
    """
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    return parse_vmhwm(status)


def parse_vmhwm(status: str) -> float:
    """Extract ``VmHWM`` from the text of ``/proc/<pid>/status``.

    Args:
        status: The file's content.

    Returns:
        The value in MiB.

    Raises:
        RuntimeError: if there is no ``VmHWM`` line.
    """
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            value, unit = line.split()[1:3]
            if unit != "kB":  # the kernel has always used kB; fail loudly rather than mis-scale
                raise RuntimeError(f"unexpected VmHWM unit: {unit!r}")
            return int(value) / 1024
    raise RuntimeError("no VmHWM line in /proc status")


def run_json_child(module: str, args: list[str], timeout: float | None = None) -> dict[str, Any]:
    """Run ``python -m MODULE ARGS --worker-out TMP`` and return the JSON the child wrote to TMP.

    The child runs from the repository root with it on ``PYTHONPATH`` so ``bench`` and ``pipeline``
    import whatever the install state.

    Args:
        module: Dotted module name of the worker.
        args: Arguments for the worker.
        timeout: Seconds before the child is killed.

    Returns:
        The decoded JSON object, or ``{"error": ...}`` when the child crashed without writing one.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="tieout-bench-") as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, "-m", module, *args, "--worker-out", str(out)]
        try:
            proc = subprocess.run(
                cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout} s"}
        if out.exists():
            data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
            return data
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"child exited {proc.returncode}: {' | '.join(tail)}"}


def _engine_pages(path: Path) -> int:
    """Run the engine on ``path`` in this process and return the page count it reports."""
    from pipeline.engine import EngineConfig, process_path  # type: ignore[import-not-found,unused-ignore]

    result = process_path(path, config=EngineConfig())
    return result.stats.pages or len(result.page_info)


def _pymupdf_pages(path: Path) -> int:
    """Baseline: PyMuPDF ``get_text("dict")`` on every page; returns the page count."""
    from bench.gt import open_pdf

    with open_pdf(path) as doc:
        for page in doc:
            page.get_text("dict")
        return int(doc.page_count)


_METHODS = {"tieout": _engine_pages, "pymupdf": _pymupdf_pages}


def _worker(path: Path, method: str, out: Path) -> None:
    """Child side: process the file, then record our own VmHWM and the page count."""
    try:
        pages = _METHODS[method](path)
        payload: dict[str, Any] = {"peak_rss_mb": peak_rss_mb(), "pages": pages}
    except Exception as exc:  # report any failure to the parent instead of a bare traceback
        payload = {"error": f"{type(exc).__name__}: {exc}", "peak_rss_mb": peak_rss_mb()}
    out.write_text(json.dumps(payload), encoding="utf-8")


def measure_peak_rss(path: Path, method: str = "tieout", timeout: float | None = 600) -> dict[str, Any]:
    """Peak RSS of ``method`` processing ``path``, in a fresh child process.

    Args:
        path: The PDF.
        method: ``"tieout"`` (the engine) or ``"pymupdf"`` (text-extraction baseline).
        timeout: Seconds before the child is killed.

    Returns:
        ``{"peak_rss_mb": float, "pages": int}`` or a dict with an ``"error"`` key.
    """
    return run_json_child("bench.peak_rss", [str(Path(path).resolve()), "--method", method], timeout)


def measure_engine_peak_rss(path: Path) -> tuple[float, int]:
    """Peak RSS (MiB) and page count of ``process_path(path)`` run in a child process.

    Args:
        path: The PDF.

    Returns:
        ``(peak_rss_mb, pages)``.

    Raises:
        RuntimeError: if the engine could not be imported or failed on the file.
    """
    data = measure_peak_rss(path, "tieout")
    if "error" in data:
        raise RuntimeError(str(data["error"]))
    return float(data["peak_rss_mb"]), int(data["pages"])


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns 0 when under the limit, 1 when over, 2 when the run failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("file", type=Path)
    parser.add_argument("--method", choices=sorted(_METHODS), default="tieout")
    parser.add_argument("--limit-mb", type=float, default=DEFAULT_LIMIT_MB)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker_out is not None:
        _worker(args.file, args.method, args.worker_out)
        return 0
    data = measure_peak_rss(args.file, args.method)
    if "error" in data:
        print(f"{args.method}: n/a ({data['error']})")
        return 2
    peak, pages = float(data["peak_rss_mb"]), int(data["pages"])
    verdict = "met" if peak < args.limit_mb else "NOT met"
    print(f"{args.method}: {args.file.name}: {pages} pages, peak RSS {peak:.1f} MB")
    print(f"target peak RSS < {args.limit_mb:.0f} MB: {verdict}")
    return 0 if peak < args.limit_mb else 1


if __name__ == "__main__":
    sys.exit(main())
