"""A summary of the statements' own totals under a heading in reporting words is no segment.

An MD&A summarises the cash-flow statement under "Major GAAP Cash Flow Categories"; an earnings release
prints "GAAP Basic Net Income Per Share" over its lines. A heading names a segment (its lines a segment's
figures, compared only with the same segment's) unless every word of it is the statements' own; "GAAP",
"major" and "categories" were not among those words, so the summary's lines were taken for a segment's
and never compared with the statement: 3M's 2020 financing cash flow keyed (5,300) → (55,300) in the
summary raised nothing (development seed 25). A heading naming a non-GAAP measure stays its own measure
(:func:`pipeline.figures.facts.heading_is_generic`).
"""

from __future__ import annotations

import pytest

from pipeline.figures.facts import heading_is_generic
from pipeline.figures.taxonomy import load_taxonomy
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, tables_result

_XS = (470.0, 540.0)
_YEARS = ("2020", "2019")


@Keyed
def _report(financing: str = "(5,300)") -> DocumentResult:
    summary = page_rows(f"""
        Major GAAP Cash Flow Categories                     |         |
        Net cash provided by (used in) operating activities | 8,113   | 7,070
        Net cash provided by (used in) investing activities | (580)   | (6,444)
        Net cash provided by (used in) financing activities | {financing} | (1,124)
    """)
    statement = page_rows("""
        Net income                                          | 5,449   | 4,582
        Depreciation and amortization                       | 2,664   | 2,488
        Net cash provided by (used in) operating activities | 8,113   | 7,070
        Purchases of property, plant and equipment          | (1,501) | (1,699)
        Other investing activities                          | 921     | (4,745)
        Net cash provided by (used in) investing activities | (580)   | (6,444)
        Net cash provided by (used in) financing activities | (5,300) | (1,124)
    """)
    return tables_result(
        [("Cash flows (Millions)", summary), ("Consolidated Statement of Cash Flows (Millions)", statement)],
        _YEARS,
        _XS,
        source="summary.pdf",
    )


test_the_clean_report_raises_nothing = _report.quiet_test()

test_a_summary_line_keyed_wrong_is_flagged = _report.flagged_test("XREF001", "(55,300)", financing="(55,300)")


@pytest.mark.parametrize(
    ("heading", "generic"),
    [
        ("Major GAAP Cash Flow Categories", True),
        ("GAAP Basic Net Income Per Share", True),
        ("Non-GAAP - Continuing Operations", False),
        ("Major Appliances", False),
    ],
)
def test_a_heading_in_reporting_words_is_the_statements_own(heading: str, generic: bool) -> None:
    assert heading_is_generic(heading, load_taxonomy()) is generic
