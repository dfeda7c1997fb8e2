"""Tests for pipeline.figures.periods: column headers and phrases from US, IFRS, UK, Indian and East-Asian
filings."""

from __future__ import annotations

import pytest

from pipeline.figures.periods import combine_periods, parse_period, period_key
from tests.support.corpus import corpus_pdf

# (text, kind, key, fiscal_year, quarter, months, end_date)
Expected = tuple[str, str, int | None, int | None, int | None, str | None]

PERIOD_CASES: list[tuple[str, Expected]] = [
    # Fiscal years.
    ("2025", ("duration", "FY2025", 2025, None, None, None)),
    ("1999", ("duration", "FY1999", 1999, None, None, None)),
    ("FY2025", ("duration", "FY2025", 2025, None, 12, None)),
    ("FY 2025", ("duration", "FY2025", 2025, None, 12, None)),
    ("FY25", ("duration", "FY2025", 2025, None, 12, None)),
    ("Fiscal 2023", ("duration", "FY2023", 2023, None, 12, None)),
    ("Fiscal year 2024", ("duration", "FY2024", 2024, None, 12, None)),
    ("Full year 2025", ("duration", "FY2025", 2025, None, 12, None)),
    ("Year ended 31 December 2025", ("duration", "FY2025", 2025, None, 12, "2025-12-31")),
    ("Year Ended December 31, 2017", ("duration", "FY2017", 2017, None, 12, "2017-12-31")),
    ("Years ended December 31, 2017", ("duration", "FY2017", 2017, None, 12, "2017-12-31")),
    ("For the fiscal year ended December 2, 2022", ("duration", "FY2022", 2022, None, 12, "2022-12-02")),
    ("Year Ended June 30, 2023", ("duration", "FY2023", 2023, None, 12, "2023-06-30")),
    ("Twelve months ended March 31, 2021", ("duration", "FY2021", 2021, None, 12, "2021-03-31")),
    ("For the year ended 31 March 2025", ("duration", "FY2025", 2025, None, 12, "2025-03-31")),
    # A 52/53-week year ending in the first days of January belongs to the previous year.
    ("52 weeks ended January 2, 2021", ("duration", "FY2020", 2020, None, 12, "2021-01-02")),
    ("Fifty-three weeks ended February 3, 2024", ("duration", "FY2024", 2024, None, 12, "2024-02-03")),
    # Fiscal-year spans (UK, India, public budgets).
    ("2024/25", ("duration", "FY2025", 2025, None, 12, None)),
    ("2024-25", ("duration", "FY2025", 2025, None, 12, None)),
    ("2013-14", ("duration", "FY2014", 2014, None, 12, None)),
    ("2024/2025", ("duration", "FY2025", 2025, None, 12, None)),
    ("FY 2024-25", ("duration", "FY2025", 2025, None, 12, None)),
    ("2013-14 (Budget Estimates)", ("duration", "FY2014", 2014, None, 12, None)),
    # Quarters.
    ("Three Months Ended March 31, 2021", ("duration", "Q1-2021", 2021, 1, 3, "2021-03-31")),
    ("Three months ended December 31, 2018", ("duration", "Q4-2018", 2018, 4, 3, "2018-12-31")),
    ("Quarter ended June 30, 2017", ("duration", "Q2-2017", 2017, 2, 3, "2017-06-30")),
    ("13 weeks ended April 1, 2023", ("duration", "Q1-2023", 2023, 1, 3, "2023-04-01")),
    ("Three months ended April 30, 2023", ("duration", "3M-2023-04-30", 2023, None, 3, "2023-04-30")),
    ("Q1 2021", ("duration", "Q1-2021", 2021, 1, 3, None)),
    ("Q1'21", ("duration", "Q1-2021", 2021, 1, 3, None)),
    ("1Q21", ("duration", "Q1-2021", 2021, 1, 3, None)),
    ("4Q22", ("duration", "Q4-2022", 2022, 4, 3, None)),
    ("Q4 FY23", ("duration", "Q4-2023", 2023, 4, 3, None)),
    ("FY2024 Q3", ("duration", "Q3-2024", 2024, 3, 3, None)),
    ("2021 Q1", ("duration", "Q1-2021", 2021, 1, 3, None)),
    ("Second Quarter 2017", ("duration", "Q2-2017", 2017, 2, 3, None)),
    ("4th Quarter 2020", ("duration", "Q4-2020", 2020, 4, 3, None)),
    ("fourth quarter of fiscal 2022", ("duration", "Q4-2022", 2022, 4, 3, None)),
    # Halves and nine months.
    ("Six months ended 30 June 2025", ("duration", "H1-2025", 2025, None, 6, "2025-06-30")),
    ("Six months ended December 31, 2024", ("duration", "H2-2024", 2024, None, 6, "2024-12-31")),
    ("Six months ended 31 March 2025", ("duration", "6M-2025", 2025, None, 6, "2025-03-31")),
    ("Half-year ended 30 June 2025", ("duration", "H1-2025", 2025, None, 6, "2025-06-30")),
    ("26 weeks ended July 1, 2023", ("duration", "H1-2023", 2023, None, 6, "2023-07-01")),
    ("H1 2025", ("duration", "H1-2025", 2025, None, 6, None)),
    ("1H25", ("duration", "H1-2025", 2025, None, 6, None)),
    ("first half of 2025", ("duration", "H1-2025", 2025, None, 6, None)),
    ("Nine months ended Sept 30, 2024", ("duration", "9M-2024", 2024, None, 9, "2024-09-30")),
    (
        "Nine Months Ended September 30, 2021",
        ("duration", "9M-2021", 2021, None, 9, "2021-09-30"),
    ),
    ("9M24", ("duration", "9M-2024", 2024, None, 9, None)),
    # Periods given by both ends.
    (
        "For the period from 1 April 2024 to 31 March 2025",
        ("duration", "FY2025", 2025, None, 12, "2025-03-31"),
    ),
    ("January 1, 2021 through March 31, 2021", ("duration", "Q1-2021", 2021, 1, 3, "2021-03-31")),
    ("Period ended 31 December 2025", ("duration", "P-2025-12-31", 2025, None, None, "2025-12-31")),
    # Instants.
    ("As at 31 December 2025", ("instant", "2025-12-31", 2025, None, None, "2025-12-31")),
    ("As of December 31, 2017", ("instant", "2017-12-31", 2017, None, None, "2017-12-31")),
    ("December 31, 2017", ("instant", "2017-12-31", 2017, None, None, "2017-12-31")),
    ("Dec. 31, 2017", ("instant", "2017-12-31", 2017, None, None, "2017-12-31")),
    ("31.12.2025", ("instant", "2025-12-31", 2025, None, None, "2025-12-31")),
    ("31 Dec 2025", ("instant", "2025-12-31", 2025, None, None, "2025-12-31")),
    ("31st December 2025", ("instant", "2025-12-31", 2025, None, None, "2025-12-31")),
    ("31-Dec-25", ("instant", "2025-12-31", 2025, None, None, "2025-12-31")),
    ("12/31/2017", ("instant", "2017-12-31", 2017, None, None, "2017-12-31")),
    ("31/03/2025", ("instant", "2025-03-31", 2025, None, None, "2025-03-31")),
    ("2025-12-31", ("instant", "2025-12-31", 2025, None, None, "2025-12-31")),
    ("As on 31.03.2025", ("instant", "2025-03-31", 2025, None, None, "2025-03-31")),
    ("At 30 June 2024", ("instant", "2024-06-30", 2024, None, None, "2024-06-30")),
    ("Balance at December 31, 2016", ("instant", "2016-12-31", 2016, None, None, "2016-12-31")),
    ("Balance as of June 30, 2023", ("instant", "2023-06-30", 2023, None, None, "2023-06-30")),
    ("December 2025", ("instant", "2025-12", 2025, None, None, "2025-12")),
    ("Mar-25", ("instant", "2025-03", 2025, None, None, "2025-03")),
    ("Dec'24", ("instant", "2024-12", 2024, None, None, "2024-12")),
    ("(As at end-March 1997)", ("instant", "1997-03", 1997, None, None, "1997-03")),
    ("31 March 2025 (audited)", ("instant", "2025-03-31", 2025, None, None, "2025-03-31")),
    # Qualifiers around a bare year.
    ("2025 (restated)", ("duration", "FY2025", 2025, None, None, None)),
    ("2024 Restated", ("duration", "FY2024", 2024, None, None, None)),
    ("Group 2025 £m", ("duration", "FY2025", 2025, None, None, None)),
    ("2025 $m", ("duration", "FY2025", 2025, None, None, None)),
    ("2025 (1)", ("duration", "FY2025", 2025, None, None, None)),
    ("2025*", ("duration", "FY2025", 2025, None, None, None)),
    ("2025 %", ("duration", "FY2025", 2025, None, None, None)),
    # Phrases around a keyword period.
    ("As of or for the three months ended March 31, 2021", ("duration", "Q1-2021", 2021, 1, 3, "2021-03-31")),
    ("Form 10-Q for the quarter ended June 30, 2017).", ("duration", "Q2-2017", 2017, 2, 3, "2017-06-30")),
    ("in fiscal 2022, 2021 and 2020, respectively.", ("duration", "FY2022", 2022, None, 12, None)),
    # Japanese and Chinese.
    ("平成26年３月期", ("duration", "FY2014", 2014, None, 12, "2014-03")),
    ("2025年3月期", ("duration", "FY2025", 2025, None, 12, "2025-03")),
    (
        "前連結会計年度(自平成24年４月１日 至平成25年３月31日)",
        ("duration", "FY2013", 2013, None, 12, "2013-03-31"),
    ),
    ("令和元年12月31日", ("instant", "2019-12-31", 2019, None, None, "2019-12-31")),
    ("2018年3月31日", ("instant", "2018-03-31", 2018, None, None, "2018-03-31")),
    ("2018年第一季度", ("duration", "Q1-2018", 2018, 1, 3, None)),
    ("2018年1-3月", ("duration", "Q1-2018", 2018, 1, 3, "2018-03")),
    ("2018年1-6月", ("duration", "H1-2018", 2018, None, 6, "2018-06")),
    ("2018年1-9月", ("duration", "9M-2018", 2018, None, 9, "2018-09")),
    ("2018年度", ("duration", "FY2018", 2018, None, 12, None)),
]


