"""Stage tests for layout and table finding on synthetic pages: one regression test per bug found."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pydantic
import pytest

from pipeline.engine import process_path
from pipeline.parse.layout import Word, build_lines, is_figure, transform_words
from pipeline.parse.table_types import RawTable, Rules, TableFinderSettings
from pipeline.parse.tables import find_tables

H = 9.0  # line height of the synthetic pages


def words(rows: Sequence[Sequence[tuple[float, str]]], top: float = 100.0, step: float = 14.0) -> list[Word]:
    """Rows of (x0, text); each character is 5 pt wide."""
    out: list[Word] = []
    for r, row in enumerate(rows):
        y0 = top + r * step
        for i, (x0, text) in enumerate(row):
            out.append((x0, y0, x0 + 5.0 * len(text), y0 + H, text, r, 0, i))
    return out


def grid(t: RawTable) -> list[list[str]]:
    out = []
    for row in t.rows:
        cells = [""] * t.n_cols
        for c in row:
            cells[c.col] = c.text
        out.append(cells)
    return out


def one_table(rows: Sequence[Sequence[tuple[float, str]]], rules: Rules | None = None) -> RawTable:
    tables = find_tables(build_lines(transform_words(words(rows), None)), 1, 600.0, rules)
    assert len(tables) == 1, [grid(t) for t in tables]
    return tables[0]


def test_figures() -> None:
    for t in ["1,234", "(1,234)", "-12.5", "12%", "$1,234", "△747", "—", "―", "2025", "(12)%"]:
        assert is_figure(t), t
    for t in ["Revenue", "Note", "10-K", "Q1"]:
        assert not is_figure(t), t


def test_statement_with_dollar_columns_and_year_heads() -> None:
    t = one_table(
        [
            [(60, "(Millions)"), (370, "2018"), (440, "2017")],
            [(60, "Net"), (80, "sales"), (345, "$"), (380, "5,363"), (414, "$"), (450, "4,869")],
            [(60, "Cost"), (85, "of"), (98, "sales"), (385, "(467)"), (455, "373")],
            [(60, "Gross"), (92, "profit"), (345, "$"), (380, "4,896"), (414, "$"), (450, "5,242")],
        ]
    )
    assert grid(t) == [
        ["(Millions)", "2018", "2017"],
        ["Net sales", "5,363", "4,869"],
        ["Cost of sales", "(467)", "373"],
        ["Gross profit", "4,896", "5,242"],
    ]
    assert t.header_rows == 1
    assert t.rows[1][1].currency == "$"


def test_currency_sign_after_a_figure_opens_the_next_cell() -> None:
    # Regression: "1,321.2 $" was read as one cell when the next column's "$" sat close to the figure.
    t = one_table(
        [
            [(60, "Net"), (80, "sales"), (290, "$"), (310, "1,321.2"), (352, "$"), (362, "1,238.4")],
            [(60, "Operating"), (110, "income"), (315, "199.6"), (367, "190.0")],
        ]
    )
    assert [r[1:] for r in grid(t)] == [["1,321.2", "1,238.4"], ["199.6", "190.0"]]


def test_section_heading_is_not_merged_into_the_indented_row_below() -> None:
    # Regression: "Net sales" over indented segment names became "Net sales Machine Tools".
    t = one_table(
        [
            [(380, "2025"), (450, "2024")],
            [(60, "Net"), (80, "sales")],
            [(70, "Machine"), (110, "Tools"), (380, "73,628"), (450, "79,217")],
            [(70, "Automotive"), (125, "Parts"), (375, "102,498"), (450, "99,995")],
            [(60, "Total"), (380, "176,126"), (445, "179,212")],
        ]
    )
    assert [r[0] for r in grid(t)][t.header_rows :] == [
        "Net sales",
        "Machine Tools",
        "Automotive Parts",
        "Total",
    ]


def test_wrapped_label_joins_the_row_with_the_figures() -> None:
    rows = [
        [(60, "Revenue"), (380, "1,000"), (450, "900")],
        [(60, "Net"), (80, "cash"), (105, "provided"), (150, "by"), (165, "operating")],
        [(70, "activities"), (385, "120"), (455, "110")],
    ]
    tables = find_tables(build_lines(transform_words(words(rows, step=11.0), None)), 1, 600.0)
    assert [r[0] for r in grid(tables[0])] == ["Revenue", "Net cash provided by operating activities"]


def test_dot_leaders_and_ideographic_spaces_are_not_words() -> None:
    raw = words([[(60, "Defense"), (100, "........"), (300, "699"), (350, "709")]])
    raw.append((200, 100, 205, 109, "\u3000", 0, 0, 9))
    lines = build_lines(transform_words(raw, None))
    assert [s.text for s in lines[0].segments] == ["Defense", "699", "709"]


def test_a_currency_sign_close_after_a_figure_opens_the_next_cell() -> None:
    # Salesforce's statement of equity: "$ (4,000)" then, 2 pt later, the "$" of the next column.
    raw = words([[(60, "Balance"), (200, "(4,000)"), (236, "$"), (260, "55,047")]])
    assert [s.text for s in build_lines(transform_words(raw, None))[0].segments] == [
        "Balance",
        "(4,000)",
        "$",
        "55,047",
    ]
    # A column head "2022 $ million": the sign names the unit, it opens no cell.
    raw = words([[(300, "2022"), (322, "$"), (330, "million"), (400, "2023"), (422, "$"), (430, "million")]])
    assert [s.text for s in build_lines(transform_words(raw, None))[0].segments] == [
        "2022 $ million",
        "2023 $ million",
    ]
    # A line that ends in a sign prints its signs after the figures: they stay with them.
    raw = words(
        [[(60, "Balance"), (200, "1"), (206, "234"), (223, "$"), (300, "5"), (306, "678"), (323, "$")]]
    )
    assert [s.text for s in build_lines(transform_words(raw, None))[0].segments] == [
        "Balance",
        "1 234 $",
        "5 678 $",
    ]


def test_unit_line_under_year_heads_belongs_to_the_header() -> None:
    t = one_table(
        [
            [(380, "2025"), (450, "2024")],
            [(385, "£m"), (455, "£m")],
            [(60, "Revenue"), (375, "1,368.9"), (445, "1,234.5")],
            [(60, "Operating"), (110, "profit"), (385, "192.5"), (455, "161.4")],
        ]
    )
    assert t.header_rows == 1
    assert grid(t)[0][1:] == ["2025 £m", "2024 £m"]


def test_a_footnote_mark_after_a_year_head_keeps_the_years_in_the_header() -> None:
    # "2020⁽¹⁾  2019  2018" (eBay's 2020 10-K, page 77): the mark was read as the figure -1, the year line
    # as a body row, and the row of years became a line of the cash flow sum (a false TOT001).
    t = one_table(
        [
            [(380, "2020"), (401, "(1)"), (450, "2019"), (520, "2018")],
            [(60, "Classifieds"), (380, "328"), (450, "378"), (520, "349")],
            [(60, "StubHub"), (375, "(1,055)"), (450, "153"), (520, "102")],
            [(60, "Total"), (380, "(727)"), (450, "531"), (520, "451")],
        ]
    )
    assert t.header_rows == 1
    assert grid(t)[1][0] == "Classifieds"
    # two marks on one head, one on the next ("2021⁽¹⁾⁽²⁾  2020⁽³⁾", eBay's 2021 10-K, page 74)
    marks = one_table(
        [
            [(380, "2021"), (401, "(1)(2)"), (450, "2020"), (471, "(3)"), (520, "2019")],
            [(60, "Classifieds"), (380, "(25)"), (450, "142"), (520, "167")],
            [(60, "StubHub"), (375, "(411)"), (450, "328"), (520, "378")],
        ]
    )
    assert marks.header_rows == 1
    # a "(1)" that is not right after a year is a figure: the line is body
    body = one_table(
        [
            [(60, "Items"), (380, "2020"), (450, "(1)"), (520, "2018")],
            [(60, "Classifieds"), (380, "328"), (450, "378"), (520, "349")],
            [(60, "StubHub"), (375, "(1,055)"), (450, "153"), (520, "102")],
        ]
    )
    assert body.header_rows == 0


def test_the_ebay_page_reads_its_year_heads_and_raises_no_false_sum() -> None:
    """The smallest real page of the class: eBay's 2020 10-K, page 77 (development split)."""
    result = process_path(Path(__file__).parent / "data" / "ebay_2020_10k_p77.pdf")
    (statement,) = [s for s in result.statements if "discontinued operations" in (s.title or "")]
    assert [c.period.key if c.period else None for c in statement.columns] == ["FY2020", "FY2019", "FY2018"]
    assert not [f for f in result.flags if f.rule == "TOT001"]


