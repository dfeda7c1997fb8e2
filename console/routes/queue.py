"""The queue: the flags to review, filtered, sorted and paged."""

from __future__ import annotations

from dataclasses import replace

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from adapters.review.decision_rules import ReviewError
from adapters.review.store import MAX_PAGE_SIZE
from console.pages import call, error, page, query_link, user_of
from console.params import cursor, whole_number
from console.state import state_of
from console.view import query_from_params, queue_state
from schemas.reviews import REVIEW_STATUSES

__all__ = ["ROUTES", "queue"]


async def queue(request: Request) -> Response:
    """``GET /``: a page of the queue; by default only the flags at or above the queue threshold."""
    state = state_of(request)
    store, threshold = state.store, state.config.queue_threshold
    params = dict(request.query_params)
    # a bad parameter is a BadParameter: the app's 400 page names it (console.params)
    q = query_from_params(params, user_of(request), threshold)
    limit = whole_number(params, "n", 50, low=1, high=MAX_PAGE_SIZE)
    after, before = cursor(params, "after"), cursor(params, "before")
    try:
        result = await call(store.queue, q, after=after, before=before, limit=limit)
        below = 0
        if q.min_confidence is not None and "cmin" not in params:
            everything = await call(store.queue, replace(q, min_confidence=None), limit=1)
            below = everything.total - result.total
    except ReviewError as exc:  # the store's own words (a cursor of another sort…)
        return error(request, 400, f"The queue cannot be shown with these filters: {exc}")
    return page(
        request,
        "queue.html",
        result=result,
        q=q,
        params=params,
        state=queue_state(params),
        sources=await call(store.sources),
        options=await call(store.options),
        users=state.users.names,
        status_links={s: query_link(params, status=s) for s in REVIEW_STATUSES},
        below=below,
        threshold=threshold,
        all_confidence_link=query_link(params, cmin="0"),
        all_link=query_link(params, status=""),
        sort_link=lambda key: query_link(
            params, sort=key, dir="asc" if params.get("dir") == "desc" else "desc"
        ),
    )


ROUTES = [Route("/", queue, methods=["GET"])]
