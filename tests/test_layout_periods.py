"""Column periods printed away from the column heads, on generated pages, and the XBRL report over them.

TOT001 adds such columns up whatever their period; the XBRL report left their figures out ("period end
or length not printed"), so a broken total there was TOT001's alone. Each layout below is one the
development filings print (issue 26):

* "Year Ended" over "2021  2020": a year's length over bare years (a utility's revenues by customer);
* "Quarter Ended 2021" over the row labels, "Mar 31  Jun 30  Sep 30  Dec 31" over the columns (a
  quarterly summary);
* "Year Ended December 31, 2019" alone on its line over segment columns, read over the middle ones only;
* "As of December 31, 2021, ... were as follows:" over columns of components (derivative balances);
* "Three Months  Six Months" over "2023  2022  2023  2022" under "... for the three and six months ended
  July 1, 2023 and July 2, 2022 were as follows:" (revenue by region in a 52/53-week company's quarter).

A period the page does not print stays unknown: a fiscal quarter's year, a head over two spans of the
same segments, a balance table whose sections print dates of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf
import pytest

from adapters.xbrl.agreement import agreement
from adapters.xbrl.check import check_reports
from adapters.xbrl.figures import select
from adapters.xbrl.report import REPORT_FILE, xbrl_report
from pipeline.engine import process_bytes
from pipeline.figures.periods import combine_periods
from schemas.models import DocumentResult

_XS = (300.0, 370.0, 440.0, 510.0)
"""Right edges of the four value columns."""
_SIZE = 9.0

Row = tuple[str, Sequence[str]]


def _page(
    lines: Sequence[Sequence[tuple[float, str]]],
    rows: Sequence[Row],
    *,
    caption: Sequence[str] = (),
    title: str = "Supplemental information (in millions)",
) -> bytes:
    """One page: a title, caption lines, head lines (each text right-aligned at its x), then the rows."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 80), title, fontsize=10)
    y = 96.0
    for text in caption:
        page.insert_text((50, y), text, fontsize=_SIZE)
        y += 14
    y += 6
    for line in lines:
        for x, text in line:
            page.insert_text((x - pymupdf.get_text_length(text, fontsize=_SIZE), y), text, fontsize=_SIZE)
        y += 14
    for label, figures in rows:
        y += 14
        page.insert_text((50, y), label, fontsize=_SIZE)
        for x, text in zip(_XS, figures, strict=True):
            page.insert_text((x - pymupdf.get_text_length(text, fontsize=_SIZE), y), text, fontsize=_SIZE)
    data: bytes = doc.tobytes()
    return data


def _over(first: int, last: int, text: str) -> tuple[float, str]:
    """A head centred over value columns ``first`` to ``last``."""
    centre = (_XS[first] - 40 + _XS[last]) / 2
    return centre + pymupdf.get_text_length(text, fontsize=_SIZE) / 2, text


def _heads(*texts: str) -> list[tuple[float, str]]:
    return list(zip(_XS, texts, strict=True))


_FLOWS: list[Row] = [
    ("Residential", ["$ 6,089", "$ 5,523", "$ 2,759", "$ 2,517"]),
    ("Commercial", ["5,042", "4,722", "713", "597"]),
    ("Industrial", ["1,493", "1,530", "3,146", "1,211"]),
    ("Total revenues", ["$ 12,624", "$ 11,775", "$ 6,618", "$ 4,325"]),
]
_BALANCES: list[Row] = [
    ("Current assets, other", ["$ 824", "$ (170)", "$ 537", "$ 1,191"]),
    ("Other noncurrent assets", ["306", "12", "5", "323"]),
    ("Current liabilities, other", ["(238)", "170", "16", "(52)"]),
    ("Total derivative balance", ["$ 892", "$ 12", "$ 558", "$ 1,462"]),
]


def _year_ended() -> bytes:
    """The table, then a page of balances at December 31: the day the fiscal years end."""
    doc = pymupdf.open(
        stream=_page([[_over(0, 3, "Year Ended")], _heads("2021", "2020", "2019", "2018")], _FLOWS)
    )
    doc.insert_pdf(pymupdf.open(stream=_derivatives()))
    data: bytes = doc.tobytes()
    return data


def _quarters(stub: str = "Quarter Ended 2021") -> bytes:
    return _page([[(160.0, stub), *_heads("Mar 31", "Jun 30", "Sep 30", "Dec 31")]], _FLOWS)


def _segments(names: Sequence[str] = ("Activision", "Blizzard", "King", "Total")) -> bytes:
    return _page([[_over(1, 2, "Year Ended December 31, 2019")], _heads(*names)], _FLOWS)


