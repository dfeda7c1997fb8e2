"""A statement's own headings and its group's name are no segment of it (generated filing).

A cash-flow statement opens a section "Changes in assets and liabilities, net of business combinations:"
(or "excluding effect of acquisitions and divestitures", "net of acquired assets and assumed
liabilities"). Its words beyond the statement's vocabulary made it a segment's heading, so every line under
it, down to "Net cash provided by operating activities", was a segment's figure: the MD&A's summary of cash
flows keyed wrong was compared with nothing (Salesforce, development seeds 31-32). And a statement headed
"Corning Incorporated and Subsidiary Companies" over its years put the whole statement in a dimension of
that name (a column head's; the same words as a table's title were already the group's). What a heading
says the lines leave out (acquisitions, divestitures, business combinations) and the consolidated group's
name now name no segment; a segment's heading still does.
"""

from __future__ import annotations

import pytest

from pipeline.figures.facts import header_dimension
from schemas.models import DocumentResult
from tests.support.pages import tables_result

_SUMMARY = "Our cash flows were as follows (in millions):"


def _filing(heading: str, operating_2022: str = "4,801", group: str = "") -> DocumentResult:
    statement = [
        ("Net income", ("1,444", "4,072")),
        ("Depreciation and amortization", ("3,298", "2,846")),
        (heading, ("", "")),
        ("Accounts receivable, net", ("(1,824)", "(1,487)")),
        ("Unearned revenue", ("1,359", "1,632")),
        ("Other", ("1,723", "(2,262)")),
        ("Net cash provided by operating activities", ("6,000", "4,801")),
    ]
    summary = [
        ("Net cash provided by operating activities", ("6,000", operating_2022)),
        ("Net cash used in investing activities", ("(14,536)", "(3,971)")),
    ]
    title = f"CONSOLIDATED STATEMENTS OF CASH FLOWS (in millions) {group}".strip()
    return tables_result([(title, statement), (_SUMMARY, summary)], ("2022", "2021"))


@pytest.mark.parametrize(
    "heading",
    [
        "Changes in assets and liabilities, net of business combinations:",
        "Changes in operating assets and liabilities, excluding effect of acquisitions and divestitures:",
        "Changes in operating assets and liabilities, net of acquired assets and assumed liabilities:",
        "Changes in certain working capital items:",  # Corning's
        "Increase (decrease) in cash from changes in:",
    ],
)
def test_a_summary_keyed_wrong_is_compared_with_the_statement(heading: str) -> None:
    assert _filing(heading).flags == []
    flags = _filing(heading, operating_2022="4,810").flags
    assert [f.rule for f in flags] == ["XREF001"], [f.message for f in flags]


def test_a_segment_s_heading_still_names_its_segment() -> None:
    # Under "Consumer Products:" the line is the segment's cash, and the summary's is not compared with it.
    flags = _filing("Consumer Products:", operating_2022="4,810").flags
    assert [f.rule for f in flags] != ["XREF001"], [f.message for f in flags]


@pytest.mark.parametrize(
    ("head", "dimension"),
    [
        ("Corning Incorporated and Subsidiary Companies December 31, 2016", None),
        ("Acme Corp. and its subsidiaries 2024", None),
        ("Americas 2025", "americas"),
    ],
)
def test_the_group_s_name_over_the_years_names_no_dimension(head: str, dimension: str | None) -> None:
    # Corning heads its statements "Corning Incorporated and Subsidiary Companies" over the years: the head
    # made every figure a dimension's of that name, compared with nothing (96 facts of 2016's statements).
    assert header_dimension(head) == dimension
