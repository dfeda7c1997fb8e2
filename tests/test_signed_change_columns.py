"""A change column whose rows print increases and decreases with their signs: one row turned is a misprint.

Boston Properties' note prints "2014 | December 31, 2013 | Change" per property and an unlabelled total
row; the change column holds as printed in every row, increases and decreases alike. Its total row's change
keyed with the wrong sign ((29,214) for 30,561 less 1,347) was excused as a sign convention
("favourable/(unfavourable)" costs turn the change's sign), and nothing was raised (development seeds
16-18). The convention is now excused only where the column shows it: a column whose other rows print the
change with its sign, both ways, and no second row with the other sign flags the row that turns it.
"""

from __future__ import annotations

from pipeline.checks.changes import check_table_changes
from tests.support.printed import printed_rows
from tests.support.tables import make_table

HEADS = ("2014", "2013", "Change")
PERIODS = ("FY2014", "FY2013", None)

ROWS = printed_rows("""
    505 9th Street       | 2,332    | 2,423    | (91)
    Fountain Square      | 11,083   | 6,636    | 4,447
    767 Fifth Avenue     | (14,990) | (13,531) | (1,459)
    Times Square Tower   | 26,736   | 5,819    | 20,917
    601 Lexington Avenue | 3,177    | 1,200    | 1,977
    Total                | 28,338   | 2,547    | 25,791
""")


def _flags(rows: list[tuple[str, list[str]]]) -> list[str]:
    return [f.message for f in check_table_changes(make_table(rows, periods=PERIODS, headers=HEADS))]


def test_the_column_that_holds_raises_nothing() -> None:
    assert _flags(ROWS) == []


def test_a_change_keyed_with_the_wrong_sign_is_flagged() -> None:
    rows = [*ROWS[:-1], ("Total", ["28,338", "2,547", "(25,791)"])]
    found = _flags(rows)
    assert len(found) == 1 and "(25,791)" in found[0]


def test_a_convention_two_rows_show_is_excused() -> None:
    # Costs printed as favourable/(unfavourable) without a head that says so: two rows turn the sign.
    rows = printed_rows("""
        Revenue          | 12,000 | 11,000 | 1,000
        Other revenue    | 900    | 1,000  | (100)
        Cost of sales    | 7,000  | 6,500  | (500)
        Selling expenses | 2,000  | 2,100  | 100
        Operating income | 3,900  | 3,400  | 500
    """)
    assert _flags(rows) == []
