"""Engine settings: limits that protect a worker from hostile input, and tuning knobs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from pipeline.tables import TableFinderSettings

PIPELINE_VERSION = "0.1.0"
"""Bumped whenever outputs for the same bytes may change; part of the idempotency key downstream."""


class EngineConfig(BaseModel):
    """Settings of one engine run. Defaults suit annual reports of a few hundred pages."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_bytes: int = Field(default=256 * 1024 * 1024, description="Larger files are rejected as too_large.")
    max_pages: int = Field(
        default=3000, description="Documents with more pages are rejected as too_many_pages."
    )
    timeout_s: float = Field(default=300.0, description="Wall-clock budget per document.")
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
