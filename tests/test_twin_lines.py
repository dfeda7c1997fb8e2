"""Twin lines: one breakdown printed twice, under labels that also name the income statement's totals.

A share-based compensation table ("Cost of sales 41, Administrative expenses 63, …") printed in the
operating review and again in the notes shares each label with an income-statement line. Grouped by label
and period, the copies of "Cost of sales 2025" hold three values (the total, the review's and the note's
share-based part), so no two-sided disagreement stood out and a keying error in one printing of the
breakdown went unflagged (found on Salesforce's 2023 10-K, re-keyed by the planted-errors bench: "Cost of
revenues 897 -> 8,977" in the stock-based compensation table). The two tables' lines agree in the other
period and differ in none: they are one figure printed twice, and the one that disagrees is flagged.
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
    f"sbc-{c.file}": replace(c, file=f"sbc-{c.file}", sbc_twice=True, injections=())
    for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def note_figure(data: bytes) -> Candidate:
    """The first figure of the first line of the last share-based compensation table (the note's)."""
    found: Candidate | None = None
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            titles = [w for w in words if w[4] == "Share-based" and w[0] < 120]
            for title in titles:
                below = sorted({round(w[3]) for w in words if w[3] > title[3] + 1})
                for y in below:
                    line = sorted((w for w in words if abs(w[3] - y) < 2), key=lambda w: w[0])
                    figures = [w for w in line if sum(ch.isdigit() for ch in w[4]) >= 3 and w[0] > 150]
                    if figures and not any(w[4].isdigit() and 1900 < int(w[4]) < 2100 for w in line):
                        f = figures[0]
                        found = Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
                        break
    assert found is not None
    return found


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_twice_printed_breakdown_raises_nothing(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_one_printing_is_flagged_and_localized(name: str) -> None:
    data = rendered(name)
    target = note_figure(data)
    new = mutations(target.text, "double")[0]
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "XREF001"]
    assert hits, (target, new, [f.message for f in result.flags])
    located = [f.localization.figures[0].text for f in hits if f.localization and f.localization.figures]
    assert any(text.endswith(f": {new}") for text in located), (new, located)
