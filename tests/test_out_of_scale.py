"""SCL001: a figure keyed at a thousand times its scale where no sum or copy prints it.

A five-year record's earlier years (Adobe's 2020 10-K, selected financial data), a note's single line
(3M's 2021 restated income, American Express's credit concentrations) print figures that enter no sum and
have no copy: ``9,030`` re-keyed ``9,030,000`` broke nothing and went unflagged. A figure about a thousand
times the rest of its row, in a column the table's other rows prove on one scale with theirs, and ten
times every other figure of its column, is now flagged, with the figure over a thousand as its correction.
Here, on the generated layout variants with a five-year record (the trait ``five_year_record``) and on the
smallest tables that show each condition.
"""

from __future__ import annotations

import re

import pytest

from bench.planted_errors import Candidate
from pipeline.checks import check_document
from pipeline.checks.localize import Equation, RelationLog, cell_term
from pipeline.checks.magnitude import check_magnitudes
from sample_docs.generate import FIVE_YEAR_ROWS
from tests.support.layouts import LayoutCases, lines_starting, rekeyed
from tests.support.printed import printed_rows
from tests.support.tables import make_table

CASES = LayoutCases("fy", five_year_record=True)
YEARS = ("FY2025", "FY2024", "FY2023", "FY2022", "FY2021")


test_the_record_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag."""


def _record_figure(name: str, row: str, *, oldest: bool) -> Candidate:
    """A figure of the five-year record's ``row`` line (its lines are the only ones of five figures that are
    not the years of its head or a sentence's): the oldest year's, or the newest."""
    cfg = CASES.cases[name]
    found = [
        (page, figs)
        for page, figs in lines_starting(CASES.rendered(name), [])
        if len(figs) == 5
        and all(re.fullmatch(r"\(?[\d,.]+\)?", w[4]) for w in figs)
        and not all(re.fullmatch(r"(19|20)\d\d", w[4]) for w in figs)
    ]
    assert len(found) == len(FIVE_YEAR_ROWS), found
    page, figures = found[FIVE_YEAR_ROWS.index(row)]
    w = figures[0 if oldest == cfg.prior_first else -1]
    return Candidate(page, (w[0], w[1], w[2], w[3]), w[4])


@pytest.mark.parametrize("row", ["revenue", "net"])
@pytest.mark.parametrize("name", CASES.names())
def test_an_earlier_year_keyed_a_thousand_times_over_is_flagged(name: str, row: str) -> None:
    target = _record_figure(name, row, oldest=True)
    new = rekeyed(target.text, "scale")
    hits, flags = CASES.planted_flags(name, target, new, "SCL001")
    assert len(hits) == 1 and len(flags) == 1, [f.message for f in flags]
    loc = hits[0].localization
    assert loc is not None and loc.signatures == ["scale"]
    assert loc.corrected == [target.text.replace("$", "").strip()]


@pytest.mark.parametrize("name", CASES.names())
def test_a_year_the_statements_print_is_left_to_its_copy(name: str) -> None:
    """The newest year's revenue has its copy in the income statement: XREF001's flag alone speaks."""
    target = _record_figure(name, "revenue", oldest=False)
    _, flags = CASES.planted_flags(name, target, rekeyed(target.text, "scale"), "SCL001")
    assert flags and "SCL001" not in {f.rule for f in flags}, [f.message for f in flags]


# --- the conditions, each on the smallest table that shows it --------------------------------------------

_RECORD = printed_rows("""
    Revenue          | 5,432 | 4,862 | 9,030,000 | 3,808 | 3,513
    Operating income | 1,237 | 1,126 | 1,011     | 882   | 814
    Net income       | 934   | 850   | 763       | 666   | 614
    Total assets     | 6,386 | 5,556 | 4,987     | 4,352 | 4,014
