"""A line that does not say it is a total, in a table of two columns, is proven by the other column.

"Net debt" under cash, short- and long-term borrowings does not call itself a total, so the tree builder
asked two columns to prove the sum before a failing one counted. A table of two columns (two balance-sheet
dates) then never proved it when either column was re-keyed, and the error went unflagged (found on Amcor's
fourth-quarter 2023 release, re-keyed by the planted-errors bench: long-term debt 6,653 -> 66,533 in its
reconciliation of net debt). The other column now proves it, if it adds up to the unit: a coincidence
within rounding (3,207 + 15 + 94 = 3,316 beside a right-of-use figure of 3,317, FedEx 2023) does not.
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
    f"nd-{c.file}": replace(c, file=f"nd-{c.file}", net_debt=True, injections=()) for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def net_debt_figure(data: bytes) -> Candidate:
    """The first figure printed on the "Net debt" line."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                if w[4] != "Net":
                    continue
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                if [o[4] for o in line[:2]] != ["Net", "debt"]:
                    continue
                figures = [o for o in line[2:] if any(ch.isdigit() for ch in o[4])]
                if figures:  # not the sentence that introduces the table
                    f = figures[0]
                    return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no net debt line printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_net_debt_is_proven_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    lines = [line for s in result.statements for line in s.lines if line.label == "Net debt"]
    assert len(lines) == 1 and lines[0].proven and len(lines[0].children) == 3, lines


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_net_debt_is_flagged_and_localized(name: str) -> None:
    data = rendered(name)
    target = net_debt_figure(data)
    new = mutations(target.text, "swap")[0]
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT001"]
    assert hits, [f.message for f in result.flags]
    located = [f.localization.figures[0].text for f in hits if f.localization and f.localization.figures]
    assert any(text.endswith(f": {new}") for text in located), (new, located)
