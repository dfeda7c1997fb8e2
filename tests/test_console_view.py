"""What the flag page lays out, without a browser: where evidence labels go, which zoom a flag opens at.

The browser checks of the same (tests/integration/test_console_view_browser.py) measure the page as
Chromium draws it; these check the rules themselves, on synthetic pages and on every sample flag.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from adapters.review.render import page_sizes, printed_boxes
from adapters.review.store import FlagQuery
from console.app import ConsoleConfig, create_app
from console.labels import LABEL_GAP_PX, Rect, label_size, place_label
from console.routes.flags import ROOM_COOKIE
from console.view import ZOOM_CHOICES, Box, fitting_zoom, flag_pages, shown_zoom, zoom_bucket
from schemas.models import Flag
from tests.support import records
from tests.support.review import SAMPLES, hostile_flag, login, make_config, make_run

PAGE: Rect = (0.0, 0.0, 800.0, 1000.0)
BOX: Rect = (400.0, 500.0, 440.0, 512.0)
TEXTS = ("2 · component", "2")


def _covers(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] - 0.01 and b[0] < a[2] - 0.01 and a[1] < b[3] - 0.01 and b[1] < a[3] - 0.01


def _inside(r: Rect, page: Rect) -> bool:
    return page[0] <= r[0] and r[2] <= page[2] and page[1] <= r[1] and r[3] <= page[3]


def _label(b: Box) -> Rect:
    """A box's label on the page image."""
    x, y = b.left + b.label_rect[0], b.top + b.label_rect[1]
    return (x, y, x + b.label_rect[2], y + b.label_rect[3])


# --------------------------------------------------------------------------------- the placing rule


def test_a_label_goes_left_of_its_box_where_that_is_free() -> None:
    text, r = place_label(BOX, TEXTS, [], [], PAGE)
    w, h = label_size(TEXTS[0])
    assert text == TEXTS[0]
    assert r == (BOX[0] - LABEL_GAP_PX - w, 506 - h / 2, BOX[0] - LABEL_GAP_PX, 506 + h / 2)


def test_a_label_takes_the_next_free_side_never_a_figure() -> None:
    left_figure = (330.0, 500.0, 360.0, 512.0)  # the column before: a label on the left would cover it
    right_figure = (480.0, 500.0, 510.0, 512.0)
    text, r = place_label(BOX, TEXTS, [left_figure], [], PAGE)
    assert text == TEXTS[0] and r[0] >= BOX[2]  # right
    text, r = place_label(BOX, TEXTS, [left_figure, right_figure], [], PAGE)
    assert text == TEXTS[0] and r[3] <= BOX[1]  # above
    row_above, row_below = (300.0, 470.0, 520.0, 496.0), (300.0, 516.0, 520.0, 540.0)
    text, r = place_label(BOX, TEXTS, [left_figure, right_figure, row_above, row_below], [], PAGE)
    assert not any(_covers(r, f) for f in (left_figure, right_figure, row_above, row_below))
    assert not _covers(r, BOX) and _inside(r, PAGE)


def test_a_crowded_column_gets_short_labels_beside_its_figures() -> None:
    # five figures in a column, rows 10 px apart (a statement at a small zoom): the labels placed so far
    # are obstacles too, as the flag page passes them
    rows = [(400.0, 500.0 + 10 * i, 425.0, 508.0 + 10 * i) for i in range(5)]
    notes = [(330.0, r[1], 338.0, r[3]) for r in rows]  # a notes column left of the figures
    placed: list[Rect] = []
    for i, box in enumerate(rows):
        others = [r for j, r in enumerate(rows) if j != i]
        text, r = place_label(box, (f"{i + 1} · component", str(i + 1)), [*notes, *others, *placed], [], PAGE)
        assert not any(_covers(r, f) for f in [*notes, *others, *placed]), (i, text, r)
        assert not _covers(r, box) and _inside(r, PAGE)
        placed.append(r)


def test_words_are_avoided_where_a_side_is_clear_of_them() -> None:
    line_label = (250.0, 500.0, 395.0, 512.0)  # the line's label reaching to the figure
    _, r = place_label(BOX, TEXTS, [], [line_label], PAGE)
    assert not _covers(r, line_label)


def test_a_label_stays_on_the_page() -> None:
    at_left_edge = (2.0, 500.0, 40.0, 512.0)
    _, r = place_label(at_left_edge, TEXTS, [], [], PAGE)
    assert _inside(r, PAGE) and not _covers(r, at_left_edge)
    corner = (760.0, 2.0, 798.0, 14.0)
    _, r = place_label(corner, TEXTS, [], [], PAGE)
    assert _inside(r, PAGE) and not _covers(r, corner)


# ----------------------------------------------------------------------- every sample flag, every zoom


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("run"))


def _flags(run: Path) -> list[Flag]:
    return [Flag.model_validate_json(line) for line in (run / "flags.jsonl").open()]


def test_no_label_of_a_sample_flag_covers_a_figure_a_box_or_a_label(run_dir: Path) -> None:
    problems = []
    for flag in _flags(run_dir):
        pdf = (SAMPLES / flag.source).read_bytes()
        sizes = page_sizes(pdf)
        pages = sorted({e.page for e in flag.evidence})
        printed = {p: printed_boxes(pdf, p) for p in pages}
        for zoom in ZOOM_CHOICES:
            for view in flag_pages(flag, sizes, zoom, printed):
                s = view.scale
                figures = [(a * s, b * s, c * s, d * s) for a, b, c, d in printed[view.page].figures]
                labels = [_label(b) for b in view.boxes]
                for i, (b, label) in enumerate(zip(view.boxes, labels, strict=True)):
                    where = f"{flag.rule} p{view.page} at {zoom}: label {b.n} ({b.label})"
                    own = b.rect
                    covered = [f for f in figures if _covers(label, f) and not _covers(f, own)]
                    boxes = [o.n for o in view.boxes if _covers(label, o.rect)]
                    others = [view.boxes[j].n for j, o in enumerate(labels) if j != i and _covers(label, o)]
                    if covered or boxes or others:
                        problems.append(f"{where} covers figures {covered} boxes {boxes} labels {others}")
                    if not _inside(label, (0, 0, view.width_px, view.height_px)):
                        problems.append(f"{where} leaves the page")
                    assert b.label in (f"{b.n} · {b.css.replace('-', ' ')}", str(b.n))
    assert not problems, "\n".join(problems)


