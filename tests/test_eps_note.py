"""The earnings-per-share note: the numerator lines are earnings, and each is paired with its own flavour.

10-K notes on earnings per share print a numerator ("Net income for basic earnings per share", "… for
diluted earnings per share", an interest add-back between them), a denominator (basic weighted-average
shares, dilutive awards and notes, diluted shares) and the per-share figures. Two defects hid every keying
error in such a note (found on AMD's 2022 note, re-keyed by the planted-errors bench):

* the numerator lines were read as per-share figures because their labels say "per share", so EPS001 had
  no earnings line to divide and checked nothing;
* once they were earnings, a basic per-share figure whose basic numerator was re-keyed (×1,000) was
  "explained" by the diluted numerator, which is nearly the same figure.

A third hid a keying error in the dilutive awards (Salesforce's 2023 note: 992 basic and 5 awards make 997
diluted shares): "Employee stock awards" says no kind, its heading "Effect of dilutive securities:" none
either, so it was read as an amount, which never adds up with share counts, and the diluted shares were
never proven their sum. A line that says no kind between two share counts is one.

Here, on the generated layout variants with such a note, the clean document raises nothing, and a re-keyed
basic share count, a re-keyed basic numerator and re-keyed awards are all flagged on the note's page.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.figures.grid import RowView
from pipeline.figures.line_kinds import line_kinds
from pipeline.statements.columns import statement_rows
from sample_docs.generate import DocConfig, build_figures
from schemas.models import DocumentResult
from tests.support.layouts import LayoutCases, figure, rekeyed


def _shares(cfg: DocConfig) -> DocConfig:
    """About 0.25 earned a share, so share counts print 3 digits or more."""
    figs = build_figures(cfg)
    net = abs(figs[max(cfg.years)]["net"]) * 10 ** (cfg.scale - cfg.decimals)
    return replace(cfg, eps_shares=max(1, round(net / 0.25 / 100_000)) * 100_000)


CASES = LayoutCases("eps", adjust=_shares, eps_note=True)


def note_rows(result: DocumentResult) -> list[RowView]:
    tables = [t for t in result.tables if any(c.text.startswith("Basic weighted-average") for c in t.cells)]
    assert len(tables) == 1, [t.title for t in tables]
    return statement_rows(tables[0])


@pytest.mark.parametrize("name", CASES.names())
def test_the_numerator_lines_are_earnings_and_nothing_is_flagged(name: str) -> None:
    rows = note_rows(CASES.quiet(name))
    kinds = line_kinds(rows)
    by_label = {" ".join(r.label.split()): kinds.get(r.index) for r in rows}
    assert by_label["Net income for basic earnings per share"] == "amount", by_label
    assert by_label["Net income for diluted earnings per share"] == "amount", by_label
    assert by_label["Basic weighted-average shares"] == "shares", by_label
    assert by_label["Basic"] == "per_share", by_label
    # under "Effect of dilutive securities:" twice: the interest add-back is an amount, the awards and the
    # notes' shares are share counts (they sit between the basic and the diluted shares)
    assert by_label["Interest expense on convertible notes"] == "amount", by_label
    assert by_label["Employee share awards"] == "shares", by_label
    assert by_label["Convertible notes"] == "shares", by_label


@pytest.mark.parametrize("name", CASES.names())
@pytest.mark.parametrize(
    ("label", "kind"),
    [("Basic weighted-average shares", "double"), ("Net income for basic earnings per share", "scale")],
)
def test_a_keying_error_in_the_note_is_flagged(name: str, label: str, kind: str) -> None:
    # The latest year's column: no interest add-back there, so the diluted numerator equals the basic one.
    column = -1 if CASES.cases[name].prior_first else 0
    target = figure(CASES.rendered(name), label.split(), column, occurrence=-1)
    new = rekeyed(target.text, kind)
    hits, flags = CASES.planted_flags(name, target, new, "EPS001")
    assert hits, [f.message for f in flags]
    assert any(new in e.text for f in hits for e in f.evidence), [f.message for f in hits]


@pytest.mark.parametrize("name", CASES.names())
@pytest.mark.parametrize("kind", ["swap", "double"])
def test_a_keying_error_in_the_dilutive_awards_is_flagged(name: str, kind: str) -> None:
    column = -1 if CASES.cases[name].prior_first else 0
    CASES.caught(name, ["Employee", "share", "awards"], kind, "TOT001", column=column, occurrence=-1)
