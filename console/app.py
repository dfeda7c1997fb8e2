"""The review console: a Starlette app serving the queue, flag pages, document pages and decisions.

Server-rendered (Jinja2, autoescaped) with a small script for keyboard shortcuts. Security is in one
place, :class:`Guard`, which every request passes: it requires a logged-in user on every path except the
login page and static assets, checks the CSRF token (and the Origin, when sent) of every state-changing
request, and adds the security headers. Nothing serves a file named by the request: page images are
found by document id through :class:`~adapters.review.documents.PageImages`, static assets by Starlette's
``StaticFiles`` inside the package.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import PurePosixPath
from typing import Any, TypeVar, get_args
from urllib.parse import parse_qsl, quote, urlencode

import anyio
import anyio.to_thread
import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.review.annotated import AnnotatedCopies, Annotations
from adapters.review.documents import ZOOMS, DocumentNotFound, PageImages
from adapters.review.render import RenderError, render_scale
from adapters.review.store import (
    DecisionRequest,
    FlagQuery,
    QueueRow,
    ReviewError,
    ReviewStore,
    StaleDecision,
)
from adapters.review.tickmarks import AnnotateError
from console.auth import LoginThrottle, Users
from console.view import (
    ROLE_CLASSES,
    default_zoom,
    evidence_facts,
    flag_pages,
    fmt_value,
    query_from_params,
    queue_state,
    statement_context,
)
from pipeline.checks.confidence import queue_threshold
from schemas.models import Fact
from schemas.reviews import DISMISS_REASONS, REVIEW_STATUSES, ReviewAction, ReviewDecision

log = logging.getLogger("tieout.console")

SESSION_COOKIE = "tieout_review"
SESSION_HOURS = 12
MAX_FORM_BYTES = 64 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLIC_PATHS = frozenset({"/login"})
PUBLIC_PREFIXES = ("/static/",)

_T = TypeVar("_T")

DecisionHook = Callable[[ReviewDecision], None]
"""Called after each decision is committed (e.g. to publish it); its errors are logged, not raised."""


@dataclass
class ConsoleConfig:
    """What the console serves and how.

    Attributes:
        store: Flags, review state and decisions.
        images: Page images of the documents.
        users: Who may log in.
        secret: Signs the session cookie.
        secure_cookie: Mark the cookie ``Secure`` (when served over HTTPS, e.g. behind a proxy).
        throttle: Login attempts allowed per address and user name.
        on_decision: Hooks called with every committed decision.
        title: Shown in the header.
        annotations: The tick-and-tie copies the document page offers for download (default: made in a
            worker process from ``images``' documents, cached beside the page images).
        queue_threshold: The default queue shows flags at or above this confidence (the calibrated
            threshold that keeps estimated precision at its target, :mod:`pipeline.checks.confidence`);
            the rest are one click away.
    """

    store: ReviewStore
    images: PageImages
    users: Users
    secret: str
    secure_cookie: bool = False
    throttle: LoginThrottle = field(default_factory=LoginThrottle)
    on_decision: list[DecisionHook] = field(default_factory=list)
    title: str = "tieout review"
    annotations: Annotations | None = None
    queue_threshold: float = field(default_factory=queue_threshold)


# ---------------------------------------------------------------------------------------------- guard

_SECURITY_HEADERS = [
    (
        b"content-security-policy",
        # scripts and styles from our own files only; inline style attributes place the highlight boxes
        b"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; "
        b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


class Guard:
    """Authentication, CSRF and security headers for every request (see the module docstring)."""

    def __init__(self, app: ASGIApp, users: Users) -> None:
        """Wrap ``app``; ``users`` decides whether a session's user still exists."""
        self.app = app
        self.users = users

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse, or pass on with the security headers added to the response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        session: dict[str, Any] = scope.get("session", {})
        static = path.startswith(PUBLIC_PREFIXES)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                for k, v in _SECURITY_HEADERS:
                    if k not in names and not (static and k == b"cache-control"):
                        headers.append((k, v))
                message["headers"] = headers
            await send(message)

        user = session.get("user")
        if user is not None and self.users.get(str(user)) is None:
            session.clear()  # a user removed from the file is logged out
            user = None
        if user is None and path not in PUBLIC_PATHS and not static:
            if method in SAFE_METHODS:
                target = path + (
                    f"?{scope['query_string'].decode('latin-1')}" if scope["query_string"] else ""
                )
                response: Response = RedirectResponse(
                    f"/login?next={quote(target, safe='')}", status_code=303
                )
            else:
                response = PlainTextResponse("log in first", status_code=401)
            await response(scope, receive, send_with_headers)
            return
        if method in SAFE_METHODS:
            await self.app(scope, receive, send_with_headers)
            return
        problem, body = await self._check_unsafe(scope, receive, session)
        if problem:
            await PlainTextResponse(problem, status_code=403)(scope, receive, send_with_headers)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send_with_headers)

    async def _check_unsafe(
        self, scope: Scope, receive: Receive, session: dict[str, Any]
    ) -> tuple[str, bytes]:
        """Why a state-changing request is refused ('' if it is not), and its body, read once."""
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        host = headers.get("host", "")
        if origin and origin != "null" and origin.split("://", 1)[-1] != host:
            return f"cross-origin request from {origin} refused", b""
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
            if len(body) > MAX_FORM_BYTES:
                return "request too large", b""
        token = headers.get("x-csrf-token", "")
        if not token and headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            token = dict(parse_qsl(body.decode("utf-8", "replace"))).get("csrf", "")
        expected = str(session.get("csrf", ""))
        if not expected or not token or not hmac.compare_digest(token.encode(), expected.encode()):
            return "the form's security token is missing or out of date: reload the page and try again", body
        return "", body


