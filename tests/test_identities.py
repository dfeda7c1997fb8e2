"""Identities in shapes the first rules missed: ledgers (LED001), totals above their breakdown, one-line
totals, column groups of several periods side by side, and statements under a running page head.

Each case is a small table or PDF generated here in a layout none of the samples has: clean, it raises
nothing; with one figure keyed wrong, the flag names that figure. The last tests cut the real pages that
showed the gap out of the shared corpus.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pymupdf
import pytest

from pipeline.checks.ledger import check_ledgers
from pipeline.checks.per_share import check_per_share
from pipeline.checks.sums import check_sums
from pipeline.engine import process_bytes
from pipeline.figures.facts import is_change_column
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.parse.stitch import furniture_key, page_furniture
from pipeline.statements.build import build_statements
from schemas.models import Block, DocumentResult, Flag, Table
from tests.support.printed import printed_rows
from tests.support.tables import make_table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

Row = tuple[str, ...]


def _pdf(pages: Sequence[Sequence[tuple[float, str]]], head: str | None = None) -> bytes:
    """Pages of lines; each line is ``(y, text)`` with columns separated by ``|`` at fixed x positions."""
    xs = (50.0, 120.0, 330.0, 420.0, 510.0)
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        if head:
            page.insert_text((50, 40), head, fontsize=9)
        for y, text in lines:
            for k, part in enumerate(text.split("|")):
                if not part:
                    continue
                x = xs[k]
                if k >= 2:  # figures right-aligned on their column's right edge
                    x = xs[k] + 60 - pymupdf.get_text_length(part, fontsize=9)
                page.insert_text((x, y), part, fontsize=9)
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _entries(table: str) -> list[Row]:
    """A ledger's entries written as printed (see :func:`tests.support.printed.printed_rows`), as cells."""
    return [(first, *cells) for first, cells in printed_rows(table)]


def _ledger(rows: Sequence[Row], heads: Row = ("Date", "Particulars", "Debit", "Credit", "Balance")) -> bytes:
    lines = [(100.0, "Statement of account: Acme Trading Ltd"), (130.0, "|".join(heads))]
    lines += [(150.0 + 16 * i, "|".join(r)) for i, r in enumerate(rows)]
    return _pdf([lines])


_LEDGER = _entries("""
    01-Apr-24 | Opening Balance              |           | 4,250,000 | 4,250,000 Cr.
    12-May-24 | Bank payment 3312            | 1,125,400 | 0         | 3,124,600 Cr.
    30-Jun-24 | Invoice 77                   | 0         | 86,975    | 3,211,575 Cr.
    14-Aug-24 | Bank payment 3390            | 2,000,000 | 0         | 1,211,575 Cr.
    02-Sep-24 | Journal: exchange difference | 0         | 13,410    | 1,224,985 Cr.
    30-Sep-24 | Bank payment 3411            | 1,300,000 | 0         | 75,015 Dr.
""")


def _flags(data: bytes, rule: str) -> list[Flag]:
    result = process_bytes(data, source="generated.pdf")
    return [f for f in result.flags if f.rule == rule]


def _miskeyed(row: int, col: int, wrong: str) -> list[Flag]:
    """The LED001 flags of the ledger with one cell printed ``wrong``."""
    rows = [list(r) for r in _LEDGER]
    rows[row][col] = wrong
    return _flags(_ledger([tuple(r) for r in rows]), "LED001")


def test_a_clean_ledger_raises_nothing() -> None:
    assert _flags(_ledger(_LEDGER), "LED001") == []


@pytest.mark.parametrize(
    ("row", "col", "wrong"), [(2, 3, "86,795"), (3, 2, "200,000"), (1, 2, "(1,125,400)")]
)
def test_a_miskeyed_amount_breaks_its_entry(row: int, col: int, wrong: str) -> None:
    right = _LEDGER[row][col]
    flags = _miskeyed(row, col, wrong)
    assert len(flags) == 1
    assert any(wrong in e.text for e in flags[0].evidence), flags[0].message
    assert right not in flags[0].message


def test_a_miskeyed_balance_gives_one_flag_for_its_two_entries() -> None:
    flags = _miskeyed(3, 4, "1,121,575 Cr.")
    assert len(flags) == 1
    assert sum("1,121,575" in e.text for e in flags[0].evidence) >= 1


