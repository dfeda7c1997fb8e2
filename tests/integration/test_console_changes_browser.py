"""The "changed since the previous version" page in headless Chromium, over a run of two generated drafts
(``tieout run --history``, then the console as ``tieout review --out`` serves it; no Kafka, no PostgreSQL).

An analyst opens the page from the documents list and sees the changed figures, old → new, the change
that broke a tie marked and listed first, and each changed figure's two pages side by side with the box
drawn on both: both images really loaded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from console.app import create_app
from tests.support.browser import browser, chromium_or_skip
from tests.support.changes import DraftRun, drafts_config, drafts_run
from tests.support.console_browser import log_in
from tests.support.review import serve

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, DraftRun]]:
    tmp = tmp_path_factory.mktemp("changes")
    run = drafts_run(tmp)
    config = drafts_config(run, tmp)
    try:
        with serve(create_app(config)) as url:
            yield url, run
    finally:
        config.store.close()


def test_the_changes_page_shows_the_changed_figures_the_broken_tie_and_both_pages(
    served: tuple[str, DraftRun], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    url, run = served
    (changes,) = run.changes()
    with browser(chromium_or_skip(), tmp_path / "profile") as ctx:
        page = ctx.new_page()
        failed: list[str] = []
        page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
        violations: list[str] = []
        page.on("console", lambda m: violations.append(m.text) if "Content Security" in m.text else None)
        log_in(page, url)
        page.goto(url + "/documents")
        page.click("#versions a.changes-link")
        expect(page.locator("h1")).to_have_text("Changed since the previous version")
        assert page.url.endswith(f"/documents/{changes.new_doc_id}/changes")

        # the change that broke a tie first, marked; its old and new values
        first = page.locator("article.change").first
        expect(first.locator(".tie-mark.tie-broke")).to_be_visible()
        broke = next(t for t in changes.ties if t.status == "broke")
        lines = {changes.changes[i].place.line for i in broke.changed}
        assert first.locator("h3").inner_text().split(" ", 1)[1].startswith(tuple(lines))
        expect(page.locator("#ties .tie-mark.tie-broke")).to_have_text("broke")
        expect(page.locator("#ties .tie-mark.tie-repaired")).to_have_text("repaired")

        # every changed figure listed with old → new
        text = page.locator("main").inner_text()
        for ch in changes.changes:
            if ch.kind == "changed":
                assert ch.place.line in text
                assert ch.old is not None and ch.new is not None
                assert ch.old.text in text and ch.new.text in text

        # a changed figure (printed in both) with both pages side by side, both loaded, a box on each
        both = page.locator("article.change-changed").first
        both.scroll_into_view_if_needed()
        figures = both.locator("figure.page")
        expect(figures).to_have_count(2)
        docs = [figures.nth(i).get_attribute("data-doc") for i in range(2)]
        assert docs == [changes.old_doc_id, changes.new_doc_id]
        for i in range(2):
            img = figures.nth(i).locator("img")
            img.scroll_into_view_if_needed()
            expect(img).to_have_js_property("complete", True)
            assert img.evaluate("i => i.naturalWidth") > 0
            box = figures.nth(i).locator(".box")
            expect(box).to_have_count(1)
            assert box.bounding_box() is not None
        # no page image or asset failed (a browser asks for /favicon.ico of its own accord), nothing blocked
        assert [u for u in failed if not u.endswith("/favicon.ico")] == []
        assert not violations, violations