_AS_OF = "As of December 31, 2021, the balances were as follows:"


def _derivatives(caption: str = _AS_OF, rows: Sequence[Row] = _BALANCES) -> bytes:
    heads = _heads("Gross Balance", "Netting", "Collateral", "Net Balance")
    return _page([heads], rows, caption=["Derivative instruments", caption])


def _periods(data: bytes) -> list[str | None]:
    """The column periods of the page's first table."""
    result = process_bytes(data, source="layout.pdf")
    statement = next(s for s in result.statements if len(s.columns) == 4)
    return [c.period.key if c.period else None for c in statement.columns]


@pytest.mark.parametrize(
    ("parts", "key"),
    [
        (["Year Ended", "2021"], "FY2021"),
        (["Years ended", "2020 (1)"], "FY2020"),
        (["Fiscal Year Ended", "2021"], "FY2021"),
        (["Three Months Ended", "2021"], None),  # which quarter is not printed
    ],
)
def test_a_years_length_over_a_bare_year_is_that_fiscal_year(parts: list[str], key: str | None) -> None:
    p = combine_periods(parts)
    assert (p.key if p else None) == key
    assert p is None or p.months == 12


def test_year_ended_over_bare_years() -> None:
    assert _periods(_year_ended()) == ["FY2021", "FY2020", "FY2019", "FY2018"]


def test_quarters_dated_by_the_year_over_the_row_labels() -> None:
    assert _periods(_quarters()) == ["Q1-2021", "Q2-2021", "Q3-2021", "Q4-2021"]
    # a fiscal year may begin in the calendar year before: which year "Sep 30" is, is not printed
    assert _periods(_quarters("Fiscal Quarter Ended 2021")) == [None] * 4


def test_a_lone_period_head_over_segment_columns_is_every_columns() -> None:
    assert _periods(_segments()) == ["FY2019"] * 4
    # the same segments twice: two spans, one head printed; the other span's period is unknown
    periods = _periods(_segments(("Activision", "Blizzard", "Activision", "Blizzard")))
    assert periods[0] is None and periods[3] is None


def test_a_lead_in_at_one_date_dates_every_column_of_balances() -> None:
    assert _periods(_derivatives()) == ["2021-12-31"] * 4
    # a lead-in that names a length, or two dates, dates nothing
    assert _periods(_derivatives("For the year ended December 31, 2021, the balances were:")) == [None] * 4
    assert _periods(_derivatives("As of December 31, 2021 and 2020, the balances were:")) == [None] * 4
    # sections dated in the rows: the lead-in's date is not every row's
    sections = [("December 31, 2020", ["", "", "", ""]), *_BALANCES]
    assert _periods(_derivatives(rows=sections)) == [None] * 4
    # a roll-forward: its movements are no balances at that date
    moves = [("Balance, beginning of year", _BALANCES[0][1]), *_BALANCES[1:]]
    assert _periods(_derivatives(rows=moves)) == [None] * 4


def _quarterly_results() -> bytes:
    heads = [
        [_over(0, 3, "Year Ended December 31, 2017 (1)")],
        _heads("First", "Second", "Third", "Fourth"),
        _heads(*["Quarter"] * 4),
    ]
    return _page(heads, _FLOWS, title="Quarterly results (unaudited, in millions)")


def test_quarters_under_the_years_caption_are_quarters_of_that_year() -> None:
    # four quarters' figures under one "Year Ended" caption were each published as the year's revenue
    assert _periods(_quarterly_results()) == ["Q1-2017", "Q2-2017", "Q3-2017", "Q4-2017"]
    result = process_bytes(_quarterly_results(), source="quarters.pdf")
    revenue = [f for f in result.facts if f.metric == "revenue"]
    assert len(revenue) == 4 and all(f.period and f.period.months == 3 for f in revenue)


def _fair_values() -> bytes:
    heads = [
        [_over(0, 1, "December 31, 2022"), _over(2, 3, "December 31, 2021")],
        _heads("Carrying", "Fair", "Carrying", "Fair"),
        _heads("Amount", "Value", "Amount", "Value"),
    ]
    return _page(heads, _BALANCES, title="Fair value of financial instruments (in millions)")


def test_a_date_over_carrying_amount_and_fair_value_dates_both_columns() -> None:
    # "December 31, 2022" over "Carrying Amount  Fair Value": the date is each column's, the fair value a
    # measure of its own, the carrying amount the figure the balance sheet prints
    assert _periods(_fair_values()) == ["2022-12-31", "2022-12-31", "2021-12-31", "2021-12-31"]
    result = process_bytes(_fair_values(), source="fair-values.pdf")
    (statement,) = [s for s in result.statements if len(s.columns) == 4]
    assert [c.context for c in statement.columns] == [None, "fair value", None, "fair value"]


