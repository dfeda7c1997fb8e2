from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from pipeline.checks import check_document
from pipeline.checks.balance import check_balance
from pipeline.checks.crossref import check_crossref
from pipeline.checks.narrative import check_narrative
from pipeline.checks.sums import check_identities, check_sums
from pipeline.checks.tolerance import (
    compare_pct_change,
    compare_sum,
    compare_values,
    digit_slip,
    half_unit,
    known_facts,
    plausible_discrepancy,
)
from pipeline.figures.facts import extract_facts
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.statements.build import annotate_facts, build_statements
from schemas.models import Block, Flag, Statement, Table
from tests.support.printed import printed_rows
from tests.support.tables import INCOME_STATEMENT, block, make_table

TAX = load_taxonomy()

# --- builders (same shapes the table extractor produces) -------------------------------------------


def tree(table: Table) -> Statement:
    return build_statements([table], {}, TAX)[0]


def xref(tables: Sequence[Table]) -> list[Flag]:
    facts = annotate_facts(extract_facts(tables, TAX), trees := build_statements(tables, {}, TAX))
    return check_crossref(known_facts(facts), tables, trees, TAX, doc_id="doc", source="doc.pdf")


def identities(table: Table) -> list[Flag]:
    return check_identities(table, tree(table), TAX, set())


def balance(table: Table) -> list[Flag]:
    return check_balance(known_facts(extract_facts([table], TAX)), doc_id="doc", source="doc.pdf")


def run(tables: Sequence[Table], blocks: Sequence[Block] = ()) -> list[Flag]:
    facts = extract_facts(tables, TAX)
    return check_document(tables, facts, blocks, doc_id="doc", source="doc.pdf").flags


BALANCE_SHEET = printed_rows("""
    Current assets
    Cash and cash equivalents     | 500.0   | 400.0
    Trade receivables             | 300.5   | 250.0
    Inventories                   | 200.0   | 180.0
    Total current assets          | 1,000.5 | 830.0
    Property, plant and equipment | 1,500.0 | 1,400.0
    Goodwill                      | 250.0   | 250.0
    Total assets                  | 2,750.5 | 2,480.0
    Current liabilities
    Trade payables                | 400.0   | 380.0
    Short-term borrowings         | 100.0   | 120.0
    Total current liabilities     | 500.0   | 500.0
    Long-term debt                | 700.0   | 680.0
    Total liabilities             | 1,200.0 | 1,180.0
    Share capital                 | 100.0   | 100.0
    Retained earnings             | 1,450.5 | 1,200.0
    Total equity                  | 1,550.5 | 1,300.0
    Total liabilities and equity  | 2,750.5 | 2,480.0
""")


def with_value(
    rows: list[tuple[str, list[str]]], label: str, col: int, text: str
) -> list[tuple[str, list[str]]]:
    out = []
    for lab, vals in rows:
        if lab == label:
            vals = list(vals)
            vals[col] = text
        out.append((lab, vals))
    return out


# --- tolerance ---------------------------------------------------------------------------------------


def test_half_unit_and_sum_tolerance() -> None:
    assert half_unit(-5) == pytest.approx(50_000)
    assert half_unit(1) == pytest.approx(0.05)
    c = compare_sum(6.7, 1, [(1.1, 1), (2.2, 1), (3.3, 1)])
    assert c.ok and c.tolerance == pytest.approx(0.2)
    c = compare_sum(6.9, 1, [(1.1, 1), (2.2, 1), (3.3, 1)])
    assert not c.ok and c.difference == pytest.approx(0.3)
    assert compare_sum(0.3, 1, [(0.1, 1), (0.2, 1)]).ok


def test_compare_values_rounding() -> None:
    assert compare_values(1_300_000_000, -8, 1_338_200_000, -5).ok  # "$1.3 billion" vs 1,338.2m
    assert not compare_values(1_400_000_000, -8, 1_338_200_000, -5).ok
    assert compare_values(1_338_000_000, -6, 1_338_200_000, -5).ok


