"""The embedded run's output files: one JSON record per line, one file per record kind."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from schemas.models import OUTPUT_RECORDS, DocumentResult, Record


class JsonlOutputs:
    """Writes ``facts.jsonl``, ``flags.jsonl``, ``chunks.jsonl``, ``tables.jsonl`` and ``errors.jsonl``.

    Files are written to a temporary name and renamed on close, so a reader never sees a half-written
    run and re-running into the same folder replaces the previous results instead of appending to them.
    """

    def __init__(self, out_dir: Path) -> None:
        """Open the five files for writing in ``out_dir`` (created if missing)."""
        self.out_dir = out_dir
        out_dir.mkdir(parents=True, exist_ok=True)
        self._files: dict[str, IO[str]] = {
            name: (out_dir / f".{name}.jsonl.tmp").open("w", encoding="utf-8") for name in OUTPUT_RECORDS
        }
        self.counts: dict[str, int] = dict.fromkeys(OUTPUT_RECORDS, 0)

    def write(self, result: DocumentResult) -> None:
        """Append one document's records."""
        groups: dict[str, Sequence[Record]] = {
            "facts": result.facts,
            "flags": result.flags,
            "chunks": result.chunks,
            "tables": result.tables,
            "errors": result.errors,
        }
        for name, records in groups.items():
            f = self._files[name]
            for r in records:
                f.write(r.model_dump_json())
                f.write("\n")
            self.counts[name] += len(records)

    def close(self) -> None:
        """Flush and move the files into place."""
        for name, f in self._files.items():
            f.flush()
            f.close()
            (self.out_dir / f".{name}.jsonl.tmp").replace(self.out_dir / f"{name}.jsonl")

    def __enter__(self) -> JsonlOutputs:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
