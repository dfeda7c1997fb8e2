"""Engine settings: limits that protect a worker from hostile input, and tuning knobs."""

from __future__ import annotations

from pydantic import Field

from pipeline.knobs import Knobs
from pipeline.parse.table_types import TableFinderSettings

__all__ = ["PIPELINE_VERSION", "EngineConfig"]

PIPELINE_VERSION = "0.1.0"
"""Bumped whenever outputs for the same bytes may change; part of the idempotency key downstream."""


class EngineConfig(Knobs):
    """Settings of one engine run. Defaults suit annual reports of a few hundred pages."""

    max_bytes: int = Field(default=256 * 1024 * 1024, description="Larger files are rejected as too_large.")
    max_pages: int = Field(
        default=3000, description="Documents with more pages are rejected as too_many_pages."
    )
    timeout_s: float = Field(default=300.0, description="Wall-clock budget per document.")
    # Quotas of the worker process (adapters/workers/isolation.py), enforced by the kernel with setrlimit so
    # that
    # they hold inside MuPDF's C code too; a breach ends the document with its own error category.
    max_memory_bytes: int | None = Field(
        default=4 * 1024**3,
        ge=32 * 1024**2,
        description="Address space of a worker (RLIMIT_AS); beyond it, memory_limit. None: no limit.",
    )
    max_cpu_s: float | None = Field(
        default=None,
        gt=0,
        description="CPU seconds per document in a worker (RLIMIT_CPU); beyond them, cpu_limit. "
        "None: timeout_s.",
    )
    max_open_files: int = Field(
        default=256, ge=3, description="Open files of a worker (RLIMIT_NOFILE); beyond them, file_limit."
    )
    max_output_bytes: int = Field(
        default=128 * 1024**2,
        ge=1024,
        description="Largest serialized result a worker may return; a larger one is output_too_large.",
    )
    first_pages: int | None = Field(default=None, description="Process only the first N pages (sampling).")
    chunk_max_tokens: int = Field(default=400, ge=32, description="Upper bound of a text chunk's tokens.")
    store_shrink_every: int = Field(
        default=16, ge=1, description="Pages between releases of MuPDF's resource cache (flat memory)."
    )
    plumber_second_opinion: bool = Field(
        default=False,
        description="Re-read ruled tables with pdfplumber (~0.3 s a page); agreement becomes confidence.",
    )
    plumber_max_pages: int = Field(
        default=4, ge=0, description="Cap on pages given to pdfplumber per document."
    )
    table_finder: TableFinderSettings = Field(
        default_factory=TableFinderSettings, description="The table finder's tolerances."
    )

    @property
    def cpu_limit_s(self) -> float:
        """The CPU seconds a document may use in a worker: ``max_cpu_s``, or the wall-clock ``timeout_s``."""
        return self.max_cpu_s if self.max_cpu_s is not None else self.timeout_s
