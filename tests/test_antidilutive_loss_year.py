"""A loss year's diluted loss per share is the basic one: the dilutive shares are left out (antidilution).

Adding the dilutive shares to a loss would make the loss per share smaller, so US GAAP (ASC 260-10-45-20)
and IFRS (IAS 33.43) leave them out: the diluted loss per share of a loss year is the loss over the basic
shares. Many filers still print the diluted share count of the other years' calculation in that column,
and EPS001 divided the loss by it (a 5 % dilution breaks the quotient beyond the room for the two-class
method) and flagged a figure that is right. A diluted per-share figure of a loss equal to the basic one is
now read as antidilution; one that equals neither is still a break.
"""

from __future__ import annotations

from pipeline.checks.per_share import check_per_share
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.statements.build import build_statements
from schemas.models import Flag, Table
from tests.support.tables import make_table

TAX = load_taxonomy()


def _table(diluted_loss: str = "(1.29)", basic_shares_loss: str = "240") -> Table:
    rows: list[tuple[str, list[str | None]]] = [
        ("Net income (loss)", ["1,250", "980", "(310)"]),
        ("Weighted-average shares outstanding - basic", ["250", "245", basic_shares_loss]),
        ("Weighted-average shares outstanding - diluted", ["260", "255", "252"]),
        ("Basic earnings (loss) per share", ["5.00", "4.00", "(1.29)"]),
        ("Diluted earnings (loss) per share", ["4.81", "3.84", diluted_loss]),
    ]
    return make_table(rows, periods=("FY2024", "FY2023", "FY2022"))


def _flags(table: Table) -> list[Flag]:
    return check_per_share([table], build_statements([table], {}, TAX))


def test_a_loss_years_diluted_figure_equal_to_the_basic_one_is_antidilution() -> None:
    assert _flags(_table()) == []


def test_a_loss_years_diluted_figure_keyed_wrong_is_still_a_break() -> None:
    flags = _flags(_table(diluted_loss="(1.92)"))
    assert [f.rule for f in flags] == ["EPS001"] and "(1.92)" in flags[0].message


def test_the_basic_figure_itself_is_still_checked_in_the_loss_year() -> None:
    flags = _flags(_table(basic_shares_loss="420"))  # two digits swapped in the basic count
    assert [f.rule for f in flags] == ["EPS001"] and any("420" in e.text for e in flags[0].evidence)