def test_a_miskeyed_opening_balance_is_caught_by_its_own_amount() -> None:
    flags = _miskeyed(0, 3, "4,205,000")
    assert len(flags) == 1 and "4,205,000" in flags[0].message + " ".join(e.text for e in flags[0].evidence)


def test_a_bank_statement_runs_the_other_way_without_sides() -> None:
    heads = ("Date", "Description", "Withdrawals", "Deposits", "Balance")
    rows = _entries("""
        01/03 | Balance brought forward |          |          | 12,400.50
        03/03 | Card payment            | 210.40   |          | 12,190.10
        05/03 | Salary                  |          | 3,850.00 | 16,040.10
        09/03 | Rent                    | 1,900.00 |          | 14,140.10
        15/03 | Transfer in             |          | 500.00   | 14,640.10
    """)
    assert _flags(_ledger(rows, heads), "LED001") == []
    rows[3] = ("09/03", "Rent", "1,090.00", "", "14,140.10")
    flags = _flags(_ledger(rows, heads), "LED001")
    assert len(flags) == 1 and any("1,090.00" in e.text for e in flags[0].evidence)


def test_a_trial_balance_is_no_running_ledger() -> None:
    # Debit, credit and balance columns, but each row stands alone: nothing runs, nothing is flagged.
    rows = _entries("""
        1000 | Cash          | 52,000 |        | 52,000
        1200 | Receivables   | 18,300 |        | 18,300
        2000 | Payables      |        | 21,750 | (21,750)
        3000 | Share capital |        | 40,000 | (40,000)
        4000 | Revenue       |        | 8,550  | (8,550)
    """)
    data = _ledger(rows, ("Account", "Name", "Debit", "Credit", "Balance"))
    result = process_bytes(data, source="tb.pdf")
    assert check_ledgers(result.tables) == []


# --- totals printed above their parts --------------------------------------------------------------------


def _income(nci: str = "(41.2)") -> bytes:
    rows = [
        "Revenue||2,410.6|2,288.1",
        "Operating costs||(1,902.3)|(1,811.0)",
        "Operating profit||508.3|477.1",
        "Finance costs||(61.4)|(58.9)",
        "Profit before tax||446.9|418.2",
        "Income tax||(112.5)|(104.9)",
        "Profit for the year||334.4|313.3",
        "Attributable to:|||",
        "Owners of the parent||293.2|281.6",
        f"Non-controlling interests||{nci.strip('()')}|31.7",
    ]
    lines = [
        (80.0, "Consolidated income statement"),
        (96.0, "(in EUR millions)"),
        (120.0, "||2025|2024"),
    ]
    lines += [(140.0 + 16 * i, r) for i, r in enumerate(rows)]
    return _pdf([lines])


def test_profit_broken_down_by_owner_is_a_total_of_its_parts() -> None:
    result = process_bytes(_income(), source="ifrs.pdf")
    lines = {line.label: line for s in result.statements for line in s.lines}
    profit = lines["Profit for the year"]
    assert profit.proven
    assert {lines["Owners of the parent"].row, lines["Non-controlling interests"].row} == set(profit.parts)
    assert not [f for f in result.flags if f.rule == "TOT001"]


def test_a_miskeyed_part_of_a_breakdown_is_flagged() -> None:
    result = process_bytes(_income("(14.2)"), source="ifrs.pdf")
    flags = [f for f in result.flags if f.rule == "TOT001"]
    assert len(flags) == 1 and any("14.2" in e.text for e in flags[0].evidence)


# --- one-line totals and column groups --------------------------------------------------------------------

TAX = load_taxonomy()


def _sums(table: Table) -> list[Flag]:
    return check_sums([table], build_statements([table], {}, TAX), TAX)


def _fair_value(derivatives_2022: str = "(141)") -> Table:
    heads = ("2022 Total", "2022 Level 1", "2022 Level 2", "2021 Total", "2021 Level 1", "2021 Level 2")
    rows: list[tuple[str, list[str | None]]] = [
        ("Assets", [None] * 6),
        ("Money market funds", ["1,797", "1,797", None, "1,370", "1,370", None]),
        ("Commercial paper", ["256", None, "256", "225", None, "225"]),
        ("Corporate notes", ["195", None, "195", "262", None, "262"]),
        ("Other equity investments", ["10", "10", None, "20", "20", None]),
        ("Derivatives", ["112", None, "112", "98", None, "98"]),
        ("Total assets", ["2,370", "1,807", "563", "1,975", "1,390", "585"]),
        ("Liabilities", [None] * 6),
        ("Derivatives", ["(141)", None, derivatives_2022, "(50)", None, "(50)"]),
        ("Total liabilities", ["(141)", None, "(141)", "(50)", None, "(50)"]),
    ]
    return make_table(rows, periods=("2022-12-31", None, None, "2021-12-31", None, None), headers=heads)


