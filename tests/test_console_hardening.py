"""The review console's hardening (issue 25): private files, the Origin check, typed 400 pages, inert
bidirectional text, and one line for an unreachable review database.

Through Starlette's TestClient and the CLI runner (no server, no browser; the browser's side is in
``tests/integration/test_console_hardening_browser.py``).
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from adapters.review.annotated import AnnotatedCopies
from adapters.review.decision_rules import DecisionRequest
from adapters.review.documents import LocalDocuments, PageImages
from adapters.review.sqlite import DB_NAME, SqliteReviewStore
from adapters.review.store import FlagQuery
from adapters.rewards_dataset import export_dataset, export_rewards
from console.app import ConsoleConfig, create_app
from console.auth import add_user, session_secret
from schemas.reviews import ReviewAction
from tests.support.review import SAMPLES, copy_run, login
from tieout.cli import app as cli

HALVORSEN = SAMPLES / "halvorsen_2025_form_10k.pdf"
ORIGIN = "http://127.0.0.1:8700"
# U+202A-202E, U+2066-2069, LRM, RLM and ALM (console/bidi.py names them)
BIDI_CHARS = [
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
    "\u200e",
    "\u200f",
    "\u061c",
]
PYTHON_WORDS = ("invalid literal", "could not convert", "Traceback", "ValueError", "int()", "float()")


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The usual umask (022): what is not made private on purpose comes out readable by everyone."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def modes_under(root: Path) -> dict[str, int]:
    """The mode of every folder and file under ``root`` (itself included), by path relative to it."""
    out = {".": mode(root)}
    for p in root.rglob("*"):
        out[p.relative_to(root).as_posix()] = mode(p)
    return out


def assert_private_tree(root: Path) -> None:
    modes = modes_under(root)
    assert len(modes) > 1, f"nothing was written under {root}"
    loose = {p: oct(m) for p, m in modes.items() if m != (0o700 if (root / p).is_dir() else 0o600)}
    assert not loose, f"readable by others under {root}: {loose}"


def judged_copy(run: Path, dest: Path, action: ReviewAction, **decision: Any) -> SqliteReviewStore:
    """The store of a copy of ``run`` in ``dest``, open, with alice's ``action`` on its first flag."""
    store = SqliteReviewStore.for_run(copy_run(run, dest))
    flag = store.queue(FlagQuery(), limit=1).rows[0].flag
    store.decide(DecisionRequest(flag.flag_id, action, "alice", 0, **decision))
    return store


# ---------------------------------------------------------------------------------------------- files


def test_the_store_its_wal_and_its_new_folders_are_private(
    hostile_run: Path, tmp_path: Path, usual_umask: None
) -> None:
    run = tmp_path / "run"
    store = judged_copy(hostile_run, run, "comment", note="only for the reviewers")
    db = run / DB_NAME
    # the audit trail, in the database and in its write-ahead log while the store is open
    for path in (db, db.with_name(DB_NAME + "-wal"), db.with_name(DB_NAME + "-shm")):
        assert path.is_file() and mode(path) == 0o600, (path.name, oct(mode(path)))
    assert mode(run) == 0o755  # the run's folder is the user's: left as it was
    store.close()
    # a store in folders that do not exist yet: each one made 0700
    nested = SqliteReviewStore(tmp_path / "a" / "b" / DB_NAME)
    nested.close()
    assert_private_tree(tmp_path / "a")


def test_a_store_an_earlier_version_left_readable_is_made_private(tmp_path: Path, usual_umask: None) -> None:
    db = tmp_path / DB_NAME
    old = sqlite3.connect(db)  # as SQLite makes it under the umask: 0644, its WAL and shared memory too
    old.execute("PRAGMA journal_mode=WAL")
    old.execute("CREATE TABLE t (x)")
    old.execute("INSERT INTO t VALUES (1)")
    old.commit()
    wal, shm = db.with_name(DB_NAME + "-wal"), db.with_name(DB_NAME + "-shm")
    assert {mode(db), mode(wal), mode(shm)} == {0o644}
    store = SqliteReviewStore(db)
    assert (mode(db), mode(wal), mode(shm)) == (0o600, 0o600, 0o600)
    store.close()
    old.close()


