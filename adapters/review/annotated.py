"""The tick-and-tie copy of a document for the review console's download button, made once and cached.

The console holds a run's flags but none of its calculation trees (``flags.jsonl`` and the sink's tables
carry none), and ticks are derived from those trees, so the document is parsed and checked again. That,
and the annotation itself, runs in a killable worker process
(:class:`adapters.workers.isolation.IsolatedEngine`)
under the engine's byte, page and time limits: MuPDF reads every page of the document to parse it and
again to place the ticks, a hostile PDF can hang or crash it inside a C call, and the console must
survive that. The worker writes the annotated copy beside its input; the console checks that the result
is of the requested document (its ``doc_id``) and keeps the copy under
``cache_dir/annotated/<doc_id>/<pipeline version>[-<decisions digest>].pdf``: a document id is the hash of
its bytes, the version names the engine and checks that made the copy, and the digest names the analysts'
standing decisions drawn in it (:func:`~adapters.review.tick_decisions.decisions_digest`), so a cached copy
never goes stale in place: a download after a decision is a copy with that decision.

The copy is the re-parse's own: its breaks are the flags the checks raise now, which in services mode
leaves out the model stage's flags.
"""

from __future__ import annotations

import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Protocol

from adapters.files import private_dir, write_private
from adapters.review.documents import DocumentSource, check_doc_id, default_cache_dir
from adapters.review.tick_decisions import Decisions, decisions_digest, dump_decisions, load_decisions
from adapters.review.tickmarks import AnnotateError
from adapters.workers.isolation import IsolatedEngine
from pipeline.config import PIPELINE_VERSION, EngineConfig
from schemas.models import DocumentResult, ErrorRecord

__all__ = [
    "GRACE_S",
    "WORKER_TARGET",
    "AnnotatedCopies",
    "Annotations",
    "annotate_path",
    "annotated_path",
    "decisions_path",
]

WORKER_TARGET = "adapters.review.annotated:annotate_path"
"""What the worker process runs (``module:function``, as :mod:`adapters.workers.isolation` resolves it)."""

GRACE_S = 20.0
"""A request waits this much longer than the worker's time limit (the worker's own grace, and its start)."""

_STRIPES = 64


class Annotations(Protocol):
    """Annotated copies of documents, as the console serves them."""

    @property
    def wait_s(self) -> float:
        """How long a request may wait for a copy before it is told to come back later."""
        ...

    def pdf(self, doc_id: str, source: str, decisions: Decisions | None = None) -> bytes:
        """The annotated copy's bytes, drawn with the flags' standing ``decisions`` (by flag id).

        Raises:
            DocumentNotFound: The document's PDF cannot be found.
            AnnotateError: The document cannot be parsed or annotated (its category says why, ``timeout``
                and ``internal`` included).
        """
        ...


def annotated_path(path: Path) -> Path:
    """Where the worker writes the annotated copy of the PDF at ``path`` (``x.pdf`` → ``x.annotated.pdf``)."""
    return path.with_name(f"{path.stem}.annotated.pdf")


def decisions_path(path: Path) -> Path:
    """Where the worker reads the decisions to draw for the PDF at ``path`` (``x.decisions.json``)."""
    return path.with_name(f"{path.stem}.decisions.json")


def annotate_path(path: Path, config: EngineConfig, *, source: str) -> DocumentResult:
    """Worker side: parse and check the PDF at ``path``, and write its tick-and-tie copy beside it.

    The standing decisions to draw are read from :func:`decisions_path` beside it, when there is one.

    Runs in the worker process (see :data:`WORKER_TARGET`); the parsing engine is imported there only.

    Args:
        path: The PDF.
        config: The engine's limits.
        source: The name the result's records carry.

    Returns:
        The result without its bulk (the console needs its id and fatal errors only, and every table,
        chunk and fact would cross the pipe). A document that cannot be annotated gets a fatal error.
    """
    from adapters.review.tickmarks import annotate_pdf
    from pipeline.engine import process_bytes

    data = path.read_bytes()
    saved = decisions_path(path)
    decisions = load_decisions(saved.read_text(encoding="utf-8")) if saved.is_file() else {}
    result = process_bytes(data, source=source, config=config)
    errors = [e for e in result.errors if e.fatal]
    if not errors:
        try:
            marked = annotate_pdf(data, result, decisions)
        except AnnotateError as exc:
            errors.append(
                ErrorRecord(
                    doc_id=result.doc_id,
                    source=source,
                    stage="annotate",
                    category=exc.category,
                    message=exc.message,
                    fatal=True,
                )
            )
        else:
            # private (0600), and whole or absent if the worker is killed while writing
            write_private(annotated_path(path), marked.pdf)
    return DocumentResult(
        doc_id=result.doc_id,
        source=result.source,
        pipeline_version=result.pipeline_version,
        errors=errors,
        stats=result.stats,
    )