def test_each_period_group_has_its_own_total_column() -> None:
    statement = build_statements([_fair_value()], {}, TAX)[0]
    assert [(s.total, s.components) for s in statement.column_sums] == [(1, [2, 3]), (4, [5, 6])]
    assert _sums(_fair_value()) == []


def test_a_miskeyed_figure_in_a_column_group_is_flagged() -> None:
    flags = _sums(_fair_value("(114)"))
    assert flags and all(any("114" in e.text for e in f.evidence) for f in flags)
    assert "TOT002" in {f.rule for f in flags}


def test_a_total_column_may_add_up_another_total_column() -> None:
    # Store counts: the stores open at the start of the quarter, plus openings, less closings.
    heads = ("Total stores at start", "Stores opened", "Stores closed", "Total stores at end")
    rows = printed_rows("""
        1st Quarter | 1,308 | 10 | 0 | 1,318
        2nd Quarter | 1,318 | 7  | 0 | 1,325
        3rd Quarter | 1,325 | 18 | 0 | 1,343
        4th Quarter | 1,343 | 12 | 0 | 1,355
    """)
    table = make_table(rows, periods=(None, None, None, None), headers=heads, scale=0)
    statement = build_statements([table], {}, TAX)[0]
    assert [(s.total, s.components) for s in statement.column_sums] == [(4, [1, 2, 3])]
    rows[1] = ("2nd Quarter", ["1,318", "7", "0", "1,235"])
    flags = _sums(make_table(rows, periods=(None, None, None, None), headers=heads, scale=0))
    assert [f.rule for f in flags] == ["TOT002"]


def test_a_grand_total_column_adds_the_total_before_it() -> None:
    # A statement of changes in equity: the company's columns, their total, the minority, the grand total.
    heads = ("Share capital", "Retained earnings", "Total shareholders' equity", "Minority", "Total equity")
    rows: list[tuple[str, list[str | None]]] = [
        ("Balance at March 31", ["911", "16,713", "17,624", "282", "17,906"]),
        ("Net income", [None, "281", "281", "22", "303"]),
        ("Shares issued", ["4", "71", "75", None, "75"]),
        ("Dividends", [None, "(485)", "(485)", None, "(485)"]),
        ("Other", [None, "(82)", "(82)", "(5)", "(87)"]),
        ("Balance at June 30", ["915", "16,498", "17,413", "299", "17,712"]),
    ]
    table = make_table(rows, periods=(None,) * 5, headers=heads)
    statement = build_statements([table], {}, TAX)[0]
    assert [(s.total, s.components) for s in statement.column_sums] == [(3, [1, 2]), (5, [3, 4])]
    assert _sums(table) == []


@pytest.mark.parametrize(
    ("head", "change"),
    [
        ("Organic growth %", True),
        ("Growth", True),
        ("Increase (decrease)", True),
        ("Hemlock and Emerging Growth Businesses", False),
        ("Display Technologies", False),
    ],
)
def test_a_segment_named_growth_is_no_column_of_changes(head: str, change: bool) -> None:
    # Corning's segment table: "Hemlock and Emerging Growth Businesses" is a segment the total adds.
    assert is_change_column(head) is change


def test_a_total_over_its_sections_one_line_repeats_it() -> None:
    rows: list[tuple[str, list[str | None]]] = [
        ("Adjustments for special items:", [None, None, None]),
        ("Net costs for significant litigation", ["249", "463", "104"]),
        ("Total special items", ["249", "463", "104"]),
    ]
    table = make_table(rows, periods=("FY2021", None, None), headers=("Segment", "Company", "Tax"))
    statement = build_statements([table], {}, TAX)[0]
    total = next(line for line in statement.lines if line.label == "Total special items")
    assert total.proven and len(total.children) == 1
    assert _sums(table) == []
    rows[2] = ("Total special items", ["249", "463", "140"])
    flags = _sums(make_table(rows, periods=("FY2021", None, None), headers=("Segment", "Company", "Tax")))
    assert len(flags) == 1 and any("140" in e.text for e in flags[0].evidence)


