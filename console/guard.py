"""The console's security, in one place every request passes: login, CSRF and Origin, security headers.

:class:`Guard` requires a logged-in user on every path except the login page and static assets, checks
the CSRF token and the origin of every state-changing request (:func:`origin_problem`), and adds the
security headers to every response.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "MAX_FORM_BYTES",
    "PUBLIC_PATHS",
    "PUBLIC_PREFIXES",
    "SAFE_METHODS",
    "Guard",
    "canonical_origin",
    "origin_problem",
    "require_origin",
]

MAX_FORM_BYTES = 64 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLIC_PATHS = frozenset({"/login"})
PUBLIC_PREFIXES = ("/static/",)

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

    def __init__(self, app: ASGIApp, origin: str | None = None, https: bool = False) -> None:
        """Wrap ``app``; the session (:class:`console.sessions.Sessions`) says who is logged in.

        Args:
            app: The console's routes.
            origin: The origin the console is served at (``scheme://host[:port]``): a state-changing
                request must come from it. None: the origin each request was addressed to (its ``Host``,
                over HTTPS when ``https``, else the connection's scheme).
            https: The console is reached over HTTPS (a proxy in front of it terminates TLS).

        Raises:
            ValueError: ``origin`` is no http(s) origin.
        """
        self.app = app
        self.origin = require_origin(origin) if origin is not None else None
        self.https = https

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

        # a removed user's or a changed password's session is anonymous already (console.sessions)
        user = session.get("user")
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
        expected = self.origin or canonical_origin(
            f"{'https' if self.https else scope.get('scheme', 'http')}://{headers.get('host', '')}"
        )
        problem = origin_problem(headers, expected)
        if problem:
            return problem, b""
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


_DEFAULT_PORTS = {"http": 80, "https": 443}


def canonical_origin(url: str) -> str | None:
    """``scheme://host:port`` of an http(s) URL or origin, lower-cased, the port always written.

    Two spellings of one origin (``HTTP://Example.org`` and ``http://example.org:80``) compare equal; what
    is no http(s) URL with a host (``null``, ``file:``, garbage) is None.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a port that is no number, or out of range
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    host = f"[{host}]" if ":" in host else host
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


def require_origin(url: str) -> str:
    """:func:`canonical_origin` of ``url``, which must be an http(s) origin with nothing after it.

    Raises:
        ValueError: ``url`` is no http(s) URL with a host, or it has a path, a query or a fragment.
    """
    origin = canonical_origin(url)
    parts = urlsplit(url.strip())
    if origin is None or parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(
            f"{url!r} is not an origin: give scheme://host[:port], e.g. https://review.example.com"
        )
    return origin


def origin_problem(headers: Headers, expected: str | None) -> str:
    """Why a state-changing request's origin is refused ('' if it is not).

    The ``Origin`` header must be the console's own origin (scheme, host and port): ``null`` (a sandboxed
    frame, a ``data:`` page, a cross-origin redirect) is refused like any other site. Without ``Origin``
    the ``Referer``'s origin is checked instead. A request with neither is let through to the CSRF check:
    browsers send ``Origin`` on every cross-origin POST (form or fetch), so only a non-browser client or an
    old browser omits both, and a non-browser client could forge either header anyway; the session's CSRF
    token, which only a page of the console can read, is what stops it.
    """
    origin = headers.get("origin")
    claimed = origin if origin is not None else headers.get("referer")
    if claimed is None:
        return ""
    if expected is None:
        return "the request names no host, so its origin cannot be checked"
    got = canonical_origin(claimed)
    if got == expected:
        return ""
    what = "Origin" if origin is not None else "Referer"
    shown = claimed[:200] if origin is not None else (got or "an unreadable address")
    return f"cross-origin request refused: its {what} is {shown}, not the console's {expected}"
