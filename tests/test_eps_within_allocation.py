"""Earnings per share that divide exactly in every other column get no room for an allocation in this one.

EPS001 allows 3 % between earnings over shares and the printed figure, for earnings allocated to
participating securities (the two-class method). A table whose other columns divide within rounding alone
allocates nothing, yet a share count with two digits swapped (710 keyed as 701 moves the quotient 1.3 %)
passed inside that room (found on eBay's 2021 income statement, re-keyed by the planted-errors bench). The
room now goes only where it is needed: a column fails on rounding alone when its peers of the same sign
divide exactly and one figure, re-keyed, would make it divide too; a near miss that no keying error explains
(a numerator adjusted for non-controlling interests, printed nowhere) keeps the room.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from bench.planted_errors import Candidate
from pipeline.checks.per_share import _keyed, _Test
from pipeline.checks.rule import PrintedFigure
from sample_docs.generate import DocConfig, build_figures
from schemas.models import Cell
from tests.support.layouts import LayoutCases, figure


def _shares(cfg: DocConfig) -> DocConfig:
    """About 4.00 earned a share: the per-share figure's rounding is a tenth of a percent."""
    figs = build_figures(cfg)
    net = abs(figs[max(cfg.years)]["net"]) * 10 ** (cfg.scale - cfg.decimals)
    return replace(cfg, eps_shares=max(1, round(net / 4.0 / 1_000)) * 1_000)


CASES = LayoutCases("alloc", adjust=_shares, eps_note=True)


def _small_rekey(text: str) -> str | None:
    """The figure re-keyed so that it moves by 0.5 % to 2.5 %, inside the old room: two adjacent digits
    swapped, else one digit other than the last one changed."""
    value = float(text.replace(",", ""))
    digits = [k for k, ch in enumerate(text) if ch.isdigit()]
    swaps = [
        text[:i] + text[j] + text[i + 1 : j] + text[i] + text[j + 1 :]
        for i, j in itertools.pairwise(digits)
        if text[i] != text[j]
    ]
    changed = [text[:i] + d + text[i + 1 :] for i in digits[:-1] for d in "0123456789" if d != text[i]]
    for new in (*swaps, *changed):
        if 0.005 <= abs(float(new.replace(",", "")) / value - 1) <= 0.025:
            return new
    return None


def _basic_shares(name: str) -> Candidate:
    column = -1 if CASES.cases[name].prior_first else 0  # the latest year
    return figure(CASES.rendered(name), ["Basic", "weighted-average", "shares"], column)


def test_five_layouts_print_a_share_count_a_slip_moves_inside_the_room() -> None:
    # A count printed in three digits (234) moves 4 % or more with any slip but its last digit.
    assert sum(_small_rekey(_basic_shares(name).text) is not None for name in CASES.names()) >= 5


@pytest.mark.parametrize("name", CASES.names())
def test_a_small_slip_in_a_share_count_is_flagged(name: str) -> None:
    CASES.quiet(name)
    target = _basic_shares(name)
    new = _small_rekey(target.text)
    if new is None:
        pytest.skip(f"no slip moves {target.text} by 0.5 % to 2.5 %")
    hits, flags = CASES.planted_flags(name, target, new, "EPS001")
    assert any(e.text.endswith(f": {new}") for f in hits for e in f.evidence), [f.message for f in flags]


def _test(eps: float, places: int, earnings: float, shares: float) -> _Test:
    def fig(value: float, p: int) -> PrintedFigure:
        return PrintedFigure(value, p, Cell(row=0, col=0, text=str(value), page=1))

    ratio = earnings / shares
    return _Test(1, True, ratio, fig(eps, places), fig(shares, 1), fig(earnings, 0), False, 0)


def test_a_near_miss_no_keying_error_explains_keeps_the_room() -> None:
    # Foot Locker 2022: 892 over 102.5 shares is 8.702 for a printed 8.72 (the parent's 893, printed nowhere).
    assert not _keyed(_test(8.72, 2, 892.0, 102.5))
    # The same figures with the shares keyed 120.5 for 102.5 (two digits swapped): a keying error.
    assert _keyed(_test(7.40, 2, 892.0, 102.5))