""")


def test_the_table_flags_the_figure_with_its_correction() -> None:
    flags = check_magnitudes([make_table(_RECORD, periods=YEARS)])
    assert [f.rule for f in flags] == ["SCL001"]
    assert flags[0].localization is not None and flags[0].localization.corrected == ["9,030"]


def test_columns_the_rows_do_not_prove_on_one_scale_raise_nothing() -> None:
    """A ledger of balances that come and go: one year is a thousand times the next in two rows of four."""
    rows = printed_rows("""
        Automotive  | 22  | 15    | 8,827
        Healthcare  | 7   | 100   | 300
        Real estate | 550 | 4,385 | 5,211
        Industrials | 19  | 91    | 335
    """)
    assert check_magnitudes([make_table(rows, periods=YEARS[:3])]) == []


def test_a_figure_that_is_not_the_largest_of_its_column_raises_nothing() -> None:
    rows = [*_RECORD[1:], ("Revenue", ["5,432", "4,862", "4,364", "3,808", "3,513"])]
    rows[0] = ("Operating income", ["1,237", "1,126", "1,011,000", "882", "814"])
    rows.append(("Backlog", ["9,000", "9,500", "12,000,000", "8,000", "7,000"]))
    flags = check_magnitudes([make_table(rows, periods=YEARS)])
    assert [f.evidence[0].text for f in flags] == ["Backlog: 12,000,000"]


def test_a_figure_far_more_than_a_thousand_times_its_row_raises_nothing() -> None:
    """No figure of the row is near its thousandth (9,030): the line is not this figure's scale."""
    rows = [*_RECORD[1:], ("Other income", ["(12)", "15", "9,030,000", "(11)", "10"])]
    assert check_magnitudes([make_table(rows, periods=YEARS)]) == []


def test_a_line_that_turns_to_a_loss_is_flagged() -> None:
    """A quarter's loss keyed a thousand times over beside the profits of the other quarters (and a
    quarter of next to nothing): the row's signs and its small figures do not hide it."""
    rows = printed_rows("""
        Interest income        | 12  | 15 | 14        | 11
        Other income (expense) | 229 | 3  | (481,000) | 401
        Gains on sales         | 25  | 30 | 28        | 27
        Impairments            | 40  | 35 | 38        | 36
    """)
    flags = check_magnitudes([make_table(rows, periods=("FY2025", "FY2024", "FY2023", "FY2022"))])
    assert [f.evidence[0].text for f in flags] == ["Other income (expense): (481,000)"]
    assert flags[0].localization is not None and flags[0].localization.corrected == ["(481)"]


def test_a_balance_beside_movements_of_either_sign_is_flagged() -> None:
    """An opening balance keyed a thousand times over in a roll-forward: its row's movements go either
    way, and its closing balance, in a column the other rows prove on one scale, is its comparison."""
    rows = printed_rows("""
        Unrealized gains on securities | 4         | 3    | (1) | 6
        Derivatives                    | (22)      | (44) | 6   | (60)
        Translation adjustment         | (170,000) | 66   | —   | (104)
        Pension adjustments            | (35)      | 12   | 4   | (19)
    """)
    heads = ["Opening", "Change", "Reclassified", "Closing"]
    table = make_table(rows, periods=("FY2024", None, None, "FY2025"), headers=heads)
    flags = check_magnitudes([table])
    assert [f.evidence[0].text for f in flags] == ["Translation adjustment: (170,000)"]
    assert [e.text for e in flags[0].evidence[1:]] == ["Translation adjustment: (104)"]


def test_a_figure_a_holding_relation_prints_is_pinned() -> None:
    table = make_table(_RECORD, periods=YEARS)
    cell = next(c for c in table.cells if c.text == "9,030,000")
    other = next(c for c in table.cells if c.text == "4,987")
    log = RelationLog()
    terms = (cell_term(cell, 9_030_000.0, 0, 1.0, "Revenue"), cell_term(other, 4_987.0, 0, -1.0, "Assets"))
    log.add(Equation("XREF001", terms, 1.0, True, "a copy", "a copy that holds"))
    assert check_magnitudes([table], log) == []


def test_a_change_column_that_flags_the_figure_keeps_one_flag() -> None:
    """CHG001 flags the row's change; the figure it prints is its finding, not SCL001's as well."""
    rows = printed_rows("""
        Orders received    | 9,030,000 | 8,650 | 4.4%
        Backlog            | 5,100     | 4,900 | 4.1%
        Research spending  | 3,930     | 3,750 | 4.8%
        Marketing spending | 1,900     | 1,800 | 5.6%
    """)
    table = make_table(rows, periods=("FY2025", "FY2024", None), headers=["2025", "2024", "% Change"])
    flags = check_document([table], [], [], doc_id="doc", source="doc.pdf").flags
    assert [f.rule for f in flags] == ["CHG001"], [f.message for f in flags]
