"""Misbehaving worker targets for the isolation tests (run inside worker processes)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from pipeline.config import PIPELINE_VERSION, EngineConfig
from schemas.models import DocumentResult


def ok(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    return DocumentResult(doc_id="0" * 64, source=source, pipeline_version=PIPELINE_VERSION)


def hang(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    if "hang" in source:
        time.sleep(3600)
    return ok(path, config, source=source)


def crash(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    if "crash" in source:
        os.kill(os.getpid(), signal.SIGSEGV)
    return ok(path, config, source=source)


def boom(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    if "boom" in source:
        raise ValueError("unexpected")
    return ok(path, config, source=source)
