"""Quotas of a worker process: the kernel's resource limits, and telling an allocation failure apart.

A worker (:mod:`adapters.workers.isolation`) sets its own limits with ``setrlimit`` as soon as it starts,
before
it imports MuPDF, so they bind every allocation, file and CPU second of the parse, C code included:

* address space (``RLIMIT_AS``): an allocation beyond it fails; Python raises ``MemoryError`` and MuPDF
  throws ``malloc (N bytes) failed``, which :func:`pipeline.failures.out_of_memory` recognises wherever it is
  caught;
* CPU seconds (``RLIMIT_CPU``): the soft limit is moved before each document to the CPU time used so far
  plus the document's allowance, and the kernel's ``SIGXCPU`` ends the process when it is spent, even
  inside a C loop that never returns to Python;
* open files (``RLIMIT_NOFILE``): a further ``open`` fails with ``EMFILE``;
* core files (``RLIMIT_CORE`` = 0): a worker killed by a quota leaves no multi-gigabyte core behind.

The size of the result is checked by the worker before it sends it and by the parent while it receives.
This module imports nothing heavy: the services' processes import it too.
"""

from __future__ import annotations

import math
import resource
import signal
from dataclasses import asdict, dataclass
from typing import Final

from pipeline.config import EngineConfig
from schemas.models import ErrorCategory

__all__ = ["QUOTA_CATEGORIES", "AppliedLimits", "apply_limits", "cpu_used_s", "start_cpu_allowance"]

QUOTA_CATEGORIES: Final[frozenset[ErrorCategory]] = frozenset(
    {"memory_limit", "cpu_limit", "file_limit", "output_too_large", "timeout"}
)
"""Fatal categories that mean a worker quota was breached (the document may be fine with more room)."""


@dataclass(frozen=True, slots=True)
class AppliedLimits:
    """The limits a worker runs under, as it set them (sent to the parent, which judges deaths by them)."""

    memory_bytes: int | None
    cpu_s: float
    open_files: int

    def as_dict(self) -> dict[str, int | float | None]:
        """A plain dict, for the worker's first message."""
        return asdict(self)


def _lower(which: int, soft: int) -> int:
    """Set ``which``'s soft limit to ``soft`` (capped by the hard limit), the hard one to match it.

    Lowering the hard limit too keeps the document's code from raising the soft one back.
    """
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, soft))
    return soft


def apply_limits(config: EngineConfig) -> AppliedLimits:
    """In a worker process, as it starts: limit its address space, open files and core files.

    The CPU limit is per document and set by :func:`start_cpu_allowance` before each one; here only the
    default action of ``SIGXCPU`` (end the process) is made sure of.
    """
    memory = None
    if config.max_memory_bytes is not None:
        memory = _lower(resource.RLIMIT_AS, config.max_memory_bytes)
    files = _lower(resource.RLIMIT_NOFILE, config.max_open_files)
    _lower(resource.RLIMIT_CORE, 0)
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    return AppliedLimits(memory_bytes=memory, cpu_s=config.cpu_limit_s, open_files=files)


def cpu_used_s() -> float:
    """CPU seconds (user + system) this process has used."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def start_cpu_allowance(seconds: float) -> None:
    """Let the current process use ``seconds`` more CPU seconds from now, then receive ``SIGXCPU``.

    ``RLIMIT_CPU`` counts the process's whole life, so the soft limit moves up before each document. The
    hard limit stays where it was (raising it back is not allowed), and the soft one stays a second under a
    finite hard limit, so that the kernel's warning signal, not its ``SIGKILL``, ends the process.
    """
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(cpu_used_s() + seconds)
    if hard != resource.RLIM_INFINITY:
        soft = max(1, min(soft, hard - 1))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
