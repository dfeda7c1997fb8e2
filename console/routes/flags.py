"""A flag's page: its evidence highlighted on the page images, its statement context and its history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from adapters.review.documents import ZOOMS, DocumentNotFound
from adapters.review.render import PrintedBoxes, RenderError
from adapters.review.store import QueueRow, ReviewStore
from console.pages import call, error, page, page_sizes, query_link, user_of
from console.params import number
from console.state import ConsoleState, state_of
from console.view import (
    evidence_facts,
    flag_pages,
    own_evidence,
    query_from_params,
    queue_state,
    shown_pages,
    shown_zoom,
    statement_context,
    zoom_bucket,
)
from schemas.models import Fact, Flag

__all__ = ["ROOM_COOKIE", "ROUTES", "flag_context", "flag_page", "render_flag"]


async def flag_page(request: Request) -> Response:
    """``GET /flags/{flag_id}``: the flag's page, with links to its neighbours in the queue it came from."""
    return await render_flag(request, request.path_params["flag_id"])


async def render_flag(
    request: Request, flag_id: str, *, status: int = 200, problem: str | None = None
) -> Response:
    """The page of ``flag_id`` answered with ``status``, saying ``problem`` if there is one.

    The queue the analyst came from is in the request's query string: it decides the previous and next
    flags.
    """
    state = state_of(request)
    store = state.store
    row = await call(store.get, flag_id)
    if row is None:
        return error(request, 404, "There is no such flag (a later run may no longer raise it).")
    params = dict(request.query_params)
    # a bad parameter is a BadParameter: the app's 400 page names it (console.params)
    q = query_from_params(params, user_of(request), state.config.queue_threshold)
    flag = row.flag
    sizes, missing = await page_sizes(state, flag.doc_id, flag.source)
    shown = shown_pages(flag, len(sizes))
    zoom = _zoom(request, params, flag, [sizes[p - 1][0] for p in shown])
    printed = await _printed(state, flag, shown)
    prev_id, next_id = await call(store.neighbours, q, flag_id)
    context = await call(flag_context, store, row)
    return page(
        request,
        "flag.html",
        status=status,
        row=row,
        flag=flag,
        review=row.review,
        pages=flag_pages(flag, sizes, zoom, printed),
        zoom=zoom,
        missing=missing,
        problem=problem,
        history=await call(store.history, flag_id),
        prev_id=prev_id,
        next_id=next_id,
        state=queue_state(params),
        zoom_link=lambda z: query_link(params, zoom=str(z)),
        users=state.users.names,
        **context,
    )


ROOM_COOKIE = "tieout_room"
"""The width in CSS pixels the pages have in the analyst's browser, as ``console.js`` measured it last."""


def _room(request: Request) -> float | None:
    try:
        room = float(request.cookies.get(ROOM_COOKIE, ""))
    except ValueError:
        return None
    return room if 200 <= room <= 20_000 else None


def _zoom(request: Request, params: dict[str, str], flag: Flag, widths: list[float]) -> float:
    """The zoom to show ``flag`` at, its pages being ``widths`` points wide.

    An explicit zoom (one of :data:`ZOOMS`) is shown and remembered for the pages as wide
    (:func:`console.view.zoom_bucket`); without one, the remembered or default zoom, cross-page flags
    fitted to the browser's room (:func:`console.view.shown_zoom`).
    """
    remembered = dict(request.session.get("zooms") or {})
    zoom = number(params, "zoom", low=min(ZOOMS), high=max(ZOOMS), allowed=ZOOMS)
    if zoom is not None:
        remembered[zoom_bucket(widths)] = zoom
        request.session["zooms"] = remembered
        return zoom
    return shown_zoom(flag, widths, remembered, _room(request))


async def _printed(state: ConsoleState, flag: Flag, pages: list[int]) -> dict[int, PrintedBoxes]:
    """What is printed on each page shown, for its labels to keep clear of (nothing if it cannot be read)."""
    try:
        return {p: await call(state.config.images.printed, flag.doc_id, flag.source, p) for p in pages}
    except (DocumentNotFound, RenderError):
        return {}


def flag_context(store: ReviewStore, row: QueueRow) -> dict[str, Any]:
    """The flag's statement context (lines of its tables' columns) and the same metric elsewhere."""
    flag = row.flag
    flagged: list[Fact] = []
    for page_no in sorted({e.page for e in own_evidence(flag)}):
        on_page = store.facts_near(flag.doc_id, page_no)
        for ev in own_evidence(flag):
            if ev.page == page_no:
                flagged.extend(evidence_facts(ev, on_page))
    statements = []
    for table_id in dict.fromkeys(f.table_id for f in flagged if f.table_id):
        lines = statement_context(store.facts_of_table(flag.doc_id, table_id), flagged)
        if lines:
            statements.append((table_id, lines))
    same_metric: Sequence[Fact] = []
    if flag.metric:
        same_metric = store.facts_for(flag.doc_id, flag.metric, flag.period.key if flag.period else None)
    return {"statements": statements, "same_metric": same_metric}


ROUTES = [Route("/flags/{flag_id}", flag_page, methods=["GET"])]
