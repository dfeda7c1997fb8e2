"""A unit note read into every column head says nothing of the columns (generated table).

Kraft Heinz centres "(in millions, except per share data)" under the dates heading its earnings-per-share
note, and the table reader joins it to every column's head. Its "per share" made each column one of
per-share figures, which do not add up: the note had no value column, no statement, and no check ran on it,
so a weighted-average share count keyed with a digit doubled raised nothing (development seed 10).
"""

from __future__ import annotations

import pytest

from pipeline.statements.columns import statement_columns, statement_rows
from tests.support.tables import make_table

_ROWS = [
    ("Net income attributable to common shareholders", ["356", "1,935"]),
    ("Weighted average shares of common stock outstanding", ["1,223", "1,221"]),
    ("Effect of dilutive equity awards", ["5", "3"]),
    ("Weighted average shares, including dilutive effect", ["1,228", "1,224"]),
]


@pytest.mark.parametrize(
    "note",
    ["(in millions, except per share data)", "(In thousands, except share and per share amounts)"],
)
def test_a_unit_note_in_the_heads_keeps_the_value_columns(note: str) -> None:
    table = make_table(
        _ROWS,
        periods=("2020-12-26", "2019-12-28"),
        headers=(f"December 26, 2020 {note}", f"December 28, 2019 {note}"),
    )
    assert [c.col for c in statement_columns(table, statement_rows(table))] == [1, 2]


@pytest.mark.parametrize("head", ["Price per share", "Weighted average exercise price", "Amount per unit"])
def test_a_head_of_per_share_figures_is_still_no_value_column(head: str) -> None:
    table = make_table(_ROWS, periods=("FY2020", "FY2019"), headers=(head, "Shares"))
    assert [c.col for c in statement_columns(table, statement_rows(table))] == [2]
