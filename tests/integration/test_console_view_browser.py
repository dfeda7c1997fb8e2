"""What an analyst sees on the console's pages, measured in headless Chromium (no Kafka, no PostgreSQL).

- No figure or badge is split over two lines, at browser zoom 75 %, 100 % and 150 % (emulated as a
  window 1600 device pixels wide: CSS viewport ``1600 / zoom``, device scale factor ``zoom``).
- No evidence label covers a figure printed on the page (read from the PDF by the test itself), another
  evidence box or another label, at every zoom of the console's zoom bar.
- A zoom picked on a single page does not push the second page of a cross-page flag off screen.
- The keyboard help lists every key ``console.js`` binds.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from adapters.review.store import FlagQuery, ReviewStore
from schemas.models import BBox
from tests.support.browser import browser, chromium_or_skip
from tests.support.console_browser import BrowserZoom, console_over_samples, figure_boxes, flag_of, log_in
from tests.support.review import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.integration

CONSOLE_JS = REPO / "console" / "static" / "console.js"
CONSOLE_ZOOMS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)  # the zoom bar's choices
OUTLINE_PX = 3.0  # a box's outline is drawn outside it (2 px, 1 px off): a label keeps clear of it too


@pytest.fixture(scope="module")
def chromium() -> Path:
    return chromium_or_skip()


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ReviewStore]]:
    with console_over_samples(tmp_path_factory.mktemp("console")) as served:
        yield served


@pytest.fixture
def open_page(chromium: Path, console: tuple[str, ReviewStore], tmp_path: Path) -> Iterator[Any]:
    """Opens a logged-in page at a browser zoom: ``open_page(BrowserZoom(z))``."""
    url, _ = console
    with contextlib.ExitStack() as stack:

        def opener(zoom: BrowserZoom) -> Page:
            ctx = stack.enter_context(
                browser(
                    chromium,
                    tmp_path / f"profile-{zoom.zoom}",
                    width=zoom.width,
                    height=zoom.height,
                    scale=zoom.zoom,
                )
            )
            page = ctx.new_page()
            log_in(page, url)
            return page

        yield opener


def all_flag_ids(store: ReviewStore) -> list[str]:
    return [r.flag.flag_id for r in store.queue(FlagQuery(), limit=100).rows]


def images_loaded(page: Page) -> None:
    from playwright.sync_api import expect

    for img in page.locator("figure.page img").all():
        expect(img).to_have_js_property("complete", True)


# One line per text: the rects of an element's text nodes, grouped by their top (a rect lower by more
# than half its height starts a new line).
LINES_JS = """
(els) => els.map((el) => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const rects = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const r = document.createRange();
    r.selectNodeContents(n);
    for (const x of r.getClientRects()) { if (x.width > 0 && x.height > 0) { rects.push(x); } }
  }
  rects.sort((a, b) => a.top - b.top);
  let lines = 0, top = -1e9;
  for (const x of rects) { if (x.top > top + x.height / 2) { lines += 1; top = x.top; } }
  return [el.className || el.tagName, el.textContent.trim(), lines];
})
"""
ONE_LINE = (
    "td.num, .sev, .status, kbd, .box .label, table.statement td.role, table.statement td.period, .audit time"
)


@pytest.mark.parametrize("zoom", [0.75, 1.0, 1.5], ids=["75%", "100%", "150%"])
def test_no_figure_or_badge_is_split_over_two_lines(
    open_page: Any, console: tuple[str, ReviewStore], zoom: float
) -> None:
    url, store = console
    page = open_page(BrowserZoom(zoom))
    split: list[tuple[str, str, str, int]] = []
    for path in ["/?cmin=0", *(f"/flags/{fid}" for fid in all_flag_ids(store))]:
        page.goto(url + path)
        measured = page.locator(ONE_LINE).evaluate_all(LINES_JS)
        assert measured, path
        split += [(path, cls, text, n) for cls, text, n in measured if n > 1]  # 0: hidden (the help)
    assert not split, split


def _overlap(a: BBox, b: BBox, slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def _mostly_inside(word: BBox, box: BBox) -> bool:
    w = max(0.0, min(word[2], box[2]) - max(word[0], box[0]))
    h = max(0.0, min(word[3], box[3]) - max(word[1], box[1]))
    return w * h >= 0.5 * (word[2] - word[0]) * (word[3] - word[1])


def _grow(r: BBox, d: float) -> BBox:
    return (r[0] - d, r[1] - d, r[2] + d, r[3] + d)


SHEETS_JS = """
(figs) => figs.map((f) => {
  const rect = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    page: Number(f.dataset.page), scale: Number(f.dataset.scale), sheet: rect(f.querySelector(".sheet")),
    boxes: Array.from(f.querySelectorAll(".box")).map((b) => ({
      n: Number(b.dataset.evidence), box: rect(b), label: rect(b.querySelector(".label")),
    })),
  };
})
"""


def label_problems(page: Page, source: str, evidence_boxes: dict[int, BBox]) -> list[str]:
    """What each label on the flag page covers: a printed figure, a box, a label, or the page's edge."""
    problems = []
    for fig in page.locator("figure.page").evaluate_all(SHEETS_JS):
        x, y, scale = fig["sheet"][0], fig["sheet"][1], fig["scale"]
        figures = figure_boxes(source, fig["page"])
        placed = fig["boxes"]
        for b in placed:
            label: BBox = tuple(b["label"])
            where = f"page {fig['page']} label {b['n']}"
            own = evidence_boxes[b["n"]]
            for f in figures:
                if not _mostly_inside(f, own):
                    shown = (x + f[0] * scale, y + f[1] * scale, x + f[2] * scale, y + f[3] * scale)
                    if _overlap(label, shown):
                        problems.append(f"{where} covers the figure at {tuple(round(v) for v in f)}")
            for other in placed:
                if _overlap(label, _grow(tuple(other["box"]), OUTLINE_PX)):
                    problems.append(f"{where} covers box {other['n']}")
                if other is not b and _overlap(label, tuple(other["label"])):
                    problems.append(f"{where} covers label {other['n']}")
            x0, y0, x1, y1 = fig["sheet"]
            if not (x0 <= label[0] and label[2] <= x1 and y0 <= label[1] and label[3] <= y1):
                problems.append(f"{where} leaves the page")
    return problems