class AnnotatedCopies:
    """Makes annotated copies in worker processes and caches them on disk (see the module docstring).

    Thread-safe: the console calls :meth:`pdf` from its thread pool. Two requests for one document make
    one copy (the second waits for the first, then reads the cache); at most ``workers`` copies are made
    at once, each in a worker process of its own that ends with it.
    """

    def __init__(
        self,
        documents: DocumentSource,
        cache_dir: Path | None = None,
        *,
        timeout_s: float = 180.0,
        max_pages: int = 3000,
        max_mb: int = 256,
        workers: int = 2,
        target: str = WORKER_TARGET,
    ) -> None:
        """Annotate documents from ``documents`` into ``cache_dir`` (default :func:`default_cache_dir`).

        Args:
            documents: Where the PDFs are read (their bytes must hash to the document id).
            cache_dir: The console's cache folder; copies go to its ``annotated`` folder.
            timeout_s: Time allowed for parsing a document (the worker is killed a grace period later).
            max_pages: Documents with more pages are refused.
            max_mb: Documents larger than this many MiB are refused.
            workers: Copies made at the same time, at most.
            target: The worker's function (tests swap in misbehaving ones).
        """
        self.documents = documents
        self.cache_dir = (cache_dir or default_cache_dir()) / "annotated"
        self.timeout_s = timeout_s
        self._config = EngineConfig(timeout_s=timeout_s, max_pages=max_pages, max_bytes=max_mb * 1024 * 1024)
        self._target = target
        self._slots = threading.BoundedSemaphore(max(1, workers))
        # lock stripes by document id: one copy per document at a time, in bounded memory
        self._stripes = [threading.Lock() for _ in range(_STRIPES)]

    @property
    def wait_s(self) -> float:
        """See :class:`Annotations`."""
        return self.timeout_s + GRACE_S

    def path(self, doc_id: str, decisions: Decisions | None = None) -> Path:
        """Where the copy of ``doc_id`` with ``decisions`` is cached.

        Built from the checked id, the pipeline version and the decisions' digest (none without decisions).
        """
        version = re.sub(r"[^0-9A-Za-z._-]", "_", PIPELINE_VERSION)
        digest = decisions_digest(decisions or {})
        return self.cache_dir / check_doc_id(doc_id) / f"{version}{'-' + digest if digest else ''}.pdf"

    def pdf(self, doc_id: str, source: str, decisions: Decisions | None = None) -> bytes:
        """See :class:`Annotations`."""
        # Only the document's own decisions make its copy (and name it): one about another document
        # must not make this one again.
        decisions = {k: d for k, d in (decisions or {}).items() if d.doc_id == doc_id}
        target = self.path(doc_id, decisions)
        if target.is_file():
            return target.read_bytes()
        deadline = time.monotonic() + self.wait_s
        stripe = self._stripes[int(doc_id[:8], 16) % _STRIPES]
        if not stripe.acquire(timeout=self.wait_s):
            raise AnnotateError("timeout", "the annotated copy is still being made: try again in a minute")
        try:
            if target.is_file():  # made while this request waited
                return target.read_bytes()
            data = self.documents.pdf(doc_id, source)
            if not self._slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
                raise AnnotateError("timeout", "other documents are being annotated: try again in a minute")
            try:
                self._make(doc_id, source, data, target, decisions)
            finally:
                self._slots.release()
            _prune(target)
            return target.read_bytes()
        finally:
            stripe.release()

    def _make(self, doc_id: str, source: str, data: bytes, target: Path, decisions: Decisions) -> None:
        private_dir(target.parent)  # 0700, the cache folder too: the copies show the documents' content
        # the work folder sits in the cache, on the cache's file system: the copy is renamed into place
        # (atomic), and a large document does not fill a small /tmp
        with tempfile.TemporaryDirectory(prefix=".work-", dir=self.cache_dir) as work:
            pdf = Path(work) / "document.pdf"
            pdf.write_bytes(data)
            if decisions:
                decisions_path(pdf).write_text(dump_decisions(decisions), encoding="utf-8")
            engine = IsolatedEngine(self._config, target=self._target)
            try:
                result = engine.run(pdf, source)
            finally:
                engine.close()
            fatal = next((e for e in result.errors if e.fatal), None)
            if fatal is not None:
                raise AnnotateError(fatal.category, fatal.message)
            if result.doc_id != doc_id:
                raise AnnotateError(
                    "internal",
                    f"the worker parsed another document ({result.doc_id[:12]}…) than {doc_id[:12]}…",
                )
            out = annotated_path(pdf)
            if not out.is_file():
                raise AnnotateError("internal", "the worker wrote no annotated copy")
            out.replace(target)


def _prune(current: Path) -> None:
    """Delete the document's other cached copies: earlier decisions' or an earlier pipeline version's.

    Each set of decisions makes a copy of its own, so without this the cache grew by a whole annotated
    PDF per decision. Called under the document's lock, after ``current`` is in place; a download
    still reading an older copy keeps its open file (POSIX unlink).
    """
    for old in current.parent.glob("*.pdf"):
        if old != current:
            old.unlink(missing_ok=True)
