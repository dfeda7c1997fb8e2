"""CHG001 in rows: "Percent of sales", "… as a percentage of net sales", "Percent change" under a line.

MD&A and segment tables print these ratios under the amount they are computed from (3M's business segment
tables, Amcor's segment results, Corning's "(as a % of net sales)" lines), and no rule read them: a keyed
segment operating income (1,828 printed 1,288) whose percent of sales no longer held raised nothing
(development seeds 16-18). The tables here are generated: one segment layout with the ratio two rows
under its line, one results layout with the ratio named after its line, and the cases that must stay
silent (a ratio off by the filer's rounding, a label naming a line the table does not print).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pipeline.checks import check_document
from pipeline.checks.ratio_rows import check_ratio_rows
from pipeline.figures.keying import keyed_variants
from schemas.models import Flag
from tests.support.printed import printed_rows
from tests.support.tables import make_table

HEADS = ("2025", "2024")
Rows = Sequence[tuple[str, Sequence[str | None]]]

SEGMENT = printed_rows("""
    Sales (millions)                             | 8,345  | 7,431
    Sales change analysis:
    Organic local-currency                       | 1.0 %  | 1.5 %
    Acquisitions                                 | 15.5   | 9.4
    Total sales change                           | 12.3 % | 8.9 %
    Business segment operating income (millions) | 1,828  | 1,858
    Percent change                               | (1.6)% | (3.1)%
    Percent of sales                             | 21.9 % | 25.0 %
""")

RESULTS = printed_rows("""
    Net sales                                  | 3,540   | 3,393   | 3,210
    Adjusted EBIT                              | 265     | 289     | 301
    Adjusted EBIT as a percentage of net sales | 7.5 %   | 8.5 %   | 9.4 %
    Cost of sales                              | (2,761) | (2,612) | (2,488)
    (as a % of net sales)                      | 78.0 %  | 77.0 %  | 77.5 %
