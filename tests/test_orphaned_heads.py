"""A table whose title and heads end a page is the one its "(continued)" part on the next page continues.

A note set low on its page can print its heading, title and column heads at the foot and every line on the
next page, under its title "(continued)". The heads alone are no table, so the part on the next page was
stitched to the last table of the page before — the taxation note's — and the receivables' total added up
nowhere. A continuation whose title is printed under that table on the page before now continues the table
introduced there, not that one (``stitch._introduced_below``). Found on mixed layouts
(``sample_docs.mixed``); here on the generated layout variants with the receivables note so set (the trait
``orphaned_heads``), in the layouts that repeat their heads on a new page.
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases(
    "oh", orphaned_heads=True, titled_note=True, tax_sections=True, repeat_header_on_break=True
)

test_the_clean_documents_raise_nothing = CASES.quiet_test()


@pytest.mark.parametrize("name", CASES.names())
def test_the_receivables_are_a_table_of_their_own(name: str) -> None:
    tables = [
        t
        for t in CASES.quiet(name).tables
        if any(c.col == 0 and c.text == "Trade receivables" for c in t.cells)
    ]
    assert len(tables) == 1 and not any(c.text == "Deferred:" for c in tables[0].cells), tables
    CASES.proven_total(name, "Receivables", 3)


@pytest.mark.parametrize("kind", ["sign", "swap"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_receivables_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Receivables"], kind, "TOT001", column=1)
