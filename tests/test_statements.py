"""The statements stage: kinds, value columns, calculation trees, total columns and fact annotations."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from pipeline.engine import process_path
from pipeline.figures.facts import extract_facts
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.statements.build import annotate_facts, build_statements
from pipeline.statements.columns import basis_of
from pipeline.statements.equity import equity_statement_facts
from pipeline.statements.kinds import classify, entity_of
from pipeline.statements.labels import clean_label
from schemas.models import DocumentResult, LineItem, Statement, StatementColumn, Table
from tests.support.printed import printed_rows
from tests.support.tables import INCOME_STATEMENT, make_table

TAX = load_taxonomy()
SAMPLES = sorted((Path(__file__).resolve().parent.parent / "sample_docs").glob("*.pdf"))


def tree(table: Table, heading: str = "") -> Statement:
    return build_statements([table], {table.table_id: heading}, TAX)[0]


def lines(statement: Statement) -> dict[str, LineItem]:
    return {line.label: line for line in statement.lines}


# --- labels, kinds, basis, entity ---------------------------------------------------------------------


def test_clean_label_drops_leaders_and_footnotes() -> None:
    assert clean_label("Net revenue . . . . . . . . . (1)") == "Net revenue"
    assert clean_label("Total assets*") == "Total assets"
    assert clean_label("Current liabilities:") == "Current liabilities"


@pytest.mark.parametrize(
    ("title", "heading", "kind"),
    [
        ("CONSOLIDATED STATEMENTS OF OPERATIONS", "", "income"),
        ("Consolidated Balance Sheets", "", "balance_sheet"),
        (None, "ACME INC.\nCONSOLIDATED STATEMENTS OF CASH FLOWS", "cash_flow"),
        ("Consolidated Statement of Changes in Equity", "", "equity"),
        ("Consolidated Statements of Comprehensive Income", "", "comprehensive_income"),
        ("Financial highlights", "", "summary"),
        # A segment's or the MD&A's selection of a statement's lines is not the statement itself.
        ("TABLE 9: NORTH AMERICA SELECTED INCOME STATEMENT DATA", "", "summary"),
        ("Selected Consolidated Balance Sheets Data (continued)", "", "summary"),
        ("Selected income statement and balance sheet data", "", "summary"),
        ("Selected metrics", "CONSOLIDATED STATEMENTS OF INCOME", "summary"),
        (None, "CORPORATE\nSelected income statement and balance sheet data", "summary"),
        ("Restructuring charges were recorded in the income statement as follows:", "", "note"),
        # The end of a sentence wrapped onto a line of its own ("Amounts in parentheses | indicate debits …").
        ("indicate debits to the Consolidated Statements of Operations", "", "note"),
    ],
)
def test_classify_by_title(title: str | None, heading: str, kind: str) -> None:
    table = make_table([("Revenue", ["1.0", "2.0"])], title=title)
    assert classify(table, heading, []) == kind


def test_classify_by_lines() -> None:
    table = make_table([("Total assets", ["1.0", "2.0"])])
    assert classify(table, "", ["total_assets", "total_liabilities_and_equity"]) == "balance_sheet"
    assert classify(table, "", ["operating_cash_flow", "investing_cash_flow"]) == "cash_flow"
    # Assets and liabilities measured at fair value, by level: no equity, no balance sheet.
    assert classify(table, "", ["total_assets", "total_liabilities"]) == "note"


@pytest.mark.parametrize(
    "title",
    [
        "The Company's cash flows were as follows:",
        "(2) Amounts include stock-based compensation expense, as follows:",
        "The following table presents balance sheet and working capital measures (in millions):",
        "Assets and liabilities measured at fair value, by level of the hierarchy, as of December 31:",
    ],
)
def test_a_table_a_sentence_introduces_is_no_statement(title: str) -> None:
    """Neither the statement heading above it on the page nor a statement's lines make it one."""
    table = make_table([("Total assets", ["1.0", "2.0"])], title=title)
    heading = f"ACME INC.\nCONSOLIDATED STATEMENTS OF CASH FLOWS\n{title}"
    metrics = ["total_assets", "total_equity", "operating_cash_flow", "investing_cash_flow"]
    assert classify(table, heading, metrics) == "note"
    # A short head that ends in a colon is no sentence.
    assert classify(make_table([("Total assets", ["1.0"])], title="June 30:"), "", metrics) == "balance_sheet"


