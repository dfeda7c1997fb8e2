"""The shapes table finding works with: rules on a page, the raw grid it produces, and its tolerances.

Kept apart from the finder (:mod:`pipeline.parse.tables`) and the grid builder
(:mod:`pipeline.parse.table_grid`) because both need them; :mod:`pipeline.parse.tables` re-exports every
name, so callers import them from there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from pipeline.knobs import Knobs

__all__ = [
    "DEFAULT_FINDER",
    "BBoxT",
    "RawCell",
    "RawTable",
    "Rules",
    "TableFinderSettings",
    "marked_continued",
    "says_continued",
    "title_name",
]

BBoxT = tuple[float, float, float, float]

_CONTINUED = re.compile(r"\b(continued|cont['’]?d|cont\.)\b|\(cont", re.IGNORECASE)


_CONTINUED_WORD = re.compile(r"\(?\b(?:continued|cont['’]?d)\b\)?", re.IGNORECASE)
_CONTINUED_MARK = re.compile(r"\((?:continued|cont['’]?d\.?)\)|[-–—,]\s*continued\s*$", re.IGNORECASE)


def says_continued(text: str) -> bool:
    """Whether a title, caption or head says its table continues one from before ("(continued)", "cont'd")."""
    return bool(_CONTINUED.search(text))


def title_name(title: str | None) -> str:
    """A title as two printings of one table share it: without "(continued)", case and spacing folded."""
    return " ".join(_CONTINUED_WORD.sub(" ", title or "").casefold().split())


def marked_continued(text: str) -> bool:
    """Whether a line carries the mark of a continued title: "(continued)", "(cont'd)", "… — continued".

    Stricter than :func:`says_continued`, for lines that may be running text ("the continued growth of
    …"): only the mark a title takes.
    """
    return bool(_CONTINUED_MARK.search(text))


@dataclass(slots=True)
class Rules:
    """Horizontal and vertical rules drawn on a page (thin lines or thin filled rectangles)."""

    horizontal: list[tuple[float, float, float]] = field(default_factory=list)  # (y, x0, x1)
    vertical: list[tuple[float, float, float]] = field(default_factory=list)  # (x, y0, y1)


@dataclass(slots=True)
class RawCell:
    """A cell of a raw table grid."""

    row: int
    col: int
    text: str
    bbox: BBoxT
    col_span: int = 1
    is_header: bool = False
    currency: str | None = None
    ruled: bool = False
    """A rule is drawn just above the figure: the line a total is printed under."""


@dataclass(slots=True)
class RawTable:
    """A table found on one page, before typing."""

    page: int
    bbox: BBoxT
    n_cols: int
    rows: list[list[RawCell]]
    header_rows: int
    col_bounds: list[tuple[float, float]]
    caption: list[str]
    title: str | None
    method: str
    row_tops: list[float] = field(default_factory=list)
    caption_boxes: list[BBoxT] = field(default_factory=list)
    below: list[str] = field(default_factory=list)
    """The lines printed under it, to the next table or the page's foot (at most ``header_lines``): where
    the next table's title and heads stand when its rows begin on the next page."""
    lone: Literal["top", "foot"] | None = None
    """One line of figures at the top of a page ("top"), kept only as the rest of a table begun on the page
    before, or under its heads at the foot of a page ("foot"), kept only as the start of one the next page
    continues (:func:`pipeline.parse.stitch.stitch_pages` drops it otherwise)."""

    @property
    def n_rows(self) -> int:
        """Number of rows, header included."""
        return len(self.rows)


class TableFinderSettings(Knobs):
    """The table finder's tolerances, named and documented; unknown keys raise.

    pdfplumber's ``table_settings`` are the model. Distances are in points unless they say line heights
    (the page's median line height).
    """

    region_gap_heights: float = Field(2.4, description="A vertical gap wider than this ends a table region.")
    region_other_lines: int = Field(
        3, description="Lines that are neither rows nor labels a region may hold."
    )
    nil_items: int = Field(8, description="Line items printed without figures a region may hold in a row.")
    column_move: float = Field(
        40.0,
        description="Figures beginning this far left of a table's, under a stub head, start the next table.",
    )
    year_head_search: int = Field(4, description="Lines at a region's top searched for a line of year heads.")
    rule_x_margin: float = Field(30.0, description="Vertical rules this far beside the region are its rules.")
    rule_y_margin: float = Field(2.0, description="Vertical rules reaching this close to the region count.")
    rules_above: float = Field(120.0, description="Horizontal rules this far above the region are its rules.")
    rules_below: float = Field(4.0, description="... and this far below it.")
    frame_edge: float = Field(5.0, description="A rule within this of both region edges spans the table.")
    header_lines: int = Field(8, description="Lines above the body searched for column heads and captions.")
    header_gap_heights: float = Field(2.6, description="A gap wider than this ends the header search.")
    caption_lines: int = Field(4, description="Caption lines kept above a table at most.")
    value_edge: float = Field(2.0, description="A head ending this close before the values is over them.")
    title_overhang: float = Field(
        5.0, description="A phrase crossing the value edge by this much is a title."
    )
    frame_top_tolerance: float = Field(1.0, description="A line this close above the frame's top is inside.")
    continuation_gap_heights: float = Field(
        0.6, description="A lower-case label line this close under a row continues the row's label."
    )


DEFAULT_FINDER = TableFinderSettings()