def test_a_total_of_the_lines_under_the_first_one() -> None:
    # "Total cost of sales" adds the two lines above it, not "Net revenue" printed first with no heading.
    rows = printed_rows("""
        Net revenue                                     | 23,601 | 16,434 | 9,763
        Cost of sales                                   | 11,550 | 8,505  | 5,416
        Amortization of acquisition-related intangibles | 1,448  | —      | —
        Total cost of sales                             | 12,998 | 8,505  | 5,416
        Gross profit                                    | 10,603 | 7,929  | 4,347
    """)
    periods = ("FY2022", "FY2021", "FY2020")
    statement = build_statements([make_table(rows, periods=periods)], {}, TAX)[0]
    lines = {line.label: line for line in statement.lines}
    assert set(lines["Total cost of sales"].children) == {lines["Cost of sales"].row, lines[rows[2][0]].row}
    assert lines["Gross profit"].proven
    rows[1] = ("Cost of sales", ["11,550", "5,805", "5,416"])
    flags = _sums(make_table(rows, periods=periods))
    assert len(flags) == 1 and any("5,805" in e.text for e in flags[0].evidence)


def test_a_schedule_of_fifty_notes_adds_up_to_its_total() -> None:
    notes = [
        (f"{2 + k % 5}.{k % 9}% senior notes due {2024 + k}", 100 + 37 * k, 90 + 41 * k) for k in range(50)
    ]
    rows: list[tuple[str, list[str | None]]] = [("Long-term debt", [None, None])]
    rows += [(label, [f"{a:,}", f"{b:,}"]) for label, a, b in notes]
    rows.append(
        ("Total debt principal", [f"{sum(a for _, a, _ in notes):,}", f"{sum(b for *_, b in notes):,}"])
    )
    statement = build_statements([make_table(rows, periods=("FY2022", "FY2021"))], {}, TAX)[0]
    total = next(line for line in statement.lines if line.label == "Total debt principal")
    assert total.proven and len(total.children) == 50


def test_an_unlabelled_line_is_no_first_less_rest_by_chance() -> None:
    # FedEx's notes by rate and maturity: 991 − 496 = 495 in one column and nearly in the other.
    rows = printed_rows("""
        Senior unsecured debt:
                                    | 748   | 747
                                    | 991   | 990
                                    | 496   | 496
                                    | 495   | 495
                                    | 740   | 740
        Total senior unsecured debt | 3,470 | 3,468
    """)
    statement = build_statements([make_table(rows, periods=("2023-05-31", "2022-05-31"))], {}, TAX)[0]
    total = next(line for line in statement.lines if line.label == "Total senior unsecured debt")
    assert total.proven and len(total.children) == 5
    assert [line.row for line in statement.lines if line.children] == [total.row]


def test_a_roll_forward_in_one_column_is_stated_by_its_labels() -> None:
    # Level 3 plan assets: one column, so no other column can prove the structure; the labels state it.
    rows = printed_rows("""
        Balance as of June 30, 2022       | 352
        Actual return on plan assets      | (51)
        Purchases, sales, and settlements | (8)
        Transfer out of Level 3           | (93)
        Foreign currency translation      | 1
        Balance as of June 30, 2023       | 201
    """)
    assert _sums(make_table(rows, periods=(None,), headers=("",))) == []
    rows[5] = ("Balance as of June 30, 2023", ["210"])
    flags = _sums(make_table(rows, periods=(None,), headers=("",)))
    assert len(flags) == 1 and any("210" in e.text for e in flags[0].evidence)
    # a blank may be a lost figure: no flag
    blank: list[tuple[str, Sequence[str | None]]] = [
        *rows[:2],
        ("Purchases, sales, and settlements", [None]),
        *rows[3:],
    ]
    assert _sums(make_table(blank, periods=(None,), headers=("",))) == []


