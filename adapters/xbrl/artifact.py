"""One document's xBRL artifact: the report's files and the figures left out, as every writer writes them.

``tieout export xbrl`` writes it into ``<out>/<doc_id>/`` (:func:`write_artifact`), the sink service into
``xbrl/ingest_date=YYYY-MM-DD/<doc_id>/`` of the artifact bucket (:mod:`adapters.sinks.xbrl`). Both take
their files, bytes and names from :func:`xbrl_artifact`, so one document's folder holds the same bytes
wherever it is written. Only :func:`~adapters.xbrl.report.xbrl_report`'s ``files``, ``excluded`` and
``published`` are read here: which figures are published and how is the report's business.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from adapters.files import write_private
from adapters.xbrl.report import REPORT_FILE, Excluded, XbrlReport, xbrl_report

if TYPE_CHECKING:
    from pathlib import Path

    from schemas.models import DocumentResult

__all__ = [
    "EXCLUDED_FILE",
    "XbrlArtifact",
    "content_type",
    "excluded_jsonl",
    "write_artifact",
    "xbrl_artifact",
]

EXCLUDED_FILE = "excluded.jsonl"
"""The figures left out of the report, one JSON object a line (``fact_id``, ``metric``, ``reason``)."""

_CONTENT_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".xsd": "application/xml",
    ".xml": "application/xml",
}


def content_type(name: str) -> str:
    """The media type an artifact file is stored with, by its suffix (a file the report adds later too).

    Args:
        name: A file name of the artifact.

    Returns:
        ``application/json``, ``application/x-ndjson`` or ``application/xml``; ``application/octet-stream``
        for a suffix not known here.
    """
    return _CONTENT_TYPES.get(PurePosixPath(name).suffix, "application/octet-stream")


def excluded_jsonl(excluded: Iterable[Excluded]) -> bytes:
    """The figures left out as JSON lines, in the report's order."""
    return "".join(json.dumps(dataclasses.asdict(e)) + "\n" for e in excluded).encode("utf-8")


@dataclass(frozen=True)
class XbrlArtifact:
    """A document's report and the files it is written as.

    Attributes:
        report: The report (its ``excluded`` and ``published`` figures, for summaries).
        files: File name -> bytes: the report's files and :data:`EXCLUDED_FILE`, in writing order.
    """

    report: XbrlReport
    files: Mapping[str, bytes]


def xbrl_artifact(result: DocumentResult) -> XbrlArtifact:
    """A checked document's xBRL artifact: the report's files plus ``excluded.jsonl``.

    The bytes depend on the result alone (no clock, no hash order), so writing one document's artifact
    again, in this process or another, writes the same bytes.

    Args:
        result: A processed document.

    Returns:
        The report and its files by name.
    """
    report = xbrl_report(result)
    files = dict(report.files)
    files[EXCLUDED_FILE] = excluded_jsonl(report.excluded)
    return XbrlArtifact(report=report, files=files)


def write_artifact(artifact: XbrlArtifact, folder: Path) -> Path:
    """Write every file of an artifact into ``folder``, private (files 0600, folders 0700).

    Args:
        artifact: The document's artifact.
        folder: Its folder (``<out>/<doc_id>``), created if missing; files already there are replaced.

    Returns:
        The path of the report (``report.json``), for Arelle.
    """
    for name, data in artifact.files.items():
        write_private(folder / name, data)
    return folder / REPORT_FILE
