"""Shared by the browser tests: Debian's Chromium driven by Playwright, never a downloaded browser.

``bash infra/browser.sh`` installs ``chromium``; Playwright drives it through ``executable_path``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# This closed network: without these Chromium waits on refused connections before it paints.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_or_skip() -> Path:
    """Debian's Chromium; a failure under CI (where ``make test`` installs it), else a skip."""
    if not CHROMIUM.is_file():
        msg = f"{CHROMIUM} missing: run `bash infra/browser.sh`"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    return CHROMIUM


@contextmanager
def browser(
    chromium: Path, profile: Path, *, width: int = 1600, height: int = 1000, scale: float = 1.0
) -> Iterator[BrowserContext]:
    """A headless Chromium context with its own profile folder, closed on exit."""
    from playwright.sync_api import sync_playwright

    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(profile.parent / "no-downloads")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(chromium),
            args=FLAGS,
            headless=True,
            viewport={"width": width, "height": height},
            device_scale_factor=scale,
        )
        try:
            yield ctx
        finally:
            ctx.close()
