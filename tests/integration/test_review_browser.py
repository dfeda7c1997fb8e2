"""End to end in headless Chromium: log in, filter, open a cross-page flag, judge flags by keyboard.

Debian's ``chromium`` (``bash infra/browser.sh`` installs it) driven by Playwright through
``executable_path``: Playwright never downloads a browser here. Screenshots are kept under
``out/test-artifacts/review/``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from adapters.review.render import render_scale
from adapters.review.store import FlagQuery, ReviewStore
from console.app import create_app
from consumers.outbox import ReviewPublisher, kafka_publish
from pipeline.rewards.decisions import check_records
from tests.integration.conftest import LIVENESS_S, Isolated
from tests.support.browser import FLAGS, chromium_or_skip
from tests.support.review import ARTIFACTS, PASSWORDS, add_hostile_flag, make_config, make_run, serve

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def chromium() -> Path:
    return chromium_or_skip()


@pytest.fixture
def console_url(tmp_path: Path) -> Iterator[tuple[str, ReviewStore]]:
    config = make_config(add_hostile_flag(make_run(tmp_path / "run")), tmp_path)
    with serve(create_app(config)) as url:
        yield url, config.store


def test_review_in_the_browser(
    chromium: Path, console_url: tuple[str, ReviewStore], tmp_path: Path, isolated: Isolated
) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, store = console_url
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(tmp_path / "no-downloads")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(chromium),
            args=FLAGS,
            headless=True,
            viewport={"width": 1600, "height": 1000},
        )
        try:
            page = ctx.new_page()
            # liveness bound: every action waits for the console's real work (pages rendered, a PDF made)
            page.set_default_timeout(LIVENESS_S * 1000)

            # --- log in: any page sends an anonymous visitor to the login form
            page.goto(url + "/")
            expect(page).to_have_url(f"{url}/login?next=%2F")
            page.fill("input[name=username]", "alice")
            page.fill("input[name=password]", PASSWORDS["alice"])
            page.click("button[type=submit]")
            expect(page.locator("#queue")).to_be_visible()
            assert page.locator("#queue tbody tr[data-flag]").count() >= 3
            page.screenshot(path=str(ARTIFACTS / "01-queue.png"), full_page=True)

            # --- filter the queue to the cross-reference rule
            page.select_option("select[name=rule]", "XREF001")
            page.click("#filters button[type=submit]")
            rows = page.locator("#queue tbody tr[data-flag]")
            expect(rows).to_have_count(1)
            assert "XREF001" in rows.first.inner_text()
            assert "rule=XREF001" in page.url

            # --- open it: evidence on pages 2 and 7, both rendered side by side
            rows.first.locator("td.msg a").click()
            expect(page.locator("figure.page")).to_have_count(2)
            flag_id = page.url.split("/flags/")[1].split("?")[0]
            row = store.get(flag_id)
            assert row is not None
            flag = row.flag
            assert sorted({e.page for e in flag.evidence}) == [2, 7]
            # (no wait_for_function: it evaluates a string, which the console's CSP rightly forbids)
            for img in page.locator("figure.page img").all():
                expect(img).to_have_js_property("complete", True)
            for n, ev in enumerate(flag.evidence, 1):
                figure = page.locator(f"figure.page[data-page='{ev.page}']")
                scale = float(figure.get_attribute("data-scale") or "0")
                assert scale == pytest.approx(render_scale(0.75))
                img = figure.locator("img")
                # the image is drawn at the scale the boxes are placed with (PNG pixels = CSS pixels)
                natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
                shown = img.bounding_box()
                assert shown is not None
                assert natural[0] == pytest.approx(shown["width"], abs=1)
                assert natural[1] == pytest.approx(shown["height"], abs=1)
                box = figure.locator(f".box[data-evidence='{n}']").bounding_box()
                assert box is not None and ev.bbox is not None
                x0, y0, x1, y1 = ev.bbox
                assert box["x"] - shown["x"] == pytest.approx(x0 * scale, abs=1.0)
                assert box["y"] - shown["y"] == pytest.approx(y0 * scale, abs=1.0)
                assert box["width"] == pytest.approx((x1 - x0) * scale, abs=1.0)
                assert box["height"] == pytest.approx((y1 - y0) * scale, abs=1.0)
            labels = page.locator(".box .label").all_inner_texts()
            assert labels == ["1 · total", "2 · other page"]
            page.screenshot(path=str(ARTIFACTS / "02-cross-page-flag.png"), full_page=True)

            # --- confirm with the keyboard: status and audit trail change
            expect(page.locator("#status")).to_have_attribute("data-status", "open")
            page.keyboard.press("c")
            expect(page.locator("#status")).to_have_attribute("data-status", "confirmed")
            expect(page.locator("#audit li[data-action='confirm']")).to_have_count(1)
            assert "alice" in page.locator("#audit").inner_text()
            confirmed = store.get(flag_id)
            assert confirmed is not None and confirmed.review.status == "confirmed"
            page.screenshot(path=str(ARTIFACTS / "03-confirmed.png"), full_page=True)

            # --- dismiss another with a reason (d, then 2 = wrong scale), from the unfiltered queue
            page.goto(url + "/?rule=BAL001")
            page.locator("#queue tbody tr[data-flag] td.msg a").first.click()
            expect(page.locator("figure.page")).to_have_count(2)
            other_id = page.url.split("/flags/")[1].split("?")[0]
            page.keyboard.press("d")
            page.keyboard.press("2")
            expect(page.locator("#status")).to_have_attribute("data-status", "dismissed")
            expect(page.locator("#status")).to_contain_text("Wrong scale")
            expect(page.locator("#audit li[data-action='dismiss']")).to_have_count(1)
            assert "Wrong scale" in page.locator("#audit").inner_text()
            page.screenshot(path=str(ARTIFACTS / "04-dismissed.png"), full_page=True)
            dismissed = store.get(other_id)
            assert dismissed is not None
            review = dismissed.review
            assert (review.status, review.reason, review.updated_by) == ("dismissed", "wrong_scale", "alice")

            # --- the queue counts the decisions per status
            page.goto(url + "/")
            expect(page.locator(".tabs a[data-status='confirmed'] .count")).to_have_text("1")
            expect(page.locator(".tabs a[data-status='dismissed'] .count")).to_have_text("1")
            page.keyboard.press("j")
            expect(page.locator("#queue tr.selected")).to_have_count(1)
            page.screenshot(path=str(ARTIFACTS / "05-queue-after.png"), full_page=True)

            # --- Shift+C confirms and moves on to the next open flag of the queue
            page.goto(url + "/?status=open&sort=rule")
            page.locator("#queue tbody tr[data-flag] td.msg a").first.click()
            expect(page.locator("#status")).to_have_attribute("data-status", "open")
            first_id = page.url.split("/flags/")[1].split("?")[0]
            page.keyboard.press("Shift+C")
            expect(page).not_to_have_url(re.compile(f"/flags/{first_id}"))
            assert "status=open" in page.url
            moved = store.get(first_id)
            assert moved is not None and moved.review.status == "confirmed"

            # --- the document page: thumbnails with a marker per evidence
            page.goto(f"{url}/documents/{flag.doc_id}")
            expect(page.locator("figure.thumb")).to_have_count(8)
            assert page.locator(".marker").count() == sum(
                len(r.flag.evidence) for r in store.queue(FlagQuery(doc_id=flag.doc_id)).rows
            )
            page.screenshot(path=str(ARTIFACTS / "06-document.png"), full_page=True)

            # --- the tick-and-tie PDF from the document page's button: a PDF with ticks and breaks
            # liveness bound: the tick-and-tie copy is made in a worker process on the first request
            with page.expect_download(timeout=LIVENESS_S * 1000) as download:
                page.click("#annotated", no_wait_after=True)
            assert download.value.suggested_filename == "halvorsen_2025_form_10k.annotated.pdf"
            pdf = Path(download.value.path()).read_bytes()
            with pymupdf.open(stream=pdf, filetype="pdf") as doc:
                subjects = Counter(str(a.info.get("subject")) for p in doc for a in p.annots())
                assert subjects["tieout tick"] > 0 and subjects["tieout break"] > 0, subjects
                assert sum(subjects.values()) > 0
                # the summary page in front, kept to look at
                doc[0].get_pixmap(dpi=72).save(str(ARTIFACTS / "06b-annotated-summary.png"))
                ticked = next(
                    i
                    for i, p in enumerate(doc)
                    if any(a.info.get("subject") == "tieout tick" for a in p.annots())
                )
                doc[ticked].get_pixmap(dpi=96).save(str(ARTIFACTS / "06c-annotated-page.png"))
            expect(page).to_have_url(f"{url}/documents/{flag.doc_id}")  # the page stays

            # --- a flag whose text is all markup, script, RTL and a 3,000-character label renders inert
            page.goto(f"{url}/flags/hostile0000000001")
            expect(page.locator("figure.page .box").first).to_be_visible()
            assert page.evaluate("window.__pwned") is None
            assert page.locator("#message").inner_text().startswith("<script>window.__pwned = 1</script>")
            assert page.locator("#message img, #message b, #message script").count() == 0
            # the long label wraps inside the page instead of widening it past the viewport
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 1600, width
            page.screenshot(path=str(ARTIFACTS / "07-hostile.png"), full_page=False)
        finally:
            ctx.close()

    # --- the decisions made in the browser, on the reviews topic (the real broker) and in the rewards
    publisher = ReviewPublisher(store, kafka_publish(isolated.settings), isolated.topic("reviews"))
    sent = asyncio.run(publisher.publish_once())
    assert sent == len(store.decisions_since(0)) >= 3
    records = isolated.read(isolated.topic("reviews"), until=lambda rs: len(rs) >= sent)
    on_topic = {(r["flag_id"], r["action"]): r for r in records}
    assert on_topic[(flag_id, "confirm")]["reviewer"] == "alice"
    assert on_topic[(other_id, "dismiss")]["reason"] == "wrong_scale"
    flags = {f.flag_id: f for f in (row.flag for row in store.queue(FlagQuery(), limit=200).rows)}
    examples = check_records(store.latest_decisions(), flags)
    by_flag = {json.loads(r.completion)["message"]: r for r in examples}
    assert by_flag[flags[flag_id].message].reward == 1.0
    assert (by_flag[flags[other_id].message].reward, by_flag[flags[other_id].message].label_reason) == (
        0.0,
        "wrong_scale",
    )


def test_tieout_review_serves_a_run_on_loopback(tmp_path: Path) -> None:
    """The command as a user starts it: `tieout review --out DIR` on a run folder, then a login page."""
    import subprocess
    import sys
    import time
    import urllib.request

    from tests.support.review import REPO, make_users

    run = make_run(tmp_path / "run")
    make_users(tmp_path / "users.json")
    users = str(tmp_path / "users.json")
    argv = ["review", "--out", str(run), "--port", "0", "--users", users, "--pdfs", str(REPO / "sample_docs")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tieout.cli", *argv],
        cwd=REPO,
        env={
            **os.environ,
            "PYTHONPATH": str(REPO),
            "TIEOUT_CACHE": str(tmp_path / "cache"),
            "COLUMNS": "200",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        deadline = time.monotonic() + LIVENESS_S  # liveness bound: a console starting on a loaded machine
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/login", timeout=5) as r:
                    assert r.status == 200 and b'name="csrf"' in r.read()
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert (run / "reviews.sqlite").is_file()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
