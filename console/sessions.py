"""Server-side sessions: the browser's cookie holds a random id, the review store holds the session.

:class:`Sessions` (middleware, outside :class:`~console.guard.Guard`) gives each request a
:class:`Session` as ``request.session``. A logged-in one is a row of the store's ``review_sessions``
(:mod:`adapters.review.logins`) found by the SHA-256 of the cookie's id; it holds only while

* the row exists: logout, ``tieout review passwd`` and ``deluser`` delete it, in every console process
  on the database;
* it was used within the idle timeout (:data:`SESSION_IDLE_MINUTES`) and began within the absolute one
  (:data:`SESSION_HOURS`);
* its user is still in the users file with the password it logged in with (the file is re-read when it
  changes): a password changed or a user removed ends the session on its next request, whether or not
  anybody reached the store.

Otherwise the row is deleted and the request is anonymous. The store is read once per request and written
only when something changed: a login, a logout, what the pages remember (:attr:`Session.data`), and the
``last_seen`` time at most once a minute (:data:`TOUCH_S`).

An anonymous visitor has a cookie with a random id too, never stored: the login form's CSRF token is an
HMAC of it under the console's secret. Logging in issues a new id (a planted one is worth nothing).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.review.logins import SessionRecord
from console.auth import User, password_fingerprint

if TYPE_CHECKING:
    from console.state import ConsoleConfig

__all__ = [
    "SESSION_COOKIE",
    "SESSION_HOURS",
    "SESSION_IDLE_MINUTES",
    "TOUCH_S",
    "Session",
    "Sessions",
    "log_in",
    "log_out",
    "session_key",
]

SESSION_COOKIE = "tieout_review"
SESSION_IDLE_MINUTES = 30
"""A session unused for this long ends (``ConsoleConfig.session_idle_s``)."""
SESSION_HOURS = 12
"""A session ends this long after its login, used or not (``ConsoleConfig.session_max_s``)."""
TOUCH_S = 60.0
"""``last_seen`` is written at most this often, so that reading pages costs no write."""

_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")  # secrets.token_urlsafe(32)
_OWN = frozenset({"user", "csrf"})  # the session's columns, not its data


def _data(values: dict[str, Any]) -> dict[str, Any]:
    """What the pages remember: a session's values but its user and CSRF token."""
    return {k: v for k, v in values.items() if k not in _OWN}


def session_key(sid: str) -> str:
    """What the store keeps a session under: the SHA-256 of its cookie's id."""
    return hashlib.sha256(sid.encode()).hexdigest()


class Session(dict[str, Any]):
    """A request's session, as the handlers see it (``request.session``): ``user``, ``csrf`` and data.

    Attributes:
        sid: The id in the browser's cookie.
        stored: Whether it is a logged-in session kept in the store (False: anonymous).
        data: What the pages remembered, as loaded (to write back only what changed).
        issue: Send the cookie with this response (a new id, or a login's).
        login: The session a login begun, to store before the response goes out.
        ended: Logged out: delete the stored session.
    """

    def __init__(self, sid: str, values: dict[str, Any], *, stored: bool, issue: bool) -> None:
        super().__init__(values)
        self.sid = sid
        self.stored = stored
        self.data = _data(values)
        self.issue = issue
        self.login: SessionRecord | None = None
        self.ended = False

    @property
    def changed(self) -> bool:
        """Whether a stored session's data changed during the request (to be written back)."""
        return self.stored and _data(self) != self.data


def log_in(request: Request, user: User, now: float) -> None:
    """Begin a session for ``user`` (stored, and its cookie sent, with the response)."""
    session: Session = request.scope["session"]
    if session.stored:
        session.ended = True  # the session it replaces goes
    session.clear()
    session.update(user=user.name, csrf=secrets.token_urlsafe(32))
    session.login = SessionRecord(user.name, session["csrf"], password_fingerprint(user), now, now)


def log_out(request: Request) -> None:
    """End the request's session (deleted from the store before the response goes out)."""
    session: Session = request.scope["session"]
    session.ended = session.stored
    session.clear()


class Sessions:
    """The session of every request, from the store (see the module docstring)."""

    def __init__(self, app: ASGIApp, config: ConsoleConfig) -> None:
        """Wrap ``app``; ``config`` names the store, the users, the secret and the timeouts."""
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Load the session, pass on, and save what changed as the response starts."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sid = Request(scope).cookies.get(SESSION_COOKIE, "")
        # an id that is not one of ours needs no look-up (nor a thread)
        session = await run_in_threadpool(self._load, sid) if _ID.match(sid) else self._new()
        scope["session"] = session

        async def send_saved(message: Message) -> None:
            if message["type"] == "http.response.start":
                if session.ended or session.login is not None or session.changed:
                    await run_in_threadpool(self._save, session)
                if session.issue or session.ended:
                    MutableHeaders(scope=message).append("set-cookie", self._cookie(session))
            await send(message)

        await self.app(scope, receive, send_saved)

    def _load(self, sid: str) -> Session:
        """The stored session of ``sid`` if it still holds; else an anonymous one (a new id if it was)."""
        config = self.config
        key = session_key(sid)
        record = config.store.session(key)
        if record is None:
            return self._anonymous(sid, issue=False)
        now = config.clock()
        user = config.users.get(record.user)
        if (
            user is None
            or not hmac.compare_digest(password_fingerprint(user), record.fingerprint)
            or now - record.last_seen > config.session_idle_s
            or now - record.created_at > config.session_max_s
        ):
            config.store.delete_session(key)
            return self._new()
        if now - record.last_seen >= TOUCH_S:
            config.store.touch_session(key, now)
        values = {**record.data, "user": record.user, "csrf": record.csrf}
        return Session(sid, values, stored=True, issue=False)

    def _new(self) -> Session:
        """An anonymous session with a new id (its cookie sent with the response)."""
        return self._anonymous(secrets.token_urlsafe(32), issue=True)

    def _anonymous(self, sid: str, *, issue: bool) -> Session:
        token = hmac.new(self.config.secret.encode(), f"login:{sid}".encode(), hashlib.sha256).hexdigest()
        return Session(sid, {"csrf": token}, stored=False, issue=issue)

    def _save(self, session: Session) -> None:
        """Write what the request changed: a login, a logout, or the pages' data."""
        store = self.config.store
        if session.ended:
            store.delete_session(session_key(session.sid))
        if session.login is not None:
            now = session.login.created_at
            store.expire_sessions(
                seen_before=now - self.config.session_idle_s, created_before=now - self.config.session_max_s
            )
            session.sid = secrets.token_urlsafe(32)
            store.create_session(session_key(session.sid), session.login)
            session.issue, session.ended = True, False
        elif session.changed and not session.ended:
            store.save_session_data(session_key(session.sid), _data(session))

    def _cookie(self, session: Session) -> str:
        """The ``Set-Cookie`` value: the session's id, or an expired cookie after a logout."""
        parts = [f"{SESSION_COOKIE}={'' if session.ended else session.sid}", "Path=/", "HttpOnly"]
        parts.append("SameSite=Strict")
        if session.ended:
            parts.append("Max-Age=0")
        elif session.login is not None:
            parts.append(f"Max-Age={int(self.config.session_max_s)}")
        if self.config.secure_cookie:
            parts.append("Secure")
        return "; ".join(parts)
