"""A statement's last line printed alone on the next page ends its table there.

A cash-flow statement or a note that runs out of room one line short prints its last line, the total, at
the top of the next page under its title "(continued)" and the column heads. That page then holds one line
of figures, which the table finder took for no table (a table needs two data lines): the statement ended
one line short, its closing cash or "Net debt" was read nowhere, and a keying error in any line it adds up
went unflagged. Found on mixed layouts (``sample_docs.mixed``); here on the generated layout variants with
both tables spilled (the trait ``spilled_totals``).
"""

from __future__ import annotations

import pytest

from schemas.models import Table
from tests.support.layouts import LayoutCases, evidence_of, figure, rekeyed

CASES = LayoutCases("st", spilled_totals=True, net_debt=True)

test_the_clean_documents_raise_nothing = CASES.quiet_test()


def _table_ending(tables: list[Table], label: str) -> Table:
    (table,) = [t for t in tables if any(c.col == 0 and c.text == label for c in t.cells)]
    return table


@pytest.mark.parametrize("name", CASES.names())
def test_the_line_on_the_next_page_ends_the_table_begun_before(name: str) -> None:
    result = CASES.quiet(name)
    net_debt = _table_ending(result.tables, "Net debt")
    assert len(net_debt.pages) == 2 and net_debt.row_pages[-1] == net_debt.pages[1], net_debt.pages
    CASES.proven_total(name, "Net debt", 3)
    (cash_flow,) = [s for s in result.statements if s.kind == "cash_flow"]
    closing = cash_flow.lines[-1]
    assert closing.proven and closing.page == max(cash_flow.pages), closing


@pytest.mark.parametrize("kind", ["swap", "sign"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_above_the_break_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Long-term", "borrowings"], kind, "TOT001")


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_spilled_closing_cash_is_flagged(name: str) -> None:
    (cash_flow,) = [s for s in CASES.quiet(name).statements if s.kind == "cash_flow"]
    target = figure(CASES.rendered(name), cash_flow.lines[-1].label.split(), occurrence=-1)
    new = rekeyed(target.text, "swap")
    # The closing cash is the balance sheet's too: the break in the identity (XST001), or in the
    # statement's own roll-forward where the balance sheet prints no such date (TOT001).
    hits = [f for rule in ("XST001", "TOT001") for f in CASES.planted_flags(name, target, new, rule)[0]]
    assert evidence_of(hits, new), [f.message for f in hits]
