"""A note whose table ends at a page's foot, and the next note's table at the top of the next page.

eBay's 2020 10-K ends the property note's table at the foot of a page; the next page opens with "Accrued
Expenses and Other Current Liabilities" over the same column heads. The stitcher took that title for a
section heading of the property table ("Current liabilities" starting a statement's second page) and
carried the table on, so the accrued liabilities lost their total and a re-keyed line (420 printed 402)
went unflagged. A section heading carries a table on only over figures without column heads of their
own; a title over heads is the next note's. Here, on the generated layout variants with the two notes
back to back (the trait ``notes_back_to_back``), each note is its own table and a keying error in the
payables note is flagged.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("bb", notes_back_to_back=True)


test_the_notes_raise_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


@pytest.mark.parametrize("name", CASES.names())
def test_the_payables_note_is_a_table_of_its_own(name: str) -> None:
    payables = [t for t in CASES.quiet(name).tables if any(c.text == "Trade payables" for c in t.cells)]
    assert len(payables) == 1 and len(payables[0].pages) == 1
    assert not any(c.text.startswith("Land") for c in payables[0].cells)


@pytest.mark.parametrize("kind", ["swap", "drop"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_payables_note_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Accrued", "interest"], kind, "TOT001")