@pytest.mark.parametrize(("text", "expected"), PERIOD_CASES)
def test_parse_period(text: str, expected: Expected) -> None:
    period = parse_period(text)
    assert period is not None, text
    got = (period.kind, period.key, period.fiscal_year, period.quarter, period.months, period.end_date)
    assert got == expected
    assert period.label == " ".join(text.split())
    assert period_key(period) == period.key


NOT_PERIODS = [
    "",
    "Revenue",
    "Total",
    "Notes",
    "Note 12",
    "page 45",
    "12",
    "1,234",
    "3.5",
    "2025 2024",
    "2025 vs 2024",
    "2025 vs. 2024",
    "% change",
    "Change 2025/2024",
    "Increase (decrease)",
    "2024-2026",  # not consecutive: a plan horizon, not a fiscal year
    "Year ended December 31,",  # a spanning header without its year
    "Three months ended",
    "As of December 31",
    "Fiscal Year",
    "Quarter",
    "Revenue increased by 8.4% from $1,234.5 million in 2024 to $1,338.2 million in 2025.",
    "Call (212) 555-1234",
    "Dec-31-2025",
    "May 25",
    "32 December 2025",
    "February 30, 2025",
]


@pytest.mark.parametrize("text", NOT_PERIODS)
def test_parse_period_rejects(text: str) -> None:
    assert parse_period(text) is None


