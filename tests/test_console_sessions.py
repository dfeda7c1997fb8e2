"""The console's server-side sessions and login throttle through Starlette's TestClient (no server).

A logout, a new password or a removed user ends a session at once; idle and absolute timeouts; the cookie
holds a random id only; failed logins slow one (user, address) pair, never the user elsewhere, plus a
global limit; every attempt is audited; the counts survive a restart; ``passwd`` and ``deluser``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from adapters.review.sqlite import SqliteReviewStore
from adapters.review.store import FlagQuery
from console.app import ConsoleConfig, create_app
from console.auth import LoginThrottle, Users, add_user
from tests.support.review import PASSWORDS, login
from tests.support.sessions import T0, remove_from_file, try_login
from tieout.cli import app as cli


@pytest.fixture
def config(console_config: ConsoleConfig) -> ConsoleConfig:
    return console_config  # the test's own copy of the sample run (tests/conftest.py)


def client_at(config: ConsoleConfig, address: str = "10.0.0.1") -> TestClient:
    """A browser at ``address``, on a new app over ``config``."""
    return TestClient(create_app(config), base_url="http://127.0.0.1", client=(address, 50000))


def cookie_of(client: TestClient) -> str:
    return str(client.cookies["tieout_review"])


def queue_answers(client: TestClient) -> bool:
    """Whether the client's session still opens the queue (else it is sent to the login form)."""
    return client.get("/", follow_redirects=False).status_code == 200


def test_a_logged_out_cookie_is_refused_when_replayed(config: ConsoleConfig) -> None:
    client = client_at(config)
    token = login(client)
    stolen = cookie_of(client)
    assert client.post("/logout", data={"csrf": token}, follow_redirects=False).status_code == 303
    replay = client_at(config)
    replay.cookies.set("tieout_review", stolen)
    assert not queue_answers(replay)
    # nor can it decide: the replayed cookie with its old CSRF token is no login
    flag = config.store.queue(FlagQuery(), limit=1).rows[0].flag
    r = replay.post(
        f"/flags/{flag.flag_id}/decide",
        data={"csrf": token, "action": "confirm", "version": "0"},
        follow_redirects=False,
    )
    assert r.status_code == 401
    assert config.store.history(flag.flag_id) == []


def test_a_new_password_ends_the_session_and_refuses_the_old_one_at_once(
    config: ConsoleConfig, tmp_path: Path
) -> None:
    client = client_at(config)
    login(client)
    add_user(tmp_path / "users.json", "alice", "a-new-password")  # while the console runs
    assert not queue_answers(client)
    assert try_login(client_at(config), "alice", PASSWORDS["alice"]).status_code == 401
    assert try_login(client_at(config), "alice", "a-new-password").status_code == 303
    # bob's password did not change: his session goes on
    bob = client_at(config)
    login(bob, "bob")
    add_user(tmp_path / "users.json", "carol", "carol-password")
    assert queue_answers(bob)


def test_a_removed_user_is_logged_out_at_once(config: ConsoleConfig, tmp_path: Path) -> None:
    client = client_at(config)
    login(client, "bob")
    assert queue_answers(client)
    remove_from_file(tmp_path / "users.json", "bob")
    assert not queue_answers(client)
    assert try_login(client_at(config), "bob", PASSWORDS["bob"]).status_code == 401


def test_sessions_end_after_the_idle_and_the_absolute_timeout(config: ConsoleConfig) -> None:
    now = [T0]
    config.clock = lambda: now[0]
    idle = client_at(config)
    login(idle)
    now[0] += 29 * 60
    assert queue_answers(idle)  # used within 30 minutes: on
    now[0] += 29 * 60
    assert queue_answers(idle)  # the last use counts, not the login
    now[0] += 31 * 60
    assert not queue_answers(idle)
    busy = client_at(config)
    login(busy)
    start = now[0]
    while queue_answers(busy):  # used every 20 minutes: on until 12 hours after the login
        now[0] += 20 * 60
        assert now[0] - start <= 13 * 3600, "the session outlived the absolute timeout"
    assert now[0] - start == 37 * 20 * 60  # the first request past 12 hours


def test_the_cookie_is_a_random_id_and_the_store_keeps_only_its_hash(config: ConsoleConfig) -> None:
    client = client_at(config)
    login(client)
    sid = cookie_of(client)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", sid)
    assert isinstance(config.store, SqliteReviewStore)
    raw = config.store.path.read_bytes() + config.store.path.with_name("reviews.sqlite-wal").read_bytes()
    assert sid.encode() not in raw
    record = config.store.session(hashlib.sha256(sid.encode()).hexdigest())
    assert record is not None and record.user == "alice"
    # a login issues a new id: one planted before it is worth nothing after
    planted = client_at(config)
    planted.get("/login")
    before = cookie_of(planted)
    assert try_login(planted, "bob", PASSWORDS["bob"]).status_code == 303
    assert cookie_of(planted) != before


