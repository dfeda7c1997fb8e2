"""A document version's page: what changed since its previous version, both versions' pages side by side.

The changes are the store's record of the document (:meth:`~adapters.review.store.ReviewStore.changes_of`:
the embedded run's ``changes.jsonl``, the sink's ``changes`` table). The pages of both versions are found
as every page image is, by document id through :class:`~adapters.review.documents.PageImages`: the store
lists both versions among its sources, so the previous version's images are served even when it has no
flags of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from adapters.review.documents import DocumentNotFound
from adapters.review.render import PrintedBoxes, RenderError
from console.changes import changes_view, shown_pages
from console.pages import call, error, page, page_sizes, query_link
from console.params import number
from console.state import ConsoleState, state_of
from console.view import ZOOM_CHOICES

__all__ = ["DEFAULT_ZOOM", "ROUTES", "changes_page"]

DEFAULT_ZOOM = 0.75
"""Two pages side by side fit a laptop screen at 0.75 (as a cross-page flag's do)."""


async def changes_page(request: Request) -> Response:
    """``GET /documents/{doc_id}/changes``: what changed in this version since the previous one."""
    state = state_of(request)
    doc_id = request.path_params["doc_id"]
    changes = await call(state.store.changes_of, doc_id)
    if changes is None:
        source = dict(await call(state.store.sources)).get(doc_id)
        if source is None:
            return error(request, 404, "There is no such document.")
        return page(request, "changes.html", view=None, doc_id=doc_id, source=source)
    params = dict(request.query_params)
    zoom = number(params, "zoom", low=min(ZOOM_CHOICES), high=max(ZOOM_CHOICES), allowed=ZOOM_CHOICES)
    zoom = zoom or DEFAULT_ZOOM
    old_sizes, old_missing = await page_sizes(state, changes.old_doc_id, changes.old_source)
    new_sizes, new_missing = await page_sizes(state, changes.new_doc_id, changes.new_source)
    old_pages, new_pages = shown_pages(changes)
    printed = (
        await _printed(state, changes.old_doc_id, changes.old_source, old_pages if old_sizes else ()),
        await _printed(state, changes.new_doc_id, changes.new_source, new_pages if new_sizes else ()),
    )
    view = changes_view(changes, (old_sizes, new_sizes), zoom, printed)
    return page(
        request,
        "changes.html",
        view=view,
        doc_id=doc_id,
        zoom=zoom,
        old_missing=old_missing,
        new_missing=new_missing,
        zoom_link=lambda z: query_link(params, zoom=str(z)),
    )


async def _printed(
    state: ConsoleState, doc_id: str, source: str, pages: Iterable[int]
) -> Mapping[int, PrintedBoxes]:
    """What is printed on each page shown, for the labels to keep clear of (nothing if it cannot be read)."""
    try:
        return {p: await call(state.config.images.printed, doc_id, source, p) for p in sorted(pages)}
    except (DocumentNotFound, RenderError):
        return {}


ROUTES = [Route("/documents/{doc_id}/changes", changes_page, methods=["GET"])]
