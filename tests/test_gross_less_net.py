"""Gross, less accumulated depreciation, net: the net line is a subtotal, and only it enters the total.

US balance sheets print "Property, plant and equipment" at cost, "Less: accumulated depreciation" and
"Property, plant and equipment, net"; total assets adds the net line, not the other two. Before the tree
builder read the net line as the difference of the two above it, no run of lines added up to total assets
in any column, so total assets proved nothing and a keying error in the net figure (3M's 2021 balance sheet,
re-keyed by the planted-errors bench, was the case found) went unflagged. Here, on the generated layout
variants with that presentation, the clean document raises nothing and the net line is a proven subtotal,
and a swapped pair of digits in the net figure is flagged on its page and localized to it.
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
    f"ppe-{c.file}": replace(c, file=f"ppe-{c.file}", ppe_at_cost=True, injections=())
    for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def net_figure(data: bytes) -> Candidate:
    """The first figure printed on the "… equipment, net" line."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                if w[4].rstrip(",") != "net":
                    continue
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                if not any(o[4].startswith("equipment") for o in line):
                    continue
                figures = [o for o in line if o[0] > w[2] and sum(ch.isdigit() for ch in o[4]) >= 3]
                if figures:
                    f = figures[0]
                    return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no net property, plant and equipment line printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_net_line_is_a_proven_subtotal_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    net = [
        line
        for s in result.statements
        for line in s.lines
        if line.label.lower().startswith("property, plant and equipment, net")
    ]
    assert len(net) == 1 and net[0].proven and len(net[0].children) == 2, net


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_the_net_figure_is_flagged_and_localized(name: str) -> None:
    data = rendered(name)
    target = net_figure(data)
    new = mutations(target.text, "swap")[0]
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT001"]
    assert hits, [f.message for f in result.flags]
    located = [f.localization.figures[0].text for f in hits if f.localization and f.localization.figures]
    assert any(text.endswith(f": {new}") for text in located), (new, located)