def test_pct_change() -> None:
    c = compare_pct_change(8.4, 1, 1338.2, 1, 1234.5, 1)
    assert c is not None and c.ok
    c = compare_pct_change(9.4, 1, 1338.2, 1, 1234.5, 1)
    assert c is not None and not c.ok and c.expected == pytest.approx(8.4, abs=0.01)
    assert compare_pct_change(3.0, 0, 10.0, 0, 0.0, 0) is None
    c = compare_pct_change(-3.0, 0, 97.0, 0, 100.0, 0)
    assert c is not None and c.ok


def test_plausibility() -> None:
    assert digit_slip(1338.2, 1383.2, 1)
    assert digit_slip(1338.2, 1358.2, 1)
    assert not digit_slip(1338.2, 2883.1, 1)
    assert plausible_discrepancy(1338.2, 1, 1234.5, 1)
    assert not plausible_discrepancy(300.0, 1, 1338.2, 1)  # a segment's figure, not a misprint
    assert not plausible_discrepancy(-100.0, 1, 100.0, 1)
    assert not plausible_discrepancy(1_338_200.0, 0, 1338.2, 1)  # scale inference, not the filer


# --- TOT001 ------------------------------------------------------------------------------------------


def test_clean_balance_sheet_has_no_flags() -> None:
    assert run([make_table(BALANCE_SHEET)]) == []


def test_subtotal_misprint_gives_one_flag() -> None:
    rows = with_value(BALANCE_SHEET, "Total current assets", 0, "1,009.5")
    flags = [f for f in run([make_table(rows)]) if f.rule == "TOT001"]
    assert len(flags) == 1, [f.message for f in flags]
    f = flags[0]
    assert f.kind == "sum_mismatch" and f.severity == "error"
    assert f.metric == "total_current_assets" and f.period is not None and f.period.key == "FY2025"
    assert f.actual == pytest.approx(1_009.5e6) and f.expected == pytest.approx(1_000.5e6)
    assert f.difference == pytest.approx(9e6) and f.tolerance == pytest.approx(0.2e6)
    assert f.message.startswith("Total current assets 2025 printed 1,009.5 but components sum to 1,000.5")
    assert "(difference 9.0, tolerance 0.2)" in f.message
    assert [e.role for e in f.evidence] == ["total", "component", "component", "component"]
    assert f.pages == [1]


def test_component_misprint_flags_the_subtotal_only() -> None:
    rows = with_value(BALANCE_SHEET, "Inventories", 0, "210.0")
    flags = run([make_table(rows)])
    assert [(f.rule, f.metric) for f in flags] == [("TOT001", "total_current_assets")]


def test_costs_printed_positive_and_subtracted() -> None:
    rows = with_value(INCOME_STATEMENT[:6], "Operating income", 0, "260.0")  # 250.0 misprinted
    flags = run([make_table(rows)])
    assert len(flags) == 1
    assert flags[0].metric == "operating_income" and flags[0].expected == pytest.approx(250e6)


def test_single_column_never_flags() -> None:
    rows = [("Cash", ["1.0"]), ("Receivables", ["2.0"]), ("Total current assets", ["4.0"])]
    assert run([make_table(rows, periods=("FY2025",))]) == []


def test_rounding_within_tolerance() -> None:
    rows = [("A", ["1.1", "1.0"]), ("B", ["2.2", "2.0"]), ("C", ["3.3", "3.0"]), ("Total", ["6.7", "6.0"])]
    assert run([make_table(rows)]) == []


def test_unrelated_total_rows_are_silent() -> None:
    rows = printed_rows("""
        Revenue                      | 1,000.0 | 900.0
        Headcount related costs      | 17.0    | 13.0
        Total return to shareholders | 123.0   | 456.0
    """)
    assert run([make_table(rows)]) == []