# ---------------------------------------------------------------------------------------------- pages


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("console", "templates"),
        # every template is HTML: escape everything, whatever the file is called
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["value"] = fmt_value
    env.globals.update(
        DISMISS_REASONS=DISMISS_REASONS,
        REVIEW_STATUSES=REVIEW_STATUSES,
        ZOOMS=ZOOMS,
        ROLE_CLASSES=ROLE_CLASSES,
    )
    return env


def create_app(config: ConsoleConfig) -> Starlette:
    """The console as an ASGI app."""
    env = _templates()
    store = config.store
    annotations = config.annotations or AnnotatedCopies(config.images.documents, config.images.root)

    async def call(fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        return await run_in_threadpool(fn, *args, **kwargs)

    def csrf(request: Request) -> str:
        token = request.session.get("csrf")
        if not token:
            token = secrets.token_urlsafe(32)
            request.session["csrf"] = token
        return str(token)

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        flash = request.session.pop("flash", None)
        html = env.get_template(name).render(
            user=request.session.get("user"),
            csrf=csrf(request),
            title=config.title,
            flash=flash,
            path=request.url.path,
            **context,
        )
        return HTMLResponse(html, status_code=status)

    def error(request: Request, status: int, message: str) -> HTMLResponse:
        return page(request, "error.html", status=status, message=message)

    # ------------------------------------------------------------------ login

    async def login_form(request: Request) -> Response:
        return page(request, "login.html", next=_safe_next(request.query_params.get("next")), message=None)

    async def login(request: Request) -> Response:
        form = await request.form()
        name = str(form.get("username", "")).strip()
        password = str(form.get("password", ""))
        nxt = _safe_next(str(form.get("next", "")))
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
        request.session.clear()
        return RedirectResponse("/login", status_code=303)

    # ------------------------------------------------------------------ queue

    def user_of(request: Request) -> str:
        return str(request.session["user"])

    async def queue(request: Request) -> Response:
        params = dict(request.query_params)
        try:
            q = query_from_params(params, user_of(request), config.queue_threshold)
            limit = int(params.get("n", "50"))
            result = await call(
                store.queue,
                q,
                after=params.get("after") or None,
                before=params.get("before") or None,
                limit=limit,
            )
            below = 0
            if q.min_confidence is not None and "cmin" not in params:
                everything = await call(store.queue, replace(q, min_confidence=None), limit=1)
                below = everything.total - result.total
        except (ValueError, ReviewError) as exc:
            return error(request, 400, f"The queue cannot be shown with these filters: {exc}")
        state = queue_state(params)
        return page(
            request,
            "queue.html",
            result=result,
            q=q,
            params=params,
            state=state,
            sources=await call(store.sources),
            options=await call(store.options),
            users=config.users.names,
            status_links={s: _with(params, status=s) for s in REVIEW_STATUSES},
            below=below,
            threshold=config.queue_threshold,
            all_confidence_link=_with(params, cmin="0"),
            all_link=_with(params, status=""),
            sort_link=lambda key: _with(
                params, sort=key, dir="asc" if params.get("dir") == "desc" else "desc"
            ),
        )

    # ------------------------------------------------------------------ flag

    async def flag_page(request: Request) -> Response:
        return await render_flag(request, request.path_params["flag_id"])

    async def render_flag(
        request: Request, flag_id: str, *, status: int = 200, problem: str | None = None
    ) -> Response:
        row = await call(store.get, flag_id)
        if row is None:
            return error(request, 404, "There is no such flag (a later run may no longer raise it).")
        params = dict(request.query_params)
        try:
            q = query_from_params(params, user_of(request), config.queue_threshold)
        except ValueError:
            q = FlagQuery()
        flag = row.flag
        # an explicit zoom is remembered for the next flags; without one, the remembered or default zoom
        try:
            zoom = float(params.get("zoom", ""))
        except ValueError:
            zoom = 0.0
        if zoom in ZOOMS:
            request.session["zoom"] = zoom
        else:
            zoom = float(request.session.get("zoom") or default_zoom(flag))
            zoom = zoom if zoom in ZOOMS else default_zoom(flag)
        missing = None
        try:
            sizes = [(s.width, s.height) for s in await call(config.images.sizes, flag.doc_id, flag.source)]
        except DocumentNotFound as exc:
            sizes, missing = [], str(exc)
        prev_id, next_id = await call(store.neighbours, q, flag_id)
        context = await call(_context, store, row)
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
            zoom_link=lambda z: _with(params, zoom=str(z)),
            users=config.users.names,
            **context,
        )

    async def decide(request: Request) -> Response:
        flag_id = request.path_params["flag_id"]
        form = await request.form()
        # only the queue's own parameters travel on (the form field is the client's to forge)
        state = queue_state(dict(parse_qsl(str(form.get("state", "")))))
        action = str(form.get("action", ""))
        act = _ACTIONS.get(action)
        if act is None:
            return error(request, 400, f"Unknown action {action!r}.")
        reason = str(form.get("reason", "")) or None
        if reason is not None and reason not in DISMISS_REASONS:
            return error(request, 400, f"Unknown dismiss reason {reason!r}.")
        try:
            version = int(str(form.get("version", "")))
        except ValueError:
            return error(request, 400, "The form has no flag version: reload the page.")
        req = DecisionRequest(
            flag_id=flag_id,
            action=act,
            reviewer=user_of(request),
            version=version,
            reason=reason,
            note=str(form.get("note", "")) or None,
            assignee=str(form.get("assignee", "")) or None,
        )
        # the flag page re-rendered below keeps the queue the analyst came from
        request.scope["query_string"] = state.encode()
        try:
            decision = await call(store.decide, req, users=config.users.names)
        except StaleDecision as exc:
            return await render_flag(request, flag_id, status=409, problem=str(exc))
        except ReviewError as exc:
            return await render_flag(request, flag_id, status=400, problem=str(exc))
        for hook in config.on_decision:
            try:
                await call(hook, decision)
            except Exception:  # a hook must not undo a committed decision
                log.exception("review hook failed for decision %s", decision.review_id)
        request.session["flash"] = _done(decision)
        target = flag_id
        if form.get("then") == "next":
            q = query_from_params(dict(parse_qsl(state)), user_of(request), config.queue_threshold)
            _, next_id = await call(store.neighbours, q, flag_id)
            target = next_id or flag_id
        return RedirectResponse(f"/flags/{quote(target)}" + (f"?{state}" if state else ""), status_code=303)

    # ------------------------------------------------------------------ documents

    async def documents(request: Request) -> Response:
        return page(request, "documents.html", documents=await call(store.documents))

    async def document_page(request: Request) -> Response:
        doc_id = request.path_params["doc_id"]
        result = await call(store.queue, FlagQuery(doc_id=doc_id, sort="document"), limit=500)
        if not result.rows:
            return error(request, 404, "No flags for this document.")
        source = result.rows[0].flag.source
        missing = None
        try:
            sizes = [(s.width, s.height) for s in await call(config.images.sizes, doc_id, source)]
        except DocumentNotFound as exc:
            sizes, missing = [], str(exc)
        thumbs = _thumbnails(result.rows, sizes)
        return page(
            request,
            "document.html",
            doc_id=doc_id,
            source=source,
            result=result,
            thumbs=thumbs,
            missing=missing,
        )

    async def page_image(request: Request) -> Response:
        doc_id = request.path_params["doc_id"]
        number = int(request.path_params["page"])
        try:
            zoom = float(request.query_params.get("zoom", "1"))
        except ValueError:
            return PlainTextResponse("zoom must be a number", status_code=400)
        # the document must be one the store knows: a URL names an id, never a path
        source = dict(await call(store.sources)).get(doc_id)
        if source is None:
            return PlainTextResponse("no such document", status_code=404)
        try:
            png = await call(config.images.png, doc_id, source, number, zoom)
        except DocumentNotFound as exc:
            return PlainTextResponse(str(exc), status_code=404)
        except RenderError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        # a document id is the hash of its bytes: the image never changes
        return Response(png, media_type="image/png", headers={"cache-control": "private, max-age=86400"})

    async def annotated_pdf(request: Request) -> Response:
        doc_id = request.path_params["doc_id"]
        # the document must be one the store knows: a URL names an id, never a path
        source = dict(await call(store.sources)).get(doc_id)
        if source is None:
            return error(request, 404, "There is no such document.")
        cannot = f"The tick-and-tie PDF of {source} cannot be made"
        try:
            # Parsing runs in a worker process and can take a while: off the event loop, and bounded.
            # A request that gives up leaves the thread to finish, and the copy it makes is cached.
            with anyio.fail_after(annotations.wait_s):
                data = await anyio.to_thread.run_sync(annotations.pdf, doc_id, source, abandon_on_cancel=True)
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
        return Response(data, media_type="application/pdf", headers=_attachment(source, ".annotated.pdf"))

    static = resources.files("console").joinpath("static")
    routes: list[BaseRoute] = [
        Route("/login", login_form, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/", queue, methods=["GET"]),
        Route("/flags/{flag_id}", flag_page, methods=["GET"]),
        Route("/flags/{flag_id}/decide", decide, methods=["POST"]),
        Route("/documents", documents, methods=["GET"]),
        Route("/documents/{doc_id}", document_page, methods=["GET"]),
        Route("/documents/{doc_id}/pages/{page:int}.png", page_image, methods=["GET"]),
        Route("/documents/{doc_id}/annotated.pdf", annotated_pdf, methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    middleware = [
        Middleware(
            SessionMiddleware,
            secret_key=config.secret,
            session_cookie=SESSION_COOKIE,
            max_age=SESSION_HOURS * 3600,
            same_site="strict",
            https_only=config.secure_cookie,
        ),
        Middleware(Guard, users=config.users),
    ]
    return Starlette(routes=routes, middleware=middleware)


_ACTIONS: dict[str, ReviewAction] = {a: a for a in get_args(ReviewAction)}


def _safe_next(target: str | None) -> str:
    """A redirect target after login: a path on this site only (never ``//host`` or a URL)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _with(params: dict[str, str], **changes: str) -> str:
    """The current URL's parameters with ``changes`` (an empty value removes one), without cursors."""
    merged = {k: v for k, v in params.items() if k not in ("after", "before")}
    merged.update(changes)
    return "?" + urlencode([(k, v) for k, v in merged.items() if v])


def _attachment(source: str, suffix: str) -> dict[str, str]:
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


def _done(d: ReviewDecision) -> str:
    what = {
        "confirm": "Confirmed as a real inconsistency.",
        "dismiss": f"Dismissed: {DISMISS_REASONS[d.reason].lower() if d.reason else 'false alarm'}.",
        "reopen": "Reopened.",
        "reassign": f"Assigned to {d.assignee}." if d.assignee else "Unassigned.",
        "comment": "Comment added.",
    }
    return what[d.action]


def _context(store: ReviewStore, row: QueueRow) -> dict[str, Any]:
    """The flag's statement context (lines of its tables' columns) and the same metric elsewhere."""
    flag = row.flag
    flagged: list[Fact] = []
    for page in sorted({e.page for e in flag.evidence}):
        on_page = store.facts_near(flag.doc_id, page)
        for ev in flag.evidence:
            if ev.page == page:
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


@dataclass
class Thumb:
    """A page thumbnail with markers where flags point."""

    page: int
    width_px: int
    height_px: int
    markers: list[tuple[str, str, float, float, float, float, str]]


THUMB_ZOOM = 0.25


def _thumbnails(rows: list[QueueRow], sizes: list[tuple[float, float]]) -> list[Thumb]:
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
