"""Two columns' heads printed a word space apart on one line are two heads, not one.

eBay's 2020 intangible assets print each date's "Gross Carrying Amount  Accumulated Amortization  Net
Carrying Amount  Weighted Average Useful Life (Years)", the last two so close that "Net Carrying" and
"Average Useful" were one segment: the net column's head read "Net Carrying Average Useful Amount", a head
of averages, and its amounts were left out of the statement (no footing checked them); the life column's
head lost two words. JPMorgan's fair-value roll-forward ("Transfers into level 3", "Transfers (out of)
level 3") and its derivatives table had the same. Now (``pipeline.parse.head_split``) a head segment is
cut where a word gap falls in the gutter between two value columns and each side is centred on a head of
its own column on the line above or below; a phrase centred over its columns as a whole, and a period
head, are not.

Synthetic pages in the layout of :mod:`tests.test_layout_tables` (each character 5 pt wide, lines 9 pt
high: a gap over 7.65 pt splits a line), each failing before the change where it says so.
"""

from __future__ import annotations

from tests.test_layout_tables import grid, one_table

BODY = [
    [(60, "Customer"), (105, "lists"), (235, "369"), (318, "9"), (380, "3")],
    [(60, "All"), (80, "other"), (235, "159"), (318, "3"), (380, "4")],
    [(60, "Total"), (235, "528"), (313, "12")],
]
"""Three value columns: right edges at 250, 323 and 385."""


def test_two_heads_a_word_space_apart_are_cut_between_their_columns() -> None:
    t = one_table(
        [
            [(217.5, "Gross"), (355.5, "Weighted")],
            # "Net Carrying" centred on "Amount", "Average Useful" on "Weighted" and "Life": 5 pt apart.
            [(210, "Carrying"), (280, "Net"), (297, "Carrying"), (342, "Average"), (379, "Useful")],
            [(215, "Amount"), (293.5, "Amount"), (365.5, "Life")],
            *BODY,
        ]
    )
    assert grid(t)[0] == ["", "Gross Carrying Amount", "Net Carrying Amount", "Weighted Average Useful Life"]
    assert grid(t)[1:] == [
        ["Customer lists", "369", "9", "3"],
        ["All other", "159", "3", "4"],
        ["Total", "528", "12", ""],
    ]


def test_a_phrase_centred_over_two_columns_is_one_head() -> None:
    # "Pension Benefits" over "2021" and "2020": its words are not centred on either column's head.
    t = one_table(
        [
            [(210, "Carrying"), (300, "Pension"), (340, "Benefits")],
            [(215, "Amount"), (303, "2021"), (365, "2020")],
            *BODY,
        ]
    )
    heads = [c.text for row in t.rows[: t.header_rows] for c in row]
    assert "Pension Benefits" in heads, grid(t)


def test_a_period_head_is_never_cut() -> None:
    # The first test's geometry, a month among the words: its line is a period's, whatever lines up under it.
    t = one_table(
        [
            [(217.5, "Gross"), (355.5, "Weighted")],
            [(210, "Carrying"), (280, "Net"), (297, "Carrying"), (342, "January"), (379, "Useful")],
            [(215, "Amount"), (293.5, "Amount"), (365.5, "Life")],
            *BODY,
        ]
    )
    assert "Weighted January Useful Life" not in grid(t)[0], grid(t)
