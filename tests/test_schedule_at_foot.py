"""A schedule whose heads and first line end a page is whole: the next page continues it.

A schedule set low on its page prints its heads and first year at the foot and the other years on the next
page. A single line of figures was no table, so the part on the next page was read as the whole schedule
(its total then adds up nothing: the part proves nothing) and a keying error in any year went unflagged. A
lone line under its heads at a page's foot is now a table's start, kept if the next page continues it
(``RawTable.lone``). Found on mixed layouts (``sample_docs.mixed``); here on the generated layout variants
with the lease maturities so set (the trait ``schedule_at_foot``), in the layouts that repeat their heads.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("sf", schedule_at_foot=True, maturities=True, repeat_header_on_break=True)

test_the_clean_documents_raise_nothing = CASES.quiet_test()


@pytest.mark.parametrize("name", CASES.names())
def test_the_schedule_is_one_table_over_two_pages(name: str) -> None:
    (schedule,) = [t for t in CASES.quiet(name).tables if any(c.text == "Thereafter" for c in t.cells)]
    assert len(schedule.pages) == 2, schedule.pages
    CASES.proven_total(name, "Total", 6, count=len(CASES.lines(name, "Total")))


@pytest.mark.parametrize("kind", ["swap", "sign"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_a_year_on_the_next_page_is_flagged(name: str, kind: str) -> None:
    year = str(max(CASES.cases[name].years) + 3)
    CASES.caught(name, [year], kind, "TOT001", occurrence=-1)
