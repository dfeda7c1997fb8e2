"""A ruled grid's band that runs into the next block's head keeps its figures.

Activision Blizzard's 2021 10-K prints its segments in one ruled grid, a block a year: heads, revenue
lines, operating income. No rule closes a block's last row, so the next block's "Year Ended December 31,
2019" shares its band, and merged into the row it turned Blizzard's "693" into "693 Year Ended December
31, 2019": no figure, so the total column's sum lost a part and a keying error in it went unflagged
(eBay's quarterly table lost its four quarters' last figures the same way). A line of words never goes
onto a figure of the row above (``_onto_figures`` in :mod:`pipeline.parse.table_grid`). Drawn here as the
smallest such grid: two blocks of two segments and a total.
"""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.engine import process_bytes
from pipeline.figures.grid import table_rows

_BLOCKS = (
    (
        "Year Ended December 31, 2021",
        (("Segment net revenues", (3478, 1827, 5305)), ("Segment operating income", (1667, 698, 2365))),
    ),
    (
        "Year Ended December 31, 2020",
        (("Segment net revenues", (3942, 1905, 5847)), ("Segment operating income", (1868, 693, 2561))),
    ),
)
_RIGHTS = (330.0, 410.0, 490.0)


def _grid(*, rule_under_blocks: bool) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((60, 80), "Segment information (in millions)", fontsize=11)
    y = 110.0
    rules = [y - 11]
    for caption, lines in _BLOCKS:
        page.insert_text((250, y), caption, fontsize=9)
        y += 14
        for head, right in zip(("Activision", "Blizzard", "Total"), _RIGHTS, strict=True):
            page.insert_text((right - pymupdf.get_text_length(head, fontsize=9), y), head, fontsize=9)
        rules.append(y + 4)
        for label, values in lines:
            y += 16
            page.insert_text((60, y), label, fontsize=9)
            for value, right in zip(values, _RIGHTS, strict=True):
                text = f"{value:,}"
                page.insert_text((right - pymupdf.get_text_length(text, fontsize=9), y), text, fontsize=9)
            rules.append(y + 4)
        if not rule_under_blocks:
            rules.pop()  # the block's last row runs on into the next block's caption
        y += 18
    for ry in rules:
        page.draw_line((55, ry), (500, ry), width=0.5)
    for x in (55, 240, 340, 420, 500):
        page.draw_line((x, rules[0]), (x, rules[-1]), width=0.5)
    data: bytes = doc.tobytes()
    return data


@pytest.mark.parametrize("rule_under_blocks", [False, True])
def test_every_operating_income_is_a_figure(rule_under_blocks: bool) -> None:
    result = process_bytes(_grid(rule_under_blocks=rule_under_blocks), source="grid.pdf")
    rows = [row for t in result.tables for row in table_rows(t) if row.label == "Segment operating income"]
    printed = [[cell.text for _, cell in sorted(row.numbers.items())] for row in rows]
    assert printed == [["1,667", "698", "2,365"], ["1,868", "693", "2,561"]], printed
