"""Deciding a flag: confirm, dismiss, reopen, reassign or comment, then the hooks (e.g. publishing)."""

from __future__ import annotations

import logging
from typing import get_args
from urllib.parse import parse_qsl, quote

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from adapters.review.decision_rules import DecisionRequest, ReviewError, StaleDecision
from console.pages import call, user_of
from console.params import choice, one_of, whole_number
from console.routes.flags import render_flag
from console.state import ConsoleState, state_of
from console.view import query_from_params, queue_state
from schemas.reviews import DISMISS_REASONS, ReviewAction, ReviewDecision

__all__ = ["ROUTES", "decide"]

log = logging.getLogger("tieout.console")


async def decide(request: Request) -> Response:
    """``POST /flags/{flag_id}/decide``: commit a decision, then back to the flag (or the queue's next).

    A stale or refused decision re-renders the flag's page with the problem (409 or 400).
    """
    state = state_of(request)
    flag_id = request.path_params["flag_id"]
    form = await request.form()
    # only the queue's own parameters travel on (the form field is the client's to forge), and they are
    # checked before anything is committed: a bad one is a 400 page (console.params), not a 500 after it
    queue = queue_state(dict(parse_qsl(str(form.get("state", "")))))
    q = query_from_params(dict(parse_qsl(queue)), user_of(request), state.config.queue_threshold)
    then = choice(form, "then", ("next",))
    req = _request(form, flag_id, user_of(request))
    # the flag page re-rendered below keeps the queue the analyst came from
    request.scope["query_string"] = queue.encode()
    try:
        decision = await call(state.store.decide, req, users=state.users.names)
    except StaleDecision as exc:
        return await render_flag(request, flag_id, status=409, problem=str(exc))
    except ReviewError as exc:
        return await render_flag(request, flag_id, status=400, problem=str(exc))
    await _run_hooks(state, decision)
    request.session["flash"] = _done(decision)
    target = flag_id
    if then == "next":
        _, next_id = await call(state.store.neighbours, q, flag_id)
        target = next_id or flag_id
    return RedirectResponse(f"/flags/{quote(target)}" + (f"?{queue}" if queue else ""), status_code=303)


def _request(form: FormData, flag_id: str, reviewer: str) -> DecisionRequest:
    """The decision the form asks for.

    Raises:
        BadParameter: the form is not one (an unknown action or reason, no version…).
    """
    return DecisionRequest(
        flag_id=flag_id,
        action=one_of(form, "action", get_args(ReviewAction)),
        reviewer=reviewer,
        version=whole_number(form, "version", None, low=0, high=2**31 - 1),
        reason=choice(form, "reason", DISMISS_REASONS),
        note=str(form.get("note", "")) or None,
        assignee=str(form.get("assignee", "")) or None,
    )


async def _run_hooks(state: ConsoleState, decision: ReviewDecision) -> None:
    """Call every decision hook; a failing one is logged (it must not undo a committed decision)."""
    for hook in state.config.on_decision:
        try:
            await call(hook, decision)
        except Exception:  # a hook must not undo a committed decision
            log.exception("review hook failed for decision %s", decision.review_id)


def _done(d: ReviewDecision) -> str:
    """What the flash message says after decision ``d``."""
    what = {
        "confirm": "Confirmed as a real inconsistency.",
        "dismiss": f"Dismissed: {DISMISS_REASONS[d.reason].lower() if d.reason else 'false alarm'}.",
        "reopen": "Reopened.",
        "reassign": f"Assigned to {d.assignee}." if d.assignee else "Unassigned.",
        "comment": "Comment added.",
    }
    return what[d.action]


ROUTES = [Route("/flags/{flag_id}/decide", decide, methods=["POST"])]
