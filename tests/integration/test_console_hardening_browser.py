"""The console's hardening (issue 25) in headless Chromium: what a real browser sends and shows.

A page on another port of the same host is same-site with the console (ports do not count for cookies), so
its forms carry the analyst's SameSite=Strict session: only the Origin check stands between it and a
decision. A form posted to that page's own ``/bounce``, which redirects to the console (307), reaches it
with ``Origin: null``, as a sandboxed frame's or a ``data:`` page's would. The console started by the CLI
keeps its store and caches private, and a note with a right-to-left override reaches the next reviewer
inert. Debian's Chromium driven by Playwright (``tests/support/browser.py``); screenshots are kept under
``out/test-artifacts/review/``.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from adapters.review.sqlite import DB_NAME
from adapters.review.store import FlagQuery, ReviewStore
from console.app import create_app
from tests.integration.conftest import LIVENESS_S
from tests.support.browser import browser, chromium_or_skip
from tests.support.review import ARTIFACTS, PASSWORDS, REPO, make_config, make_run, make_users, serve

pytestmark = pytest.mark.integration

NOTE = "pay \u202e12 to bob"


@pytest.fixture(scope="module")
def chromium() -> Path:
    return chromium_or_skip()


class Recorder:
    """ASGI middleware keeping the path, ``Origin`` header and status of every POST the console answers."""

    def __init__(self, app: ASGIApp, seen: list[tuple[str, str | None, int]]) -> None:
        self.app = app
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        origin = dict(scope["headers"]).get(b"origin")

        async def keep(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((scope["path"], origin.decode() if origin else None, message["status"]))
            await send(message)

        await self.app(scope, receive, keep)


def other_site(page_html: dict[str, str], bounce_to: dict[str, str]) -> Starlette:
    """Another origin on this host: ``/`` serves ``page_html['/']``, ``POST /bounce`` redirects (307)."""

    async def home(request: Request) -> Response:
        return HTMLResponse(page_html["/"])

    async def bounce(request: Request) -> Response:
        # 307 keeps the method and the body: the browser posts the same form to the console, as Origin null
        return RedirectResponse(bounce_to["url"], status_code=307)

    return Starlette(routes=[Route("/", home), Route("/bounce", bounce, methods=["POST"])])


def log_in(page: Any, url: str, user: str = "alice") -> None:
    from playwright.sync_api import expect

    page.goto(url + "/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", PASSWORDS[user])
    page.click("button[type=submit]")
    expect(page.locator("#queue")).to_be_visible()


def comment_in_the_form(page: Any, url: str, flag_id: str, note: str) -> None:
    """Open the flag's page and comment through its form, as an analyst does; wait for the audit trail."""
    from playwright.sync_api import expect

    page.goto(f"{url}/flags/{flag_id}")
    before = page.locator("#audit li[data-action='comment']").count()
    page.fill("#comment", note)
    page.click("#comment-form button[type=submit]")
    expect(page.locator("#audit li[data-action='comment']")).to_have_count(before + 1)


@dataclass
class Console:
    """A served console: its URL, store, the POSTs it answered (:class:`Recorder`) and a flag to judge."""

    url: str
    store: ReviewStore
    seen: list[tuple[str, str | None, int]]
    flag_id: str


@pytest.fixture
def console(tmp_path: Path) -> Iterator[Console]:
    config = make_config(make_run(tmp_path / "run"), tmp_path)
    seen: list[tuple[str, str | None, int]] = []
    app = create_app(config)
    app.add_middleware(Recorder, seen=seen)
    flag_id = config.store.queue(FlagQuery(rule="XREF001"), limit=1).rows[0].flag.flag_id
    with serve(app) as url:
        yield Console(url, config.store, seen, flag_id)
    config.store.close()


