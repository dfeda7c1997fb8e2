"""One misprint, one finding: the flags a single localized figure explains fold into one.

A revenue figure re-keyed in the income statement breaks the statement's footing (gross profit) and its
copy in the highlights table. Each rule flagged its own break, so the analyst's queue held two entries for
one keying error, though the localization of each already named the same figure and both relations (found
on Corning's 2016 statement of equity, where one figure printed "(4.244)" raised a footing flag and two
total-column flags). The flags one change explains are now one finding with the evidence of all of them.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases, figure, rekeyed

CASES = LayoutCases("one")


def _revenue_label(name: str) -> list[str]:
    income = next(s for s in CASES.clean(name).statements if s.kind == "income")
    return income.lines[0].label.split()


@pytest.mark.parametrize("name", CASES.names())
def test_a_figure_in_two_relations_is_one_finding(name: str) -> None:
    CASES.quiet(name)
    # The income statement's revenue, the last line printed with that label (the highlights come first).
    target = figure(CASES.rendered(name), _revenue_label(name), 0, occurrence=-1)
    new = rekeyed(target.text, "swap")
    _, flags = CASES.planted_flags(name, target, new, "TOT001")
    assert len(flags) == 1, [(f.rule, f.message) for f in flags]
    (flag,) = flags
    assert flag.localization is not None and len(flag.localization.repairs) >= 2, flag.localization
    assert flag.localization.figures[0].page == target.page
    # The folded flag's evidence is kept: the highlights page is among the finding's pages.
    assert len(flag.pages) >= 2 and target.page in flag.pages, flag.pages
    assert any("one misprint, one finding" in r for r in flag.reasons), flag.reasons
