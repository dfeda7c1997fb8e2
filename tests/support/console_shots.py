"""Screenshots of the review console's flag page, to look at: ``python -m tests.support.console_shots``.

Serves the console over a run of the sample PDFs (as the browser tests do) in headless Chromium and saves,
into ``--out`` (default ``docs/screenshots``):

- ``flag-xref-{75,100,150}.png``: the whole page of halvorsen's cross-page XREF001 flag at browser zoom
  75 %, 100 % and 150 % of a window 1600 device pixels wide (CSS viewport ``1600 / zoom``, device scale
  ``zoom``), the console choosing the page images' zoom itself;
- ``labels-tot-{75,100,150}.png``: the page images of northwind's TOT001 flag (five labelled boxes in one
  column) at the console's zoom 75 %, 100 % and 150 %.

The PNGs are reduced to 256 colours to stay small enough to commit.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from PIL import Image

from tests.support.browser import CHROMIUM, browser
from tests.support.console_browser import BrowserZoom, console_over_samples, flag_of, log_in
from tests.support.review import REPO

__all__ = ["ZOOMS_SHOWN", "main", "shoot"]

ZOOMS_SHOWN = (0.75, 1.0, 1.5)


def _small(path: Path) -> None:
    """Rewrite the PNG at ``path`` with a 256-colour palette (text and flat colours survive it)."""
    with Image.open(path) as im:
        im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def shoot(out: Path, tmp: Path) -> list[Path]:
    """Save the screenshots into ``out`` (using ``tmp`` for the run and browser profiles); their paths."""
    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    with console_over_samples(tmp) as (url, store):
        xref, tot = flag_of(store, "XREF001"), flag_of(store, "TOT001")
        for zoom in ZOOMS_SHOWN:
            z = BrowserZoom(zoom)
            percent = round(zoom * 100)
            profile = tmp / f"profile-{zoom}"
            with browser(CHROMIUM, profile, width=z.width, height=z.height, scale=zoom) as ctx:
                page = ctx.new_page()
                log_in(page, url)
                page.goto(f"{url}/flags/{xref.flag_id}")
                page.wait_for_load_state("networkidle")
                saved.append(out / f"flag-xref-{percent}.png")
                page.screenshot(path=str(saved[-1]), full_page=True)
        with browser(CHROMIUM, tmp / "profile-labels") as ctx:
            page = ctx.new_page()
            log_in(page, url)
            for zoom in ZOOMS_SHOWN:
                page.goto(f"{url}/flags/{tot.flag_id}?zoom={zoom}")
                page.wait_for_load_state("networkidle")
                saved.append(out / f"labels-tot-{round(zoom * 100)}.png")
                page.locator("figure.page").first.screenshot(path=str(saved[-1]))
    for path in saved:
        _small(path)
    return saved


def main(argv: list[str] | None = None) -> None:
    """The command line: ``--out DIR``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for path in shoot(args.out, Path(tmp)):
            print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