def test_basis_and_entity() -> None:
    assert basis_of("As restated") == "restated"
    assert basis_of("Pro forma") == "pro_forma"
    assert basis_of("Adjusted EBITDA (non-GAAP)") == "non_gaap"
    assert basis_of("Guarantor subsidiaries") == "condensed_consolidating"
    assert basis_of("Non-guarantor Subsidiaries") == "condensed_consolidating"
    # The consolidated group's own name is no column of subsidiaries (3M 2018's balance sheet heading).
    assert basis_of("3M Company and Subsidiaries") == "reported"
    assert basis_of("Corning Incorporated and Subsidiary Companies") == "reported"
    assert basis_of("At prior year rates") == "constant_currency"
    assert basis_of("2025", "") == "reported"
    assert entity_of("Table of Contents\nBoston Properties Limited Partnership", None) == (
        "boston properties limited partnership"
    )
    assert entity_of("Year ended December 31", None) is None


# --- columns --------------------------------------------------------------------------------------------


def test_columns_of_percentages_prices_and_years_are_left_out() -> None:
    rows = printed_rows("""
        Product  | 600   | 55.0 %  | 12.50 | 2031
        Services | 400   | 45.0    | 8.00  | 2033
        Total    | 1,000 | 100.0 % | 20.50 | 2035
    """)
    heads = ("2025", "% of total", "Average price", "Maturity")
    table = make_table(rows, periods=("FY2025", None, None, None), headers=heads)
    assert [c.col for c in tree(table).columns] == [1]


def test_a_column_printed_with_other_decimals_is_another_kind_of_figure() -> None:
    rows = printed_rows("""
        Customer relationships | 499   | 397 | 23.0
        Technology             | 705   | 352 | 4.4
        Total intangibles      | 1,204 | 749 | 17.8
    """)
    table = make_table(rows, periods=(None, None, None), headers=("Gross", "Net", ""))
    statement = tree(table)
    assert [c.col for c in statement.columns] == [1, 2]
    assert lines(statement)["Total intangibles"].proven


def test_columns_carry_period_and_basis() -> None:
    table = make_table([("Revenue", ["1.0", "2.0"]), ("Cost", ["0.5", "0.7"])], title="Pro forma results")
    columns = tree(table).columns
    assert [(c.period.key if c.period else None, c.basis) for c in columns] == [
        ("FY2025", "pro_forma"),
        ("FY2024", "pro_forma"),
    ]
    assert all(isinstance(c, StatementColumn) for c in columns)


# --- trees ----------------------------------------------------------------------------------------------


# A statement of changes in equity: two years of movements in two columns and their total.
EQUITY: list[tuple[str, list[str | None]]] = [
    ("Balance at December 31, 2023", ["400", "90", "490"]),
    ("Net income", ["140", None, "140"]),
    ("Dividends", ["(40)", None, "(40)"]),
    ("Other comprehensive income", [None, "10", "10"]),
    ("Balance at December 31, 2024", ["500", "100", "600"]),
    ("Net income", ["120", None, "120"]),
    ("Dividends", ["(40)", None, "(40)"]),
    ("Other comprehensive income", [None, "15", "15"]),
    ("Balance at December 31, 2025", ["580", "115", "695"]),
]


