from __future__ import annotations

from pipeline.figures.claims import parse_claims
from pipeline.figures.facts import (
    extract_facts,
    header_dimension,
    heading_is_generic,
    latest_fiscal_year,
    table_rows,
)
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.figures.text_facts import extract_text_facts
from tests.support.printed import printed_rows
from tests.support.tables import block, make_table

TAX = load_taxonomy()


INCOME = printed_rows("""
    Revenue                  | 1,338.2 | 1,234.5
    Cost of sales            | (800.0) | (750.0)
    Gross profit             | 538.2   | 484.5
    Basic earnings per share | 2.15    | 1.98
""")


def test_table_facts_basic() -> None:
    facts = extract_facts([make_table(INCOME)], TAX)
    by = {(f.metric, f.period.key if f.period else None): f for f in facts}
    rev = by[("revenue", "FY2025")]
    assert rev.value == 1_338_200_000
    assert rev.decimals == -5 and rev.scale == 6 and rev.currency == "USD"
    assert rev.origin == "table_cell" and rev.table_id == "t1" and rev.row == 1 and rev.col == 1
    assert rev.concept_us_gaap == "us-gaap:Revenues" and rev.label == "Revenue" and rev.context is None
    assert by[("cost_of_sales", "FY2024")].value == -750_000_000
    # Per-share figures are never scaled, whatever the table's "in millions".
    eps = by[("eps_basic", "FY2025")]
    assert eps.value == 2.15 and eps.scale == 0 and eps.decimals == 2 and eps.unit == "per_share"
    assert len(facts) == 8
    assert latest_fiscal_year(facts) == 2025


def test_fact_ids_are_stable_and_distinct() -> None:
    a = extract_facts([make_table(INCOME)], TAX)
    b = extract_facts([make_table(INCOME)], TAX)
    assert [f.fact_id for f in a] == [f.fact_id for f in b]
    assert len({f.fact_id for f in a}) == len(a)


def test_currency_cells_and_unmapped_rows_are_ignored() -> None:
    t = make_table(
        [("Revenue", ["$", "100.0", "$", "90.0"]), ("Deferred revenue", ["5.0", "4.0"])],
        periods=(None, "FY2025", None, "FY2024"),
        headers=("", "2025", "", "2024"),
    )
    facts = extract_facts([t], TAX)
    assert [(f.metric, f.value) for f in facts] == [("revenue", 100e6), ("revenue", 90e6)]
    rows = table_rows(t)
    assert rows[0].label == "Revenue"


def test_segment_heading_sets_context() -> None:
    t = make_table(
        printed_rows("""
            Segment A
            Revenue | 100.0 | 90.0
            Current assets
            Revenue | 300.0 | 280.0
        """)
    )
    facts = extract_facts([t], TAX)
    contexts = {f.value: f.context for f in facts}
    assert contexts[100e6] == "Segment A"
    assert contexts[300e6] is None


def test_the_total_that_names_a_section_closes_it() -> None:
    # Boston Properties' income statement: "Rental" heads the rent lines, "Total rental revenue" closes the
    # section, and the "Total revenue" under it is the whole entity's, not the "Rental" section's
    t = make_table(
        printed_rows("""
            Revenue
            Rental
            Base rent               | 90.0  | 80.0
            Recoveries from tenants | 10.0  | 9.0
            Total rental revenue    | 100.0 | 89.0
            Hotel revenue           | 20.0  | 18.0
            Total revenue           | 120.0 | 107.0
        """)
    )
    contexts = {f.value: f.context for f in extract_facts([t], TAX) if f.metric == "revenue"}
    assert contexts == {120e6: None, 107e6: None}
    # a segment's section is closed by its own total only, not by a total of some other line inside it
    t = make_table(
        printed_rows("""
            Americas
            Total operating expenses | 80.0  | 70.0
            Revenue                  | 100.0 | 90.0
            Total Americas           | 100.0 | 90.0
            Revenue                  | 300.0 | 280.0
        """)
    )
    contexts = {f.value: f.context for f in extract_facts([t], TAX) if f.metric == "revenue"}
    assert contexts == {100e6: "Americas", 90e6: "Americas", 300e6: None, 280e6: None}


def test_column_dimension_and_change_columns() -> None:
    t = make_table(
        [("Revenue", ["100.0", "200.0", "300.0", "50.0"])],
        periods=("FY2025", "FY2025", "FY2025", "FY2025"),
        headers=("Americas 2025", "EMEA 2025", "Total 2025", "Change"),
    )
    facts = extract_facts([t], TAX)
    ctx = {f.value: f.context for f in facts}
    assert ctx == {100e6: "americas", 200e6: "emea", 300e6: None}


def test_title_context() -> None:
    t = make_table(INCOME, title="Note 4 Segment information")
    assert all(f.context for f in extract_facts([t], TAX))
    t2 = make_table(INCOME, title="Consolidated statement of profit or loss")
    assert not any(f.context for f in extract_facts([t2], TAX))


def test_columns_without_periods_give_no_facts() -> None:
    t = make_table(
        [("Revenue", ["100.0", "200.0"])], periods=(None, None), headers=("Segment A", "Segment B")
    )
    assert extract_facts([t], TAX) == []


def test_heading_generic() -> None:
    assert heading_is_generic("Current assets:", TAX)
    assert heading_is_generic("Cash flows from operating activities", TAX)
    assert heading_is_generic(
        "Adjustments to reconcile net income to net cash provided by operating activities", TAX
    )
    assert heading_is_generic("Revenue", TAX)
    assert not heading_is_generic("Americas", TAX)
    assert not heading_is_generic("Discontinued operations", TAX)
    assert header_dimension("Year ended 31 December 2025") is None
    assert header_dimension("As previously reported 2024") == "previously"