def test_an_adjusted_figure_is_the_gaap_figure_plus_the_adjustments() -> None:
    rows = printed_rows("""
        GAAP                                 | 2,466 | 7,369 | 5,921
        Adjustments for special items:
        Net costs for significant litigation | 249   | 463   | 359
        Divestiture costs                    | 12    | 60    | 47
        Total special items                  | 261   | 523   | 406
        Year ended December 31, 2021
        Adjusted amounts (non-GAAP measures) | 2,727 | 7,892 | 6,327
    """)
    heads = ("Operating income", "Income before taxes", "Net income")
    statement = build_statements([make_table(rows, periods=("FY2021",) * 3, headers=heads)], {}, TAX)[0]
    adjusted = next(line for line in statement.lines if line.label.startswith("Adjusted"))
    assert adjusted.proven and len(adjusted.children) == 2
    rows[6] = ("Adjusted amounts (non-GAAP measures)", ["2,727", "7,829", "6,327"])
    flags = _sums(make_table(rows, periods=("FY2021",) * 3, headers=heads))
    assert len(flags) == 1 and any("7,829" in e.text for e in flags[0].evidence)


def test_a_statement_printed_to_the_cent_without_dashes_leaves_nil_blank() -> None:
    rows: list[tuple[str, list[str | None]]] = [
        ("二、营业总成本", ["12,827,978.02", "21,274,558.28"]),
        ("其中：营业成本", ["3,926,161.04", "4,100,248.02"]),
        ("税金及附加", ["323,498.25", "312,207.91"]),
        ("管理费用", ["7,838,102.12", "15,753,158.14"]),
        ("财务费用", ["771,704.31", "1,108,944.21"]),
        ("资产减值损失", ["-31,487.70", None]),
    ]
    table = make_table(rows, periods=("Q1-2018", "Q1-2017"), scale=0, currency="CNY")
    assert _sums(table) == []
    rows[3] = ("管理费用", ["7,838,102.12", "15,751,358.14"])
    flags = _sums(make_table(rows, periods=("Q1-2018", "Q1-2017"), scale=0, currency="CNY"))
    assert len(flags) == 1 and any("15,751,358.14" in e.text for e in flags[0].evidence)
    # Rounded to thousands, a blank may be a figure the reader lost: the column is not evaluated.
    rounded = [(label, [v.split(".")[0] if v else v for v in values]) for label, values in rows]
    assert _sums(make_table(rounded, periods=("Q1-2018", "Q1-2017"))) == []


# --- earnings per share ------------------------------------------------------------------------------------


def _eps_table(diluted_2022: str = "1,229", shares_in_thousands: bool = False) -> Table:
    def shares(text: str) -> str:
        return f"{int(text.replace(',', '')) * 1000:,}" if shares_in_thousands else text

    rows: list[tuple[str, list[str | None]]] = [
        ("Net revenue", ["23,601", "16,434", "9,763"]),
        ("Net income", ["1,320", "3,162", "2,490"]),
        ("Earnings per share", [None, None, None]),
        ("Basic", ["0.85", "2.61", "2.10"]),
        ("Diluted", ["0.84", "2.57", "2.06"]),
        ("Shares used in per share calculation", [None, None, None]),
        ("Basic", [shares("1,561"), shares("1,213"), shares("1,184")]),
        ("Diluted", [shares("1,571"), shares(diluted_2022), shares("1,207")]),
    ]
    return make_table(rows, periods=("FY2022", "FY2021", "FY2020"))


def test_earnings_per_share_are_earnings_over_shares() -> None:
    tables = [_eps_table(), _eps_table(shares_in_thousands=True)]
    for table in tables:
        statement = build_statements([table], {}, TAX)[0]
        assert check_per_share([table], [statement]) == []


def test_a_dropped_digit_in_the_shares_breaks_earnings_per_share() -> None:
    table = _eps_table(diluted_2022="129")
    flags = check_per_share([table], build_statements([table], {}, TAX))
    assert [f.rule for f in flags] == ["EPS001"]
    assert any("129" in e.text for e in flags[0].evidence) and "2.57" in flags[0].message


