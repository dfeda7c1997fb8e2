"""Shared fixtures: where the shared corpus and the sample documents are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_docs"
CORPUS = Path(os.environ.get("TIEOUT_CORPUS", REPO.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        # In CI the corpus is part of the contract: a missing corpus must fail, not pass by skipping.
        if os.environ.get("CI"):
            pytest.fail(f"shared corpus not found at {CORPUS} (set TIEOUT_CORPUS)")
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS
