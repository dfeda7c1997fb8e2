"""Shared by the console's session tests: the store checks both dialects run, and logging in by hand.

(The session modules are imported inside the checks, so the console tests that use only the helpers
import on code without them: how a regression test is seen to fail on the code before the change.)"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest
from starlette.testclient import TestClient

from adapters.review.store import ReviewStore
from tests.support.review import csrf_of

T0 = 1_800_000_000.0  # a fixed "now" for the tests' clocks (2027-01-15)


def check_sessions(store: ReviewStore, other: ReviewStore) -> None:
    """Sessions written through ``store`` are seen, changed and ended through ``other`` (another process)."""
    from adapters.review.logins import SessionRecord

    a = SessionRecord("alice", "csrf-a", "fp-a", T0, T0, {"zoom": 1.5})
    store.create_session("key-a1", a)
    store.create_session("key-a2", SessionRecord("alice", "csrf-a2", "fp-a", T0 - 7200, T0 - 7200))
    store.create_session("key-b", SessionRecord("bob", "csrf-b", "fp-b", T0 - 60, T0 - 60))
    assert other.session("key-a1") == a
    assert other.session("nope") is None
    other.touch_session("key-a1", T0 + 90)
    store.save_session_data("key-a1", {"flash": "Confirmed.", "zoom": 2.0})
    got = store.session("key-a1")
    assert got is not None and got.last_seen == T0 + 90 and got.data == {"flash": "Confirmed.", "zoom": 2.0}
    # idle since before T0 - 3600 (key-a2), or begun before T0 - 3600 (key-a2 again): only that one goes
    assert other.expire_sessions(seen_before=T0 - 3600, created_before=T0 - 3600) == 1
    assert store.session("key-a2") is None and store.session("key-b") is not None
    assert other.delete_session("key-b") and not other.delete_session("key-b")
    assert store.session("key-b") is None
    store.create_session("key-a3", SessionRecord("alice", "csrf-a3", "fp-a", T0, T0))
    assert other.delete_sessions("alice") == 2
    assert store.session("key-a1") is None and store.session("key-a3") is None


def check_logins(store: ReviewStore, other: ReviewStore) -> None:
    """Failed logins counted through either store add up; the audit trail holds every attempt."""
    from adapters.review.logins import LoginAttempt
    from console.auth import LoginThrottle, user_key

    throttle = LoginThrottle(free_failures=2, backoff_s=10, max_backoff_s=40, forget_s=3600)

    def attempt(s: ReviewStore, at: float, user: str, address: str, outcome: str) -> None:
        throttle.record(s, LoginAttempt(at, user, address, outcome))  # type: ignore[arg-type]

    for i, s in enumerate((store, other, store)):
        attempt(s, T0 + i, "Alice", "10.0.0.1", "wrong")
    assert other.login_failures(user_key("alice"), "10.0.0.1") == (3, T0 + 2)
    assert store.login_failures("alice", "10.0.0.2") == (0, 0.0)  # another address counts apart
    # 2 free failures, then 10 s, 20 s, 40 s, 40 s ... after the last failure
    assert [throttle.backoff(n) for n in range(1, 7)] == [0, 10, 20, 40, 40, 40]
    assert throttle.retry_after(other, "alice", "10.0.0.1", T0 + 5) == pytest.approx(17)
    assert throttle.retry_after(other, "alice", "10.0.0.2", T0 + 5) == 0
    assert throttle.retry_after(other, "bob", "10.0.0.1", T0 + 5) == 0
    attempt(other, T0 + 30, "alice", "10.0.0.1", "throttled")  # audited, not counted
    assert store.login_failures("alice", "10.0.0.1") == (3, T0 + 2)
    attempt(store, T0 + 40, "alice", "10.0.0.1", "ok")  # a success clears the pair
    assert other.login_failures("alice", "10.0.0.1") == (0, 0.0)
    # failures older than forget_s start the count again (and old pairs are dropped)
    attempt(store, T0 + 50, "alice", "10.0.0.3", "wrong")
    attempt(store, T0 + 51, "alice", "10.0.0.3", "wrong")
    attempt(other, T0 + 4000, "alice", "10.0.0.3", "wrong")
    assert store.login_failures("alice", "10.0.0.3") == (1, T0 + 4000)
    # the global limit: the newest failures in the last minute, newest first
    assert other.failed_login_times(T0 + 4000 - 60, 10) == [T0 + 4000]
    assert other.failed_login_times(T0 - 1, 3) == [T0 + 4000, T0 + 51, T0 + 50]
    trail = [(a.at - T0, a.user, a.address, a.outcome) for a in other.logins(T0 - 1)]
    assert trail == [
        (0, "Alice", "10.0.0.1", "wrong"),
        (1, "Alice", "10.0.0.1", "wrong"),
        (2, "Alice", "10.0.0.1", "wrong"),
        (30, "alice", "10.0.0.1", "throttled"),
        (40, "alice", "10.0.0.1", "ok"),
        (50, "alice", "10.0.0.3", "wrong"),
        (51, "alice", "10.0.0.3", "wrong"),
        (4000, "alice", "10.0.0.3", "wrong"),
    ]
    assert [a.at - T0 for a in store.logins(T0 + 40, limit=2)] == [50, 51]


def try_login(client: TestClient, user: str, password: str) -> httpx2.Response:
    """Post the login form (with its token) as ``user``; the response, redirects not followed."""
    token = csrf_of(client.get("/login").text)
    return client.post(
        "/login",
        data={"username": user, "password": password, "csrf": token, "next": "/"},
        follow_redirects=False,
    )


def remove_from_file(users: Path, name: str) -> None:
    """Remove ``name`` from a users file by hand (as an administrator's editor would)."""
    data = json.loads(users.read_text(encoding="utf-8"))
    del data["users"][name]
    users.write_text(json.dumps(data), encoding="utf-8")