def test_two_evidences_on_one_figure_get_labels_clear_of_each_other(run_dir: Path) -> None:
    flag = hostile_flag(_flags(run_dir)[0])  # both of its evidences point at the same figure
    sizes = page_sizes((SAMPLES / flag.source).read_bytes())
    # without the printed words: the boxes and labels still count
    (a, b) = [b for view in flag_pages(flag, sizes, 1.0) for b in view.boxes]
    assert a.rect == b.rect
    assert not _covers(_label(a), _label(b))
    assert not _covers(_label(a), a.rect) and not _covers(_label(b), b.rect)


# ------------------------------------------------------------------------------------------- zoom

PORTRAIT, TWO_PORTRAITS = [612.0], [612.0, 612.0]


def test_a_zoom_is_remembered_per_page_width_and_a_cross_page_flag_fits_the_room(run_dir: Path) -> None:
    flags = _flags(run_dir)
    single = next(f for f in flags if f.rule == "TOT001")
    cross = next(f for f in flags if f.rule == "XREF001")
    assert zoom_bucket(PORTRAIT) != zoom_bucket(TWO_PORTRAITS)
    picked = {zoom_bucket(PORTRAIT): 2.0}  # zoomed in on a single page
    assert shown_zoom(single, PORTRAIT, picked, 1568) == 2.0  # a single page keeps it, wider than the room
    assert shown_zoom(cross, TWO_PORTRAITS, picked, None) == 0.75  # two pages: their own default
    assert shown_zoom(cross, TWO_PORTRAITS, picked, 1035) == 0.5  # fitted to a narrow window
    # a zoom picked for two pages is kept where they fit, and lowered where they would not
    assert shown_zoom(cross, TWO_PORTRAITS, {zoom_bucket(TWO_PORTRAITS): 1.0}, 2100) == 1.0
    assert shown_zoom(cross, TWO_PORTRAITS, {zoom_bucket(TWO_PORTRAITS): 1.0}, 1568) == 0.75
    assert fitting_zoom(TWO_PORTRAITS, 100) == ZOOM_CHOICES[0]  # never below the smallest offered


@pytest.fixture
def config(run_dir: Path, tmp_path: Path) -> Iterator[ConsoleConfig]:
    cfg = make_config(run_dir, tmp_path)  # no decision is made: the module's run is shared as it is
    yield cfg
    cfg.store.close()


def _current_zoom(html: str) -> str:
    m = re.search(r'data-zoom="([\d.]+)" aria-current', html)
    assert m, "no zoom marked current"
    return m.group(1)


def test_a_zoom_picked_on_a_single_page_does_not_open_a_cross_page_flag_off_screen(
    config: ConsoleConfig,
) -> None:
    client = TestClient(create_app(config), base_url="http://127.0.0.1")
    login(client)
    single = config.store.queue(FlagQuery(rule="TOT001"), limit=1).rows[0].flag
    cross = config.store.queue(FlagQuery(rule="XREF001"), limit=1).rows[0].flag
    client.cookies.set(ROOM_COOKIE, "1568")  # console.js: a 1600-pixel-wide window
    assert _current_zoom(client.get(f"/flags/{single.flag_id}?zoom=2.0").text) == "2.0"
    assert _current_zoom(client.get(f"/flags/{cross.flag_id}").text) == "0.75"
    assert _current_zoom(client.get(f"/flags/{single.flag_id}").text) == "2.0"
    client.cookies.set(ROOM_COOKIE, "1035")  # the same window at 150 %
    html = client.get(f"/flags/{cross.flag_id}").text
    assert _current_zoom(html) == "0.5"
    assert 'data-scale="0.6666666666666666"' in html  # the boxes are placed at the zoom shown
    # an explicit zoom is shown as asked, whatever the room
    assert _current_zoom(client.get(f"/flags/{cross.flag_id}?zoom=1.5").text) == "1.5"
    client.cookies.set(ROOM_COOKIE, "not a width")
    assert _current_zoom(client.get(f"/flags/{cross.flag_id}").text) == "1.5"


# ------------------------------------------------------------------------------- across documents


def test_evidence_printed_in_another_document_is_not_drawn_on_this_ones_pages() -> None:
    from console.view import shown_pages
    from schemas.models import Evidence

    box = (300.0, 100.0, 340.0, 110.0)
    flag = records.flag(
        doc_id="new",
        source="acme_2025.pdf",
        rule="PRI001",
        kind="prior_period_mismatch",
        message="Receivables (2024) is 1,567 here but 1,657 in acme_2024.pdf (p. 38).",
        pages=[40],
        evidence=[
            Evidence(page=40, bbox=box, text="Receivables: 1,567", role="current"),
            Evidence(page=38, bbox=box, text="Receivables: 1,657", role="earlier", source="acme_2024.pdf"),
        ],
    )
    sizes = [(612.0, 792.0)] * 60
    assert shown_pages(flag, len(sizes)) == [40]  # page 38 of this document holds nothing of the flag's
    views = flag_pages(flag, sizes, 1.0)
    assert [(v.page, [b.n for b in v.boxes]) for v in views] == [(40, [1])]
