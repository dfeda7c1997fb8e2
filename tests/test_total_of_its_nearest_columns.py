"""A "Total" column that adds up the columns next to it, not every column before it.

Schedule III of a real estate company's 10-K prints, for each property, its encumbrances, its initial cost
(land, buildings), the costs capitalized since, the gross amount carried at the close of the period (land
and improvements, buildings and improvements, construction in progress, "Total") and the accumulated
depreciation. The total adds up the gross amounts just before it and, another way, the initial cost and the
costs capitalized before those; it adds up neither all the columns before it nor those after it. No sum
was proven, so a keying error in any of its columns broke nothing (development seeds 25-26: four plants
in one schedule). A headed total now also adds up the shorter runs of columns next to it, longest first,
and the run before a proven one may be a second sum (:mod:`pipeline.statements.column_sums`).
"""

from __future__ import annotations

import pytest

from schemas.models import DocumentResult
from tests.support.pages import only_flag, page_rows, table_result

# Initial cost (land, buildings), costs capitalized since, gross amounts (land, buildings, construction in
# progress) and their total, accumulated depreciation: the heads as short as the columns are narrow.
_HEADS = ("Land", "Bldg", "Since", "Land", "Bldg", "CIP", "Total", "Accum")
_XS = (180.0, 235.0, 290.0, 345.0, 400.0, 455.0, 510.0, 565.0)
_CLEAN = {"land": "3,457", "improvements": "79,858", "total": "104,214"}


def _schedule(land: str = "3,457", improvements: str = "79,858", total: str = "104,214") -> DocumentResult:
    rows = page_rows(f"""
        One Overlook     | 16,456 | 66,192 | 22,385 | 16,179 | 88,854         | —     | 105,033 | 37,165
        Discovery Square | 11,198 | 71,782 | 21,234 | 12,533 | 91,681         | —     | {total} | 35,835
        415 Main Street  | {land} | 97,136 | 2,986  | 4,125  | 99,454         | —     | 103,579 | 59,405
        355 Main Street  | 18,863 | 53,346 | 28,822 | 21,173 | {improvements} | —     | 101,031 | 23,372
        Ravendale Drive  | 5,477  | 1,090  | 233    | 5,477  | 1,323          | —     | 6,800   | 265
        Reston Land      | 9,000  | —      | 4,500  | 9,000  | —              | 4,500 | 13,500  | —
    """)
    title = "Schedule 3 - Real Estate and Accumulated Depreciation (dollars in thousands)"
    return table_result(title, _HEADS, rows, _XS, source="schedule3.pdf")


def test_the_clean_schedule_raises_nothing() -> None:
    assert _schedule().flags == []


@pytest.mark.parametrize(
    ("column", "keyed"),
    [("land", "3,547"), ("improvements", "7,985"), ("total", "140,214")],
    ids=["initial cost", "gross amount", "total"],
)
def test_a_figure_keyed_wrong_in_either_sum_is_flagged(column: str, keyed: str) -> None:
    flag = only_flag(_schedule(**{column: keyed}), "TOT002")
    assert keyed in flag.message
    assert flag.localization is not None and flag.localization.corrected == [_CLEAN[column]]
