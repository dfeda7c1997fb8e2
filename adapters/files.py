"""The embedded run's output files: one JSON record per line, one file per record kind."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from pipeline.config import PIPELINE_VERSION
from schemas.models import OUTPUT_RECORDS, DocumentResult, ErrorRecord, Fact, Flag, Record, Table

__all__ = ["JsonlOutputs", "load_document"]


class JsonlOutputs:
    """Writes one ``<name>.jsonl`` per output record (:data:`schemas.models.OUTPUT_RECORDS`).

    Files are written to a temporary name and renamed on close, so a reader never sees a half-written
    run and re-running into the same folder replaces the previous results instead of appending to them.
    """

    def __init__(self, out_dir: Path) -> None:
        """Open the files for writing in ``out_dir`` (created if missing)."""
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
            "structure_questions": result.structure_questions,
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


def _records(path: Path, doc_id: str) -> list[str]:
    """The lines of one output file that belong to a document (all of them carry its ``doc_id``)."""
    if not path.is_file():
        return []
    needle = f'"doc_id":"{doc_id}"'
    with path.open(encoding="utf-8") as f:
        return [line for line in f if needle in line]


def load_document(out_dir: Path, doc_id: str) -> DocumentResult | None:
    """One document's records from an embedded run's output folder, or None when it holds none.

    The files carry tables, facts, flags and errors but no calculation trees or narrative blocks: enough to
    show the run's flags where they are printed, not to re-run the checks.

    Args:
        out_dir: The folder ``tieout run --out`` wrote.
        doc_id: The document's id (the sha256 of its bytes).

    Returns:
        A result with the document's tables, facts, flags and errors, in file order.
    """
    tables = [Table.model_validate_json(x) for x in _records(out_dir / "tables.jsonl", doc_id)]
    facts = [Fact.model_validate_json(x) for x in _records(out_dir / "facts.jsonl", doc_id)]
    flags = [Flag.model_validate_json(x) for x in _records(out_dir / "flags.jsonl", doc_id)]
    errors = [ErrorRecord.model_validate_json(x) for x in _records(out_dir / "errors.jsonl", doc_id)]
    found: list[Table | Fact | Flag | ErrorRecord] = [*tables, *facts, *flags, *errors]
    if not found:
        return None
    return DocumentResult(
        doc_id=doc_id,
        source=found[0].source,
        pipeline_version=PIPELINE_VERSION,
        tables=tables,
        facts=facts,
        flags=flags,
        errors=errors,
    )