def test_evidence_labels_cover_no_figure_box_or_label(
    open_page: Any, console: tuple[str, ReviewStore]
) -> None:
    url, store = console
    page = open_page(BrowserZoom(1.0))
    problems: list[str] = []
    for row in store.queue(FlagQuery(), limit=100).rows:
        flag = row.flag
        boxes = {n: ev.bbox for n, ev in enumerate(flag.evidence, 1) if ev.bbox is not None}
        for zoom in CONSOLE_ZOOMS:
            page.goto(f"{url}/flags/{flag.flag_id}?zoom={zoom}")
            assert page.locator(".box .label").count() == len(boxes)
            problems += [f"{flag.rule} at {zoom}: {p}" for p in label_problems(page, flag.source, boxes)]
    assert not problems, "\n".join(problems)


FIGURES_IN_VIEW_JS = """
(figs) => figs.map((f) => {
  const r = f.getBoundingClientRect();
  return [Number(f.dataset.page), r.left, r.right, document.documentElement.clientWidth];
})
"""


@pytest.mark.parametrize("zoom", [1.0, 1.5], ids=["100%", "150%"])
def test_a_zoom_picked_on_one_page_keeps_both_pages_of_a_cross_page_flag_in_view(
    open_page: Any, console: tuple[str, ReviewStore], zoom: float
) -> None:
    url, store = console
    page = open_page(BrowserZoom(zoom))
    single, cross = flag_of(store, "TOT001"), flag_of(store, "XREF001")
    page.goto(f"{url}/flags/{single.flag_id}")
    page.click(".zoom a[data-zoom='2.0']")  # the analyst zooms in on a single page
    page.wait_for_selector(".zoom a[data-zoom='2.0'][aria-current]")

    page.goto(f"{url}/flags/{cross.flag_id}")
    images_loaded(page)
    shown = page.locator("figure.page").evaluate_all(FIGURES_IN_VIEW_JS)
    assert [s[0] for s in shown] == [2, 7]
    for number, left, right, width in shown:
        assert left >= 0 and right <= width, f"page {number} spans {left:.0f}..{right:.0f} of {width}"

    # the single page keeps the zoom picked for it
    page.goto(f"{url}/flags/{single.flag_id}")
    assert page.locator(".zoom a[aria-current]").get_attribute("data-zoom") == "2.0"


def bound_keys(js: str) -> set[str]:
    """The keys ``console.js`` binds: the entries of its key table, and any key compared outside it."""
    table = {k for keys in re.findall(r"keys: \[([^\]]*)\]", js) for k in re.findall(r'"([^"]+)"', keys)}
    compared = set(re.findall(r'(?:\bk|\.key) === "([^"]+)"', js))
    return table | compared


SHOWN_AS = {"Esc": "Escape", "−": "-"}  # how the help writes a key, when not as its name
# the keys a help lists: each kbd's data-key, else each word of its entries' key column
LISTED_JS = """
(help) => Array.from(help.querySelectorAll("kbd[data-key]")).map((k) => k.dataset.key)
  .concat(Array.from(help.querySelectorAll("dt")).flatMap((dt) => dt.textContent.split(/[\\s,\\/]+/)))
"""


def test_the_keyboard_help_lists_every_bound_key(open_page: Any, console: tuple[str, ReviewStore]) -> None:
    js = CONSOLE_JS.read_text(encoding="utf-8")
    keys = bound_keys(js)
    assert {"j", "k", "n", "p", "c", "d", "?", "Escape"} <= keys
    url, store = console
    page = open_page(BrowserZoom(1.0))
    for path in ("/", f"/flags/{flag_of(store, 'XREF001').flag_id}"):
        page.goto(url + path)
        assert page.locator("#help").is_hidden()
        page.keyboard.press("?")
        assert page.locator("#help").is_visible()
        listed = {SHOWN_AS.get(k, k) for k in page.locator("#help").evaluate(LISTED_JS)}
        assert keys <= listed, f"{path}: the help omits {sorted(keys - listed)}"
        page.keyboard.press("Escape")
        assert page.locator("#help").is_hidden()
    # one table binds every key: the dispatcher compares no key of its own, so the help cannot drift
    assert not re.findall(r'(?:\bk|\.key) === "([^"]+)"', js)