def test_a_null_or_foreign_origin_is_refused_while_the_same_origin_form_works(
    chromium: Path, console: Console, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    url, store, seen, flag_id = console.url, console.store, console.seen, console.flag_id
    decide = f"{url}/flags/{flag_id}/decide"
    page_html: dict[str, str] = {}
    bounce_to = {"url": decide}
    with serve(other_site(page_html, bounce_to)) as other, browser(chromium, tmp_path / "profile") as ctx:
        page = ctx.new_page()
        page.set_default_timeout(LIVENESS_S * 1000)  # liveness bound: pages of a loaded machine
        log_in(page, url)
        # the other site even has the session's CSRF token (as if it had leaked): the origin alone decides
        page.goto(f"{url}/flags/{flag_id}")
        token = page.locator("#comment-form input[name=csrf]").get_attribute("value")
        fields = (
            f'<input type="hidden" name="csrf" value="{token}"><input type="hidden" name="action" '
            'value="comment"><input type="hidden" name="version" value="0">'
            '<input type="hidden" name="note" value="forged">'
        )
        page_html["/"] = (
            f'<!doctype html><form id="direct" method="post" action="{decide}">{fields}'
            "<button>direct</button></form>"
            f'<form id="bounced" method="post" action="/bounce">{fields}<button>bounced</button></form>'
        )
        for form in ("direct", "bounced"):
            page.goto(other + "/")
            with page.expect_navigation():
                page.click(f"#{form} button")
            expect(page.locator("body")).to_contain_text(re.compile(r"cross-origin request .*refused"))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hardening-01-origin-null-refused.png"))
        # the same from a script: fetch, with the session's cookie, directly and through the redirect
        page.goto(other + "/")
        body = f"csrf={token}&action=comment&version=0&note=forged"
        for target in (decide, other + "/bounce"):
            status = page.evaluate(
                """([target, body]) => fetch(target, {
                    method: "POST", mode: "no-cors", credentials: "include", body,
                    headers: {"content-type": "application/x-www-form-urlencoded"},
                }).then(r => r.type)""",
                [target, body],
            )
            assert status == "opaque"
        # the console's own form, in the console's page, still works
        comment_in_the_form(page, url, flag_id, "seen, fine")
    refused = [
        (origin, status) for path, origin, status in seen if path.endswith("/decide") and status == 403
    ]
    assert sorted(refused) == sorted([(other, 403), ("null", 403), (other, 403), ("null", 403)]), (
        seen
    )  # the browser did send Origin null through the redirect, and it was refused
    assert [
        (origin, status) for path, origin, status in seen if status == 303 and path.endswith("/decide")
    ] == [(url, 303)]
    assert [d.note for d in store.history(flag_id)] == ["seen, fine"]


def test_the_console_the_cli_starts_keeps_its_store_and_caches_private(
    chromium: Path, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    run = make_run(tmp_path / "run")
    make_users(tmp_path / "users.json")
    argv = ["review", "--out", str(run), "--port", "0", "--users", str(tmp_path / "users.json")]
    argv += ["--pdfs", str(REPO / "sample_docs")]
    old_umask = os.umask(0o022)  # the usual one, inherited by the console: only what is made private is
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tieout.cli", *argv],
            cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO), "TIEOUT_CACHE": str(tmp_path / "cache")},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    finally:
        os.umask(old_umask)
    try:
        assert proc.stdout is not None
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
        assert m
        url = m.group(1)
        deadline = time.monotonic() + LIVENESS_S  # liveness bound: a console starting on a loaded machine
        while True:
            try:
                with urllib.request.urlopen(url + "/login", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        with browser(chromium, tmp_path / "profile") as ctx:
            page = ctx.new_page()
            page.set_default_timeout(LIVENESS_S * 1000)
            log_in(page, url)
            page.locator("#queue tbody tr[data-flag] td.msg a").first.click()
            flag_id = page.url.split("/flags/")[1].split("?")[0]
            for img in page.locator("figure.page img").all():  # the page images: rendered and cached
                img.scroll_into_view_if_needed()
                # (loaded after the scroll, not at it: expect waits, an evaluate at once raced the load)
                expect(img).to_have_js_property("complete", True)
                assert img.evaluate("i => i.naturalWidth") > 0
            # the CLI's console checks the origin it derived from --host and --port: its own form works
            comment_in_the_form(page, url, flag_id, "a note only reviewers may read")
            # the store and its write-ahead log (the note is in it while the console runs)
            store_files = [run / DB_NAME, run / f"{DB_NAME}-wal", run / f"{DB_NAME}-shm"]
            modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in store_files if p.exists()}
            assert len(modes) >= 2 and set(modes.values()) == {"0o600"}, modes
            cache = tmp_path / "cache"
            made = [cache, *cache.rglob("*")]
            assert any(p.suffix == ".png" for p in made)
            loose = {
                str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode))
                for p in made
                if stat.S_IMODE(p.stat().st_mode) != (0o700 if p.is_dir() else 0o600)
            }
            assert not loose, loose
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_note_with_a_right_to_left_override_reaches_the_next_reviewer_inert(
    chromium: Path, console: Console, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    url, store, flag_id = console.url, console.store, console.flag_id
    with browser(chromium, tmp_path / "alice") as ctx:
        page = ctx.new_page()
        page.set_default_timeout(LIVENESS_S * 1000)
        log_in(page, url)
        comment_in_the_form(page, url, flag_id, NOTE)
    assert [d.note for d in store.history(flag_id)] == [NOTE]  # kept as typed: only its display is inert
    with browser(chromium, tmp_path / "bob") as ctx:
        page = ctx.new_page()
        page.set_default_timeout(LIVENESS_S * 1000)
        log_in(page, url, "bob")
        page.goto(f"{url}/flags/{flag_id}")
        quote = page.locator("#audit blockquote").first
        expect(quote).to_be_visible()
        # where each letter is drawn: left to right in the order typed (an obeyed override draws
        # "12 to bob" mirrored, its "b" leftmost)
        lefts = quote.evaluate(
            """q => {
                const out = [];
                const walk = document.createTreeWalker(q, NodeFilter.SHOW_TEXT);
                for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                    if (n.parentElement.closest(".bidi-control")) continue;
                    for (let i = 0; i < n.data.length; i++) {
                        if (n.data[i].trim() === "" || n.data[i] === "\\u202e") continue;
                        const r = document.createRange();
                        r.setStart(n, i);
                        r.setEnd(n, i + 1);
                        out.push([n.data[i], r.getBoundingClientRect().left]);
                    }
                }
                return out;
            }"""
        )
        assert "".join(c for c, _ in lefts) == "pay12tobob"
        xs = [x for _, x in lefts]
        assert xs == sorted(xs) and len(set(xs)) == len(xs), lefts
        # and the override is shown, where it was typed
        marker = quote.locator(".bidi-control")
        expect(marker).to_have_text("[RLO]")
        expect(marker).to_be_visible()
        assert quote.inner_text() == "pay [RLO]12 to bob"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        quote.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "hardening-02-bidi-note.png"))
