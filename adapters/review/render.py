"""Page images for the review console: one PDF page rendered to PNG at screen resolution.

Pure: PDF bytes in, PNG bytes out; no files, no cache (the console's adapters cache the images). The
scale is ``zoom * 96 / 72`` pixels per PDF point, so at zoom 1 a page shows at its printed size on a
96 dpi screen and a box in PDF points (PyMuPDF page space: top-left origin, rotation applied, as every
bbox in the records) lands at ``bbox * scale`` pixels on the image.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pymupdf

__all__ = [
    "MAX_ZOOM",
    "MIN_ZOOM",
    "SCREEN_DPI",
    "PageImage",
    "PrintedBoxes",
    "RenderError",
    "check_zoom",
    "page_sizes",
    "printed_boxes",
    "render_page",
    "render_scale",
    "visible_words",
]

SCREEN_DPI = 96.0
"""CSS pixels per inch: what a browser shows one image pixel as at 100 %."""

MIN_ZOOM = 0.1
MAX_ZOOM = 4.0

# MuPDF contexts are not thread-safe; the console renders from a thread pool.
_LOCK = threading.Lock()


class RenderError(ValueError):
    """The page cannot be rendered: not a PDF, no such page, or a zoom out of range."""


@dataclass(frozen=True)
class PageImage:
    """A rendered page.

    Attributes:
        png: The PNG bytes.
        width_px: Image width in pixels.
        height_px: Image height in pixels.
        width_pt: Page width in PDF points (after rotation, as the records' bboxes see it).
        height_pt: Page height in PDF points.
        scale: Pixels per PDF point (``zoom * 96 / 72``).
    """

    png: bytes
    width_px: int
    height_px: int
    width_pt: float
    height_pt: float
    scale: float


@dataclass(frozen=True)
class PrintedBoxes:
    """What is printed on a page, as word boxes in PDF points (the records' visible page space).

    Attributes:
        figures: The words holding a digit: amounts, years, note and page numbers.
        words: Every other word.
    """

    figures: list[tuple[float, float, float, float]] = field(default_factory=list)
    words: list[tuple[float, float, float, float]] = field(default_factory=list)


def render_scale(zoom: float) -> float:
    """Pixels per PDF point at ``zoom`` on a 96 dpi screen."""
    return zoom * SCREEN_DPI / 72.0


def check_zoom(zoom: float) -> float:
    """``zoom`` if it is within [MIN_ZOOM, MAX_ZOOM], else :class:`RenderError`."""
    if not MIN_ZOOM <= zoom <= MAX_ZOOM:
        raise RenderError(f"zoom {zoom} is outside {MIN_ZOOM}..{MAX_ZOOM}")
    return zoom


def _open(pdf: bytes) -> pymupdf.Document:
    try:
        doc = pymupdf.open(stream=pdf, filetype="pdf")
    except Exception as exc:  # MuPDF raises RuntimeError/FileDataError variants
        raise RenderError(f"not a readable PDF: {exc}") from exc
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise RenderError("the PDF is encrypted")
    return doc


@contextmanager
def _page(pdf: bytes, page: int) -> Iterator[Any]:
    """1-based ``page`` of ``pdf``, open (under the MuPDF lock) for the ``with`` block."""
    with _LOCK:
        doc = _open(pdf)
        try:
            if not 1 <= page <= doc.page_count:
                raise RenderError(f"page {page} does not exist (the document has {doc.page_count})")
            yield doc[page - 1]
        finally:
            doc.close()


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    """Width and height in points of every page (rotation applied), in page order."""
    with _LOCK:
        doc = _open(pdf)
        try:
            return [
                (float(p.rect.width), float(p.rect.height)) for p in (doc[i] for i in range(doc.page_count))
            ]
        finally:
            doc.close()


def render_page(pdf: bytes, page: int, zoom: float = 1.0) -> PageImage:
    """Render 1-based ``page`` of ``pdf`` at ``zoom`` (1.0 = printed size on a 96 dpi screen).

    Args:
        pdf: The document's bytes.
        page: 1-based page number.
        zoom: Magnification, within [MIN_ZOOM, MAX_ZOOM].

    Returns:
        The PNG with its size in pixels and in points.

    Raises:
        RenderError: if the bytes are no readable PDF, the page does not exist or the zoom is out of range.
    """
    scale = render_scale(check_zoom(zoom))
    with _page(pdf, page) as p:
        pix = p.get_pixmap(matrix=pymupdf.Matrix(scale, scale), alpha=False)
        return PageImage(
            png=bytes(pix.tobytes("png")),
            width_px=int(pix.width),
            height_px=int(pix.height),
            width_pt=float(p.rect.width),
            height_pt=float(p.rect.height),
            scale=scale,
        )


def visible_words(page: Any) -> list[tuple[tuple[float, float, float, float], str]]:
    """The words printed on an open PyMuPDF page with their boxes, in the visible (rotated) space.

    PyMuPDF gives words in the page's unrotated space; the records' boxes, the page images and the
    tick-and-tie marks are in the visible one.
    """
    out = []
    for *box, text, _block, _line, _word in page.get_text("words"):
        r = pymupdf.Rect(box)
        if page.rotation:
            r = r * page.rotation_matrix
        out.append(((float(r.x0), float(r.y0), float(r.x1), float(r.y1)), str(text)))
    return out


def printed_boxes(pdf: bytes, page: int) -> PrintedBoxes:
    """The boxes of the words printed on 1-based ``page``, figures apart (see :class:`PrintedBoxes`).

    Raises:
        RenderError: if the bytes are no readable PDF or the page does not exist.
    """
    out = PrintedBoxes()
    with _page(pdf, page) as p:
        for box, text in visible_words(p):
            (out.figures if any(c.isdigit() for c in text) else out.words).append(box)
    return out