def test_income_statement_tree_with_costs_printed_positive() -> None:
    tree_lines = lines(tree(make_table(INCOME_STATEMENT)))
    gross, operating = tree_lines["Gross profit"], tree_lines["Operating income"]
    net = tree_lines["Net income"]
    assert gross.proven and gross.role == "subtotal" and len(gross.children) == 2
    assert tree_lines["Cost of sales"].sign == -1 and tree_lines["Revenue"].sign == 1
    assert operating.proven and tree_lines["Research and development"].sign == -1
    assert net.proven and net.role == "total" and net.parent is None
    assert tree_lines["Income tax expense"].parent == net.row and tree_lines["Income tax expense"].sign == 1


def test_roll_forward_with_blank_movements() -> None:
    rows = [("Balance at January 1, 2024", EQUITY[0][1]), *EQUITY[1:]]
    table = make_table(
        rows, periods=(None, None, None), headers=("Retained earnings", "Reserves", "Total equity")
    )
    statement = tree(table)
    closing = lines(statement)["Balance at December 31, 2025"]
    assert closing.proven and closing.rollforward and len(closing.children) == 4
    assert lines(statement)["Balance at December 31, 2024"].role == "subtotal"
    assert [(s.total, s.components) for s in statement.column_sums] == [(3, [1, 2])]


def test_a_line_that_does_not_say_it_is_a_total_is_one_only_when_two_columns_prove_it() -> None:
    rows = printed_rows("""
        Cash from operations    | 6,439   | 6,240   | 6,662
        Investment in the fleet | (1,577) | (1,373) | (1,420)
        Cash left for owners    | 4,862   | 4,867   | 5,242
    """)
    statement = tree(make_table(rows, periods=("FY2025", "FY2024", "FY2023")))
    assert lines(statement)["Cash left for owners"].proven
    two = [(label, values[:2]) for label, values in rows]
    assert not lines(tree(make_table(two)))["Cash left for owners"].children


def test_a_net_line_in_two_columns_is_proven_by_the_other_column_to_the_unit() -> None:
    # "Net …" says it may be a total (weak); with two columns, the one that adds up exactly proves it and
    # the other is a break. Agreement within rounding only (3,207 + 15 + 94 = 3,316 against 3,317) is not
    # proof: three small lines land within a unit of an unrelated figure often enough.
    rows = printed_rows("""
        Cash and cash equivalents | (689) | (775)
        Short-term debt           | 80    | 136
        Long-term debt            | 6,653 | 6,340
        Net debt                  | 6,044 | 5,710
    """)
    net = lines(tree(make_table(rows)))["Net debt"]
    assert net.proven and len(net.children) == 3
    near = [*rows[:3], ("Net debt", ["6,045", "5,710"])]
    assert not lines(tree(make_table(near)))["Net debt"].proven


def test_lines_of_hundreds_netting_to_a_small_total_prove_it_by_their_size() -> None:
    # Corning's 2016 tax provision, its 2015 deferred federal line re-keyed (144) -> (1,144): the two other
    # columns must prove the total, and 2016's prints 3, the net of six lines of up to 310. Four lines or
    # more landing on a total within rounding is as unlikely as their size says, whatever the total's.
    rows = printed_rows("""
        Current:
        Federal                              | (1)   | (40)    | (38)
        State and municipal                  | (17)  | (20)    | (32)
        Foreign                              | (287) | (33)    | (414)
        Deferred:
        Federal                              | 310   | (1,144) | (411)
        State and municipal                  | 48    | (30)    | 9
        Foreign                              | (50)  | 120     | (210)
        Benefit (provision) for income taxes | 3     | (147)   | (1,096)
    """)
    statement = tree(make_table(rows, periods=("FY2016", "FY2015", "FY2014")))
    total = lines(statement)["Benefit (provision) for income taxes"]
    assert total.proven and len(total.children) == 6


