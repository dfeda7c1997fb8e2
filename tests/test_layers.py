"""The layer contract at run time: a service process does not load the parsing engine."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_services_does_not_import_pymupdf() -> None:
    # Regression: consumers/services.py imported pipeline.engine, and with it MuPDF (~220 MB), into every
    # service process, although isolation.py promises that only the worker processes load it.
    code = (
        "import sys, consumers.wiring, consumers.services, consumers.ops, consumers.kafka; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pymupdf', 'fitz', 'pdfplumber', "
        "'pipeline') and (m.startswith(('pymupdf', 'fitz', 'pdfplumber')) or m == 'pipeline.engine')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]"
