"""What every page handler shares: the templates, rendering a page or an error, the CSRF token, links.

Pages are server-rendered with Jinja2, autoescaped whatever a template is called. Blocking calls (the
store, page images) run in the thread pool through :func:`call`, off the event loop.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlencode

import jinja2
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse

from adapters.review.documents import DocumentNotFound
from console.bidi import user_text, visible_controls
from console.state import ConsoleState, state_of
from console.view import ROLE_CLASSES, ZOOM_CHOICES, fmt_value
from schemas.reviews import DISMISS_REASONS, REVIEW_STATUSES

__all__ = ["call", "csrf_token", "error", "page", "page_sizes", "query_link", "templates", "user_of"]

_T = TypeVar("_T")
_P = ParamSpec("_P")


def templates() -> jinja2.Environment:
    """The console's page templates, with the ``value`` and ``user`` filters and the globals every page uses.

    ``user`` prints text from users or documents (:func:`console.bidi.user_text`); every other string a
    template prints has its bidirectional controls made visible too (``finalize``).
    """
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("console", "templates"),
        # every template is HTML: escape everything, whatever the file is called
        autoescape=True,
        # and no bidirectional control acts anywhere, an attribute or a <title> included (console.bidi)
        finalize=_inert,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["value"] = fmt_value
    env.filters["user"] = user_text
    env.globals.update(
        DISMISS_REASONS=DISMISS_REASONS,
        REVIEW_STATUSES=REVIEW_STATUSES,
        ZOOM_CHOICES=ZOOM_CHOICES,
        ROLE_CLASSES=ROLE_CLASSES,
    )
    return env


def _inert(value: Any) -> Any:
    """What a template prints: a string with its bidi controls as ``[RLO]``-style markers (Markup as is)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible_controls(value)
    return value


async def call(fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """``fn(*args, **kwargs)`` in the thread pool (the store and the page images block)."""
    return await run_in_threadpool(fn, *args, **kwargs)


def csrf_token(request: Request) -> str:
    """The session's CSRF token, made on first use."""
    token = request.session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        request.session["csrf"] = token
    return str(token)


def user_of(request: Request) -> str:
    """The logged-in user's name (:class:`console.guard.Guard` lets no other request through)."""
    return str(request.session["user"])


def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """The template ``name`` rendered with ``context`` and what the page frame shows (user, flash…)."""
    state = state_of(request)
    flash = request.session.pop("flash", None)
    html = state.templates.get_template(name).render(
        user=request.session.get("user"),
        csrf=csrf_token(request),
        title=state.config.title,
        flash=flash,
        path=request.url.path,
        **context,
    )
    return HTMLResponse(html, status_code=status)


def error(request: Request, status: int, message: str) -> HTMLResponse:
    """The error page with ``message``, answered with ``status``."""
    return page(request, "error.html", status=status, message=message)


async def page_sizes(
    state: ConsoleState, doc_id: str, source: str
) -> tuple[list[tuple[float, float]], str | None]:
    """Width and height in points of every page of a document, and why there are none if it is missing.

    Returns:
        The sizes and None; or no sizes and the reason the document cannot be shown.
    """
    try:
        return [(s.width, s.height) for s in await call(state.config.images.sizes, doc_id, source)], None
    except DocumentNotFound as exc:
        return [], str(exc)


def query_link(params: dict[str, str], **changes: str) -> str:
    """The current URL's parameters with ``changes`` (an empty value removes one), without cursors."""
    merged = {k: v for k, v in params.items() if k not in ("after", "before")}
    merged.update(changes)
    return "?" + urlencode([(k, v) for k, v in merged.items() if v])
