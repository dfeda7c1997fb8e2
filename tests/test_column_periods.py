"""Column periods read from the heads and the caption, on generated pages.

* A year printed under a name ("U.S. Pension Plans" over "2023  2022") is the column's period, and the
  name its dimension. Before, ``combine_periods`` read "U.S. Pension Plans 2023" as no period, so every
  figure of such a table (pension costs by plan, results by segment, fair values by level) had none;
  TOT001 still added the columns up, and the XBRL report left them out ("period end or length not
  printed").
* A caption line completes the years below it only when it is a period phrase without a year of its
  own: "Components of net periodic benefit cost" is none ("periodic" is no "period"), and "Year Ended
  December 31, 2022 vs. 2021" gave every year column below it the period 2022.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf
import pytest

from adapters.xbrl.figures import select
from pipeline.engine import process_bytes
from pipeline.figures.facts import header_dimension
from pipeline.figures.periods import combine_periods
from schemas.models import DocumentResult

_XS = (330.0, 390.0, 450.0, 510.0)
"""Right edges of the four value columns."""


def _page(
    groups: Sequence[str],
    years: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
    caption: str = "Years ended December 31,",
    title: str = "Components of net periodic benefit cost (in millions)",
) -> bytes:
    """One page: a title, a caption, group names each over two columns, a line of years, then rows."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 80), title, fontsize=10)
    page.insert_text((50, 96), caption, fontsize=9)
    for k, name in enumerate(groups):
        left, right = _XS[2 * k] - 40, _XS[2 * k + 1]
        width = pymupdf.get_text_length(name, fontsize=9)
        page.insert_text(((left + right - width) / 2, 110), name, fontsize=9)
    for x, year in zip(_XS, years, strict=True):
        page.insert_text((x - pymupdf.get_text_length(year, fontsize=9), 124), year, fontsize=9)
    for i, (label, figures) in enumerate(rows):
        y = 142 + 14 * i
        page.insert_text((50, y), label, fontsize=9)
        for x, text in zip(_XS, figures, strict=True):
            page.insert_text((x - pymupdf.get_text_length(text, fontsize=9), y), text, fontsize=9)
    data: bytes = doc.tobytes()
    return data


_ROWS = [
    ("Service cost", ["$ 120", "$ 131", "$ 40", "$ 38"]),
    ("Interest cost", ["415", "388", "92", "85"]),
    ("Expected return on plan assets", ["(560)", "(522)", "(101)", "(97)"]),
    ("Amortization of net actuarial loss", ["63", "70", "12", "15"]),
    ("Net periodic benefit cost", ["$ 38", "$ 67", "$ 43", "$ 41"]),
]


@pytest.fixture(scope="module")
def plans() -> DocumentResult:
    data = _page(["U.S. Pension Plans", "International Plans"], ["2023", "2022", "2023", "2022"], _ROWS)
    return process_bytes(data, source="plans.pdf")


@pytest.mark.parametrize(
    ("parts", "key"),
    [
        (["U.S. Pension Plans", "2023"], "FY2023"),
        (["Qualified and Non-qualified Pension Benefits", "United States", "2021"], "FY2021"),
        (["International 2020"], "FY2020"),
        (["Level 3", "2022"], "FY2022"),
    ],
)
def test_a_year_under_a_name_is_that_year(parts: list[str], key: str) -> None:
    period = combine_periods(parts)
    assert period is not None and period.key == key and period.months is None


@pytest.mark.parametrize(
    "parts",
    [
        ["Three Months", "2023"],  # a quarter whose end is not printed: no fiscal year
        ["Six Months Ended", "2022"],
        ["Change", "2023"],
        ["Ten-year summary 2013"],
        ["Balance at", "June", "2023"],
    ],
)
def test_a_name_that_speaks_of_a_period_is_no_name(parts: list[str]) -> None:
    period = combine_periods(parts)
    assert period is None or not (period.key.startswith("FY") and period.months is None)


def test_a_number_that_numbers_the_name_stays_in_the_dimension() -> None:
    assert header_dimension("Fair Value at December 31, Level 3 2021") == "fair value level 3"
    assert header_dimension("Level 1 2022") != header_dimension("Level 2 2022")
    assert header_dimension("December 31, 2023") is None
    assert header_dimension("Note 12 2023") is None
    # the unit printed among the heads, and the carrying amount (the statements' figure), name no dimension
    assert header_dimension("December 31, 2022 (In millions, except par value amounts)") is None
    assert header_dimension("December 31, 2022 Carrying Amount") is None
    assert header_dimension("2021 Gross Carrying Amount") == "gross"
    # a day before its month is the date's, not a number of the name
    assert header_dimension("Domestic plans 31 December 2025") == "domestic plans"


def test_plan_columns_get_their_year_and_their_plan(plans: DocumentResult) -> None:
    (statement,) = [s for s in plans.statements if len(s.columns) == 4]
    # the caption over the table says how long and when: a year ended December 31
    assert [c.period.end_date if c.period else None for c in statement.columns] == [
        "2023-12-31",
        "2022-12-31",
    ] * 2
    assert {c.period.months if c.period else None for c in statement.columns} == {12}
    assert [c.context for c in statement.columns] == ["u s pension plans"] * 2 + ["international plans"] * 2