""")


def ratio_flags(rows: Rows, heads: Sequence[str] = HEADS, periods: Sequence[str] | None = None) -> list[Flag]:
    periods = tuple(periods or (f"FY{h}" for h in heads))
    return check_ratio_rows([make_table(rows, periods=periods, headers=heads)])


def replaced(rows: Rows, label: str, col: int, text: str) -> Rows:
    return [
        (lab, [text if lab == label and i == col else v for i, v in enumerate(vals)]) for lab, vals in rows
    ]


def test_ratios_that_hold_are_silent() -> None:
    assert ratio_flags(SEGMENT) == []
    assert ratio_flags(RESULTS, ("2025", "2024", "2023")) == []


@pytest.mark.parametrize(
    ("label", "col", "keyed"),
    [
        ("Business segment operating income (millions)", 0, "1,288"),  # swap
        ("Sales (millions)", 1, "7,431,000"),  # scale
        ("Business segment operating income (millions)", 1, "(1,858)"),  # sign
    ],
)
def test_a_keyed_line_or_base_breaks_its_percent_of_sales(label: str, col: int, keyed: str) -> None:
    found = ratio_flags(replaced(SEGMENT, label, col, keyed))
    assert found, "the keyed figure raised nothing"
    assert all(f.rule == "CHG001" for f in found)
    assert any("Percent of sales" in f.message and keyed in f.message for f in found)


def test_a_ratio_named_after_its_line() -> None:
    found = ratio_flags(replaced(RESULTS, "Adjusted EBIT", 1, "829"), ("2025", "2024", "2023"))
    assert [f.message.split(" (")[0] for f in found] == ["Adjusted EBIT as a percentage of net sales"]
    assert "829" in found[0].message


def test_costs_in_parentheses_beside_a_positive_share() -> None:
    found = ratio_flags(replaced(RESULTS, "Cost of sales", 2, "(2,848)"), ("2025", "2024", "2023"))
    assert [f.message.split(" (")[0] for f in found] == ["(as a % of net sales)"]


def test_a_ratio_off_by_the_filers_rounding_is_silent() -> None:
    # 1,828 / 8,345 is 21.9 %; a filer computing from unrounded figures may print 22.0 %.
    assert ratio_flags(replaced(SEGMENT, "Percent of sales", 0, "22.0 %")) == []


def test_a_ratio_whose_line_is_not_printed_is_silent() -> None:
    rows: Rows = printed_rows("""
        Net sales                                       | 3,226.8 | 2,729.4
        Selling, general and administrative expenses    | 762.7   | 650.0
        Operating income (as a percentage of net sales) | 13.9 %  | 13.8 %
    """)
    assert ratio_flags(rows) == []
    assert ratio_flags(replaced(rows, "Net sales", 0, "3,262.8")) == []


def test_a_percent_change_row_against_the_prior_column() -> None:
    rows: Rows = [
        ("Sales (millions)", ["6,827", "6,235", "5,948"]),
        ("Operating income (millions)", ["1,720", "2,066", "1,403"]),
        ("Percent change", ["(16.7)%", "47.2 %", None]),
    ]
    heads = ("2025", "2024", "2023")
    assert ratio_flags(rows, heads) == []
    found = ratio_flags(replaced(rows, "Operating income (millions)", 2, "1,043"), heads)
    assert len(found) == 1 and "Percent change (2024)" in found[0].message


def test_the_localization_names_the_keyed_figure() -> None:
    keyed = replaced(SEGMENT, "Business segment operating income (millions)", 0, "1,288")
    table = make_table(keyed, periods=("FY2025", "FY2024"), headers=HEADS)
    found = check_document([table], [], [], doc_id="doc", source="doc.pdf").flags
    ratio = [f for f in found if f.rule == "CHG001" and "Percent of sales" in f.message]
    assert ratio and ratio[0].localization is not None
    assert ratio[0].localization.corrected == ["1,828"]


def test_keyed_variants_undo_each_kind_of_plant() -> None:
    variants = dict(keyed_variants(1288.0, 0))
    assert variants[1828.0] == "swap"
    assert dict(keyed_variants(-265.0, 0))[265.0] == "sign"
    assert dict(keyed_variants(5_948_000.0, 0))[5948.0] == "scale"
    assert dict(keyed_variants(345.0, 0))[3452.0] == "digit_count"  # a digit dropped
    assert dict(keyed_variants(13445.0, 0))[1345.0] == "digit_count"  # a digit doubled
    assert 1289.0 not in dict(keyed_variants(1288.0, 0))  # the last digit: a rounding slip as much


def test_the_localization_takes_the_keyed_value_the_ratios_rounding_allows() -> None:
    # 8.5 % of 3,393 is 288.4: the printed ratio allows 287.7 to 289.1, and 289 is 829 with two digits
    # swapped. The range's first point (288) would name no keying error, and the base (3,393 were 9,753)
    # no likelier one: the localization names 829 and the value a keyed variant gives.
    rows: Rows = printed_rows("""
        Net sales               | 3,540 | 3,393
        Adjusted EBIT           | 265   | 829
        Adjusted EBIT / Sales % | 7.5   | 8.5
    """)
    table = make_table(rows, periods=("FY2025", "FY2024"), headers=HEADS)
    found = check_document([table], [], [], doc_id="doc", source="doc.pdf").flags
    assert len(found) == 1 and found[0].localization is not None
    assert found[0].localization.corrected == ["289"]
    assert found[0].localization.signatures == ["swap"]


QUARTERS = ("March 31", "June 30", "September 30", "December 31")
QUARTER_PERIODS = ("Q1-2025", "Q2-2025", "Q3-2025", "Q4-2025")


def test_a_quarter_keyed_breaks_two_changes_and_is_one_misprint() -> None:
    # eBay's "% change from prior quarter": 2,668 keyed 2,668,000 breaks June's change and September's,
    # which take it for the prior; December's holds. One figure, one failure, proven by one column.
    rows: Rows = [
        ("Net revenues", ["2,638", "2,668", "2,501", "2,613"]),
        ("% change from prior quarter", ["6 %", "1 %", "(6) %", "4 %"]),
    ]
    assert ratio_flags(rows, QUARTERS, QUARTER_PERIODS) == []
    found = ratio_flags(replaced(rows, "Net revenues", 1, "2,668,000"), QUARTERS, QUARTER_PERIODS)
    assert found and all("2,668,000" in f.message for f in found)


def test_a_margin_whose_line_the_table_names_otherwise() -> None:
    # "EBIT margin" under "Earnings before interest and taxes (EBIT)": the name is not the line's, so the
    # place says which line it is, and two columns must prove it before a third is flagged.
    rows: Rows = printed_rows("""
        Sales                                     | 8,747 | 8,958 | 7,548
        Earnings before interest and taxes (EBIT) | 539   | 1,254 | 501
        EBIT margin                               | 6.2 % | 14.0  | 6.6
    """)
    heads = ("2025", "2024", "2023")
    assert ratio_flags(rows, heads) == []
    found = ratio_flags(replaced(rows, "Earnings before interest and taxes (EBIT)", 1, "12,544"), heads)
    assert len(found) == 1 and "12,544" in found[0].message
    # Proven by one column only, the place says too little.
    two = [*rows[:2], ("EBIT margin", ["6.2 %", "14.0", None])]
    assert ratio_flags(replaced(two, rows[1][0], 1, "12,544"), heads) == []