def test_the_page_and_tick_and_tie_caches_are_private(tmp_path: Path, usual_umask: None) -> None:
    doc_id = hashlib.sha256(HALVORSEN.read_bytes()).hexdigest()
    cache = tmp_path / "home" / ".cache" / "tieout" / "review"
    images = PageImages(LocalDocuments([SAMPLES]), cache)
    assert images.sizes(doc_id, HALVORSEN.name)
    assert images.png(doc_id, HALVORSEN.name, 2, 0.5)[:4] == b"\x89PNG"
    # the real worker: it writes the copy, the console moves it into the cache
    copies = AnnotatedCopies(LocalDocuments([SAMPLES]), cache)
    assert copies.pdf(doc_id, HALVORSEN.name)[:5] == b"%PDF-"
    assert {p.name for p in cache.iterdir()} == {"pages", "annotated"}
    assert_private_tree(tmp_path / "home")


def test_exports_users_and_the_session_secret_are_private(
    hostile_run: Path, tmp_path: Path, usual_umask: None
) -> None:
    run = tmp_path / "run"
    judged_copy(hostile_run, run, "dismiss", reason="other", note="a private word").close()
    dest = tmp_path / "exports" / "reviews"
    r = CliRunner().invoke(cli, ["export", "reviews", "--out", str(run), "--dest", str(dest)])
    assert r.exit_code == 0, r.output
    assert "a private word" in (dest / "regression_cases.jsonl").read_text(encoding="utf-8")
    export_rewards([], tmp_path / "exports" / "rewards")
    export_dataset([], tmp_path / "exports" / "rewards")
    assert_private_tree(tmp_path / "exports")
    add_user(tmp_path / "etc" / "users.json", "erin", "erin-password")
    session_secret(tmp_path / "etc" / "review-session.secret")
    assert_private_tree(tmp_path / "etc")
    # a private file is written whole: a failed write leaves neither it nor a temporary file behind
    from adapters.files import write_private

    with pytest.raises(TypeError):
        write_private(tmp_path / "etc" / "half.json", "not bytes")  # type: ignore[arg-type]
    assert sorted(p.name for p in (tmp_path / "etc").iterdir()) == ["review-session.secret", "users.json"]


# ---------------------------------------------------------------------------------------------- origin


def post_comment(client: TestClient, token: str, flag_id: str, headers: dict[str, str]) -> int:
    data = {"csrf": token, "action": "comment", "note": "from somewhere", "version": "0"}
    r = client.post(f"/flags/{flag_id}/decide", data=data, headers=headers, follow_redirects=False)
    return r.status_code


def test_a_state_change_must_come_from_the_configured_origin(console_config: ConsoleConfig) -> None:
    client = TestClient(create_app(replace(console_config, origin=ORIGIN)), base_url=ORIGIN)
    token = login(client)  # no Origin, no Referer: the CSRF token decides (as for a script)
    flag_id = console_config.store.queue(FlagQuery(), limit=1).rows[0].flag.flag_id
    cases = [
        ({"origin": ORIGIN}, 303),
        ({"origin": "HTTP://127.0.0.1:8700"}, 303),  # one origin, however spelled
        ({}, 303),
        ({"referer": f"{ORIGIN}/flags/{flag_id}?rule=TOT001"}, 303),  # no Origin: the Referer's
        ({"origin": ORIGIN, "referer": "http://evil.example/"}, 303),  # Origin decides when sent
        ({"origin": "null"}, 403),  # a sandboxed frame, a data: page, a cross-origin redirect
        ({"origin": "https://127.0.0.1:8700"}, 403),  # another scheme
        ({"origin": "http://127.0.0.1:8701"}, 403),  # another port
        ({"origin": "http://localhost:8700"}, 403),  # another host name
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "null", "referer": f"{ORIGIN}/"}, 403),
        ({"referer": "http://evil.example/page"}, 403),
        ({"referer": "https://127.0.0.1:8700/"}, 403),
        ({"origin": "http://127.0.0.1:99999"}, 403),  # no origin at all
    ]
    for headers, status in cases:
        assert post_comment(client, token, flag_id, headers) == status, headers
    assert len(console_config.store.history(flag_id)) == sum(s == 303 for _, s in cases)
    r = client.post(f"/flags/{flag_id}/decide", data={"csrf": token}, headers={"origin": "null"})
    assert r.status_code == 403 and "cross-origin request refused" in r.text and ORIGIN in r.text
    # the login form too: Origin null is refused before a password is even tried
    other = TestClient(create_app(replace(console_config, origin=ORIGIN)), base_url=ORIGIN)
    token = re.findall(r'name="csrf" value="([^"]+)"', other.get("/login").text)[0]
    form = {"username": "alice", "password": "alice-password", "csrf": token, "next": "/"}
    assert other.post("/login", data=form, headers={"origin": "null"}).status_code == 403