def test_unlabelled_total_needs_two_supporting_columns() -> None:
    rows = printed_rows("""
        Product  | 60.0  | 50.0 | 45.0
        Services | 40.0  | 30.0 | 25.0
                 | 101.0 | 80.0 | 70.0
    """)
    flags = run([make_table(rows, periods=("FY2025", "FY2024", "FY2023"), indents=[60, 60, 50])])
    assert len(flags) == 1 and flags[0].expected == pytest.approx(100e6)
    # With one other column only, it must add up there to the unit (issue 23: "a sum holds exactly in at
    # least one other column"); within rounding only, a weak candidate is not trusted enough to flag.
    two = [(label, values[:2]) for label, values in rows]
    flags = run([make_table(two, indents=[60, 60, 50])])
    assert len(flags) == 1 and flags[0].expected == pytest.approx(100e6)
    near = [*two[:2], ("", ["101.0", "80.1"])]
    assert run([make_table(near, indents=[60, 60, 50])]) == []


def test_small_lines_added_as_printed_in_two_columns_prove_the_third_is_a_break() -> None:
    # PG&E 2022, compensation expense by award (in millions): 60 + 55 = 115, 35 + 21 = 56, 3 + 15 + 17 = 35;
    # the 2022 total re-keyed to (115). Two columns at ten times their rounding, lines added as printed, are
    # the proof; "the first less the rest" (a nil first line: 0 - 60 - 55) holding in the broken column
    # alone is not.
    rows = printed_rows("""
        Stock options              | —     | —  | 3
        Restricted stock units     | 60    | 35 | 15
        Performance shares         | 55    | 21 | 17
        Total compensation expense | (115) | 56 | 35
    """)
    flags = run([make_table(rows, periods=("FY2022", "FY2021", "FY2020"))])
    assert len(flags) == 1 and flags[0].expected == pytest.approx(115e6)


def test_a_total_over_the_one_line_of_its_section_folds_it_even_where_nil_elsewhere() -> None:
    # PG&E 2021, parent-company cash flows: "Investment in subsidiaries" and "Net cash used in investing
    # activities" print (12,986) in 2020 and dashes otherwise. Unfolded, the net change in cash added the
    # line and its total both, holding in the two nil years and "breaking" in 2020.
    rows = printed_rows("""
        Net cash provided by (used in) operating activities | (185) | (81)     | 6
        Investment in subsidiaries                          | —     | (12,986) | —
        Net cash used in investing activities               | —     | (12,986) | —
        Net cash provided by financing activities           | 88    | 12,842   | 69
        Net change in cash and cash equivalents             | (97)  | (225)    | 75
    """)
    assert run([make_table(rows, periods=("FY2021", "FY2020", "FY2019"))]) == []


def _without_periods(t: Table) -> Table:
    cells = [
        c.model_copy(update={"number": c.number.model_copy(update={"period": None})}) if c.number else c
        for c in t.cells
    ]
    return t.model_copy(update={"cells": cells})


def test_columns_of_prices_and_averages_are_not_added_up() -> None:
    rows = [("May", ["100", "10.08"]), ("June", ["200", "10.02"]), ("Total", ["300", "10.08"])]
    t = make_table(rows, headers=("Total number of shares purchased", "Average price paid per share"))
    assert run([_without_periods(t)]) == []


def test_tables_without_period_columns_are_checked_when_their_columns_add_up() -> None:
    rows = printed_rows("""
        Land           | 1,200 | 1,150
        Buildings      | 3,400 | 3,300
        Equipment      | 2,100 | 2,000
        Total property | 6,700 | 6,450
    """)
    t = make_table(rows, headers=("Carrying amount", "Fair value"))
    assert run([_without_periods(t)]) == []
    bad = make_table(with_value(rows, "Buildings", 1, "3,030"), headers=("Carrying amount", "Fair value"))
    flags = run([_without_periods(bad)])
    assert [f.rule for f in flags] == ["TOT001"] and flags[0].expected == pytest.approx(6_180e6)


