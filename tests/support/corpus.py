"""The shared corpus of real documents (``../shared/corpus``, or ``$TIEOUT_CORPUS``) for the tests.

A test of one corpus file opens it with :func:`corpus_pdf`, and is skipped where the file (or PyMuPDF) is
missing; a test of the whole corpus takes the ``corpus`` fixture (``tests/conftest.py``), which fails in CI
when the corpus is missing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CORPUS", "REPO", "corpus_pdf"]

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("TIEOUT_CORPUS", REPO.parent / "shared" / "corpus"))


@contextlib.contextmanager
def corpus_pdf(name: str) -> Iterator[Any]:
    """The corpus file ``name`` (a path below the corpus), open as a PyMuPDF document; the calling test is
    skipped when the file or PyMuPDF is missing."""
    pymupdf = pytest.importorskip("pymupdf")
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus file missing: {path}")
    with pymupdf.open(path) as doc:
        yield doc
