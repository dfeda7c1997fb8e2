"""Years headed alone under a caption that dates them: "as of December 31, 2022 and 2021" (generated).

American Express titles its loan note "Card Member and Other loans as of December 31, 2022 and 2021" over
columns headed "2022" and "2021". The columns were read as the two years' flows (FY2022, FY2021): its
balances could never be compared with the balance sheet's, and were published with a year's period. A
caption that says "as of" a day and names the column's year, and names no length, makes the column the
balance at that day of its year.
"""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.engine import process_bytes
from schemas.models import Table
from tests.support.pages import titled_page, write_table


def _note(caption: str) -> Table:
    doc = pymupdf.open()
    page = titled_page(doc, caption, (), ())
    rows = [
        ("Consumer", ("84,964", "70,467")),
        ("Small Business", ("22,947", "18,040")),
        ("Card Member loans", ("107,911", "88,507")),
    ]
    write_table(page, 84.0, ("2022", "2021"), rows)
    [table] = process_bytes(doc.tobytes(), source="note.pdf").tables
    return table


def _periods(table: Table) -> list[str]:
    return [c.number.period.key for c in table.cells if c.number and c.number.period and c.row == 1]


def test_a_caption_as_of_a_day_dates_each_year() -> None:
    table = _note("Card Member loans as of December 31, 2022 and 2021 (Millions)")
    assert _periods(table) == ["2022-12-31", "2021-12-31"]


def test_each_year_takes_its_own_day() -> None:
    # A 52/53-week year ends on another day each year: the 2021 column is not at November 30 too.
    table = _note("Loans as of November 30, 2022 and December 1, 2021 (Millions)")
    assert _periods(table) == ["2022-11-30", "2021-12-01"]


@pytest.mark.parametrize(
    "caption",
    [
        "Activity for the years ended December 31, 2022 and 2021 and balances as of December 31 (Millions)",
        "Card Member loans (Millions)",
    ],
)
def test_a_caption_that_names_a_length_or_no_day_leaves_the_years(caption: str) -> None:
    assert _periods(_note(caption)) == ["FY2022", "FY2021"]