def _numerator_table(diluted_2024: str = "3.24") -> Table:
    # Preferred dividends come off net income in the basic numerator; in profitable years the preferred
    # converts (if-converted), so the diluted numerator is net income; in the loss year it is antidilutive.
    rows: list[tuple[str, list[str | None]]] = [
        ("Net (loss) income attributable to the company", ["(380)", "2,950", "1,120"]),
        (
            "Net (loss) income attributable to the company used in basic earnings per common share "
            "calculation",
            ["(460)", "2,870", "1,040"],
        ),
        (
            "Net (loss) income attributable to the company used in diluted earnings per common share "
            "calculation",
            ["(460)", "2,950", "1,120"],
        ),
        ("Basic (loss) earnings per common share", ["(0.66)", "3.50", "1.16"]),
        ("Diluted (loss) earnings per common share", ["(0.66)", diluted_2024, "1.12"]),
        ("Weighted-average common shares outstanding - basic", ["700", "820", "900"]),
        ("Weighted-average common shares outstanding - diluted", ["700", "910", "1,000"]),
    ]
    return make_table(rows, periods=("FY2025", "FY2024", "FY2023"))


def test_the_numerator_line_used_in_the_calculation_is_the_earnings() -> None:
    # Corning 2017: diluted (0.66) is the numerator line's (595) over 895 shares, not net income's (497).
    table = _numerator_table()
    assert check_per_share([table], build_statements([table], {}, TAX)) == []
    keyed = _numerator_table(diluted_2024="3.42")
    flags = check_per_share([keyed], build_statements([keyed], {}, TAX))
    assert [f.rule for f in flags] == ["EPS001"] and "3.42" in flags[0].message


@pytest.mark.corpus
def test_per_share_lines_from_continuing_operations_divide_those_earnings(corpus: Path) -> None:
    # Boston Properties 2015: per-share figures from continuing operations beside net income in 2013.
    result = process_bytes(
        _cut(corpus, "financebench__BOSTONPROPERTIES_2015_10K.pdf", [112]), source="bxp.pdf"
    )
    assert not [f for f in result.flags if f.rule == "EPS001"]


# --- running heads ---------------------------------------------------------------------------------------


def test_page_furniture_is_a_line_repeated_in_the_page_margins() -> None:
    head = "Acme Holdings plc  Annual Report 2025"
    blocks = [Block(page=p, bbox=(50, 30, 300, 42), text=head, font_size=9) for p in range(1, 6)]
    blocks += [Block(page=p, bbox=(50, 800, 80, 812), text=str(p), font_size=9) for p in range(1, 6)]
    blocks += [
        Block(page=p, bbox=(50, 400, 300, 412), text="(in millions)", font_size=9) for p in range(1, 6)
    ]
    furniture = page_furniture(blocks, dict.fromkeys(range(1, 6), 842.0))
    assert furniture_key(head) in furniture
    assert furniture_key("7") in furniture  # page numbers, whatever the number
    assert furniture_key("(in millions)") not in furniture  # mid-page text is never furniture


def test_a_statement_under_a_running_head_continues_on_the_next_page() -> None:
    first = [
        (80.0, "Consolidated balance sheet"),
        (96.0, "(in thousands of dollars)"),
        (120.0, "||2025|2024"),
    ]
    items = [(f"Asset line {k}", 1000 + 37 * k, 900 + 29 * k) for k in range(1, 40)]
    first += [(140.0 + 16 * i, f"{label}||{a:,}|{b:,}") for i, (label, a, b) in enumerate(items[:38])]
    rest = items[38:]
    total_a = sum(a for _, a, _ in items)
    total_b = sum(b for _, _, b in items)
    second = [(70.0 + 16 * i, f"{label}||{a:,}|{b:,}") for i, (label, a, b) in enumerate(rest)]
    second.append((70.0 + 16 * len(rest), f"Total assets||{total_a:,}|{total_b:,}"))
    filler = [[(100.0, "Notes to the financial statements"), (120.0, "Text of the notes.")]] * 3
    data = _pdf([first, second, *filler], head="Acme Holdings plc  Annual Report 2025")
    result = process_bytes(data, source="heads.pdf")
    stitched = [t for t in result.tables if t.pages[:2] == [1, 2]]
    assert stitched, [t.pages for t in result.tables]
    total = next(line for s in result.statements for line in s.lines if line.label == "Total assets")
    assert total.proven and len(total.children) == len(items)


# --- the real pages --------------------------------------------------------------------------------------


def _cut(corpus: Path, name: str, pages: Sequence[int]) -> bytes:
    path = next(corpus.glob(f"*/{name}"))
    with pymupdf.open(path) as src, pymupdf.open() as out:
        for p in pages:
            out.insert_pdf(src, from_page=p - 1, to_page=p - 1)
        data: bytes = out.tobytes()
    return data