def test_prose_with_numbers_is_not_a_table() -> None:
    rows = [
        [
            (60, "Revenue"),
            (102, "increased"),
            (150, "by"),
            (165, "8.4%"),
            (190, "from"),
            (215, "$1,234.5"),
            (260, "million"),
            (300, "in"),
            (312, "2024"),
            (335, "to"),
            (348, "$1,338.2"),
            (392, "million."),
        ],
        [
            (60, "Operating"),
            (110, "income"),
            (145, "rose"),
            (170, "12%"),
            (190, "to"),
            (203, "$245.6"),
            (240, "million"),
            (280, "in"),
            (292, "2025"),
            (315, "on"),
            (328, "higher"),
            (362, "volumes."),
        ],
    ]
    assert find_tables(build_lines(transform_words(words(rows), None)), 1, 600.0) == []


def test_grid_rules_merge_multi_line_cells() -> None:
    rows = [
        [(60, "Item"), (380, "2025"), (450, "2024")],
        [(60, "Long"), (85, "label")],
        [(60, "continues"), (380, "10"), (450, "20")],
        [(60, "Other"), (380, "30"), (450, "40")],
    ]
    ys = [98.0, 112.0, 140.0, 154.0]
    rules = Rules(
        horizontal=[(y, 50.0, 520.0) for y in ys],
        vertical=[(x, 98.0, 154.0) for x in (50.0, 360.0, 430.0, 520.0)],
    )
    t = one_table(rows, rules)
    assert t.method == "ruled"
    assert [r[0] for r in grid(t)][-2:] == ["Long label continues", "Other"]