def test_label_keeps_printed_text() -> None:
    period = parse_period("  Year   ended\n31 December\u00a02025 ")
    assert period is not None
    assert period.label == "Year ended 31 December 2025"
    assert period.key == "FY2025"


COMBINE_CASES: list[tuple[list[str], tuple[str, str, int | None, int | None, str | None], str | None]] = [
    (
        ["Year ended December 31,", "2025"],
        ("duration", "FY2025", 12, None, "2025-12-31"),
        "Year ended December 31, 2025",
    ),
    (
        ["Year Ended December 31,", "2024"],
        ("duration", "FY2024", 12, None, "2024-12-31"),
        "Year Ended December 31, 2024",
    ),
    (
        ["Three Months Ended", "March 31,", "2021"],
        ("duration", "Q1-2021", 3, 1, "2021-03-31"),
        "Three Months Ended March 31, 2021",
    ),
    (
        ["Six months ended", "30 June 2025", "Unaudited", "£m"],
        ("duration", "H1-2025", 6, None, "2025-06-30"),
        "Six months ended 30 June 2025 Unaudited £m",
    ),
    (
        ["As at", "31 December", "2025"],
        ("instant", "2025-12-31", None, None, "2025-12-31"),
        "As at 31 December 2025",
    ),
    (["December 31,", "2017"], ("instant", "2017-12-31", None, None, "2017-12-31"), "December 31, 2017"),
    (
        ["As of", "December 31,", "2017"],
        ("instant", "2017-12-31", None, None, "2017-12-31"),
        "As of December 31, 2017",
    ),
    (["As at", "2025"], ("instant", "2025", None, None, None), "As at 2025"),
    (["Fiscal Year", "2024"], ("duration", "FY2024", 12, None, None), "Fiscal Year 2024"),
    (["", "2025", "£m"], ("duration", "FY2025", None, None, None), "2025 £m"),
    (["2025", "(restated)"], ("duration", "FY2025", None, None, None), "2025 (restated)"),
    (["Quarter", "Q2 2017"], ("duration", "Q2-2017", 3, 2, None), "Quarter Q2 2017"),
    (["Year ended 31 March", "2025", "Rs. in crore"], ("duration", "FY2025", 12, None, "2025-03-31"), None),
    # a year printed once over its columns' names, the name under it (PG&E: "2022" over "Total Utility")
    (["2022", "Total Utility"], ("duration", "FY2022", None, None, None), None),
    (["2022", "Costs:", "That Impacted Earnings"], ("duration", "FY2022", None, None, None), None),
    # "Fiscal Years" spanning five year columns; a year over the accounting method it is measured by
    (["Fiscal Years", "2016(2)"], ("duration", "FY2016", 12, None, None), None),
    (["2025", "Prior method"], ("duration", "FY2025", None, None, None), None),
]


