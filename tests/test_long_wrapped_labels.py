"""A label wrapped over three lines or more in a narrow label column belongs whole to its figures' row.

A table of many value columns leaves its labels little room: JPMorgan's 2021 Q1 10-Q prints "Total
long-term" / "unsecured funding –" / "issuance $ 13,538 $ 9,387". Only a label-only line directly above
its figures' line was joined to them, so "Total long-term" became a heading of its own, the row was named
"unsecured funding – issuance", no total, and 9,387 re-keyed 938 went unflagged. Label-only lines that
each say they go on (lower case, an open parenthesis, a dangling word) now join the row of the figures
they wrap into; a line that merely fills the label column does not start such a chain (it may be a
heading's last line). Here, on the generated layout variants with plan assets in six value columns (the
narrowest label column of the generator's tables), "Total fixed income" is read whole and proven, and a
keying error in a line under it is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("wl", plan_asset_levels=True)


@pytest.mark.parametrize("name", CASES.names())
def test_the_wrapped_total_is_read_whole_and_proven(name: str) -> None:
    CASES.proven_total(name, "Total fixed income", 2)


@pytest.mark.parametrize("kind", ["swap", "drop"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_under_the_wrapped_total_is_flagged(name: str, kind: str) -> None:
    # "Government": level 2 of the current year (the third figure), which no blank line leaves out
    CASES.caught(name, ["Government"], kind, "TOT001", column=2)
