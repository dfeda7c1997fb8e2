"""Files: the embedded run's outputs (one JSON record per line, one file per record kind), and private files.

Whatever holds analysts' words or the documents' content outside the run's own outputs (the review store
and its WAL, the console's page and tick-and-tie caches, exports, the users file and session secret) is
created readable by its owner only: files 0600, folders 0700, whatever the process's umask.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import IO, BinaryIO

from pipeline.config import PIPELINE_VERSION
from schemas.models import OUTPUT_RECORDS, DocumentResult, ErrorRecord, Fact, Flag, Record, Table

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "JsonlOutputs",
    "create_private",
    "load_document",
    "private_dir",
    "private_file",
    "tighten",
    "write_private",
]

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


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
            self.add(name, records)

    def add(self, name: str, records: Sequence[Record]) -> None:
        """Append records to one output (findings made after their document was written: across documents)."""
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


def private_dir(path: Path) -> Path:
    """``path`` as a folder, each missing level of it made 0700 (``mkdir -p`` would make parents 0755).

    A folder that exists already keeps its mode: it may be one the user chose to share (a run's folder);
    what is written into it is private anyway.

    Returns:
        ``path``.
    """
    missing = []
    level = path
    while not level.exists():
        missing.append(level)
        level = level.parent
    for folder in reversed(missing):
        # made meanwhile by another thread or process: fine. The mode passes the umask, which only ever
        # removes bits from 0700.
        with suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR_MODE)
    return path


@contextmanager
def private_file(path: Path) -> Iterator[BinaryIO]:
    """A new file at ``path`` (0600, its missing folders 0700), written whole or not at all.

    The file is written under a temporary name beside ``path`` and renamed over it when the block ends
    without an error, so a reader never sees half a file; on an error the temporary file is removed.

    Yields:
        The file, open for writing bytes.
    """
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as fh:
            # a temporary file left by a killed writer kept the mode it was made with: set it again
            os.fchmod(fh.fileno(), PRIVATE_FILE_MODE)
            yield fh
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as a private file (see :func:`private_file`)."""
    with private_file(path) as fh:
        fh.write(data)


def create_private(path: Path) -> None:
    """Make ``path`` an empty private file (0600, its missing folders 0700) unless it exists.

    For files another library fills in place (SQLite's database, whose WAL and shared-memory files take
    its mode); an existing file is :func:`tighten`-ed.
    """
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        tighten(path)
        return
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)  # exactly: a umask must not take the owner's bits either
    finally:
        os.close(fd)


def tighten(path: Path) -> None:
    """Make an existing file of ours private (0600): one an earlier version created readable by others.

    A missing file, or one owned by another user (which only its owner may change), is left alone.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if st.st_mode & 0o077 and st.st_uid == os.geteuid():
        os.chmod(path, PRIVATE_FILE_MODE)
