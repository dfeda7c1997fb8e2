"""A "Total" column proven by two rows of its own table (generated page).

Activision Blizzard's segment table prints four lines under "Activision | Blizzard | King | Total". A
column headed as a total had to add up, with two figures or more, in three rows before a failing row
counted: with one of four lines keyed wrong, two rows were left, and a segment's operating income keyed
with the wrong sign raised nothing. The head says it is a total; like a line labelled "Total", it needs
the figures of its own table to agree in one other place, here two rows adding two figures or more each.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_XS = (330.0, 400.0, 470.0, 540.0)


@Keyed
def _segments(blizzard_income: str = "698") -> DocumentResult:
    rows = page_rows(f"""
        Net revenues from external customers | 3,478 | 1,733             | 2,580 | 7,791
        Intersegment net revenues            | —     | 94                | —     | 94
        Segment net revenues                 | 3,478 | 1,827             | 2,580 | 7,885
        Segment operating income             | 1,667 | {blizzard_income} | 1,140 | 3,505
    """)
    return table_result(
        "Segment information, year ended December 31, 2021 (In millions)",
        ("Activision", "Blizzard", "King", "Total"),
        rows,
        _XS,
        source="segments.pdf",
    )


test_the_clean_table_raises_nothing = _segments.quiet_test()


def test_a_segment_figure_keyed_with_the_other_sign_is_flagged() -> None:
    flags = _segments(blizzard_income="(698)").flags
    assert [f.rule for f in flags] == ["TOT002"]


def test_one_row_adding_up_proves_no_total_column() -> None:
    rows = page_rows("""
        Net revenues     | 3,478 | 1,733 | 2,580 | 7,791
        Operating margin | 48    | 40    | 44    | 45
        Employees        | 2,100 | 4,700 | 2,400 | 9,800
    """)
    result = table_result(
        "Segment highlights",
        ("Activision", "Blizzard", "King", "Total"),
        rows,
        _XS,
        source="highlights.pdf",
    )
    assert result.flags == []