def test_what_the_pages_remember_is_kept_with_the_session(config: ConsoleConfig) -> None:
    client = client_at(config)
    token = login(client)
    flag = config.store.queue(FlagQuery(), limit=1).rows[0].flag
    form = {"csrf": token, "action": "confirm", "version": "0"}
    r = client.post(f"/flags/{flag.flag_id}/decide", data=form)
    flash = '<div class="flash" role="status">Confirmed as a real inconsistency.'
    assert r.status_code == 200 and flash in r.text  # the message the decision left, shown once
    assert 'class="flash"' not in client.get("/").text
    # a zoom picked is remembered for pages as wide (console.view.zoom_bucket): the same page, seen again
    client.get(f"/flags/{flag.flag_id}?zoom=1.5")
    assert 'data-zoom="1.5" aria-current="true"' in client.get(f"/flags/{flag.flag_id}").text


def test_failures_slow_one_user_at_one_address_never_the_user_elsewhere(config: ConsoleConfig) -> None:
    now = [T0]
    config.clock = lambda: now[0]
    guesser = client_at(config, "10.0.0.66")
    codes = [try_login(guesser, "alice", "wrong-password").status_code for _ in range(4)]
    assert codes == [401, 401, 401, 429]
    assert try_login(guesser, "alice", PASSWORDS["alice"]).status_code == 429
    # alice at her own desk, and bob behind the guesser's address, log in
    assert try_login(client_at(config, "10.0.0.7"), "alice", PASSWORDS["alice"]).status_code == 303
    assert try_login(client_at(config, "10.0.0.66"), "bob", PASSWORDS["bob"]).status_code == 303
    # the wait doubles with each further failure: 1 s, then 2 s
    now[0] += 1
    assert try_login(guesser, "alice", "wrong-password").status_code == 401
    now[0] += 1
    assert try_login(guesser, "alice", PASSWORDS["alice"]).status_code == 429
    now[0] += 1
    assert try_login(guesser, "alice", PASSWORDS["alice"]).status_code == 303
    outcomes = [(a.user, a.address, a.outcome) for a in config.store.logins()]
    assert outcomes == [
        *[("alice", "10.0.0.66", "wrong")] * 3,
        ("alice", "10.0.0.66", "throttled"),
        ("alice", "10.0.0.66", "throttled"),
        ("alice", "10.0.0.7", "ok"),
        ("bob", "10.0.0.66", "ok"),
        ("alice", "10.0.0.66", "wrong"),
        ("alice", "10.0.0.66", "throttled"),
        ("alice", "10.0.0.66", "ok"),
    ]


def test_a_global_limit_of_failed_logins_per_minute(config: ConsoleConfig) -> None:
    now = [T0]
    config.clock = lambda: now[0]
    config.throttle = LoginThrottle(global_per_minute=5)
    for i in range(5):  # five guessers, five names: no pair is slowed
        now[0] += 1
        assert try_login(client_at(config, f"10.1.0.{i}"), f"user{i}", "guess-guess").status_code == 401
    r = try_login(client_at(config, "10.0.0.7"), "alice", PASSWORDS["alice"])
    assert r.status_code == 429 and "try again in 56 s" in r.text
    now[0] += 56  # the first failure leaves the minute
    assert try_login(client_at(config, "10.0.0.7"), "alice", PASSWORDS["alice"]).status_code == 303


def test_the_throttle_survives_a_restart(config: ConsoleConfig) -> None:
    now = [T0]
    config.clock = lambda: now[0]
    for _ in range(3):
        assert try_login(client_at(config), "alice", "wrong-password").status_code == 401
    assert isinstance(config.store, SqliteReviewStore)
    config.store.close()
    config.store = SqliteReviewStore(config.store.path)  # the console started again
    assert try_login(client_at(config), "alice", PASSWORDS["alice"]).status_code == 429


def test_cli_passwd_and_deluser_end_the_users_sessions(config: ConsoleConfig, tmp_path: Path) -> None:
    runner = CliRunner()
    users = tmp_path / "users.json"
    store = config.store
    assert isinstance(store, SqliteReviewStore)
    run = store.path.parent
    alice, bob = client_at(config), client_at(config)
    login(alice)
    login(bob, "bob")
    args = ["--users", str(users), "--out", str(run)]
    r = runner.invoke(cli, ["review", "passwd", "alice", *args, "--password-stdin"], input="brand-new-pass\n")
    assert r.exit_code == 0 and "ended 1 session in the review store" in " ".join(r.output.split())
    assert not queue_answers(alice) and queue_answers(bob)
    assert Users.load(users).authenticate("alice", "brand-new-pass") is not None
    r = runner.invoke(cli, ["review", "deluser", "bob", *args])
    assert r.exit_code == 0 and "ended 1 session" in " ".join(r.output.split())
    assert not queue_answers(bob) and Users.load(users).get("bob") is None
    # unknown users, short passwords: refused, nothing changed
    stdin = ["--users", str(users), "--password-stdin"]
    r = runner.invoke(cli, ["review", "passwd", "zed", *stdin], input="x" * 9)
    assert r.exit_code == 2 and "no user 'zed'" in " ".join(r.output.split())
    r = runner.invoke(cli, ["review", "passwd", "alice", *stdin], input="x\n")
    assert r.exit_code == 2 and "at least 8 characters" in " ".join(r.output.split())
    assert runner.invoke(cli, ["review", "deluser", "bob", "--users", str(users)]).exit_code == 2