def test_a_total_that_one_column_proves_by_subtracting_must_hold_there_to_the_unit() -> None:
    # Contractual obligations (Corning 2016): "Total debt" is a line of the list, not a total of the two
    # above it; less purchase obligations plus capital expenditure obligations gives 251 beside 250 within
    # a year (the only other column the blanks leave), within rounding. The by-label run then "proved" a
    # break of 3,410 in the total column. Subtracting lines, one column proves only by adding up exactly.
    rows: list[tuple[str, list[str | None]]] = [
        ("Purchase obligations", ["231", "127", "81"]),
        ("Capital expenditure obligations", ["378", "378", None]),
        ("Total debt", ["3,557", "250", "625"]),
    ]
    heads = ("Total", "Less than 1 year", "1 to 3 years")
    statement = tree(make_table(rows, periods=(None, None, None), headers=heads))
    assert not lines(statement)["Total debt"].proven
    # (The exact case leaves the total blank in the last column: the table prints no dash, so a blank line
    # there is nil, and that column would otherwise have a say of its own.)
    exact = [
        rows[0],
        ("Capital expenditure obligations", ["378", "377", None]),
        ("Total debt", ["3,557", "250", None]),
    ]
    assert lines(tree(make_table(exact, periods=(None, None, None), headers=heads)))["Total debt"].proven


def test_a_line_whose_namesakes_in_another_section_do_not_add_up_is_no_total() -> None:
    # A tax provision's "Current" and "Deferred" sections print the same three lines. The deferred
    # "International" equals federal plus state in two of three columns by chance (3M's 2020 10-K: TOT001
    # "International 2019 printed -78 but components sum to -58"); the current section's namesakes, which
    # do not add up so, show the three are peers, all of them components of the total below.
    rows = printed_rows("""
        Current
        Federal       | 720   | 534   | 698
        State         | 123   | 59    | 109
        International | 633   | 673   | 763
        Deferred
        Federal       | (61)  | (30)  | (40)
        State         | (22)  | (25)  | (15)
        International | (83)  | (77)  | (55)
        Total         | 1,310 | 1,134 | 1,460
    """)
    statement = tree(make_table(rows, periods=("FY2025", "FY2024", "FY2023")))
    items = [line for line in statement.lines if line.label == "International"]
    assert len(items) == 2 and not any(line.children for line in items)
    total = lines(statement)["Total"]
    assert total.proven and len(total.children) == 6


def test_per_share_lines_never_add_into_amounts() -> None:
    rows = printed_rows("""
        Net income                 | 774.0  | 770.0
        Basic earnings per share   | 3.47   | 2.85
        Diluted earnings per share | 3.44   | 2.82
        Total                      | 780.91 | 775.67
    """)
    statement = tree(make_table(rows))
    assert not lines(statement)["Total"].children


# --- facts ----------------------------------------------------------------------------------------------


def test_facts_get_statement_role_parent_and_basis() -> None:
    table = make_table(INCOME_STATEMENT, title="Consolidated income statement")
    statements = build_statements([table], {}, TAX)
    facts = annotate_facts(extract_facts([table], TAX), statements)
    gross = next(f for f in facts if f.metric == "gross_profit" and f.period and f.period.key == "FY2025")
    assert (gross.statement, gross.role, gross.parent, gross.basis) == (
        "income",
        "subtotal",
        "Operating income",
        "reported",
    )
    revenue = next(f for f in facts if f.metric == "revenue")
    assert revenue.role == "item" and revenue.parent == "Gross profit"


# --- the sample documents -------------------------------------------------------------------------------


@cache
def sample(i: int) -> DocumentResult:
    return process_path(SAMPLES[i])


@pytest.mark.parametrize("i", range(len(SAMPLES)))
def test_sample_statements_are_valid_records_with_the_primary_statements(i: int) -> None:
    result = sample(i)
    for statement in result.statements:
        # Lines are built without validation (model_construct): validate every one here.
        for line in statement.lines:
            LineItem.model_validate(line.model_dump())
        Statement.model_validate(statement.model_dump())
    kinds = {s.kind for s in result.statements}
    assert {"income", "balance_sheet", "cash_flow"} <= kinds
    balance = [s for s in result.statements if s.kind == "balance_sheet"]
    assert any(line.proven for s in balance for line in s.lines)


