"""A note's last line that repeats the table's title is the table's total.

US 10-K notes print "Other Current Assets" over "Payment processor advances", "Prepaid expenses", "Other"
and a last line "Other current assets": the total, though its label does not say "Total". Such a line was
no total at all in a table of two columns (a label that says nothing needs three columns of proof), so a
keying error in any of its lines went unflagged (found on eBay's 2021 10-K, re-keyed by the planted-errors
bench: "Other 442 -> 424"). Here, on the generated layout variants with such a note, the clean document
raises nothing, and a swapped pair of digits in a component is flagged with it as evidence.
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
    f"recv-{c.file}": replace(c, file=f"recv-{c.file}", titled_note=True, injections=())
    for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def component_figure(data: bytes) -> Candidate:
    """The first figure printed on the "Trade receivables" line."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                if w[4] != "Trade":
                    continue
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                if [o[4] for o in line[:2]] != ["Trade", "receivables"]:
                    continue
                figures = [o for o in line if sum(ch.isdigit() for ch in o[4]) >= 3]
                if figures:
                    f = figures[0]
                    return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no trade receivables line printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_titled_total_is_proven_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    totals = [
        line
        for s in result.statements
        for line in s.lines
        if line.label == "Receivables" and len(line.children) == 3
    ]
    assert len(totals) == 1 and totals[0].proven, [
        (s.title, [x.label for x in s.lines]) for s in result.statements
    ]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_a_component_is_flagged(name: str) -> None:
    data = rendered(name)
    target = component_figure(data)
    # Figures under 100 with decimals ("93.34") are no bench candidates; swap their first two digits.
    new = next(iter(mutations(target.text, "swap")), target.text[1] + target.text[0] + target.text[2:])
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT001"]
    assert hits, [f.message for f in result.flags]
    assert any(e.text.endswith(f": {new}") for f in hits for e in f.evidence), [f.message for f in hits]
