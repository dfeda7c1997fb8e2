"""A period one table prints twice, side by side: the two columns are one figure in every line.

eBay's MD&A compares 2021 with 2020 and 2020 with 2019 in one table: "Year Ended December 31, 2021 | 2020 |
% Change" beside "2020 | 2019 | % Change" (here without the changes). The two 2020 columns are the same
figures; cross-references compared copies across tables and lines with a label of their own only, so GMV
keyed 87,608 → 8,768 in one of them raised nothing (development seeds 19-21). Columns headed alike, naming
their period in words, whose figures carry one period and agree on every other line (two at least), are one
period printed twice (:mod:`pipeline.checks.repeated_columns`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, only_flag, titled_page, write_table

_XS = (330.0, 400.0, 470.0, 540.0)
_WORDS = ("Year Ended",) * 4


@Keyed
def _revenues(
    gmv_2020: str = "87,608", names: Sequence[str] = ("",) * 4, words: Sequence[str] = _WORDS
) -> DocumentResult:
    rows = [
        ("Net transaction revenues", ("9,772", "8,243", "8,243", "6,581")),
        ("Marketing services", ("648", "651", "651", "620")),
        ("GMV", ("87,365", gmv_2020, "87,608", "72,134")),
        ("Take rate", ("11.19 %", "9.41 %", "9.41 %", "9.12 %")),
    ]
    doc = pymupdf.open()
    page = titled_page(doc, "Net revenues (In millions)", (), ())
    # heads on three lines: a name (or none) over the period's words over the year
    write_table(page, 84, names, [], _XS)
    write_table(page, 96, words, [], _XS)
    write_table(page, 108, ("2021", "2020", "2020", "2019"), rows, _XS)
    return process_bytes(doc.tobytes(), source="revenues.pdf")


def _xref(result: DocumentResult) -> list[str]:
    return [f.message for f in result.flags if f.rule == "XREF001"]


test_the_clean_table_raises_nothing = _revenues.quiet_test()


def test_a_figure_keyed_wrong_in_one_of_the_two_printings_is_flagged() -> None:
    flag = only_flag(_revenues("8,768"), "XREF001")
    assert "GMV" in flag.message and "8,768" in flag.message and "87,608" in flag.message


def test_bare_years_may_be_two_entities() -> None:
    # two companies' columns, their names printed over the years lost or never printed
    assert _xref(_revenues("8,768", words=("",) * 4)) == []


def test_columns_headed_otherwise_are_two_things() -> None:
    assert _xref(_revenues("8,768", names=("", "", "Europe", "Europe"))) == []