def test_without_a_configured_origin_the_requests_host_and_scheme_decide(
    console_config: ConsoleConfig,
) -> None:
    client = TestClient(create_app(console_config), base_url="http://127.0.0.1")
    token = login(client)
    flag_id = console_config.store.queue(FlagQuery(), limit=1).rows[0].flag.flag_id
    assert post_comment(client, token, flag_id, {"origin": "http://127.0.0.1"}) == 303
    assert post_comment(client, token, flag_id, {"origin": "null"}) == 403
    assert post_comment(client, token, flag_id, {"origin": "https://127.0.0.1"}) == 403
    # behind a proxy that terminates TLS (--secure-cookie): the origin is https
    secure = TestClient(
        create_app(replace(console_config, secure_cookie=True)), base_url="https://review.example"
    )
    token = login(secure)
    assert post_comment(secure, token, flag_id, {"origin": "https://review.example"}) == 303
    assert post_comment(secure, token, flag_id, {"origin": "http://review.example"}) == 403


def test_the_configured_origin_is_an_origin(console_config: ConsoleConfig, tmp_path: Path) -> None:
    from console.guard import canonical_origin

    assert replace(console_config, origin="HTTPS://Review.Example/").origin == "https://review.example:443"
    assert replace(console_config, origin="http://[::1]:8700").origin == "http://[::1]:8700"
    for bad in ("review.example", "null", "ftp://review.example", "https://review.example/review", ""):
        with pytest.raises(ValueError, match="not an origin"):
            replace(console_config, origin=bad)
    assert canonical_origin("http://example.org") == canonical_origin("http://EXAMPLE.org:80")
    assert canonical_origin("null") is None and canonical_origin("http://x:port") is None
    r = CliRunner().invoke(
        cli, ["review", "--out", str(tmp_path), "--users", "u.json", "--public-url", "review.example"]
    )
    assert r.exit_code == 2 and "not an origin" in r.output


# ---------------------------------------------------------------------------------------------- 400s


def test_a_bad_parameter_is_a_400_page_naming_it_without_pythons_words(console_config: ConsoleConfig) -> None:
    client = TestClient(create_app(console_config), base_url="http://127.0.0.1")
    token = login(client)
    flag = console_config.store.queue(FlagQuery(rule="XREF001"), limit=1).rows[0].flag
    gets = {
        "/?n=abc": "n",
        "/?n=0": "n",
        "/?n=100000": "n",
        "/?n=%D9%A3": "n",  # an Arabic-Indic digit: int() would take it
        "/?cmin=abc": "cmin",
        "/?cmax=2": "cmax",
        "/?cmin=nan": "cmin",
        "/?status=bogus": "status",
        "/?sort=evil": "sort",
        "/?dir=sideways": "dir",
        "/?after=garbage": "after",
        "/?before=%E2%80%AE": "before",
        f"/flags/{flag.flag_id}?zoom=abc": "zoom",
        f"/flags/{flag.flag_id}?zoom=0.33": "zoom",
        f"/flags/{flag.flag_id}?cmin=abc": "cmin",
        f"/documents/{flag.doc_id}/pages/2.png?zoom=abc": "zoom",
        f"/documents/{flag.doc_id}/pages/99.png": "page",
    }
    base = {"csrf": token, "action": "comment", "note": "n", "version": "0"}
    posts = {
        "action": {**base, "action": "delete"},
        "version": {**base, "version": "abc"},
        "reason": {**base, "action": "dismiss", "reason": "nonsense"},
        "then": {**base, "then": "later"},
        "cmin": {**base, "state": "cmin=abc"},  # the queue the form carries on is checked too
    }
    answers = [(url, name, client.get(url)) for url, name in gets.items()]
    url = f"/flags/{flag.flag_id}/decide"
    answers += [(f"POST {name}", name, client.post(url, data=form)) for name, form in posts.items()]
    answers.append(
        ("POST no version", "version", client.post(url, data={"csrf": token, "action": "comment"}))
    )
    for what, name, r in answers:
        assert r.status_code == 400, (what, r.status_code)
        assert r.headers["content-type"].startswith("text/html"), what
        assert 'class="problem"' in r.text and "Back to the queue" in r.text, what  # the console's page
        assert f"The parameter “{name}” must be" in r.text, (what, r.text[-600:])
        assert not [w for w in PYTHON_WORDS if w in r.text], (what, r.text)
    assert console_config.store.history(flag.flag_id) == []  # no bad form committed anything
    assert (
        "must be one of 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2." in client.get(f"/flags/{flag.flag_id}?zoom=9").text
    )
    assert "a whole number from 1 to 500" in client.get("/?n=abc").text
    # the good values still work
    assert client.get("/?n=1&cmin=0&dir=desc&sort=rule").status_code == 200
    assert client.get(f"/flags/{flag.flag_id}?zoom=0.75&cmin=0.5").status_code == 200


