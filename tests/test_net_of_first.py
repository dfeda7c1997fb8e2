"""A line named after the first line of its section with ", net" is that line net of the lines between.

"Deferred card and other fees", "Deferred direct acquisition costs", "Reserves for membership
cancellations", "Deferred card and other fees, net": no line says "Total" or "Less", so the net line was no
total, and in two columns nothing could prove it, so a keying error in any of the four went unflagged
(found on American Express's 2022 10-K, re-keyed by the planted-errors bench: reserves (153) -> (1,153)).
Here, on the generated layout variants with such a note, the clean document raises nothing and the net
line is a proven total of three, and a re-keyed reserve is flagged with it as evidence.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("net", net_of_first=True)
NET = "Deferred card and other fees, net"


@pytest.mark.parametrize("name", CASES.names())
def test_the_net_line_is_proven_and_nothing_is_flagged(name: str) -> None:
    CASES.proven_total(name, NET, 3)


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_reserve_is_flagged(name: str) -> None:
    CASES.caught(name, ["Reserves"], "double", "TOT001")