def test_small_coincidences_do_not_prove_a_structure() -> None:
    # 7 + 12 = 19 in one column is too likely to be chance to call the other column wrong.
    rows = [("Item A", ["7", "50"]), ("Item B", ["12", "31"]), ("Total before tax effect", ["19", "78"])]
    assert run([make_table(rows)]) == []


def test_net_income_misprint_is_flagged_once() -> None:
    rows = printed_rows("""
        Profit before tax             | 500.0   | 400.0
        Share of profit of associates | —       | —
        Income tax expense            | (100.0) | (80.0)
        Dividends declared per share  | —       | —
        Profit for the year           | 410.0   | 320.0
    """)
    table = make_table(rows)
    flags = [f for f in check_sums([table], [tree(table)], TAX) if f.metric == "net_income"]
    assert len(flags) == 1 and flags[0].rule == "TOT001" and flags[0].expected == pytest.approx(400e6)
    # A per-share line among the amounts breaks every run of lines, so the metric identity finds it.
    assert len(identities(table)) == 1
    tidy = [row for row in rows if "per share" not in row[0]]
    flags = [
        f for f in check_sums([make_table(tidy)], [tree(make_table(tidy))], TAX) if f.metric == "net_income"
    ]
    assert len(flags) == 1 and flags[0].expected == pytest.approx(400e6)
    # Without it, the tree settles the line, and the metric identity adds nothing.
    assert identities(make_table(tidy)) == []


def test_gross_profit_with_cost_negative() -> None:
    rows = printed_rows("""
        Revenue       | 1,000.0 | 900.0
        Cost of sales | (600.0) | (540.0)
        Gross profit  | 400.0   | 360.0
    """)
    assert run([make_table(rows)]) == []
    bad = with_value(rows, "Gross profit", 1, "370.0")
    flags = run([make_table(bad)])
    assert [f.rule for f in flags] == ["TOT001"]
    assert flags[0].period is not None and flags[0].period.key == "FY2024"


def test_identity_where_the_tree_finds_no_structure() -> None:
    # Cost of sales is not next to revenue: no run of lines adds up to gross profit, the identity does.
    rows = printed_rows("""
        Revenue            | 1,000.0 | 900.0
        Of which recurring | 700.0   | 650.0
        Cost of sales      | (600.0) | (540.0)
        Gross profit       | 400.0   | 360.0
    """)
    table = make_table(rows)
    assert identities(table) == []
    bad = make_table(with_value(rows, "Gross profit", 1, "370.0"))
    flags = identities(bad)
    assert len(flags) == 1 and flags[0].period is not None and flags[0].period.key == "FY2024"


# --- BAL001 ------------------------------------------------------------------------------------------


def test_balance_identity() -> None:
    rows = printed_rows("""
        Total assets      | 2,750.5 | 2,480.0
        Total liabilities | 1,200.0 | 1,180.0
        Total equity      | 1,550.5 | 1,300.0
    """)
    t = make_table(rows, periods=("2025-12-31", "2024-12-31"))
    assert balance(t) == []
    bad = make_table(with_value(rows, "Total assets", 0, "2,705.5"), periods=("2025-12-31", "2024-12-31"))
    flags = balance(bad)
    assert len(flags) == 1
    f = flags[0]
    assert f.rule == "BAL001" and f.kind == "balance_identity" and f.period is not None
    assert f.period.key == "2025-12-31" and f.expected == pytest.approx(2_750.5e6)
    assert {e.role for e in f.evidence} == {"assets", "liabilities", "equity"}


def test_balance_grand_totals() -> None:
    rows = [
        ("Total assets", ["2,750.5", "2,480.0"]),
        ("Total liabilities and equity", ["2,750.5", "2,490.0"]),
    ]
    flags = balance(make_table(rows))
    assert len(flags) == 1 and flags[0].period is not None and flags[0].period.key == "FY2024"


