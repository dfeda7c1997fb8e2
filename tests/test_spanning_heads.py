"""A head printed once over several columns spans them all, whatever its width.

3M's 2021 10-K shows a change in accounting principle with "2020" printed once over "Under Prior Method"
and "As Adjusted", under "Year ended December 31," centred over all four columns; Ulta Beauty's earnings
release prints "13 Weeks Ended" over each date's amount and its percentage of sales, and "(Unaudited)" under
the dates. A head narrower than the columns it spans falls into one of them or into the gutter between:
the year headed one column and the other had no period, and the line of sub-heads under the years was read
as the table's first row (3M's income statement columns "2020" and "Year ended December 31," — one column
with no period, one with a period whose year was printed over another). Now (``pipeline.parse.table_grid``):

* a line of heads over the figures, with nothing in the label column but the unit, belongs to the heads;
* a head spans the run of headed columns whose middle it stands over (within a quarter of a column),
  unless it stands over the middle of its own column's heads ("% of Total" over "Revenues");
* a spanning head printed under the one-column heads of its columns comes after them, in reading order;
* a line of heads over the figures under a caption ends the table above it, as a line of years does
  (a note's title, its caption and "Cost  Gains  Losses  Fair value" under a table were read as its rows).

Synthetic pages here (the layout of :mod:`tests.test_layout_tables`); the generated layout variants with
such a table (the trait ``change_effects``) below.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pipeline.parse.layout import build_lines, transform_words
from pipeline.parse.table_types import RawTable
from pipeline.parse.tables import find_tables
from schemas.models import StatementColumn
from tests.support.layouts import LayoutCases
from tests.test_layout_tables import grid, one_table, words

BODY = [
    [(60, "Net"), (80, "income"), (305, "5,393"), (375, "5,458"), (455, "4,582"), (525, "4,529")],
    [(60, "Other"), (90, "items"), (310, "(21)"), (380, "(86)"), (460, "(53)"), (530, "(15)")],
    [(60, "Comprehensive"), (130, "income"), (305, "5,372"), (375, "5,372"), (455, "4,529"), (525, "4,514")],
]
"""Four columns of figures, right edges at 330, 400, 480 and 550."""


def spans(t: RawTable, row: int) -> list[tuple[str, int, int]]:
    """The cells of one row: (text, first column, columns)."""
    return sorted(((c.text, c.col, c.col_span) for c in t.rows[row]), key=lambda x: x[1])


def test_a_year_in_the_gutter_spans_the_two_columns_whose_heads_it_stands_over() -> None:
    t = one_table(
        [
            [(347.5, "2020"), (497.5, "2019")],
            [(315, "Old"), (385, "New"), (465, "Old"), (535, "New")],
            *BODY,
        ]
    )
    assert t.header_rows == 2, grid(t)
    assert spans(t, 0) == [("2020", 1, 2), ("2019", 3, 2)]
    assert grid(t)[1] == ["", "Old", "New", "Old", "New"]


def test_a_period_head_centred_over_four_columns_spans_all_four() -> None:
    def first_row(heads: Sequence[str]) -> list[tuple[str, int, int]]:
        over = [(395, "Year"), (420, "ended"), (450, "2020")]
        return spans(one_table([over, list(zip((315, 385, 465, 535), heads, strict=True)), *BODY]), 0)

    assert first_row(["East", "West", "North", "Total"]) == [("Year ended 2020", 1, 4)]
    # a name printed twice makes two spans: one head over the middle two is not over both
    assert first_row(["Old", "New", "Old", "New"]) == [("Year ended 2020", 2, 2)]


def test_a_period_head_over_two_years_each_over_the_same_names_spans_both() -> None:
    # JPMorgan's non-GAAP reconciliation: "Three months ended" over "2021" and "2020", each over
    # "Reported  Adjustments  Managed"; the names repeat under the two years, which tell the spans apart.
    names = [(235, "Rep"), (285, "Adj"), (335, "Man"), (405, "Rep"), (455, "Adj"), (505, "Man")]
    figures = [(235, "354"), (285, "304"), (335, "658"), (405, "211"), (455, "198"), (505, "409")]
    t = one_table(
        [
            [(332.5, "Three"), (362.5, "months"), (397.5, "ended")],
            [(282.5, "2021"), (452.5, "2020")],
            names,
            [(60, "Revenue"), *figures],
            [(60, "Expense"), *figures],
        ]
    )
    assert spans(t, 0) == [("Three months ended", 1, 6)], grid(t)
    assert spans(t, 1) == [("2021", 1, 3), ("2020", 4, 3)], grid(t)


def test_a_head_centred_over_its_own_column_stays_there() -> None:
    # "% of" over "Total" of the second column: the heads of the first and third are as far on either side.
    t = one_table(
        [
            [(385, "%"), (395, "of")],
            [(315, "2020"), (375, "Total"), (460, "2019"), (525, "Total")],
            *BODY,
        ]
    )
    assert grid(t)[0] == ["", "2020", "% of Total", "2019", "Total"], grid(t)


def test_a_head_over_a_column_with_no_head_under_it_stays_there() -> None:
    # "Increase" over the percentage column between two years' pairs is centred over "2022 ... 2023" too.
    t = one_table(
        [
            [(385, "Increase")],
            [(280, "2023"), (340, "2022"), (460, "2023"), (520, "2022")],
            [
                (60, "Net"),
                (80, "sales"),
                (285, "354"),
                (345, "304"),
                (405, "16%"),
                (465, "682"),
                (525, "586"),
            ],
            [
                (60, "Cost"),
                (85, "of"),
                (98, "sales"),
                (285, "211"),
                (345, "198"),
                (410, "7%"),
                (465, "420"),
                (525, "401"),
            ],
        ]
    )
    assert grid(t)[0] == ["", "2023", "2022", "Increase", "2023", "2022"], grid(t)


def test_a_year_over_a_middle_columns_wide_head_spans_all_three() -> None:
    # "2022" centred over "Impacted  Not Impacted  Total": the middle head is centred under it as well
    t = one_table(
        [
            [(340, "2022")],
            [(270, "Impacted"), (325, "Not"), (345, "Impacted"), (450, "Total")],
            [(60, "Revenues"), (290, "354"), (370, "304"), (460, "658")],
            [(60, "Costs"), (290, "211"), (370, "198"), (460, "409")],
        ]
    )
    assert spans(t, 0) == [("2022", 1, 3)], grid(t)


def test_a_spanning_head_under_the_dates_comes_after_them() -> None:
    # Each date over its amount and its percentage of sales; the second date's "(Unaudited)" reaches
    # into the percentage column, its year does not: the year is read before it, in the leaf row.
    t = one_table(
        [
            [(410, "13"), (425, "Weeks"), (455, "Ended")],
            [(368, "January"), (408, "28,"), (478, "January"), (518, "29,")],
            [(382, "2023"), (492, "2022")],
            [(355, "(Unaudited)"), (478, "(Unaudited)")],
            [(60, "Net"), (80, "sales"), (357, "3,226"), (413, "100.0%"), (474, "2,729"), (520, "100.0%")],
            [(60, "Gross"), (92, "profit"), (357, "1,212"), (418, "37.6%"), (474, "1,027"), (525, "37.6%")],
        ]
    )
    heads = [" ".join(text for text, _, _ in spans(t, r)) for r in range(t.header_rows)]
    assert heads == ["13 Weeks Ended", "January 28, January 29,", "2023 (Unaudited) 2022", "(Unaudited)"], (
        grid(t)
    )
    assert spans(t, 0) == [("13 Weeks Ended", 1, 3)]


def tables(rows: Sequence[Sequence[tuple[float, str]]]) -> list[RawTable]:
    return find_tables(build_lines(transform_words(words(rows), None)), 1, 600.0, None)


def test_a_line_of_heads_under_a_caption_starts_the_next_table() -> None:
    found = tables(
        [
            [(315, "2020"), (385, "2019")],
            *[[*row[:-2]] for row in BODY],
            [(60, "10."), (80, "Investments")],
            [(60, "Securities"), (115, "at"), (130, "December"), (175, "31,"), (195, "2020")],
            [(315, "Cost"), (380, "Gains"), (460, "Losses"), (530, "Value")],
            [(60, "Bonds"), (315, "706"), (390, "39"), (465, "(31)"), (535, "714")],
            [(60, "Notes"), (315, "511"), (390, "25"), (465, "(21)"), (535, "515")],
        ]
    )
    assert [len(t.rows) for t in found] == [4, 3], [grid(t) for t in found]
    assert grid(found[1])[0] == ["", "Cost", "Gains", "Losses", "Value"]


def test_the_same_heads_again_under_a_period_are_a_block_of_the_same_table() -> None:
    heads = [(315, "East"), (385, "West"), (465, "North"), (535, "Total")]
    block = [row for row in BODY]

    def period(year: str) -> list[tuple[float, str]]:
        return [(340, "Year"), (365, "ended"), (395, "December"), (440, "31,"), (460, year)]

    found = tables([period("2021"), heads, *block, period("2020"), heads, *block])
    assert [len(t.rows) for t in found] == [10], [grid(t) for t in found]
    # a sentence between: another table under the same heads
    sentence = [
        [(60, "The"), (80, "assets"), (115, "recognised"), (170, "in"), (185, "the"), (205, "balance")]
    ]
    sentence[0] += [
        (245, "sheet"),
        (275, "were"),
        (300, "as"),
        (315, "follows"),
        (355, "this"),
        (380, "year:"),
    ]
    found = tables([period("2021"), heads, *block, *sentence, heads, *block])
    assert [len(t.rows) for t in found] == [5, 4], [grid(t) for t in found]


def test_heads_of_their_own_over_the_same_columns_are_a_block_of_the_same_table() -> None:
    # a quarterly summary: the period's flows, then the balances at its end under heads of their own (the
    # last on two lines), centred over the same columns as the first block's
    flows = [[(310, "Now"), (380, "Was"), (455, "Chg"), (530, "Pct")], *BODY]
    balances: list[list[tuple[float, str]]] = [
        [(455, "Chg")],
        [(310, "End"), (375, "Prior"), (527.5, "Pct%")],
    ]
    found = tables([*flows, *balances, *BODY[:2]])
    assert len(found) == 1, [grid(t) for t in found]
    # under a caption, over other columns: another table
    others: list[list[tuple[float, str]]] = [[(60, "Investments")]]
    others.append([(300, "Cost"), (380, "Gains"), (460, "Loss"), (530, "Value")])
    found = tables([*flows, *others, *BODY[:2]])
    assert len(found) == 2, [grid(t) for t in found]


CASES = LayoutCases("sh", change_effects=True)


def columns(name: str) -> list[StatementColumn]:
    result = CASES.quiet(name)
    (table,) = [t for t in result.tables if (t.title or "").startswith("Comprehensive income")]
    (statement,) = [s for s in result.statements if s.table_id == table.table_id]
    return list(statement.columns)


@pytest.mark.parametrize("name", CASES.names())
def test_each_year_heads_the_prior_method_and_the_adjusted_column(name: str) -> None:
    cur, prev = sorted(CASES.cases[name].years)[-2:][::-1]
    cols = columns(name)
    assert [c.period.key if c.period else None for c in cols] == [f"FY{cur}"] * 2 + [f"FY{prev}"] * 2, cols
    # two measures of one year, never copies of each other: the prior method's column is a dimension
    assert cols[0].context and cols[0].context != cols[1].context, cols
