"""A flag's page: its evidence highlighted on the page images, its statement context and its history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from adapters.review.documents import ZOOMS
from adapters.review.store import QueueRow, ReviewStore
from console.pages import call, error, page, page_sizes, query_link, user_of
from console.params import number
from console.state import state_of
from console.view import (
    default_zoom,
    evidence_facts,
    flag_pages,
    query_from_params,
    queue_state,
    statement_context,
)
from schemas.models import Fact, Flag

__all__ = ["ROUTES", "flag_context", "flag_page", "render_flag"]


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
    zoom = _zoom(request, params, flag)
    sizes, missing = await page_sizes(state, flag.doc_id, flag.source)
    prev_id, next_id = await call(store.neighbours, q, flag_id)
    context = await call(flag_context, store, row)
    return page(
        request,
        "flag.html",
        status=status,
        row=row,
        flag=flag,
        review=row.review,
        pages=flag_pages(flag, sizes, zoom),
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


def _zoom(request: Request, params: dict[str, str], flag: Flag) -> float:
    """The zoom to show ``flag`` at.

    An explicit zoom (one of :data:`ZOOMS`) is remembered for the next flags; without one, the remembered
    or default zoom.
    """
    zoom = number(params, "zoom", low=min(ZOOMS), high=max(ZOOMS), allowed=ZOOMS)
    if zoom is not None:
        request.session["zoom"] = zoom
        return zoom
    zoom = float(request.session.get("zoom") or default_zoom(flag))
    return zoom if zoom in ZOOMS else default_zoom(flag)


def flag_context(store: ReviewStore, row: QueueRow) -> dict[str, Any]:
    """The flag's statement context (lines of its tables' columns) and the same metric elsewhere."""
    flag = row.flag
    flagged: list[Fact] = []
    for page_no in sorted({e.page for e in flag.evidence}):
        on_page = store.facts_near(flag.doc_id, page_no)
        for ev in flag.evidence:
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