def test_balance_mezzanine_is_not_flagged() -> None:
    # Temporary equity sits between liabilities and equity in both years: the identity never holds,
    # so it is not trusted.
    rows = printed_rows("""
        Total assets                       | 1,000.0 | 900.0
        Total liabilities                  | 500.0   | 450.0
        Redeemable noncontrolling interest | 50.0    | 50.0
        Total equity                       | 450.0   | 400.0
    """)
    flags = balance(make_table(rows))
    assert flags == []


# --- XREF001 -----------------------------------------------------------------------------------------

INCOME = [("Revenue", ["1,338.2", "1,234.5"]), ("Operating income", ["245.6", "219.3"])]


def test_crossref_mismatch() -> None:
    a = make_table(INCOME, table_id="is", page=5)
    b = make_table([("Revenue", ["1,383.2", "1,234.5"])], table_id="mdna", page=12)
    flags = xref([a, b])
    assert len(flags) == 1
    f = flags[0]
    assert f.rule == "XREF001" and f.kind == "cross_reference_mismatch" and f.metric == "revenue"
    assert f.pages == [5, 12] and len(f.evidence) == 2
    assert abs(f.difference or 0) == pytest.approx(45e6)
    assert "1,338.2" in f.message and "1,383.2" in f.message


def test_crossref_scale_and_rounding_agree() -> None:
    a = make_table(INCOME, table_id="is", page=5)
    b = make_table([("Revenue", ["1,338,200", "1,234,500"])], table_id="k", page=7, scale=3)
    c = make_table([("Revenue", ["1,338", "1,235"])], table_id="r", page=9)
    assert xref([a, b, c]) == []


def test_crossref_ignores_segments_and_big_gaps() -> None:
    a = make_table(INCOME, table_id="is", page=5)
    seg = make_table([("Europe", []), ("Revenue", ["1,383.2", "1,234.5"])], table_id="seg", page=20)
    other = make_table([("Revenue", ["300.0", "280.0"])], table_id="x", page=30)
    assert xref([a, seg, other]) == []


def test_crossref_costs_by_magnitude() -> None:
    a = make_table([("Capital expenditures", ["120.0", "100.0"])], table_id="a", page=3)
    b = make_table(
        [("Purchases of property, plant and equipment", ["(120.0)", "(100.0)"])], table_id="b", page=8
    )
    assert xref([a, b]) == []


def _gain_on_sale(ours: str, theirs: str) -> list[Flag]:
    """A line printed in two tables that agree on another line, the line itself in one period only."""
    rows: list[tuple[str, list[str | None]]] = [
        ("Accrued payroll costs", ["512", "480"]),
        ("Gain on sale of businesses", [ours, None]),
    ]
    note: list[tuple[str, list[str | None]]] = [
        ("Accrued payroll costs", ["512", "480"]),
        ("Gain on sale of businesses", [theirs, None]),
    ]
    return xref([make_table(rows, table_id="cf", page=48), make_table(note, table_id="note", page=57)])


def test_crossref_a_last_digit_off_is_a_near_miss_not_a_keying_error() -> None:
    # (111) beside (114): rounded differently, restated, or keyed wrong alike; agreeing tables are no proof
    # that the two lines are one figure, only the same two lines agreeing in another period would be.
    assert _gain_on_sale("(111)", "(114)") == []
    flags = _gain_on_sale("(111)", "(161)")  # another digit: how keying errors look
    assert [f.rule for f in flags] == ["XREF001"]


# --- NAR001 ------------------------------------------------------------------------------------------


def narrative(text: str) -> list[Flag]:
    facts = extract_facts([make_table(INCOME, page=5)], TAX)
    return check_narrative([block(text)], known_facts(facts), TAX, doc_id="doc", source="doc.pdf")


@pytest.mark.parametrize(
    "text",
    [
        "Revenue increased by 8.4% from $1,234.5 million in 2024 to $1,338.2 million in 2025.",
        "Operating income rose 12.0% to $245.6 million (2024: $219.3 million).",
        "Revenue was $1.3 billion, compared with $1.2 billion in the prior year.",
        "Revenue increased 8% year over year.",
        "Revenue in the Americas segment increased 25% to $300 million.",
        "We expect revenue to increase 15% to $1.6 billion.",
    ],
)
def test_narrative_consistent(text: str) -> None:
    assert narrative(text) == []