@pytest.mark.parametrize(("parts", "expected", "label"), COMBINE_CASES)
def test_combine_periods(
    parts: list[str], expected: tuple[str, str, int | None, int | None, str | None], label: str | None
) -> None:
    period = combine_periods(parts)
    assert period is not None
    assert (period.kind, period.key, period.months, period.quarter, period.end_date) == expected
    assert period.label == (label or " ".join(p for p in parts if p))


def test_spanning_header_combines_with_each_year() -> None:
    header = "Year ended December 31,"
    keys = [combine_periods([header, year]) for year in ("2025", "2024", "2023")]
    assert [p.key if p else None for p in keys] == ["FY2025", "FY2024", "FY2023"]


@pytest.mark.parametrize(
    "parts",
    [
        [],
        [""],
        ["Year ended December 31,"],
        ["2025", "2024"],
        ["Revenue", "Cost of sales"],
        ["% change", "2025"],
        ["2025", "Change"],
        ["2025", "Three Months"],
        ["2025", "Prior year"],
    ],
)
def test_combine_periods_rejects(parts: list[str]) -> None:
    assert combine_periods(parts) is None


def test_same_period_printed_differently_shares_a_key() -> None:
    printed = [
        "Year ended 31 December 2025",
        "Year Ended December 31, 2025",
        "FY2025",
        "Fiscal 2025",
        "2025",
        "For the period from 1 January 2025 to 31 December 2025",
    ]
    keys = set()
    for text in printed:
        period = parse_period(text)
        assert period is not None
        keys.add(period_key(period))
    assert keys == {"FY2025"}
    instants = {
        p.key for t in ("As at 31 December 2025", "31.12.2025", "December 31, 2025") if (p := parse_period(t))
    }
    assert instants == {"2025-12-31"}


@pytest.mark.corpus
def test_corpus_spanning_headers_combine_with_years() -> None:
    # JPMorgan's 10-Q prints "Three months ended March 31," once above year columns, sometimes with the
    # scale caption in between: each year column must combine into a first-quarter period.
    with corpus_pdf("financial/financebench__JPMORGAN_2021Q1_10Q.pdf") as doc:
        pages = [
            [line.strip() for line in doc[i].get_text().splitlines()] for i in range(min(32, doc.page_count))
        ]
    checked = 0
    for lines in pages:
        for i, line in enumerate(lines):
            if line != "Three months ended March 31,":
                continue
            below = [x for x in lines[i + 1 : i + 4] if x.isdigit() and len(x) == 4]
            for year in below:
                period = combine_periods([line, year])
                assert period is not None
                assert (period.key, period.quarter, period.end_date) == (f"Q1-{year}", 1, f"{year}-03-31")
                checked += 1
    assert checked >= 10
