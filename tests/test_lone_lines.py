"""Stitching with lone lines of figures (``RawTable.lone``), on tables built by hand.

A lone line at a page's top is kept only if it continues the table before; one at the foot only if the next
page continues it; one that is neither is no table, and takes no table's place: the first table read on a
page is still the one that may continue the page before (a lone line of year heads at the top of a
mixed layout's page, under "(continued)", hid the plan-asset table's continuation from the page before).
"""

from __future__ import annotations

from typing import Literal

from pipeline.parse.stitch import stitch_pages
from pipeline.parse.table_types import RawCell, RawTable


def _raw(
    page: int, rows: list[tuple[str, str]], *, top: float, lone: Literal["top", "foot"] | None = None
) -> RawTable:
    cells = [
        [
            RawCell(i, 0, label, (60.0, top + 12 * i, 200.0, top + 12 * i + 10)),
            RawCell(i, 1, value, (480.0, 0, 540.0, 0)),
        ]
        for i, (label, value) in enumerate(rows)
    ]
    table = RawTable(
        page,
        (60.0, top, 540.0, top + 12 * len(rows)),
        2,
        cells,
        0,
        [(60.0, 470.0), (470.0, 540.0)],
        [],
        None,
        "x",
    )
    table.lone = lone
    return table


def _shape(groups: list) -> list[list[int]]:  # type: ignore[type-arg]
    return [[len(f.rows) for f in g.fragments] for g in groups]


def test_a_lone_line_at_the_top_continues_the_table_before() -> None:
    before = _raw(1, [("Cash", "10"), ("Borrowings", "30")], top=650.0)
    total = _raw(2, [("Net debt", "20")], top=60.0, lone="top")
    assert _shape(stitch_pages([([before], 792.0), ([total], 792.0)])) == [[2, 1]]


def test_a_lone_line_that_continues_nothing_is_no_table_and_takes_no_place() -> None:
    before = _raw(1, [("Domestic", "2,008"), ("International", "1,522")], top=650.0)
    heads = _raw(2, [("2025", "2024")], top=60.0, lone="top")
    heads.n_cols = 3  # (read as three columns: it continues nothing)
    rest = _raw(2, [("Total equities", "3,530"), ("Government", "1,512")], top=100.0)
    assert _shape(stitch_pages([([before], 792.0), ([heads, rest], 792.0)])) == [[2, 2]]


def test_a_lone_line_at_the_foot_is_kept_only_as_a_start() -> None:
    first = _raw(1, [("2026", "185.56")], top=740.0, lone="foot")
    rest = _raw(2, [("2027", "168.77"), ("Total", "354.33")], top=60.0)
    assert _shape(stitch_pages([([first], 792.0), ([rest], 792.0)])) == [[1, 2]]
    alone = _raw(1, [("2026", "185.56")], top=740.0, lone="foot")
    titled = _raw(2, [("", "2025"), ("Revenue", "1,200"), ("Cost", "800")], top=400.0)
    titled.title, titled.caption, titled.header_rows = "Segment results", ["Segment results"], 1  # its own
    assert _shape(stitch_pages([([alone], 792.0), ([titled], 792.0)])) == [[3]]
