"""The console's sessions and login throttle in headless Chromium (Debian's, driven by Playwright).

A cookie replayed after logout is no login; a password changed while the console runs ends the session
and refuses the old password at once; failed logins from one address leave the user free to log in from
another (the console is served on 127.0.0.1 and on ::1: two client addresses on one machine).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from adapters.review.store import FlagQuery
from console.app import ConsoleConfig, create_app
from console.auth import add_user
from tests.integration.conftest import LIVENESS_S
from tests.support.browser import browser, chromium_or_skip
from tests.support.review import PASSWORDS, serve
from tests.support.sessions import T0

if TYPE_CHECKING:  # Playwright is imported inside the tests, like the other browser tests
    from playwright.sync_api import Page

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def chromium() -> Path:
    return chromium_or_skip()


@pytest.fixture
def config(console_config: ConsoleConfig) -> ConsoleConfig:
    return console_config  # the test's own copy of the sample run (tests/conftest.py)


def log_in(page: Page, url: str, user: str, password: str) -> None:
    """Fill in and send the login form at ``url``."""
    page.goto(url + "/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", password)
    page.click("form.login button[type=submit]")


def test_a_logged_out_cookie_is_refused_when_replayed(
    chromium: Path, config: ConsoleConfig, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    flag = config.store.queue(FlagQuery(), limit=1).rows[0].flag
    with serve(create_app(config)) as url, browser(chromium, tmp_path / "profile") as ctx:
        page = ctx.new_page()
        page.set_default_timeout(LIVENESS_S * 1000)
        log_in(page, url, "alice", PASSWORDS["alice"])
        expect(page.locator("#queue")).to_be_visible()
        sid = next(c.get("value", "") for c in ctx.cookies() if c.get("name") == "tieout_review")
        token = page.locator("form[action='/logout'] input[name=csrf]").get_attribute("value")
        assert sid and token
        page.click("form[action='/logout'] button[type=submit]")
        expect(page).to_have_url(f"{url}/login")
        # the cookie as it was before the logout (copied by malware, a shared machine, a proxy log)
        ctx.clear_cookies()
        ctx.add_cookies(
            [{"name": "tieout_review", "value": sid, "url": url, "httpOnly": True, "sameSite": "Strict"}]
        )
        page.goto(url + "/")
        expect(page).to_have_url(f"{url}/login?next=%2F")
        r = ctx.request.post(
            f"{url}/flags/{flag.flag_id}/decide",
            form={"csrf": token, "action": "confirm", "version": "0"},
            headers={"Origin": url},
            max_redirects=0,
        )
        assert r.status == 401
    assert config.store.history(flag.flag_id) == []


def test_a_changed_password_ends_the_session_and_refuses_the_old_one_at_once(
    chromium: Path, config: ConsoleConfig, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    with serve(create_app(config)) as url, browser(chromium, tmp_path / "profile") as ctx:
        page = ctx.new_page()
        page.set_default_timeout(LIVENESS_S * 1000)
        log_in(page, url, "alice", PASSWORDS["alice"])
        expect(page.locator("#queue")).to_be_visible()
        add_user(tmp_path / "users.json", "alice", "a-brand-new-password")  # `tieout review adduser alice`
        page.goto(url + "/")
        expect(page).to_have_url(f"{url}/login?next=%2F")
        log_in(page, url, "alice", PASSWORDS["alice"])
        expect(page.locator("p.problem")).to_have_text("Wrong user name or password.")
        log_in(page, url, "alice", "a-brand-new-password")
        expect(page.locator("#queue")).to_be_visible()


def test_failures_from_one_address_do_not_lock_the_user_out_from_another(
    chromium: Path, config: ConsoleConfig, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    config.clock = lambda: T0  # time stands still: a back-off, once earned, holds for the whole test
    app = create_app(config)
    with (
        serve(app) as v4,
        serve(app, "::1") as v6,
        browser(chromium, tmp_path / "profile") as ctx,
    ):
        page = ctx.new_page()
        page.set_default_timeout(LIVENESS_S * 1000)
        problem = page.locator("p.problem")
        for _ in range(8):  # wrong guesses from 127.0.0.1 until the console slows them
            log_in(page, v4, "alice", "not-her-password")
            expect(problem).to_be_visible()
            if "Too many failed logins" in problem.inner_text():
                break
        expect(problem).to_contain_text("Too many failed logins")
        log_in(page, v4, "alice", PASSWORDS["alice"])  # even the right password waits, from there
        expect(problem).to_contain_text("Too many failed logins")
        # alice herself, from ::1, is not locked out
        mine = ctx.new_page()
        mine.set_default_timeout(LIVENESS_S * 1000)
        log_in(mine, v6, "alice", PASSWORDS["alice"])
        expect(mine.locator("#queue")).to_be_visible()
    outcomes = {(a.address, a.outcome) for a in config.store.logins()}
    assert outcomes == {("127.0.0.1", "wrong"), ("127.0.0.1", "throttled"), ("::1", "ok")}
