"""A segment's discussion is about the segment's figures, not the consolidated ones (generated filing).

MD&As discuss each segment under a heading of its own ("Industrial Division", or the segment's bare name
"Consumer") in sentences that name no segment: "Operating income increased 43%". NAR001 read each as a
sentence about the whole entity and compared it with the consolidated statement: on one 10-K outside the
corpus seven such flags, every one false (issue 23's first class). The section a sentence sits under now
says whose figures it states: a heading that says "segment" or "division", or names a part of the entity
that the document's tables print (the segment note's lines), opens a segment's section; a heading naming
a metric goes on in it; any other heading ends it. A paragraph that opens with a segment's name is that
segment's. A page's running head ends nothing. Whole-entity sentences are still compared.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf
import pytest

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, titled_page, write_table

_INCOME = [
    ("Net sales", ("10,000", "9,000")),
    ("Cost of sales", ("6,000", "5,500")),
    ("Gross profit", ("4,000", "3,500")),
    ("Selling, general and administrative expenses", ("2,000", "1,800")),
    ("Operating income", ("2,000", "1,700")),
]
_SEGMENTS = [
    ("Industrial", ("6,000", "4,800")),
    ("Consumer", ("4,000", "4,200")),
    ("Total net sales", ("10,000", "9,000")),
]
_RUNNING_HEAD = "ACME CORPORATION"

Text = Sequence[tuple[str, str]]
"""A page of the discussion: ("h", heading) set bold and larger, or ("t", a paragraph's one line)."""


def _filing(*pages: Text) -> DocumentResult:
    """The income statement, the segment note's net sales by segment, then the discussion's pages, each
    under the running head."""
    doc = pymupdf.open()
    write_table(
        titled_page(doc, "CONSOLIDATED STATEMENTS OF INCOME (in millions)", (), ()),
        84.0,
        ("2023", "2022"),
        _INCOME,
    )
    write_table(
        titled_page(doc, "Note 12. Net sales by segment (in millions)", (), ()),
        84.0,
        ("2023", "2022"),
        _SEGMENTS,
    )
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        page.insert_text((250, 30), _RUNNING_HEAD, fontsize=SIZE + 1, fontname="hebo")
        y = 60.0
        for kind, text in lines:
            if kind == "h":
                page.insert_text((50, y + 6), text, fontsize=SIZE + 1, fontname="hebo")
                y += 21
            else:
                page.insert_text((50, y), text, fontsize=SIZE)
                y += 13
    return process_bytes(doc.tobytes(), source="segments.pdf")


_INDUSTRIAL = "Net sales increased 25% compared with 2022. Operating income increased 43% on higher volumes."
_CONSUMER = "Net sales decreased 5%. Operating income decreased 9% on lower pricing."


@pytest.mark.parametrize(
    ("outer", "first", "second"),
    [
        ("Segment Results", "Industrial Division", "Consumer Division"),  # headings that say "division"
        ("Review of Operations", "Industrial", "Consumer"),  # names the segment note prints
    ],
)
def test_sentences_under_a_segment_s_heading_are_the_segment_s(outer: str, first: str, second: str) -> None:
    result = _filing([("h", outer), ("h", first), ("t", _INDUSTRIAL), ("h", second), ("t", _CONSUMER)])
    assert [f.message for f in result.flags] == []


def test_the_section_goes_on_under_a_metric_heading_and_over_the_page() -> None:
    result = _filing(
        [
            ("h", "Industrial Division"),
            ("h", "Net Sales"),
            ("t", "Net sales increased 25% compared with 2022."),
        ],
        [("h", "Operating Income"), ("t", "Operating income increased 43% on higher volumes.")],
    )
    assert [f.message for f in result.flags] == []


def test_a_paragraph_opening_with_a_segment_s_name_is_the_segment_s() -> None:
    result = _filing([("h", "Results of Operations"), ("t", "Industrial Division. " + _INDUSTRIAL)])
    assert [f.message for f in result.flags] == []


def test_a_whole_entity_sentence_after_the_segments_is_still_compared() -> None:
    result = _filing(
        [
            ("h", "Industrial Division"),
            ("t", _INDUSTRIAL),
            ("h", "Results of Operations"),
            ("t", "Operating income increased 43% on higher volumes."),
        ]
    )
    assert [(f.rule, f.pages) for f in result.flags] == [("NAR001", [1, 3])]
    assert "43% increase in Operating income" in result.flags[0].message
