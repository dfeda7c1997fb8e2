"""Telling an allocation failure apart from a bad page, wherever it is caught.

MuPDF reports a failed allocation as an ordinary exception, and the stages contain a bad page's or table's
errors; an allocation failure must not be contained that way, because the document needs more memory than
the worker may have (:mod:`adapters.workers.quotas` sets that limit). Pure: the stages import it.
"""

from __future__ import annotations

import errno
import re

__all__ = ["allocation_failed", "out_of_files", "out_of_memory", "raise_if_out_of_memory"]

# MuPDF's allocators say "malloc (N bytes) failed", "calloc (N x M bytes) failed", "realloc (N bytes)
# failed"; the dynamic loader says "failed to map segment" when a library cannot be mapped; strerror(ENOMEM)
# is "Cannot allocate memory".
_OOM = re.compile(
    r"\b(?:malloc|calloc|realloc)\b[^\n]*\bfailed|failed to map segment|cannot allocate memory|out of memory",
    re.IGNORECASE,
)


def allocation_failed(text: str) -> bool:
    """Whether ``text`` (an error message, MuPDF's warnings) reports a failed allocation."""
    return _OOM.search(text) is not None


def out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is an allocation failure: ``MemoryError``, ``ENOMEM``, or MuPDF's failed malloc.

    MuPDF reports a failed allocation as an ordinary exception (``FzErrorSystem``, sometimes re-raised by
    PyMuPDF as ``RuntimeError``), which code that contains a bad page's errors would otherwise swallow.
    """
    if isinstance(exc, MemoryError):
        return True
    if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
        return True
    return allocation_failed(str(exc))


def out_of_files(exc: BaseException) -> bool:
    """Whether ``exc`` is the open-file limit (``EMFILE``, or the system-wide ``ENFILE``)."""
    return isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE)


def raise_if_out_of_memory(exc: Exception) -> None:
    """Re-raise an allocation failure as ``MemoryError``, so that no ``except Exception`` contains it.

    A page or table that fails for lack of memory is not a bad page: the document needs more memory than
    the worker may have, and it must end as ``memory_limit`` rather than as a result with holes in it.
    """
    if isinstance(exc, MemoryError):
        raise exc
    if out_of_memory(exc):
        raise MemoryError(f"allocation failed: {exc}") from exc