# ---------------------------------------------------------------------------------------------- bidi


def test_every_bidi_control_becomes_a_visible_marker() -> None:
    from console.bidi import BIDI_CONTROLS, user_text, visible_controls

    assert set(BIDI_CONTROLS) == set(BIDI_CHARS)
    for ch, (name, _) in BIDI_CONTROLS.items():
        text = f"pay {ch}12 to bob"
        assert visible_controls(text) == f"pay [{name}]12 to bob"
        html = str(user_text(text))
        assert ch not in html and f">[{name}]</span>12 to bob</bdi>" in html
    assert str(user_text("<b>x</b> \u202e")) == (
        '<bdi dir="auto">&lt;b&gt;x&lt;/b&gt; '
        '<span class="bidi-control" title="U+202E right-to-left override">[RLO]</span></bdi>'
    )
    assert str(user_text(None)) == '<bdi dir="auto"></bdi>'


def test_a_note_with_an_override_reaches_the_next_reviewer_inert(console_config: ConsoleConfig) -> None:
    client = TestClient(create_app(console_config), base_url="http://127.0.0.1")
    token = login(client)
    flag = console_config.store.queue(FlagQuery(rule="XREF001"), limit=1).rows[0].flag
    note = "pay \u202e12 to bob\u202c, \u2067x\u2069 \u200f"
    data = {"csrf": token, "action": "comment", "note": note, "version": "0"}
    assert client.post(f"/flags/{flag.flag_id}/decide", data=data).status_code == 200
    bob = TestClient(create_app(console_config), base_url="http://127.0.0.1")
    login(bob, "bob")
    html = bob.get(f"/flags/{flag.flag_id}").text
    quote = re.search(r"<blockquote>(.*?)</blockquote>", html)
    assert quote is not None
    shown = re.sub(r'<span class="bidi-control" title="[^"]+">(\[\w+\])</span>', r"\1", quote.group(1))
    assert shown == '<bdi dir="auto">pay [RLO]12 to bob[PDF], [RLI]x[PDI] [RLM]</bdi>'
    # no control acts anywhere: not in the page's text, nor in an attribute (the hostile flag's boxes)
    pages = [html, bob.get("/flags/hostile0000000001").text, bob.get("/").text]
    for page in pages:
        assert not [ch for ch in BIDI_CHARS if ch in page]
    assert re.search(r'title="component [^"]*: [^"]*\[RLO\]الإيرادات', pages[1])


# ---------------------------------------------------------------------------------------------- CLI


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_review_database_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dsn = f"postgresql://tieout:hunter2-secret@127.0.0.1:{closed_port()}/tieout"
    env = tmp_path / "stack.env"
    env.write_text(f"PG_DSN={dsn}\n", encoding="utf-8")
    monkeypatch.setenv("PG_DSN", dsn)  # whatever the machine's environment says
    add_user(tmp_path / "users.json", "erin", "erin-password")
    runner = CliRunner()
    commands = [
        ["review", "--services", "--env-file", str(env), "--users", str(tmp_path / "users.json")],
        ["export", "reviews", "--services", "--env-file", str(env), "--dest", str(tmp_path / "cases")],
    ]
    for argv in commands:
        r = runner.invoke(cli, argv, env={"COLUMNS": "80"})
        assert r.exit_code == 2, (argv, r.exit_code, r.output, r.exception)
        lines = r.output.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("cannot reach the review database tieout@127.0.0.1:"), lines
        assert "refused" in lines[0].lower() and "hunter2" not in lines[0]
