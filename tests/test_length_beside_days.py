"""A length printed over one column of days: "Years Ended" centred over an income statement's three dates.

Adobe's 10-K heads its income statement "Years Ended" centred over "November 27, 2020", "November 29, 2019"
and "November 30, 2018". The reader puts the length in the middle column's head only, so the outer years'
revenue and gross profit were dated at an instant (flows of unknown length, compared with nothing): the
five-year summary's gross profit keyed with a digit dropped (7,835 printed 785) disagreed with no copy
(development seeds 16-18). When one column names the length and the others a day alone, one length apart,
each is that length ending on its day (:func:`pipeline.parse.structure.column_periods`). Balances beside a
year's movements share a day with the movements' end and keep their instants.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from pipeline.engine import process_bytes
from pipeline.figures.periods import combine_periods
from pipeline.parse.structure import _length_beside_days
from tests.support.pages import SIZE, Rows, titled_page, write_table

_XS = (330.0, 420.0, 510.0)


def _statement(lead: str, days: Sequence[str], rows: Rows) -> bytes:
    doc = pymupdf.open()
    page = titled_page(doc, "CONSOLIDATED STATEMENTS OF INCOME (in millions)", (), ())
    middle = _XS[1] - 30
    width = pymupdf.get_text_length(lead, fontsize=SIZE)
    page.insert_text((middle - width / 2, 84), lead, fontsize=SIZE)
    write_table(page, 98, days, rows, _XS)
    data: bytes = doc.tobytes()
    return data


_INCOME: Rows = [
    ("Total revenue", ["12,868", "11,171", "9,030"]),
    ("Total cost of revenue", ["1,722", "1,673", "1,195"]),
    ("Gross profit", ["11,146", "9,498", "7,835"]),
]


def _periods(data: bytes, metric: str) -> list[tuple[str, str, int | None]]:
    facts = process_bytes(data, source="statement.pdf").facts
    return sorted(
        (f.period.key, f.period.kind, f.period.months) for f in facts if f.metric == metric and f.period
    )


def test_every_column_is_the_year_ended_on_its_day() -> None:
    data = _statement("Years Ended", ("November 27, 2020", "November 29, 2019", "November 30, 2018"), _INCOME)
    assert _periods(data, "gross_profit") == [
        ("FY2018", "duration", 12),
        ("FY2019", "duration", 12),
        ("FY2020", "duration", 12),
    ]


def test_balances_beside_the_years_movements_keep_their_days() -> None:
    stacks = {
        1: ["December 31, 2019"],
        2: ["Year Ended", "December 31, 2020"],
        3: ["December 31, 2020"],
    }
    periods = {c: p for c, parts in stacks.items() if (p := combine_periods(parts)) is not None}
    assert [periods[c].kind for c in (1, 2, 3)] == ["instant", "duration", "instant"]
    assert _length_beside_days(stacks, periods) == periods
