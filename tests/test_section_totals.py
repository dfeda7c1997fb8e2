"""The last line of a table of sections without totals adds up every section above it.

A tax note prints "Current:" federal, state and foreign, "Deferred:" the same three, then the provision,
outdented, with no "Total" in its label. A line that does not say it is a total was only allowed to add up
its own section (the deferred lines), so the provision was no total and a keying error in any of the six
lines went unflagged (found on Corning's 2016 10-K, re-keyed by the planted-errors bench). Here, on the
generated layout variants with such a note, the clean document raises nothing and the last line is a proven
total of all six, and a swapped pair of digits in a current line is flagged with it as evidence.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pymupdf
import pytest

from bench.planted_errors import Candidate, mutations, plant
from pipeline.engine import process_bytes
from sample_docs.generate import DocConfig, layout_variants, render_variant
from schemas.models import DocumentResult

CASES: dict[str, DocConfig] = {
    f"tax-{c.file}": replace(c, file=f"tax-{c.file}", tax_sections=True, injections=())
    for c in layout_variants()
}
LAST = "Charge for taxation on profit"


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def current_figure(data: bytes) -> Candidate:
    """The first figure of the first "Domestic" line (current tax)."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                if w[4] != "Domestic":
                    continue
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                figures = [o for o in line if any(ch.isdigit() for ch in o[4])]
                if figures:
                    f = figures[0]
                    return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no domestic line printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_last_line_adds_up_both_sections_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    totals = [line for s in result.statements for line in s.lines if line.label == LAST]
    assert len(totals) == 1 and totals[0].proven and len(totals[0].children) == 6, totals


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_a_section_line_is_flagged(name: str) -> None:
    data = rendered(name)
    target = current_figure(data)
    # Figures under 100 with decimals ("93.34") are no bench candidates; swap their first two digits.
    new = next(iter(mutations(target.text, "swap")), target.text[1] + target.text[0] + target.text[2:])
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT001"]
    assert any(e.text.endswith(f": {new}") for f in hits for e in f.evidence), [
        f.message for f in result.flags
    ]
