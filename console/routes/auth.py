"""Logging in and out: the login form, the login itself (throttled) and logout."""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from adapters.review.logins import LoginAttempt
from console.pages import call, page
from console.sessions import log_in, log_out
from console.state import state_of

__all__ = ["ROUTES", "login", "login_form", "logout", "safe_next"]


async def login_form(request: Request) -> Response:
    """``GET /login``: the login form, which sends the user on to ``next`` when logged in."""
    return page(request, "login.html", next=safe_next(request.query_params.get("next")), message=None)


async def login(request: Request) -> Response:
    """``POST /login``: a new session for the right password, unless the throttle says wait.

    Every attempt goes in the store's login audit trail (``review_logins``), refused ones too.
    """
    config = state_of(request).config
    form = await request.form()
    name = str(form.get("username", "")).strip()
    password = str(form.get("password", ""))
    nxt = safe_next(str(form.get("next", "")))
    client = request.client.host if request.client else "unknown"
    now = config.clock()
    wait = await call(config.throttle.retry_after, config.store, name, client, now)
    if wait > 0:
        await call(config.throttle.record, config.store, LoginAttempt(now, name, client, "throttled"))
        return page(
            request,
            "login.html",
            status=429,
            next=nxt,
            message=f"Too many failed logins: try again in {math.ceil(wait)} s.",
        )
    user = await call(config.users.authenticate, name, password)
    attempt = LoginAttempt(now, name, client, "wrong" if user is None else "ok")
    await call(config.throttle.record, config.store, attempt)
    if user is None:
        return page(request, "login.html", status=401, next=nxt, message="Wrong user name or password.")
    log_in(request, user, now)
    return RedirectResponse(nxt, status_code=303)


async def logout(request: Request) -> Response:
    """``POST /logout``: end the session, in the store (its cookie is worth nothing after)."""
    log_out(request)
    return RedirectResponse("/login", status_code=303)


def safe_next(target: str | None) -> str:
    """A redirect target after login: a path on this site only (never ``//host`` or a URL)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


ROUTES = [
    Route("/login", login_form, methods=["GET"]),
    Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
]
