"""The documents: their list, a document's page of thumbnails, page images and the tick-and-tie PDF.

Nothing serves a file named by the request: a URL names a document id, which must be one the store
knows, and page images are found by that id through :class:`~adapters.review.documents.PageImages`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import quote

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from adapters.review.documents import ZOOMS, DocumentNotFound
from adapters.review.render import RenderError, render_scale
from adapters.review.store import FlagQuery, QueueRow
from adapters.review.tickmarks import AnnotateError
from console.pages import call, error, page, page_sizes
from console.params import BadParameter, number
from console.state import ConsoleState, state_of
from pipeline.rewards.regressions import standing

__all__ = [
    "ROUTES",
    "THUMB_ZOOM",
    "Thumb",
    "annotated_pdf",
    "attachment",
    "document_page",
    "documents",
    "page_image",
    "thumbnails",
]

log = logging.getLogger("tieout.console")

THUMB_ZOOM = 0.25


async def documents(request: Request) -> Response:
    """``GET /documents``: every document with flags, how many are open, and those with a previous version."""
    store = state_of(request).store
    return page(
        request, "documents.html", documents=await call(store.documents), versions=await call(store.versions)
    )


async def document_page(request: Request) -> Response:
    """``GET /documents/{doc_id}``: the document's flags, and its page thumbnails marked where they point."""
    state = state_of(request)
    doc_id = request.path_params["doc_id"]
    result = await call(state.store.queue, FlagQuery(doc_id=doc_id, sort="document"), limit=500)
    if not result.rows:
        return error(request, 404, "No flags for this document.")
    source = result.rows[0].flag.source
    sizes, missing = await page_sizes(state, doc_id, source)
    return page(
        request,
        "document.html",
        doc_id=doc_id,
        source=source,
        result=result,
        thumbs=thumbnails(result.rows, sizes),
        missing=missing,
        changed=await call(state.store.changes_of, doc_id) is not None,
    )


async def page_image(request: Request) -> Response:
    """``GET /documents/{doc_id}/pages/{page}.png?zoom=Z``: a page as a PNG image."""
    state = state_of(request)
    doc_id = request.path_params["doc_id"]
    page_no = int(request.path_params["page"])
    zoom = number(request.query_params, "zoom", low=min(ZOOMS), high=max(ZOOMS), allowed=ZOOMS) or 1.0
    source = await _known_source(state, doc_id)
    if source is None:
        return error(request, 404, "There is no such document.")
    sizes, missing = await page_sizes(state, doc_id, source)
    if missing:
        return error(request, 404, f"The PDF cannot be shown: {missing}")
    if not 1 <= page_no <= len(sizes):
        raise BadParameter("page", f"a page of the document, 1 to {len(sizes)}")
    try:
        png = await call(state.config.images.png, doc_id, source, page_no, zoom)
    except DocumentNotFound as exc:
        return error(request, 404, f"The PDF cannot be shown: {exc}")
    except RenderError:  # MuPDF's words are for the log, not the page
        log.exception("rendering page %d of document %s failed", page_no, doc_id)
        return error(request, 422, "This page cannot be rendered (the console's log has the details).")
    # a document id is the hash of its bytes: the image never changes
    return Response(png, media_type="image/png", headers={"cache-control": "private, max-age=86400"})


async def annotated_pdf(request: Request) -> Response:
    """``GET /documents/{doc_id}/annotated.pdf``: the tick-and-tie copy of the document, as a download.

    The copy draws the flags' standing decisions as they are now: dismissed breaks cleared with their
    reason, confirmed ones confirmed, and the reviewer and time of each in its summary.
    """
    state = state_of(request)
    annotations = state.annotations
    doc_id = request.path_params["doc_id"]
    source = await _known_source(state, doc_id)
    if source is None:
        return error(request, 404, "There is no such document.")
    latest = await call(state.store.latest_decisions)
    decisions = standing(d for d in latest if d.doc_id == doc_id)
    cannot = f"The tick-and-tie PDF of {source} cannot be made"
    try:
        # Parsing runs in a worker process and can take a while: off the event loop, and bounded.
        # A request that gives up leaves the thread to finish, and the copy it makes is cached.
        with anyio.fail_after(annotations.wait_s):
            data = await anyio.to_thread.run_sync(
                annotations.pdf, doc_id, source, decisions, abandon_on_cancel=True
            )
    except TimeoutError:
        return error(request, 504, f"{cannot} yet: it is still being made. Try again in a minute.")
    except DocumentNotFound as exc:
        return error(request, 404, f"{cannot}: the PDF is not found ({exc}).")
    except AnnotateError as exc:
        status = {"timeout": 504, "internal": 500}.get(exc.category, 422)
        return error(request, status, f"{cannot}: {exc.category}: {exc.message}")
    except Exception:
        log.exception("annotating document %s failed", doc_id)
        return error(request, 500, f"{cannot}: an unexpected error (the console's log has the details).")
    return Response(data, media_type="application/pdf", headers=attachment(source, ".annotated.pdf"))


async def _known_source(state: ConsoleState, doc_id: str) -> str | None:
    """The source name of ``doc_id`` if the store knows the document (a URL names an id, never a path)."""
    return dict(await call(state.store.sources)).get(doc_id)


def attachment(source: str, suffix: str) -> dict[str, str]:
    """A ``Content-Disposition`` that downloads as the document's name with ``suffix``, in any script.

    The plain ``filename`` keeps only characters safe in a quoted header value; a name that loses any
    also goes in ``filename*`` (RFC 6266), which browsers prefer.
    """
    stem = PurePosixPath(source.replace("\\", "/")).stem or "document"
    name = stem + suffix
    plain = re.sub(r"[^A-Za-z0-9 ._()+-]", "_", name)
    value = f'attachment; filename="{plain}"'
    if plain != name:
        value += f"; filename*=UTF-8''{quote(name, safe='')}"
    return {"content-disposition": value}


@dataclass
class Thumb:
    """A page thumbnail with markers where flags point."""

    page: int
    width_px: int
    height_px: int
    markers: list[tuple[str, str, float, float, float, float, str]]


def thumbnails(rows: list[QueueRow], sizes: list[tuple[float, float]]) -> list[Thumb]:
    """The document's pages as thumbnails, each marked where the ``rows``' flags point on it.

    Args:
        rows: The document's flags.
        sizes: Width and height in points of every page of the document.
    """
    scale = render_scale(THUMB_ZOOM)
    thumbs = [Thumb(i + 1, round(w * scale), round(h * scale), []) for i, (w, h) in enumerate(sizes)]
    for r in rows:
        for ev in r.flag.evidence:
            if ev.bbox is None or not 1 <= ev.page <= len(thumbs):
                continue
            x0, y0, x1, y1 = ev.bbox
            thumbs[ev.page - 1].markers.append(
                (
                    r.flag.flag_id,
                    r.review.status,
                    # at least 4 px, so a figure's box is visible on a thumbnail
                    round(x0 * scale, 1),
                    round(y0 * scale, 1),
                    max(4.0, round((x1 - x0) * scale, 1)),
                    max(4.0, round((y1 - y0) * scale, 1)),
                    f"{r.flag.rule}: {r.flag.message}",
                )
            )
    return thumbs


ROUTES = [
    Route("/documents", documents, methods=["GET"]),
    Route("/documents/{doc_id}", document_page, methods=["GET"]),
    Route("/documents/{doc_id}/pages/{page:int}.png", page_image, methods=["GET"]),
    Route("/documents/{doc_id}/annotated.pdf", annotated_pdf, methods=["GET"]),
]
