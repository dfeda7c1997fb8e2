"""An amount-change column under a head that names it, proven by two rows of a three-row table.

Corning's hedges of translated earnings print, for 2015 and 2014, income before taxes and net income, and
under "2015 vs. 2014 Change" the difference of each pair: three lines. A percentage change so headed was
proven by two rows of three, an amount change needed three: a realized gain's change keyed 379 → 379,000
raised nothing (development seeds 19-21). Two differences landing exactly on the printed changes are rarer
than two percentages doing so; a named amount change holds in two rows and two of every three
(:func:`pipeline.checks.changes._holds`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.checks.changes import check_table_changes
from schemas.models import Flag
from tests.support.tables import make_table

_HEADS = ["2015", "2014", "Change"]


def _flags(rows: Sequence[tuple[str, Sequence[str | None]]]) -> list[Flag]:
    return check_table_changes(make_table(rows, headers=_HEADS, periods=("FY2015", "FY2014", None)))


def _hedges(change: str = "379") -> list[tuple[str, Sequence[str | None]]]:
    return [
        ("Realized gain, net", ["653", "274", change]),
        ("Unrealized (loss) gain", ["(573)", "1,095", "(1,668)"]),
        ("Total translated earnings contract gain", ["80", "1,369", "(1,289)"]),
    ]


def test_the_clean_table_raises_nothing() -> None:
    assert _flags(_hedges()) == []


def test_a_change_keyed_wrong_is_flagged() -> None:
    found = _flags(_hedges("379,000"))
    assert [f.rule for f in found] == ["CHG001"]
    assert "Realized gain, net" in found[0].message


def test_an_unnamed_column_still_needs_three_rows() -> None:
    rows = _hedges("379,000")
    table = make_table(rows, headers=["2015", "2014", "Hedges"], periods=("FY2015", "FY2014", None))
    assert check_table_changes(table) == []


def test_a_sensitivity_tables_increase_and_decrease_columns_compare_no_periods() -> None:
    # Kraft Heinz's pension sensitivities: the effects of a 100-basis-point increase and decrease, by plan.
    # Small and the same with either sign, two of them differ by a third in two rows of three.
    rows: list[tuple[str, Sequence[str | None]]] = [
        ("Effect of change in discount rate on pension costs", ["9", "(25)", "10", "(2)"]),
        ("Effect of change in expected rate of return on plan assets", ["(43)", "43", "(29)", "29"]),
        ("Effect of change in discount rate on postretirement costs", ["1", "(1)", "(1)", "1"]),
    ]
    heads = ["U.S. Increase", "U.S. Decrease", "Non-U.S. Increase", "Non-U.S. Decrease"]
    assert check_table_changes(make_table(rows, headers=heads, periods=(None, None, None, None))) == []
