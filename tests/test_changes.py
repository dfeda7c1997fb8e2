"""CHG001: columns of changes and of shares, proven by the table's own rows."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.checks.changes import check_table_changes
from schemas.models import Flag
from tests.support.printed import printed_rows
from tests.support.tables import make_table

HEADS_PCT = ["2025", "2024", "% Change"]
HEADS_BOTH = ["2025", "2024", "$ Change", "% Change"]


def flags(rows: Sequence[tuple[str, Sequence[str | None]]], headers: Sequence[str]) -> list[Flag]:
    table = make_table(rows, headers=headers, periods=("FY2025", "FY2024", None, None)[: len(headers)])
    return check_table_changes(table)


PCT_ROWS = printed_rows("""
    Revenue            | 1,200 | 1,000 | 20.0 %
    Cost of sales      | (700) | (650) | 7.7
    Gross profit       | 500   | 350   | 42.9
    Operating expenses | (220) | (200) | 10.0
    Operating income   | 280   | 150   | 86.7 %
""")


def test_a_percentage_change_column_that_holds_is_silent() -> None:
    assert flags(PCT_ROWS, HEADS_PCT) == []


def test_a_misprinted_figure_breaks_its_rows_change() -> None:
    rows = list(PCT_ROWS)
    rows[2] = ("Gross profit", ["530", "350", "42.9"])  # 500 keyed as 530
    found = flags(rows, HEADS_PCT)
    assert len(found) == 1
    f = found[0]
    assert f.rule == "CHG001" and f.kind == "change_mismatch"
    assert "Gross profit" in f.message and "42.9" in f.message
    # The flag carries the row's figures, so that an analyst sees both periods and the change.
    assert {e.value for e in f.evidence} >= {530e6, 350e6, 42.9}
    assert f.confidence and f.reasons


def test_amount_and_percentage_changes_of_one_row_give_one_flag() -> None:
    rows = printed_rows("""
        Revenue            | 1,200 | 1,000 | 200  | 20.0 %
        Cost of sales      | (700) | (650) | (50) | 7.7
        Gross profit       | 500   | 350   | 150  | 42.9
        Operating expenses | (220) | (200) | (20) | 10.0
        Operating income   | 208   | 150   | 130  | 86.7 %
    """)
    found = flags(rows, HEADS_BOTH)
    assert len(found) == 1
    assert "$ Change" in found[0].message and "% Change" in found[0].message
    assert any("every change column" in r for r in found[0].reasons)


def test_a_favourable_sign_on_one_row_is_no_error() -> None:
    # Costs shown "favourable/(unfavourable)": the change of one row carries the other sign.
    rows = list(PCT_ROWS)
    rows[3] = ("Operating expenses", ["(220)", "(200)", "(10.0)"])
    assert flags(rows, HEADS_PCT) == []


def test_rates_change_in_points_and_are_left_alone() -> None:
    rows = [*PCT_ROWS, ("Gross margin", ["41.7 %", "35.0 %", "6.7 %"])]
    assert flags(rows, HEADS_PCT) == []


def test_a_column_that_fails_in_many_rows_follows_another_rule() -> None:
    rows = [
        *PCT_ROWS[:4],
        ("Other income", ["12", "40", "3.0"]),
        ("Interest", ["(30)", "(10)", "2.5"]),
        ("Tax", ["(60)", "(25)", "8.0"]),
    ]
    assert flags(rows, HEADS_PCT) == []


def test_changes_need_three_rows_of_proof_unless_their_head_names_them() -> None:
    # Two rows that hold and one that fails: under a head naming the change, the head states the relation
    # and two rows prove it (Kraft Heinz 2021's segment results); under a head that names nothing, three
    # rows are needed. Two rows of two, one failing, prove nothing either way.
    rows = [*PCT_ROWS[:2], ("Gross profit", ["530", "350", "42.9"])]
    (flag,) = flags(rows, HEADS_PCT)
    assert flag.rule == "CHG001" and "Gross profit" in flag.message
    assert flags(rows, ["2025", "2024", ""]) == []
    assert flags([PCT_ROWS[0], rows[2]], HEADS_PCT) == []


SHARE_ROWS = printed_rows("""
    Revenue                 | 2,000   | 100.0 %
    Cost of sales           | (1,240) | 62.0
    Gross profit            | 760     | 38.0
    Selling expenses        | (310)   | 15.5
    Administrative expenses | (150)   | 7.5
    Operating income        | 300     | 15.0 %
""")
HEADS_SHARE = ["2025", "% of revenue"]


def test_a_share_of_revenue_column_proves_its_base() -> None:
    assert flags(SHARE_ROWS, HEADS_SHARE) == []
    rows = list(SHARE_ROWS)
    rows[3] = ("Selling expenses", ["(130)", "15.5"])  # 310 with a digit dropped and one doubled
    found = flags(rows, HEADS_SHARE)
    assert len(found) == 1 and "Selling expenses" in found[0].message


def test_shares_forced_to_foot_and_floored_at_one_step_are_no_error() -> None:
    rows = [
        *SHARE_ROWS,
        ("Interest", ["(1)", "0.1"]),  # 0.05 % printed as the smallest step
        ("Other", ["(23)", "1.3"]),  # 1.15 %: a rounding plug within a fifth of itself
    ]
    assert flags(rows, HEADS_SHARE) == []


def test_year_heads_inside_the_body_are_no_figures() -> None:
    rows = [("", ["2024", "2023"]), *SHARE_ROWS]
    assert flags(rows, HEADS_SHARE) == []


def test_a_section_of_unmarked_percentages_is_no_amounts() -> None:
    # 3M 2018: under the amounts, a "Worldwide Sales Change" section prints percentages with "%" on its
    # first and last lines only; its figures are no amounts to take a change of.
    rows = [
        *PCT_ROWS,
        ("Worldwide sales change", []),
        ("Organic sales", ["3.2 %", "0.2 %", "3.5 %"]),
        ("Acquisitions", ["5.1", "0.2", "9.5"]),
        ("Translation", ["(0.5)", "0.4", "1.4"]),
        ("Total", ["3.2 %", "1.4 %", "3.5 %"]),
    ]
    assert flags(rows, HEADS_PCT) == []