# --- narrative ---------------------------------------------------------------------------------


def claims(
    text: str, year: int | None = 2025
) -> list[tuple[str, str | None, str | None, str | None, str | None, float | None]]:
    out = []
    for c in parse_claims(block(text), TAX, default_year=year):
        out.append(
            (
                c.metric.id,
                c.current.text if c.current else None,
                c.current_period.key if c.current_period and c.current else None,
                c.prior.text if c.prior else None,
                c.prior_period.key if c.prior_period and c.prior else None,
                c.signed_change,
            )
        )
    return out


def test_parse_from_to_sentence() -> None:
    assert claims("Revenue increased by 8.4% from $1,234.5 million in 2024 to $1,338.2 million in 2025.") == [
        ("revenue", "$1,338.2 million", "FY2025", "$1,234.5 million", "FY2024", 8.4)
    ]


def test_parse_uk_comparative() -> None:
    assert claims("Operating profit rose 12.0% to £245.6m (2024: £219.3m).") == [
        ("operating_income", "£245.6m", "FY2025", "£219.3m", "FY2024", 12.0)
    ]


def test_parse_prior_year_wording() -> None:
    assert claims("Net income was $312.4 million, compared with $287.1 million in the prior year.") == [
        ("net_income", "$312.4 million", "FY2025", "$287.1 million", "FY2024", None)
    ]


def test_parse_change_only_and_decrease() -> None:
    assert claims("Revenue decreased 3% year over year.") == [("revenue", None, None, None, None, -3.0)]
    assert claims("Total revenue for 2025 was $1.3 billion, an increase of 8.4% over 2024.") == [
        ("revenue", "$1.3 billion", "FY2025", None, None, 8.4)
    ]


def test_parse_quarter_and_two_clauses() -> None:
    got = claims(
        "In the fourth quarter, revenue rose 5% to $400.1 million, while operating income was $50.2 million."
    )
    assert got == [
        ("revenue", "$400.1 million", "Q4-2025", None, None, 5.0),
        ("operating_income", "$50.2 million", "Q4-2025", None, None, None),
    ]


def test_parse_refuses_qualified_or_forward_looking() -> None:
    assert claims("Revenue in the Americas segment increased 5% to $300 million.") == []
    assert claims("We expect revenue to increase 5% in 2026.") == []
    assert claims("Adjusted operating profit rose 12% to £250m.") == []
    assert claims("Organic revenue growth was 4%.") == []
    assert claims("Deferred revenue increased 4% to $200 million.") == []
    assert claims("Revenue increased approximately 5% to about $1.3 billion.") == []
    assert claims("Revenue increased 5% to about $1.3 billion.") == [("revenue", None, None, None, None, 5.0)]
    assert claims("Revenue increased in the quarter to $1.3 billion.") == []


def test_parse_ignores_cause_figures() -> None:
    got = claims("Net sales increased 10.5 per cent to €1,234m, driven by a €50m increase in product sales.")
    assert got == [("revenue", "€1,234m", "FY2025", None, None, 10.5)]


def test_text_facts() -> None:
    facts = extract_text_facts(
        [block("Revenue increased by 8.4% from $1,234.5 million in 2024 to $1,338.2 million in 2025.")],
        TAX,
        doc_id="doc",
        source="doc.pdf",
        default_year=2025,
    )
    assert [(f.metric, f.period.key if f.period else None, f.value, f.decimals, f.origin) for f in facts] == [
        ("revenue", "FY2025", 1_338_200_000.0, -5, "text_span"),
        ("revenue", "FY2024", 1_234_500_000.0, -5, "text_span"),
    ]
    assert facts[0].page == 2 and facts[0].fact_id != facts[1].fact_id


def test_breakdown_total_rows() -> None:
    t = make_table(
        printed_rows("""
            Laboratory | 773.5   | 840.5
            Service    | 898.8   | 908.9
            Group      | 1,672.3 | 1,749.4
        """),
        title="Net sales by business area",
    )
    facts = extract_facts([t], TAX)
    assert [(f.metric, f.value, f.context) for f in facts] == [
        ("revenue", 1_672_300_000.0, None),
        ("revenue", 1_749_400_000.0, None),
    ]
    headed = make_table(
        [("Net sales", []), ("Machine Tools", ["73.6", "79.2"]), ("Total", ["284.5", "290.5"])]
    )
    assert [f.value for f in extract_facts([headed], TAX)] == [284_500_000.0, 290_500_000.0]


def test_opening_and_closing_cash() -> None:
    cf = make_table(
        [
            ("Cash and cash equivalents at beginning of year", ["126.6", "156.1"]),
            ("Cash and cash equivalents at end of year", ["143.3", "126.6"]),
        ]
    )
    bs = make_table(
        [("Cash and cash equivalents", ["143.3", "126.6"])],
        periods=("2025-12-31", "2024-12-31"),
        table_id="bs",
    )
    facts = extract_facts([cf, bs], TAX)
    keys = sorted((f.period.key if f.period else "", f.value) for f in facts)
    assert keys == [
        ("2023-12-31", 156_100_000.0),
        ("2024-12-31", 126_600_000.0),
        ("2024-12-31", 126_600_000.0),
        ("2024-12-31", 126_600_000.0),
        ("2025-12-31", 143_300_000.0),
        ("2025-12-31", 143_300_000.0),
    ]
