"""A line named after the first line of its section with ", net" is that line net of the lines between.

"Deferred card and other fees", "Deferred direct acquisition costs", "Reserves for membership
cancellations", "Deferred card and other fees, net": no line says "Total" or "Less", so the net line was no
total, and in two columns nothing could prove it, so a keying error in any of the four went unflagged
(found on American Express's 2022 10-K, re-keyed by the planted-errors bench: reserves (153) -> (1,153)).
Here, on the generated layout variants with such a note, the clean document raises nothing and the net
line is a proven total of three, and a re-keyed reserve is flagged with it as evidence.
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
    f"net-{c.file}": replace(c, file=f"net-{c.file}", net_of_first=True, injections=())
    for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def reserve_figure(data: bytes) -> Candidate:
    """The first figure printed on the "Reserves for membership cancellations" line."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                if w[4] != "Reserves":
                    continue
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                figures = [o for o in line if any(ch.isdigit() for ch in o[4])]
                if figures:
                    f = figures[0]
                    return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no reserves line printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_net_line_is_proven_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    net = [
        line
        for s in result.statements
        for line in s.lines
        if line.label == "Deferred card and other fees, net"
    ]
    assert len(net) == 1 and net[0].proven and len(net[0].children) == 3, net


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_a_reserve_is_flagged(name: str) -> None:
    data = rendered(name)
    target = reserve_figure(data)
    # Figures under 100 with decimals ("(62.27)") are no bench candidates; swap their first two digits.
    i = next(k for k, ch in enumerate(target.text) if ch.isdigit())
    swapped = target.text[:i] + target.text[i + 1] + target.text[i] + target.text[i + 2 :]
    new = next(iter(mutations(target.text, "double")), swapped)
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT001"]
    assert any(e.text.endswith(f": {new}") for f in hits for e in f.evidence), [
        f.message for f in result.flags
    ]