def test_narrative_value_mismatch() -> None:
    flags = narrative("Revenue increased by 12.0% from $1,234.5 million in 2024 to $1,383.2 million in 2025.")
    assert len(flags) == 1
    f = flags[0]
    assert f.rule == "NAR001" and f.kind == "narrative_mismatch" and f.metric == "revenue"
    assert f.pages == [2, 5] and [e.role for e in f.evidence] == ["narrative", "table"]
    assert f.period is not None and f.period.key == "FY2025"
    assert abs(f.difference or 0) == pytest.approx(45e6)


def test_narrative_pct_mismatch() -> None:
    flags = narrative("Operating income rose 21.0% to $245.6 million (2024: $219.3 million).")
    assert len(flags) == 1
    assert flags[0].expected == pytest.approx((245.6 - 219.3) / 219.3 * 100)
    flags = narrative("Revenue decreased 8.4% compared with the prior year.")
    assert len(flags) == 1 and flags[0].actual == pytest.approx(-8.4)


# --- check_document -----------------------------------------------------------------------------------


def test_check_document_is_idempotent_and_sorted() -> None:
    rows = with_value(BALANCE_SHEET, "Total current assets", 0, "1,009.5")
    t = make_table(rows, page=3)
    b = make_table([("Total assets", ["2,750.5", "2,480.0"])], table_id="t2", page=9)
    blocks = [block("Total assets were $2,705.5 million at the end of 2025.", page=1)]
    first = run([t, b], blocks)
    second = run([t, b], blocks)
    assert [f.flag_id for f in first] == [f.flag_id for f in second]
    assert len({f.flag_id for f in first}) == len(first)
    assert [f.pages[0] for f in first] == sorted(f.pages[0] for f in first)
    for f in first:
        assert f.pages == sorted(set(f.pages)) and f.evidence
        assert f.tolerance is None or math.isfinite(f.tolerance)


def test_crossref_other_entity_statements_are_not_compared() -> None:
    group = make_table([*INCOME, ("Net income", ["150.0", "140.0"])], table_id="group", page=5)
    # A guarantor group's statements: every figure differs a little.
    obligors = make_table(
        printed_rows("""
            Revenue          | 1,200.1 | 1,100.0
            Operating income | 230.0   | 200.0
            Net income       | 140.0   | 130.0
        """),
        table_id="obligors",
        page=90,
    )
    assert xref([group, obligors]) == []


# --- NAR002 ------------------------------------------------------------------------------------------


def sentence_flags(text: str) -> list[Flag]:
    from pipeline.checks.narrative import check_sentence
    from pipeline.figures.claims import parse_claims

    return [
        f
        for claim in parse_claims(block(text), TAX, default_year=2025)
        for f in check_sentence(claim, doc_id="doc", source="doc.pdf")
    ]


def test_a_sentence_whose_change_fits_its_figures() -> None:
    assert sentence_flags("Revenue increased 8.4% to $1,338.2 million from $1,234.5 million.") == []
    assert sentence_flags("Revenue increased $103.7 million to $1,338.2 million from $1,234.5 million.") == []
    assert sentence_flags("Revenue decreased 7.7% to $1,234.5 million from $1,338.2 million.") == []


def test_a_sentence_whose_percentage_does_not_fit() -> None:
    flags = sentence_flags("Revenue increased 9.4% to $1,338.2 million from $1,234.5 million.")
    assert [f.rule for f in flags] == ["NAR002"]
    assert "+8.4%" in flags[0].message and flags[0].pages == [2]


def test_a_sentence_whose_amount_of_change_does_not_fit() -> None:
    flags = sentence_flags("Revenue increased $130.7 million to $1,338.2 million from $1,234.5 million.")
    assert [f.rule for f in flags] == ["NAR002"]
    assert flags[0].expected == pytest.approx(103.7e6)