@pytest.mark.parametrize(
    ("parts", "key"),
    [
        (["December 31, 2022", "Carrying Amount"], "2022-12-31"),
        (["December 31, 2022", "(In millions, except par value amounts)"], "2022-12-31"),
        (["Fiscal 2023", "Second Half"], "H2-2023"),
        (["Fiscal Year 2023", "Third Quarter"], "Q3-2023"),
        (["Year Ended December 31, 2016", "First Quarter Second Quarter"], None),  # two parts: no one period
        (["Fiscal 2023", "Third Half"], None),
    ],
)
def test_a_part_of_the_year_named_under_it(parts: list[str], key: str | None) -> None:
    p = combine_periods(parts)
    assert (p.key if p else None) == key


_LEAD = "Revenue by region for the three and six months ended July 1, 2023 and July 2, 2022 were as follows:"


def _lead_in(lead: str = _LEAD) -> bytes:
    heads = [[_over(0, 1, "Three Months"), _over(2, 3, "Six Months")], _heads("2023", "2022", "2023", "2022")]
    return _page(heads, _FLOWS, caption=[lead])


def test_a_length_over_years_dated_by_the_sentence_introducing_the_table() -> None:
    # each year ends on the day the sentence prints for it (a 52/53-week year: July 1, 2023, July 2, 2022)
    assert _periods(_lead_in()) == ["Q2-2023", "Q2-2022", "H1-2023", "H1-2022"]
    result = process_bytes(_lead_in(), source="lead.pdf")
    (statement,) = [s for s in result.statements if len(s.columns) == 4]
    assert [c.period.end_date if c.period else None for c in statement.columns] == [
        "2023-07-01",
        "2022-07-02",
    ] * 2
    # a sentence that names another length, or no day in a column's year, dates nothing
    assert _periods(_lead_in(_LEAD.replace("three and six", "nine"))) == [None] * 4
    assert _periods(_lead_in(_LEAD.replace("and July 2, 2022", "and 2021"))) == [
        "Q2-2023",
        None,
        "H1-2023",
        None,
    ]


_LAYOUTS = {
    "year ended": _year_ended,
    "quarters": _quarters,
    "segments": _segments,
    "derivatives": _derivatives,
    "lead-in": _lead_in,
}


def _broken(data: bytes) -> bytes:
    """The page with its first total's first figure misprinted by 100 (a keying error TOT001 flags)."""
    doc = pymupdf.open(stream=data)
    page = doc[0]
    total = next(r for r in (*_FLOWS, *_BALANCES) if r[0].startswith("Total") and page.search_for(r[0]))
    printed = total[1][0].removeprefix("$ ")
    (hit,) = page.search_for(printed, clip=pymupdf.Rect(0, page.search_for(total[0])[0].y0, 595, 842))
    page.add_redact_annot(hit)
    page.apply_redactions()
    wrong = f"{int(printed.replace(',', '')) + 100:,}"
    page.insert_text(
        (hit.x1 - pymupdf.get_text_length(wrong, fontsize=_SIZE), hit.y1 - 2.2), wrong, fontsize=_SIZE
    )
    out: bytes = doc.tobytes()
    return out


@pytest.fixture(scope="module")
def broken() -> dict[str, DocumentResult]:
    return {name: process_bytes(_broken(make()), source=f"{name}.pdf") for name, make in _LAYOUTS.items()}


def test_each_layouts_figures_are_published(broken: dict[str, DocumentResult]) -> None:
    for name, result in broken.items():
        selection = select(result)
        assert not [e for e in selection.excluded if "period" in e.reason], name
        assert len([f for f in selection.figures if f.line is not None]) >= 4 * len(_FLOWS), name


def test_a_broken_total_in_each_layout_is_arelles_inconsistency_too(
    broken: dict[str, DocumentResult], tmp_path: Path
) -> None:
    paths = []
    for name, result in broken.items():
        report = xbrl_report(result)
        (tmp_path / name).mkdir()
        for file, data in report.files.items():
            (tmp_path / name / file).write_bytes(data)
        paths.append(tmp_path / name / REPORT_FILE)
    for (name, result), check in zip(broken.items(), check_reports(paths), strict=True):
        assert check.report_ok, (name, [(m.code, m.text) for m in check.errors])
        selection = select(result)
        found = agreement(result, selection, check)
        assert found.flags == 1, name
        assert found.one_to_one and found.matched == 1, (name, found.flag_only, found.arelle_only)
