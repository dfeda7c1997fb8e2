"""Where the review console finds a flag's PDF, and its page images (rendered once, cached on disk).

A record names its document by ``source`` (the path or name given to ``tieout run``, or the object key in
the landing bucket) and ``doc_id`` (the sha256 of its bytes). A source is looked up only inside the
configured roots (folders, or the landing bucket) and its bytes must hash to the ``doc_id``: a record
whose source names ``../../etc/passwd`` or another file of the same name reaches nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from adapters.files import write_private
from adapters.review.render import PrintedBoxes, RenderError, page_sizes, printed_boxes, render_page
from adapters.storage import Store, UnsafeKey, safe_key

__all__ = [
    "MAX_PDF_BYTES",
    "ZOOMS",
    "DocumentNotFound",
    "DocumentSource",
    "LocalDocuments",
    "PageImages",
    "PageSize",
    "StoreDocuments",
    "check_doc_id",
    "default_cache_dir",
]

ZOOMS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
"""The zoom levels the console serves (a fixed set keeps the cache bounded)."""

MAX_PDF_BYTES = 512 * 1024 * 1024

_DOC_ID = re.compile(r"^[0-9a-f]{64}$")
_SKIP_DIRS = {".venv", "venv", "node_modules", "__pycache__", ".git"}
_MAX_DEPTH = 4


class DocumentNotFound(LookupError):
    """No file inside the configured roots has this source name and these bytes."""


def default_cache_dir() -> Path:
    """``$TIEOUT_CACHE/review`` (default ``~/.cache/tieout/review``)."""
    cache = os.environ.get("TIEOUT_CACHE") or str(Path.home() / ".cache" / "tieout")
    return Path(cache) / "review"


def check_doc_id(doc_id: str) -> str:
    """``doc_id`` if it is a sha256 in hex (it names cache folders), else :class:`DocumentNotFound`."""
    if not _DOC_ID.match(doc_id):
        raise DocumentNotFound(f"{doc_id!r} is not a document id")
    return doc_id


class DocumentSource(Protocol):
    """Reads a document's bytes by its id and source."""

    def pdf(self, doc_id: str, source: str) -> bytes:
        """The document's bytes, or :class:`DocumentNotFound`."""
        ...


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class LocalDocuments:
    """PDFs in local folders (the embedded run's inputs).

    ``source`` is tried as a path under each root, then as a file name anywhere below a root (a few
    levels deep, hidden folders and virtualenvs skipped), since ``tieout run`` records the name only.
    """

    def __init__(self, roots: list[Path]) -> None:
        """Serve PDFs found under ``roots`` (resolved once: a symlink cannot lead outside later)."""
        self.roots = [r.resolve() for r in roots]
        self._found: dict[str, Path] = {}
        self._lock = threading.Lock()

    def _inside(self, path: Path) -> bool:
        real = path.resolve()
        return any(real.is_relative_to(root) for root in self.roots)

    def _candidates(self, source: str) -> Iterator[Path]:
        rel = Path(source)
        if not rel.is_absolute() and ".." not in rel.parts:
            for root in self.roots:
                yield root / rel
        name = rel.name
        if not name or name in (".", ".."):
            return
        for root in self.roots:
            yield from _walk(root, name, 0)

    def pdf(self, doc_id: str, source: str) -> bytes:
        """See :class:`DocumentSource`."""
        check_doc_id(doc_id)
        with self._lock:
            known = self._found.get(doc_id)
        if known is not None and known.is_file():
            data = known.read_bytes()
            if _sha256(data) == doc_id:
                return data
        for path in self._candidates(source):
            if not path.is_file() or not self._inside(path):
                continue
            if path.stat().st_size > MAX_PDF_BYTES:
                continue
            data = path.read_bytes()
            if _sha256(data) == doc_id:
                with self._lock:
                    self._found[doc_id] = path.resolve()
                return data
        roots = ", ".join(str(r) for r in self.roots)
        raise DocumentNotFound(
            f"{source!r} (sha256 {doc_id[:12]}…) is not under {roots}: pass the folder of the PDFs given "
            "to `tieout run` with --pdfs"
        )


