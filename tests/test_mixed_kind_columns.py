"""A table of amounts, share counts and per-share figures keeps every period's column.

Foot Locker's 2023 computation of earnings per share prints, a year a column, income (whole millions),
weighted-average shares (one decimal) and earnings per share (cents), with dashes where a year had no
discontinued operations. Each column's most common places then differ with where its dashes fall (whole
in 2022, a tie in 2021), and a column whose places differ from the table's usual ones was taken for
another kind of figure ("17.8" years of life beside millions): only 2022 was a column of the statement,
and no footing of 2021 or 2020 was checked. Now (``pipeline.statements.columns``) a column that prints
most lines with the places another column prints them with is one more period.
"""

from __future__ import annotations

from pipeline.statements.columns import statement_columns, statement_rows
from tests.support.tables import make_table

ROWS = [
    ("Income from continuing operations", ["344", "892", "323"]),
    ("Net loss attributable to noncontrolling interests", ["1", "1", "—"]),
    ("Income from continuing operations attributable to the Company", ["345", "893", "323"]),
    ("Net loss from discontinued operations, net of tax", ["(3)", "—", "—"]),
    ("Net income attributable to the Company", ["342", "893", "323"]),
    ("Weighted-average common shares outstanding", ["94.3", "102.5", "104.3"]),
    ("Dilutive effect of potential common shares", ["1.2", "1.3", "0.8"]),
    ("Weighted-average common shares assuming dilution", ["95.5", "103.8", "105.1"]),
    ("Basic earnings per share", []),
    ("Earnings per share from continuing operations", ["3.66", "8.72", "3.10"]),
    ("Net loss per share from discontinued operations", ["(0.04)", "—", "—"]),
    ("Net earnings per share", ["3.62", "8.72", "3.10"]),
    ("Diluted earnings per share", []),
    ("Earnings per share from continuing operations", ["3.62", "8.61", "3.08"]),
    ("Net loss per share from discontinued operations", ["(0.04)", "—", "—"]),
    ("Net earnings per share", ["3.58", "8.61", "3.08"]),
    ("Anti-dilutive share-based awards excluded", ["2.7", "1.8", "2.5"]),
]


def test_every_period_of_a_mixed_kind_table_is_a_column() -> None:
    t = make_table(ROWS, periods=("FY2022", "FY2021", "FY2020"))
    columns = statement_columns(t, statement_rows(t))
    assert [(c.col, c.period.key if c.period else None) for c in columns] == [
        (1, "FY2022"),
        (2, "FY2021"),
        (3, "FY2020"),
    ]
