"""Shared by the console's browser tests and its screenshot script: a console over the sample run, a login,
browser zoom as a viewport, and the figures printed on a page read from the PDF (the tests' own oracle).

Browser zoom is emulated the way a browser does it: a window ``WINDOW_PX`` device pixels wide at zoom
``z`` has a CSS viewport ``WINDOW_PX / z`` pixels wide, each CSS pixel drawn as ``z`` device pixels
(Playwright's ``device_scale_factor``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pymupdf

from adapters.review.store import FlagQuery, ReviewStore
from console.app import create_app
from schemas.models import BBox, Flag
from tests.support.review import PASSWORDS, SAMPLES, make_config, make_run, serve

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = [
    "WINDOW_PX",
    "BrowserZoom",
    "console_over_samples",
    "figure_boxes",
    "flag_of",
    "log_in",
]

WINDOW_PX = (1600, 1000)
"""The window the browser tests and screenshots use, in device pixels (a laptop's full-HD screen)."""


@dataclass(frozen=True)
class BrowserZoom:
    """A browser zoom level as Playwright's viewport (CSS pixels) and device scale factor."""

    zoom: float

    @property
    def width(self) -> int:
        """The CSS viewport width."""
        return round(WINDOW_PX[0] / self.zoom)

    @property
    def height(self) -> int:
        """The CSS viewport height."""
        return round(WINDOW_PX[1] / self.zoom)


@contextlib.contextmanager
def console_over_samples(tmp: Path) -> Iterator[tuple[str, ReviewStore]]:
    """A console serving a run of the sample PDFs (halvorsen, northwind) on loopback: its URL and store."""
    run = make_run(tmp / "run")
    config = make_config(run, tmp)
    try:
        with serve(create_app(config)) as url:
            yield url, config.store
    finally:
        config.store.close()


def log_in(page: Page, url: str, user: str = "alice") -> None:
    """Log ``page`` in to the console at ``url`` through its login form."""
    page.goto(url + "/login")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", PASSWORDS[user])
    page.click("button[type=submit]")
    page.wait_for_selector("#queue")


def flag_of(store: ReviewStore, rule: str) -> Flag:
    """The run's first flag of ``rule``."""
    rows = store.queue(FlagQuery(rule=rule), limit=1).rows
    assert rows, f"no {rule} flag in the sample run"
    return rows[0].flag


def figure_boxes(source: str, page: int) -> list[BBox]:
    """The boxes, in PDF points, of every figure printed on 1-based ``page`` of a sample PDF.

    A figure is a word holding a digit, read with PyMuPDF straight from the PDF: independent of what the
    console computes, so the tests check its labels against what is really printed.
    """
    with pymupdf.open(SAMPLES / source) as doc:
        p = doc[page - 1]
        assert p.rotation == 0, "the sample pages are upright: words are in the records' space as read"
        return [tuple(w[:4]) for w in p.get_text("words") if any(c.isdigit() for c in w[4])]