# --- a dash that means "not applicable" -----------------------------------------------------------------


def _segments(consolidated_intersegment: str, capex_north: str = "412") -> Table:
    heads = ["North", "South", "Consolidated"]
    rows = printed_rows(f"""
        External revenue     | 6,120         | 4,350 | 10,470
        Intersegment revenue | 530           | 310   | {consolidated_intersegment}
        Operating income     | 1,240         | 815   | 2,055
        Capital expenditure  | {capex_north} | 236   | 648
        Depreciation         | 385           | 157   | 542
        Total assets         | 8,210         | 5,640 | 13,850
    """)
    return make_table(rows, periods=["FY2025"] * 3, headers=heads, title="Segment information")


def test_the_only_dash_of_a_total_column_is_not_applicable_not_nil() -> None:
    # "—" in the consolidated column of the intersegment line means the line does not exist there: read as
    # zero it breaks the row's sum, which the filing never stated.
    assert run([_segments("—")]) == []
    # The relation still holds in the column's other rows: a keying error there is caught.
    flags = run([_segments("—", capex_north="421")])
    assert [(f.rule, f.actual) for f in flags] == [("TOT002", 648e6)]
    # A column that prints dashes for nil elsewhere keeps reading them as nil (here the row then fails).
    assert [f.rule for f in run([_segments("0")])] == ["TOT002"]


def test_per_share_lines_of_a_quarterly_table_are_not_added_across() -> None:
    # Four quarters and the year: amounts add across to the year's column, earnings per share do not
    # (each quarter's is over that quarter's weighted-average shares), however the line words it.
    heads = ["First quarter", "Second quarter", "Third quarter", "Fourth quarter", "Total year"]
    rows = printed_rows("""
        Net sales                              | 2,412 | 2,530 | 2,601 | 2,710 | 10,253
        Cost of sales                          | 1,507 | 1,579 | 1,611 | 1,678 | 6,375
        Gross margin                           | 905   | 951   | 990   | 1,032 | 3,878
        Operating income                       | 452   | 488   | 515   | 560   | 2,015
        Net income attributable to the company | 310   | 342   | 365   | 398   | 1,415
        Basic (loss) earnings per common share | 0.80  | 0.89  | 0.95  | 1.04  | 3.66
        Diluted earnings per common share      | 0.78  | 0.87  | 0.93  | 1.01  | 3.56
    """)
    table = make_table(rows, periods=["FY2025"] * 5, headers=heads, title="Quarterly results (unaudited)")
    assert run([table]) == []
    # The amounts still add across: a keyed quarter is caught.
    rows[4] = ("Net income attributable to the company", ["310", "324", "365", "398", "1,415"])
    keyed = make_table(rows, periods=["FY2025"] * 5, headers=heads, title="Quarterly results (unaudited)")
    assert [f.rule for f in run([keyed])] == ["TOT002"]


def test_a_near_miss_between_two_tables_of_one_page_is_two_concepts_not_a_stale_copy() -> None:
    # Two tables that agree on a line and in the prior year but differ by a near miss (no keying error):
    # side by side on one page they are two concepts sharing a label (two plans, two statements' "net
    # income" lines); on two pages, the second is a copy not updated after a late adjustment.
    def table(table_id: str, page: int, value_2025: str) -> Table:
        rows: list[tuple[str, Sequence[str | None]]] = [
            ("Benefit obligation", ["3,902", "3,640"]),
            ("Fair value of plan assets", [value_2025, "3,025"]),
        ]
        return make_table(rows, table_id=table_id, page=page, title="Pension plans")

    assert xref([table("a", 7, "3,173"), table("b", 7, "3,025")]) == []
    flags = xref([table("a", 7, "3,173"), table("b", 9, "3,025")])
    assert [(f.rule, f.pages) for f in flags] == [("XREF001", [7, 9])]
