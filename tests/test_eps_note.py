"""The earnings-per-share note: the numerator lines are earnings, and each is paired with its own flavour.

10-K notes on earnings per share print a numerator ("Net income for basic earnings per share", "… for
diluted earnings per share", an interest add-back between them), a denominator (basic weighted-average
shares, dilutive awards and notes, diluted shares) and the per-share figures. Two defects hid every keying
error in such a note (found on AMD's 2022 note, re-keyed by the planted-errors bench):

* the numerator lines were read as per-share figures because their labels say "per share", so EPS001 had
  no earnings line to divide and checked nothing;
* once they were earnings, a basic per-share figure whose basic numerator was re-keyed (×1,000) was
  "explained" by the diluted numerator, which is nearly the same figure.

Here, on the generated layout variants with such a note, the clean document raises nothing, and a re-keyed
basic share count and a re-keyed basic numerator are both flagged on the note's page.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pymupdf
import pytest

from bench.planted_errors import Candidate, mutations, plant
from pipeline.engine import process_bytes
from pipeline.grid import RowView
from pipeline.statements import line_kinds, statement_rows
from sample_docs.generate import DocConfig, build_figures, layout_variants, render_variant
from schemas.models import DocumentResult


def _with_note(cfg: DocConfig) -> DocConfig:
    """The variant with an EPS note; about 0.25 earned a share, so share counts print 3 digits or more."""
    figs = build_figures(cfg)
    net = abs(figs[max(cfg.years)]["net"]) * 10 ** (cfg.scale - cfg.decimals)
    shares = max(1, round(net / 0.25 / 100_000)) * 100_000
    return replace(cfg, file=f"eps-{cfg.file}", eps_shares=shares, eps_note=True, injections=())


CASES: dict[str, DocConfig] = {f"eps-{c.file}": _with_note(c) for c in layout_variants()}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def line_figure(data: bytes, label: str, column: int) -> Candidate:
    """The ``column``-th figure (0 = leftmost) on the last printed line whose text starts with ``label``."""
    found: Candidate | None = None
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                if line[0] is not w or " ".join(o[4] for o in line).find(label) != 0:
                    continue
                figures = [o for o in line if any(ch.isdigit() for ch in o[4])]
                f = figures[column]
                found = Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    assert found is not None, label
    return found


def note_rows(result: DocumentResult) -> list[RowView]:
    tables = [t for t in result.tables if any(c.text.startswith("Basic weighted-average") for c in t.cells)]
    assert len(tables) == 1, [t.title for t in tables]
    return statement_rows(tables[0])


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_numerator_lines_are_earnings_and_nothing_is_flagged(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]
    rows = note_rows(result)
    kinds = line_kinds(rows)
    by_label = {" ".join(r.label.split()): kinds.get(r.index) for r in rows}
    assert by_label["Net income for basic earnings per share"] == "amount", by_label
    assert by_label["Net income for diluted earnings per share"] == "amount", by_label
    assert by_label["Basic weighted-average shares"] == "shares", by_label
    assert by_label["Basic"] == "per_share", by_label


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize(
    ("label", "kind"),
    [("Basic weighted-average shares", "double"), ("Net income for basic earnings per share", "scale")],
)
def test_a_keying_error_in_the_note_is_flagged(name: str, label: str, kind: str) -> None:
    data = rendered(name)
    # The latest year's column: no interest add-back there, so the diluted numerator equals the basic one.
    target = line_figure(data, label, -1 if CASES[name].prior_first else 0)
    new = mutations(target.text, kind)[0]
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "EPS001"]
    assert hits, [f.message for f in result.flags]
    assert any(new in e.text for f in hits for e in f.evidence), [f.message for f in hits]
