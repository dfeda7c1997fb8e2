"""Lines of changes printed under the line they change (generated page).

A retailer's MD&A prints each line of sales by year, then its "$ Change" and "% Change" from the year
before as lines of their own, the years across: "Store sales | 7,219 | 7,029 | 5,447" over "$ Change |
190 | 1,582 |" and "% Change | 2.7% | 29.0% |". :mod:`pipeline.checks.ratio_rows` read a "% Change" line
as the change of the amounts line nearest above it, here the "$ Change" line, and no line as an amount
change: a "$ Change" keyed ten times over raised nothing (Foot Locker's 2023 10-K, development seed 28). An
amount change is now a ratio row of its own (``line − prior − change = 0``), and a "% Change" under it is
the change of the line above both. As for every ratio row, the label names the relation, its other
columns prove it, and a failure is flagged when re-keying one figure mends it.
"""

from __future__ import annotations

import pytest

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_XS = (420.0, 480.0, 540.0)


@Keyed
def _sales(
    online_change: str = "(172)", online_pct: str = "(8.2)%", online_2021: str = "1,929"
) -> DocumentResult:
    rows = page_rows(f"""
        Store sales               | 7,219   | 7,029         | 5,447
        $ Change                  | 190     | 1,582         |
        % Change                  | 2.7%    | 29.0%         |
        % of total sales          | 82.5%   | 78.5%         | 72.2%
        Direct-to-customer sales  | 1,528   | {online_2021} | 2,101
        $ Change                  | (401)   | {online_change} |
        % Change                  | (20.8)% | {online_pct}  |
        % of total sales          | 17.5%   | 21.5%         | 27.8%
        Total sales               | 8,747   | 8,958         | 7,548
        $ Change                  | (211)   | 1,410         |
        % Change                  | (2.4)%  | 18.7%         |
    """)
    return table_result("($ in millions)", ("2022", "2021", "2020"), rows, _XS, source="sales.pdf")


test_the_clean_table_raises_nothing = _sales.quiet_test()


@pytest.mark.parametrize(
    ("change", "pct"),
    [("(1,722)", "(8.2)%"), ("(127)", "(8.2)%"), ("(172)", "(2.8)%")],
    ids=["double", "swap", "pct"],
)
def test_a_change_line_keyed_wrong_is_flagged(change: str, pct: str) -> None:
    flags = _sales(online_change=change, online_pct=pct).flags
    assert [f.rule for f in flags] == ["CHG001"], [f.message for f in flags]
    assert "Direct-to-customer sales" in flags[0].message and "2021" in flags[0].message


def test_a_year_of_the_line_keyed_wrong_breaks_the_changes_to_it_and_from_it() -> None:
    flags = _sales(online_2021="1,299").flags
    assert {f.rule for f in flags} == {"CHG001"}, [f.message for f in flags]
    assert all("1,299" in " ".join(e.text for e in f.evidence) for f in flags)


_HOLDING = """
    Net sales           | 8,747   | 8,958 | 7,548
    Change              | (211)   | 1,410 |
    Cost of sales       | 6,034   | 5,862 | 5,368
    Change              | 172     | 494   |
    Gross profit        | 2,713   | 3,096 | 2,180
    Change              | (383)   | 916   |
    SG&A                | 1,711   | 1,830 | 1,580
    Change              | (119)   | 250   |
"""


@pytest.mark.parametrize(
    "lines",
    [
        "Gross margin | 31.0 | 34.5 | 28.9\nChange | (350) | 560 |",
        "Balance, beginning of year | 1,992 | 1,391 | 1,120\nChange | 412 | 601 | 271",
    ],
    ids=["margin in points", "opening balance"],
)
def test_the_change_of_a_rate_or_of_an_opening_balance_raises_nothing(lines: str) -> None:
    # A margin's change is in points, and under an opening balance a change line is the year's movement.
    rows = page_rows(_HOLDING + lines)
    result = table_result("($ in millions)", ("2022", "2021", "2020"), rows, _XS, source="rates.pdf")
    assert [f.message for f in result.flags if f.rule == "CHG001"] == []