def test_share_beside_next_years_amount_between_group_rules() -> None:
    # Regression (Salesforce 2023 10-K): "2 %" then "$ 386" read as one cell, because a "%" after a
    # space was not kept with its figure, so the next column's "$" did not open a new cell.
    rows = [
        [
            (60, "Cost"),
            (85, "of"),
            (98, "revenues"),
            (245, "$"),
            (272, "499"),
            (334, "2"),
            (341, "%"),
            (352, "$"),
            (382, "386"),
            (444, "1"),
            (451, "%"),
            (462, "$"),
            (495, "241"),
        ],
        [(60, "Research"), (262, "1,136"), (334, "3"), (382, "918"), (444, "4"), (495, "703")],
        [(60, "Marketing"), (262, "1,256"), (334, "4"), (372, "1,104"), (444, "4"), (495, "941")],
    ]
    rules = Rules(horizontal=[], vertical=[(x, 95.0, 140.0) for x in (289.5, 399.6, 512.2)])
    body = [[c for c in r[1:] if c] for r in grid(one_table(rows, rules))]
    assert body == [
        ["499", "2 %", "386", "1 %", "241"],
        ["1,136", "3", "918", "4", "703"],
        ["1,256", "4", "1,104", "4", "941"],
    ]


def test_finder_settings_are_named_and_reject_unknown_keys() -> None:
    with pytest.raises(pydantic.ValidationError):
        TableFinderSettings(region_gap=3.0)  # type: ignore[call-arg]
    rows = [
        [(60, "Title"), (300, "2025"), (400, "2024")],
        [(60, "Revenue"), (300, "1,200"), (400, "1,100")],
        [(60, "Costs"), (300, "(700)"), (400, "(650)")],
        [(60, "Profit"), (300, "500"), (400, "450")],
    ]
    lines = build_lines(transform_words(words(rows), None))
    assert [len(t.rows) for t in find_tables(lines, 1, 600.0)] == [4]
    # The settings reach the finder: with no lines searched above the body, the year heads are not read.
    narrow = find_tables(lines, 1, 600.0, settings=TableFinderSettings(header_lines=0))
    assert [t.caption for t in narrow] == [[]] and narrow[0].header_rows == 0


def _dates(rights: Sequence[float], dates: Sequence[str]) -> list[tuple[float, str]]:
    """Words of dates, each right-aligned at its column's right edge (each character 5 pt wide)."""
    out: list[tuple[float, str]] = []
    for right, date in zip(rights, dates, strict=True):
        words = date.split()
        x = right - sum(5.0 * len(w) for w in words) - 3.0 * (len(words) - 1)
        for word in words:
            out.append((x, word))
            x += 5.0 * len(word) + 3.0
    return out


@pytest.mark.parametrize(
    ("dates", "rights"),
    [
        # Kraft Heinz's 52/53-week years (2021 10-K, page 54)
        (["December 25, 2021", "December 26, 2020", "December 28, 2019"], [400.0, 485.0, 570.0]),
        (["25 December 2021", "26 December 2020", "28 December 2019"], [400.0, 481.0, 562.0]),
    ],
)
def test_dates_side_by_side_are_column_heads_however_close(dates: list[str], rights: list[float]) -> None:
    # A 52/53-week year's heads fill their columns: the gaps between the dates are narrower than a column
    # gap, and the three dates read as one title (no header, no period on any column).
    def figures(*texts: str) -> list[tuple[float, str]]:
        return [(right - 5.0 * len(text), text) for right, text in zip(rights, texts, strict=True)]

    t = one_table(
        [
            _dates(rights, dates),
            [(60, "Net"), (80, "sales"), *figures("26,042", "26,185", "24,977")],
            [(60, "Cost"), (85, "of"), (98, "sales"), *figures("17,360", "17,008", "16,830")],
            [(60, "Gross"), (92, "profit"), *figures("8,682", "9,177", "8,147")],
        ]
    )
    assert t.header_rows == 1
    assert [c.text for c in t.rows[0] if c.col > 0] == dates
