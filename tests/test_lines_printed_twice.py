"""A line printed twice in one table, one figure both times: a keying error in one printing is flagged.

A pension note shows the plans whose obligations exceed their assets in one table of four lines: the
accumulated benefit obligation and the fair value of plan assets, then the projected benefit obligation and
the fair value of plan assets again (Boeing's 2022 10-K). The same plans are in both pairs, so "Fair value
of plan assets" is one figure printed twice. Copies were compared across tables only (one table
naming two lines alike usually names two things), so 42,491 re-keyed 4,249 in one printing went
unflagged. Two lines of one table under one label are now one figure when they agree in another period on
a figure of three digits or more and differ in no other. Here, on the generated layout variants with such
a note, the clean document raises nothing, whether both pairs hold the same plans (the line printed twice) or
not (two things of one name); where they do, a keying error in the second printing is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("ptw", plan_assets_twice=True)
SAME_PLANS = [name for name in CASES.names() if CASES.cases[name].seed % 2 == 0]


test_the_note_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("kind", ["swap", "drop", "double", "sign", "scale"])
@pytest.mark.parametrize("name", SAME_PLANS)
def test_a_keying_error_in_one_printing_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Fair", "value", "of", "plan", "assets"], kind, "XREF001", occurrence=1)
