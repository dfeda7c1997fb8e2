"""Roll-forwards in sections: a run that holds only within rounding is no rival to one that holds exactly.

A statement of changes in equity prints share capital (a balance of 2, nothing issued) above the share
premium's opening balance, awards, issues and closing balance. With the premium's opening balance re-keyed
in one year, the other year must prove the roll-forward; it did, but runs reaching up into the share
capital section held there too, within rounding (the 2 is smaller than the rounding of seven figures), and
they expected another figure in the broken year, so no break was believed and the error went unflagged
(found on eBay's 2021 statement of stockholders' equity, re-keyed by the planted-errors bench: additional
paid-in capital at the beginning of 2021 16,497 -> 6,497). The run that holds exactly now wins.
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
    f"eq-{c.file}": replace(c, file=f"eq-{c.file}", equity_sections=True, injections=())
    for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def opening_premium(data: bytes, column: int) -> Candidate:
    """The ``column``-th figure of the second "Balance, beginning of year" line (the share premium's)."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            openings = sorted({round(w[3]) for w in words if w[4] == "beginning" and w[0] < 200})
            if len(openings) < 2:
                continue
            line = sorted((w for w in words if abs(w[3] - openings[1]) < 2), key=lambda w: w[0])
            f = [w for w in line if any(ch.isdigit() for ch in w[4])][column]
            return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no share premium opening balance printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_roll_forwards_are_proven_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    closing = [line for s in result.statements for line in s.lines if line.label == "Balance, end of year"]
    assert len(closing) == 2 and closing[1].proven and len(closing[1].children) == 4, closing


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_an_opening_balance_is_flagged(name: str) -> None:
    data = rendered(name)
    # The latest year: its opening balance is the other year's closing one, so it is printed twice.
    target = opening_premium(data, -1 if CASES[name].prior_first else 0)
    new = next(iter(mutations(target.text, "drop")), target.text[1:])
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT001"]
    assert any(e.text.endswith(f": {new}") for f in hits for e in f.evidence), [
        f.message for f in result.flags
    ]
