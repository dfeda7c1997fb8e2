"""A column whose total happens to be 100 is amounts, not shares, when its lines print amounts over 100.

A total line printing exactly 100 marks a column as shares of a total ("% of revenue" columns print 100 on
their total line and no "%" elsewhere). 3M's 2022 lease note prints "Total finance lease liabilities" of
100 (millions) under leased property of 223 and its amortization of (117): the whole prior-year column was
dropped as shares, the property's net line was proven in one column only, and a keying error in that column
(218 re-keyed 2,118 by the planted-errors bench) left it unproven and unflagged. Shares of a total are at
most 100, one line perhaps beyond it against an elimination; several lines over 100 are amounts.
"""

from __future__ import annotations

from pipeline.checks.sums import check_sums
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.statements.build import build_statements
from pipeline.statements.columns import statement_columns, statement_rows
from schemas.models import Table
from tests.support.printed import printed_rows
from tests.support.tables import make_table

TAX = load_taxonomy()


def lease_note(property_at_cost: str = "218") -> Table:
    return make_table(
        printed_rows(f"""
            Property and equipment, at cost            | {property_at_cost} | 223
            Accumulated amortization                   | (126)              | (117)
            Property and equipment, net                | 92                 | 106
            Current obligations of finance leases      | 11                 | 7
            Finance leases, net of current obligations | 75                 | 93
            Total finance lease liabilities            | 86                 | 100
        """),
        periods=("FY2022", "FY2021"),
    )


def shares() -> Table:
    return make_table(
        printed_rows("""
            Americas | 1,812 | 45.3
            Europe   | 1,406 | 35.2
            Asia     | 781   | 19.5
            Total    | 3,999 | 100.0
        """),
        periods=("FY2022", None),
        headers=("Revenue", "% of total"),
    )


def test_a_total_of_100_over_amounts_is_an_amount() -> None:
    table = lease_note()
    assert [c.col for c in statement_columns(table, statement_rows(table))] == [1, 2]


def test_a_column_of_shares_totalling_100_is_still_shares() -> None:
    table = shares()
    assert [c.col for c in statement_columns(table, statement_rows(table))] == [1]


def test_a_keying_error_beside_a_total_of_100_is_flagged() -> None:
    table = lease_note("2,118")
    flags = check_sums([table], build_statements([table], {}, TAX), TAX)
    assert [f.rule for f in flags] == ["TOT001"], [f.message for f in flags]
    assert "2,118" in " ".join(e.text for f in flags for e in f.evidence)
