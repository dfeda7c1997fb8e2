"""The console's security, in one place every request passes: login, CSRF and Origin, security headers.

:class:`Guard` requires a logged-in user on every path except the login page and static assets, checks
the CSRF token (and the Origin, when sent) of every state-changing request, and adds the security
headers to every response.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import parse_qsl, quote

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from console.auth import Users

__all__ = ["MAX_FORM_BYTES", "PUBLIC_PATHS", "PUBLIC_PREFIXES", "SAFE_METHODS", "Guard"]

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
