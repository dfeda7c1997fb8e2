"""The review console's sessions and login attempts, kept in the review store beside the decisions.

Three tables, alike in both stores (SQLite: created with the store; PostgreSQL: migration
``0008_review_sessions``, applied by the sink's migrator):

* ``review_sessions``: one row per logged-in session, keyed by the SHA-256 of the random id the browser's
  cookie holds (a copy of the table gives no live cookie), with its user, CSRF token, the fingerprint of
  the user's password hash at login, when it began and was last seen, and the little the pages remember
  (the zoom, a message for the next page). Deleting the row ends the session at once.
* ``review_login_failures``: failed logins per (user name, client address): how many and the last one's
  time, which the console's back-off reads (:class:`console.auth.LoginThrottle`).
* ``review_logins``: every login attempt (its time, the user name as typed, the client address, and
  ``ok``, ``wrong`` or ``throttled``), the audit trail of logins; its ``wrong`` rows also drive the global
  limit of failed logins per minute.

Times are seconds since the epoch (``double precision``; ``to_timestamp(at)`` in PostgreSQL reads one),
so both dialects compare them alike. Several console processes on one PostgreSQL database share all
three: a session ended or a failure counted by one holds for the others.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

__all__ = [
    "MAX_LOGIN_NAME",
    "LoginAttempt",
    "LoginOutcome",
    "SessionRecord",
    "SessionStore",
    "SqlSessionStore",
]

LoginOutcome = Literal["ok", "wrong", "throttled"]

MAX_LOGIN_NAME = 128
"""A user name as typed is kept to this many characters in the audit trail (the form's field is free)."""


@dataclass(frozen=True)
class SessionRecord:
    """A logged-in session as the store keeps it.

    Attributes:
        user: Who logged in.
        csrf: The session's CSRF token.
        fingerprint: A digest of the user's password hash at login: a password changed since ends it.
        created_at: When it began (seconds since the epoch).
        last_seen: Its last request, to within a minute (the store is not written on every request).
        data: What the pages remember between requests (JSON values).
    """

    user: str
    csrf: str
    fingerprint: str
    created_at: float
    last_seen: float
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LoginAttempt:
    """One login attempt, as the audit trail keeps it.

    Attributes:
        at: When (seconds since the epoch).
        user: The user name as typed (cut to :data:`MAX_LOGIN_NAME` characters).
        address: The client's address.
        outcome: ``ok``, ``wrong`` (a wrong name or password) or ``throttled`` (refused unchecked).
    """

    at: float
    user: str
    address: str
    outcome: LoginOutcome


class SessionStore(Protocol):
    """Sessions, failed-login counts and the login audit trail (see the module docstring)."""

    def create_session(self, key: str, record: SessionRecord) -> None:
        """Keep a new session under ``key`` (the digest of its cookie's id)."""
        ...

    def session(self, key: str) -> SessionRecord | None:
        """The session kept under ``key``, or None."""
        ...

    def touch_session(self, key: str, at: float) -> None:
        """Record that the session was seen at ``at``."""
        ...

    def save_session_data(self, key: str, data: dict[str, Any]) -> None:
        """Replace what the session's pages remember."""
        ...

    def delete_session(self, key: str) -> bool:
        """End one session; whether there was one."""
        ...

    def delete_sessions(self, user: str) -> int:
        """End every session of ``user``; how many there were."""
        ...

    def expire_sessions(self, *, seen_before: float, created_before: float) -> int:
        """Delete the sessions idle since ``seen_before`` or begun before ``created_before``; how many."""
        ...

    def login_failures(self, user_key: str, address: str) -> tuple[int, float]:
        """Failed logins counted for (user, address) and the last one's time; ``(0, 0.0)`` for none."""
        ...

    def failed_login_times(self, since: float, limit: int) -> list[float]:
        """The times of the newest ``limit`` failed logins after ``since``, newest first."""
        ...

    def record_login(self, attempt: LoginAttempt, user_key: str, *, forget_before: float) -> None:
        """Append ``attempt`` to the audit trail and count it for (``user_key``, address).

        A wrong one adds a failure (counting from 1 again when the last was before ``forget_before``); a
        right one clears the pair's failures; a throttled one is only audited.
        """
        ...

    def logins(self, since: float = 0.0, limit: int = 1000) -> list[LoginAttempt]:
        """Login attempts after ``since``, oldest first."""
        ...


class SqlSessionStore:
    """:class:`SessionStore` in SQL both dialects share; a store supplies its statements' runner."""

    def _query(self, sql: str, params: Sequence[object] = ()) -> list[Any]:
        """Rows of one statement (inside the current transaction, when one is open)."""
        raise NotImplementedError

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement that returns no rows; the number of rows it changed."""
        raise NotImplementedError

    @property
    def _placeholder(self) -> str:
        """The dialect's parameter placeholder (``?`` or ``%s``)."""
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        """``sql`` with each ``{p}`` made the dialect's placeholder."""
        return sql.replace("{p}", self._placeholder)

    # ------------------------------------------------------------------ sessions

    def create_session(self, key: str, record: SessionRecord) -> None:
        """See :meth:`SessionStore.create_session`."""
        self._execute(
            self._sql(
                "INSERT INTO review_sessions"
                " (id_hash, user_name, csrf, fingerprint, created_at, last_seen, data)"
                " VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p})"
            ),
            (key, record.user, record.csrf, record.fingerprint, record.created_at, record.last_seen,
             json.dumps(record.data)),
        )  # fmt: skip

    def session(self, key: str) -> SessionRecord | None:
        """See :meth:`SessionStore.session`."""
        rows = self._query(
            self._sql(
                "SELECT user_name, csrf, fingerprint, created_at, last_seen, data FROM review_sessions"
                " WHERE id_hash = {p}"
            ),
            (key,),
        )
        if not rows:
            return None
        user, csrf, fingerprint, created_at, last_seen, data = rows[0]
        return SessionRecord(str(user), str(csrf), str(fingerprint), created_at, last_seen, json.loads(data))

    def touch_session(self, key: str, at: float) -> None:
        """See :meth:`SessionStore.touch_session`."""
        self._execute(self._sql("UPDATE review_sessions SET last_seen = {p} WHERE id_hash = {p}"), (at, key))

    def save_session_data(self, key: str, data: dict[str, Any]) -> None:
        """See :meth:`SessionStore.save_session_data`."""
        self._execute(
            self._sql("UPDATE review_sessions SET data = {p} WHERE id_hash = {p}"), (json.dumps(data), key)
        )

    def delete_session(self, key: str) -> bool:
        """See :meth:`SessionStore.delete_session`."""
        return self._execute(self._sql("DELETE FROM review_sessions WHERE id_hash = {p}"), (key,)) > 0

    def delete_sessions(self, user: str) -> int:
        """See :meth:`SessionStore.delete_sessions`."""
        return self._execute(self._sql("DELETE FROM review_sessions WHERE user_name = {p}"), (user,))

    def expire_sessions(self, *, seen_before: float, created_before: float) -> int:
        """See :meth:`SessionStore.expire_sessions`."""
        return self._execute(
            self._sql("DELETE FROM review_sessions WHERE last_seen < {p} OR created_at < {p}"),
            (seen_before, created_before),
        )

    # ------------------------------------------------------------------ login attempts

    def login_failures(self, user_key: str, address: str) -> tuple[int, float]:
        """See :meth:`SessionStore.login_failures`."""
        rows = self._query(
            self._sql(
                "SELECT failures, last_at FROM review_login_failures WHERE user_key = {p} AND address = {p}"
            ),
            (user_key, address),
        )
        return (int(rows[0][0]), float(rows[0][1])) if rows else (0, 0.0)

    def failed_login_times(self, since: float, limit: int) -> list[float]:
        """See :meth:`SessionStore.failed_login_times`."""
        rows = self._query(
            self._sql(
                "SELECT at FROM review_logins WHERE outcome = 'wrong' AND at > {p} ORDER BY at DESC LIMIT {p}"
            ),
            (since, limit),
        )
        return [float(r[0]) for r in rows]

    def record_login(self, attempt: LoginAttempt, user_key: str, *, forget_before: float) -> None:
        """See :meth:`SessionStore.record_login`."""
        self._execute(
            self._sql(
                "INSERT INTO review_logins (at, user_name, address, outcome) VALUES ({p}, {p}, {p}, {p})"
            ),
            (attempt.at, attempt.user[:MAX_LOGIN_NAME], attempt.address, attempt.outcome),
        )
        if attempt.outcome == "ok":
            self._execute(
                self._sql("DELETE FROM review_login_failures WHERE user_key = {p} AND address = {p}"),
                (user_key, attempt.address),
            )
        elif attempt.outcome == "wrong":
            # one statement, so concurrent failures (other threads, other processes) all count
            self._execute(
                self._sql(
                    "INSERT INTO review_login_failures (user_key, address, failures, last_at)"
                    " VALUES ({p}, {p}, 1, {p}) ON CONFLICT (user_key, address) DO UPDATE SET"
                    " failures = CASE WHEN review_login_failures.last_at < {p} THEN 1"
                    " ELSE review_login_failures.failures + 1 END, last_at = excluded.last_at"
                ),
                (user_key, attempt.address, attempt.at, forget_before),
            )
            # pairs quiet for long are forgotten anyway: drop them, so guessing names fills no table
            self._execute(
                self._sql("DELETE FROM review_login_failures WHERE last_at < {p}"), (forget_before,)
            )

    def logins(self, since: float = 0.0, limit: int = 1000) -> list[LoginAttempt]:
        """See :meth:`SessionStore.logins`."""
        rows = self._query(
            self._sql(
                "SELECT at, user_name, address, outcome FROM review_logins WHERE at > {p}"
                " ORDER BY id LIMIT {p}"
            ),
            (since, limit),
        )
        return [LoginAttempt(float(at), str(u), str(a), o) for at, u, a, o in rows]