def test_the_report_publishes_the_plan_columns(plans: DocumentResult) -> None:
    selection = select(plans)
    published = [f for f in selection.figures if f.line is not None]
    assert len(published) == 4 * len(_ROWS)
    assert {f.member for f in published} == {"USPensionPlansMember", "InternationalPlansMember"}
    assert not [e for e in selection.excluded if "period" in e.reason]
    assert len(selection.summations) == 1


def test_a_caption_that_prints_a_year_completes_no_column() -> None:
    # years under "Year Ended December 31, 2023 vs. 2022  2022 vs. 2021": each column keeps its own year
    caption = "Year Ended December 31, 2023 vs. 2022  2022 vs. 2021"
    data = _page([], ["2023", "2022", "2021", "2020"], _ROWS, caption, "Operating results (in millions)")
    result = process_bytes(data, source="years.pdf")
    (statement,) = [s for s in result.statements if len(s.columns) == 4]
    assert [c.period.fiscal_year if c.period else None for c in statement.columns] == [2023, 2022, 2021, 2020]


_WIDE = (260.0, 350.0, 440.0, 530.0)
"""Right edges of four value columns wide enough for heads such as "Three Months 2023"."""


def _heads_page(heads: Sequence[Sequence[tuple[float, str]]]) -> bytes:
    """One page with the given head lines (each cell right-aligned at its x) over four wide value columns."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 80), "Results of operations (in millions)", fontsize=10)
    for i, line in enumerate(heads):
        for x, text in line:
            page.insert_text((x - pymupdf.get_text_length(text, fontsize=9), 104 + 14 * i), text, fontsize=9)
    for i, (label, figures) in enumerate(_ROWS):
        y = 104 + 14 * len(heads) + 4 + 14 * i
        page.insert_text((50, y), label, fontsize=9)
        for x, text in zip(_WIDE, figures, strict=True):
            page.insert_text((x - pymupdf.get_text_length(text, fontsize=9), y), text, fontsize=9)
    data: bytes = doc.tobytes()
    return data


def _over(first: int, last: int, text: str) -> tuple[float, str]:
    """A head centred over columns ``first`` to ``last`` (as a rule under it would span them)."""
    centre = (_WIDE[first] - 45 + _WIDE[last]) / 2
    return centre + pymupdf.get_text_length(text, fontsize=9) / 2, text


def _column_periods(data: bytes) -> list[str | None]:
    result = process_bytes(data, source="heads.pdf")
    (statement,) = [s for s in result.statements if len(s.columns) == 4]
    return [c.period.key if c.period else None for c in statement.columns]


def test_a_year_beside_a_dated_quarter_is_that_quarter_of_its_year() -> None:
    # "Three Months Ended" over "June 30, 2023  2022": the month and day printed over the first column only
    heads = [
        [_over(0, 1, "Three Months Ended"), _over(2, 3, "Six Months Ended")],
        [(_WIDE[0], "June 30, 2023"), (_WIDE[1], "2022"), (_WIDE[2], "June 30, 2023"), (_WIDE[3], "2022")],
    ]
    assert _column_periods(_heads_page(heads)) == ["Q2-2023", "Q2-2022", "H1-2023", "H1-2022"]
    # on one line: "Three months ended March 31, 2023" beside "2022" was the fiscal year 2022
    one_line = [[(_WIDE[0], "Three months ended March 31, 2023"), (_WIDE[1], "2022")]]
    assert _column_periods(_heads_page(one_line))[:2] == ["Q1-2023", "Q1-2022"]


def test_a_year_beside_an_undated_quarter_gets_no_period_rather_than_a_fiscal_year() -> None:
    heads = [
        [
            (_WIDE[0], "Three Months 2023"),
            (_WIDE[1], "2022"),
            (_WIDE[2], "Six Months 2023"),
            (_WIDE[3], "2022"),
        ]
    ]
    assert _column_periods(_heads_page(heads)) == [None] * 4


def test_a_date_under_a_name_is_that_date() -> None:
    # Kraft Heinz's 2021 10-K: "U.S. Plans" and "Non-U.S. Plans" over "December 25, 2021  December 26, 2020"
    # each; every figure of its benefit-obligation tables had no period, so the two tables that print the
    # same obligations were never compared
    dates = ["December 25, 2021", "December 26, 2020"] * 2
    heads = [
        [_over(0, 1, "U.S. Plans"), _over(2, 3, "Non-U.S. Plans")],
        [(x, d) for x, d in zip(_WIDE, dates, strict=True)],
    ]
    assert _column_periods(_heads_page(heads)) == ["2021-12-25", "2020-12-26"] * 2
    assert combine_periods(["Americas", "31 December 2025"]) is not None
    for parts in (["Change since", "December 31, 2020"], ["Notional amount", "June 30, 2021 and 2020"]):
        assert combine_periods(parts) is None, parts
