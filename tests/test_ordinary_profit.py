"""A Japanese income statement's "Ordinary profit" is a subtotal: operating profit plus non-operating
income less non-operating expenses.

Japanese GAAP statements print ordinary profit (keijō rieki) between operating profit and the
extraordinary items, under a label that does not say it adds anything up. It was read as an item, so the
runs above profit before income taxes counted operating profit and ordinary profit both, added up in no
column, and a keying error in the non-operating lines (1,085 re-keyed 1,085,000 on a mixed layout) went
unflagged. Here on the generated layout variants with a Japanese income statement (``is_kind="jp"``).
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("jp", is_kind="jp")


@pytest.mark.parametrize("name", CASES.names())
def test_ordinary_profit_and_profit_before_tax_are_proven(name: str) -> None:
    CASES.proven_total(name, "Ordinary profit", 3)
    pbt = CASES.lines(name, CASES.cases[name].labels.get("pbt", "Profit before tax"))
    assert any(line.proven and len(line.children) == 2 for line in pbt), pbt  # ordinary profit less losses


@pytest.mark.parametrize("kind", ["swap", "scale"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_ordinary_profit_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Ordinary", "profit"], kind, "TOT001")