@pytest.mark.corpus
def test_chinese_balance_sheet_over_three_pages_is_one_tree(corpus: Path) -> None:
    # pdfplumber issue 67: a quarterly report whose every page starts with the report's name.
    result: DocumentResult = process_bytes(
        _cut(corpus, "pdfplumber__issue-67-example.pdf", range(1, 23)), source="issue-67.pdf"
    )
    balance = next(s for s in result.statements if 9 in s.pages)
    assert balance.pages[:3] == [9, 10, 11]
    lines = {line.label: line for line in balance.lines}
    total = lines["资产总计"]
    assert total.proven and {lines["流动资产合计"].row, lines["非流动资产合计"].row} == set(total.children)
    assert not result.flags
    # The income statement runs from page 14 to 15 under a wrapped label ("…准备金净" / "额").
    income = next(
        s for s in result.statements if 15 in s.pages and any(line.label == "管理费用" for line in s.lines)
    )
    assert income.pages[-2:] == [14, 15]


@pytest.mark.corpus
def test_a_swap_in_a_real_ledger_is_caught(corpus: Path) -> None:
    from bench.planted_errors import plant, scan_document

    data = _cut(corpus, "pdfplumber__issue-912.pdf", [2])
    assert not process_bytes(data, source="issue-912.pdf").flags
    candidate = next(c for c in scan_document(data) if c.text == "39784")
    planted = plant(data, candidate, "37984")
    assert planted is not None
    flags = process_bytes(planted, source="issue-912.pdf").flags
    assert [f.rule for f in flags] == ["LED001"]
    assert any("37984" in e.text for e in flags[0].evidence)


@pytest.mark.corpus
def test_months_stacked_in_one_shaded_band_are_rows_of_their_own(corpus: Path) -> None:
    # 3M 2018, Item 5: each quarter's three months share one shaded band above the quarter's total.
    result = process_bytes(_cut(corpus, "financebench__3M_2018_10K.pdf", [13]), source="3m-p13.pdf")
    lines = {line.label: line for s in result.statements for line in s.lines}
    quarter = lines["Total January 1-March 31, 2018"]
    months = {lines[m].row for m in ("January 1-31, 2018", "February 1-28, 2018", "March 1-31, 2018")}
    assert quarter.proven and months <= set(quarter.children)
    year = lines["Total January 1-December 31, 2018"]
    assert year.proven and len(year.children) == 4


@pytest.mark.corpus
def test_a_second_period_block_adds_up_to_its_own_subtotal(corpus: Path) -> None:
    # JPMorgan Q1 2021: wholesale exposure by industry for March 2021, then the same lines for December 2020.
    result = process_bytes(_cut(corpus, "financebench__JPMORGAN_2021Q1_10Q.pdf", [56, 57]), source="jpm.pdf")
    subtotals = [line for s in result.statements for line in s.lines if line.label == "Subtotal"]
    assert len(subtotals) == 2 and all(line.proven for line in subtotals)
    assert all(len(line.children) == 20 for line in subtotals)


@pytest.mark.corpus
def test_movements_under_an_opening_balance_add_up_to_the_net_change(corpus: Path) -> None:
    # Boeing 2022: AOCI roll-forward; "Balance at January 1, 2020" opens it, the net change closes the
    # movements, and the closing balance is the opening balance plus the net change.
    result = process_bytes(_cut(corpus, "financebench__BOEING_2022_10K.pdf", [108]), source="boeing.pdf")
    lines = [line for s in result.statements for line in s.lines]
    net = next(line for line in lines if line.label.startswith("Net current period"))
    closing = next(line for line in lines if line.label == "Balance at December 31, 2020")
    assert net.proven and len(net.children) == 2
    assert closing.proven and set(closing.children) == {lines[0].row, net.row}
    assert not result.flags


@pytest.mark.corpus
def test_a_statement_of_equity_totals_its_amounts_not_its_share_counts(corpus: Path) -> None:
    # Salesforce 2023: share and amount columns side by side under "Consolidated Statements of …", and a
    # "$" printed 2 pt after "(4,000)".
    result = process_bytes(_cut(corpus, "financebench__SALESFORCE_2023_10K.pdf", [63]), source="crm-p63.pdf")
    equity = next(s for s in result.statements if s.column_sums)
    assert [(s.total, s.components) for s in equity.column_sums] == [(8, [2, 4, 5, 6, 7])]
    assert not result.flags