# --- a statement of changes in equity ---------------------------------------------------------------------


def equity_table(rows: list[tuple[str, list[str | None]]] = EQUITY) -> Table:
    return make_table(
        rows,
        periods=(None, None, None),
        headers=("Retained earnings", "Reserves", "Total equity"),
        title="Consolidated statement of changes in equity",
        table_id="eq",
        page=7,
    )


def test_equity_statement_states_total_equity_and_net_income() -> None:
    table = equity_table()
    statements = build_statements([table], {}, TAX)
    facts = equity_statement_facts([table], statements, TAX)
    got = {(f.metric, f.period.key if f.period else None, f.value) for f in facts}
    assert ("total_equity", "2025-12-31", 695e6) in got and ("total_equity", "2023-12-31", 490e6) in got
    assert ("net_income", "FY2025", 120e6) in got and ("net_income", "FY2024", 140e6) in got


def test_net_income_ties_between_the_income_statement_and_the_equity_statement() -> None:
    from pipeline.checks import check_document

    income = make_table(INCOME_STATEMENT, title="Consolidated income statement", table_id="is", page=5)
    equity_rows: list[tuple[str, list[str | None]]] = [
        ("Balance at December 31, 2023", ["400", "90", "490"]),
        ("Net income", ["180", None, "180"]),
        ("Dividends", ["(40)", None, "(40)"]),
        ("Other comprehensive income", [None, "10", "10"]),
        ("Balance at December 31, 2024", ["540", "100", "640"]),
        ("Net income", ["210", None, "210"]),  # 200.0 on the income statement, keyed as 210
        ("Dividends", ["(40)", None, "(40)"]),
        ("Other comprehensive income", [None, "15", "15"]),
        ("Balance at December 31, 2025", ["700", "115", "815"]),
    ]
    tables = [income, equity_table(equity_rows)]
    statements = build_statements(tables, {}, TAX)
    facts = annotate_facts(
        [*extract_facts(tables, TAX), *equity_statement_facts(tables, statements, TAX)], statements
    )
    flags = check_document(tables, facts, [], doc_id="doc", source="doc.pdf", statements=statements).flags
    xst = [f for f in flags if f.rule == "XST001"]
    assert len(xst) == 1 and xst[0].metric == "net_income" and xst[0].pages == [5, 7]
    assert "income statement" in xst[0].message and "statement of changes in equity" in xst[0].message


def test_prose_above_a_statement_names_no_basis_but_a_title_or_lead_in_does() -> None:
    from pipeline.statements.columns import basis_of, naming_lines

    prose = (
        "Consolidated cash flow statement\n(in GBP millions)\n"
        "Operating profit is stated before finance income, finance costs and taxation. Items that are\n"
        "material by their size or nature are disclosed separately in the notes so that the underlying\n"
        "performance of the Group can be assessed.\nYear ended 31 December"
    )
    assert basis_of(naming_lines(prose)) == "reported"
    assert basis_of(naming_lines("Unaudited pro forma information\n(in millions)")) == "pro_forma"
    lead_in = (
        "The following table presents the unaudited pro forma results of the combined company, as if\n"
        "the acquisition had closed on January 1:"
    )
    assert basis_of(naming_lines(lead_in)) == "pro_forma"


def test_every_primary_statement_of_the_layout_variants_is_read_as_reported() -> None:
    # The variants print explanatory prose between a statement's title and its table ("... so that the
    # underlying performance ..."): it must not make the statement non-GAAP or consolidating.
    from pipeline.engine import process_bytes
    from sample_docs.generate import layout_variants, render_variant

    for cfg in layout_variants():
        data, _ = render_variant(cfg)
        result = process_bytes(data, source=cfg.file)
        primary = [s for s in result.statements if s.kind in ("income", "balance_sheet", "cash_flow")]
        assert primary, cfg.file
        wrong = {(s.kind, c.basis) for s in primary for c in s.columns if c.basis != "reported"}
        assert not wrong, (cfg.file, wrong)
