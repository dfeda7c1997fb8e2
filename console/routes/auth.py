"""Logging in and out: the login form, the login itself (throttled) and logout."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from console.pages import call, page
from console.state import state_of

__all__ = ["ROUTES", "login", "login_form", "logout", "safe_next"]


async def login_form(request: Request) -> Response:
    """``GET /login``: the login form, which sends the user on to ``next`` when logged in."""
    return page(request, "login.html", next=safe_next(request.query_params.get("next")), message=None)


async def login(request: Request) -> Response:
    """``POST /login``: a new session for the right password, within the throttle's attempts."""
    config = state_of(request).config
    form = await request.form()
    name = str(form.get("username", "")).strip()
    password = str(form.get("password", ""))
    nxt = safe_next(str(form.get("next", "")))
    client = request.client.host if request.client else "unknown"
    wait = config.throttle.retry_after(client, name)
    if wait > 0:
        return page(
            request,
            "login.html",
            status=429,
            next=nxt,
            message=f"Too many failed logins: try again in {int(wait) + 1} s.",
        )
    user = await call(config.users.authenticate, name, password)
    if user is None:
        config.throttle.failed(client, name)
        return page(request, "login.html", status=401, next=nxt, message="Wrong user name or password.")
    config.throttle.succeeded(name)
    request.session.clear()
    request.session["user"] = user.name
    request.session["csrf"] = secrets.token_urlsafe(32)
    return RedirectResponse(nxt, status_code=303)


async def logout(request: Request) -> Response:
    """``POST /logout``: end the session."""
    request.session.clear()
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
