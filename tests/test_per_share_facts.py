"""A per-share line is never published as the amount its label names.

AES's quarterly data prints, under "Basic earnings (loss) per share:", the line "Net income (loss)
attributable to The AES Corporation common stockholders  0.22  (0.12) …": a per-share figure whose label
names net income. Read as net income in a table "in millions", 0.22 became 220,000 of net income, a fact
published as certain; Amcor's earnings release printed "EPS (Diluted US cents)" beside each quarter's
"$ million", and 7.3 cents became 7.3 million of net income. Now (``pipeline.figures.facts``) a figure in
cents on a line that its label or its section heading makes per-share (``pipeline.figures.line_kinds``)
gives no amount fact (the numerator printed in whole millions under the same heading is the amount it
names: Kraft Heinz's, JPMorgan's), and neither does a column headed as per-share figures; a unit note
("except per share data", "except share and per share amounts") names no such column.
"""

from __future__ import annotations

import pytest

from pipeline.figures.facts import extract_facts
from pipeline.figures.taxonomy import load_taxonomy
from tests.support.printed import printed_rows
from tests.support.tables import make_table

TAX = load_taxonomy()

QUARTERS = printed_rows("""
    Revenue                                                       | 2,338 | 2,217
    Basic earnings per share:
    Net income attributable to the Company                        | 144   | (83)
    Income from continuing operations attributable to the Company | 0.22  | (0.13)
    Income from discontinued operations                           | —     | 0.01
    Net income attributable to the Company common stockholders    | 0.22  | (0.12)
""")


def test_lines_under_a_per_share_heading_are_no_amounts() -> None:
    facts = extract_facts([make_table(QUARTERS, periods=("Q1-2020", "Q2-2020"))], TAX)
    amounts = sorted((f.metric, f.value) for f in facts if f.unit != "per_share")
    assert amounts == [
        ("net_income_attributable_to_parent", -83e6),
        ("net_income_attributable_to_parent", 144e6),
        ("revenue", 2_217e6),
        ("revenue", 2_338e6),
    ]


def test_a_per_share_column_beside_amounts_gives_no_amount() -> None:
    t = make_table(
        [("Net income attributable to the Company", ["109", "7.3", "181", "12.3"])],
        periods=("Q2-2022", "Q2-2022", "Q2-2023", "Q2-2023"),
        headers=(
            "2022 $ million",
            "2022 EPS (Diluted US cents)",
            "2023 $ million",
            "2023 EPS (Diluted US cents)",
        ),
    )
    assert sorted(f.value or 0.0 for f in extract_facts([t], TAX)) == [109e6, 181e6]


@pytest.mark.parametrize("note", ["except per share data", "except share and per share amounts"])
def test_a_unit_note_heads_amounts(note: str) -> None:
    t = make_table(
        [("Revenue", ["100.0", "90.0"])],
        headers=(f"2025 (in millions, {note})", f"2024 (in millions, {note})"),
    )
    assert sorted(f.value or 0.0 for f in extract_facts([t], TAX)) == [90e6, 100e6]