def _walk(folder: Path, name: str, depth: int) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.name == name and e.is_file():
            yield Path(e.path)
    if depth >= _MAX_DEPTH:
        return
    for e in entries:
        # follow no symlinked folder: a link could lead outside the root (files are checked anyway)
        if e.is_dir(follow_symlinks=False) and not e.name.startswith(".") and e.name not in _SKIP_DIRS:
            yield from _walk(Path(e.path), name, depth + 1)


class StoreDocuments:
    """PDFs in the landing bucket of the object store (the services' inputs; ``source`` is the key)."""

    def __init__(self, store: Store, bucket: str) -> None:
        """Serve objects of ``bucket`` in ``store``."""
        self.store = store
        self.bucket = bucket

    def pdf(self, doc_id: str, source: str) -> bytes:
        """See :class:`DocumentSource`."""
        check_doc_id(doc_id)
        try:
            key = safe_key(source)
        except UnsafeKey as exc:
            raise DocumentNotFound(str(exc)) from exc
        try:
            _, data = self.store.get_bytes(self.bucket, [key], max_bytes=MAX_PDF_BYTES)
        except Exception as exc:  # StorageError and the client's own errors alike
            raise DocumentNotFound(f"s3://{self.bucket}/{key}: {exc}") from exc
        if _sha256(data) != doc_id:
            raise DocumentNotFound(f"s3://{self.bucket}/{key} no longer holds document {doc_id[:12]}…")
        return data


@dataclass(frozen=True)
class PageSize:
    """A page's size in PDF points."""

    width: float
    height: float


class PageImages:
    """Page images and sizes, rendered from a :class:`DocumentSource` and cached under ``cache_dir``.

    A document id is the hash of its bytes, so a cached image never goes stale; the cache path is built
    from the checked id, a page number and a zoom from :data:`ZOOMS` only. The pages show the documents'
    content: the cache's files are private (0600 in 0700 folders), written whole (a temporary file
    renamed), so a reader never sees half an image.
    """

    def __init__(self, documents: DocumentSource, cache_dir: Path | None = None) -> None:
        """Render from ``documents`` into ``cache_dir`` (default :func:`default_cache_dir`/pages)."""
        self.documents = documents
        self.root = cache_dir or default_cache_dir()
        """The console's cache folder (page images go to its ``pages`` folder)."""
        self.cache_dir = self.root / "pages"

    def sizes(self, doc_id: str, source: str) -> list[PageSize]:
        """Every page's size, in page order."""
        folder = self.cache_dir / check_doc_id(doc_id)
        path = folder / "sizes.json"
        if path.is_file():
            return [PageSize(w, h) for w, h in json.loads(path.read_text())]
        try:
            sizes = page_sizes(self.documents.pdf(doc_id, source))
        except RenderError as exc:
            raise DocumentNotFound(str(exc)) from exc
        write_private(path, json.dumps(sizes).encode())
        return [PageSize(w, h) for w, h in sizes]

    def png(self, doc_id: str, source: str, page: int, zoom: float) -> bytes:
        """The PNG of 1-based ``page`` at ``zoom`` (one of :data:`ZOOMS`)."""
        if zoom not in ZOOMS:
            raise RenderError(f"zoom must be one of {', '.join(str(z) for z in ZOOMS)}")
        path = self.cache_dir / check_doc_id(doc_id) / f"p{int(page)}-z{int(zoom * 100)}.png"
        if path.is_file():
            return path.read_bytes()
        image = render_page(self.documents.pdf(doc_id, source), page, zoom)
        write_private(path, image.png)
        return image.png

    def printed(self, doc_id: str, source: str, page: int) -> PrintedBoxes:
        """The word boxes printed on 1-based ``page`` (where a highlight's label must not go)."""
        path = self.cache_dir / check_doc_id(doc_id) / f"p{int(page)}-words.json"
        if path.is_file():
            cached = json.loads(path.read_text())
            return PrintedBoxes([tuple(b) for b in cached["figures"]], [tuple(b) for b in cached["words"]])
        boxes = printed_boxes(self.documents.pdf(doc_id, source), page)
        write_private(path, json.dumps({"figures": boxes.figures, "words": boxes.words}).encode())
        return boxes
