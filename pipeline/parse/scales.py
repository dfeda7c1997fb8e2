"""Scale provenance: where each table's "in millions" comes from, and never a guess.

A figure in a financial statement is printed in some unit ("1,234.5" in millions) that is stated once,
somewhere else: over its column, in a caption, at the top of the page, on the first page of a statement, or
once for the whole document. Each table's scale is taken from the first of these that applies, and the
source is recorded on every typed number (:data:`schemas.models.ScaleSource`):

1. ``column_head``: a head over the value columns or the labels ("£m", "$'000", "(Dollars in millions)").
   A head over one column only sets that column's scale; a row's own label ("Sales (millions)") sets
   that row's (``row_head``).
2. ``caption``: the lines above the table on its page, up to the table before it: across intervening
   paragraphs, at the end of a sentence ("… is as follows (in millions):"), on a title line. A caption
   sentence that states two units ("operating income (dollars in millions), … package statistics (in
   thousands)") establishes neither, and sources 3 and 4 do not stand in for it.
3. ``page_header``: a scale stated higher up the page, above an earlier table.
4. ``document``: the table continues the previous page's statement (first on its page, nothing of its own
   said, same value columns), or the document said once for all ("All amounts are in millions unless
   otherwise stated").
5. ``agreement``: the figures, at one scale only, equal the same rows and periods of a table whose scale is
   established (:func:`pipeline.parse.structure.infer_missing_scales`).

Anything else is unknown: the figures keep ``scale=None`` and the table gets a ``scale_unknown`` error
item, so that no figure is published in units because nothing said otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.figures.numbers import parse_number
from pipeline.figures.scale_captions import detect_scale, sentence_scales
from pipeline.parse.layout import Line
from pipeline.parse.table_types import RawCell, RawTable, title_name
from schemas.models import ErrorRecord, Fact, ScaleSource, Table

__all__ = [
    "PageContext",
    "ScaleResolution",
    "document_default",
    "label_scale",
    "resolve_group_scales",
    "scale_errors",
    "scan_page_scales",
]


@dataclass(frozen=True, slots=True)
class ScaleResolution:
    """A table's (or column's) scale, the currency said with it, where it was stated and the words."""

    scale: int
    currency: str | None
    source: ScaleSource
    text: str
    conflict: str | None = None
    """Another unit the same caption sentence states ("(in thousands, …)" after "(dollars in millions)"):
    the table's scale is then not established by the caption, and nothing further up stands in for it."""


_DOCUMENT_WIDE = re.compile(
    r"\bunless\s+otherwise\b|\bexcept\s+(?:where\s+|as\s+|when\s+)?(?:otherwise\s+)?"
    r"(?:stated|noted|indicated|disclosed)\b|"
    r"\ball\s+(?:dollar\s+|currency\s+|monetary\s+)?(?:amounts|figures|values)\b|\bthroughout\b",
    re.IGNORECASE,
)


# Every unit detect_scale knows has one of these in it; most lines have none, and the full patterns are slow.
_MAYBE_SCALE = re.compile(
    r"(?i:thousand|million|billion|trillion|crore|lakh|lac|mln|mn\b|bn\b|mio|mrd|tsd|milliers|milliards|"
    r"miles|millones)|000|[$€£¥₹`]\s?[mkb]\b|\b[A-Z]{2,3}\$?\s?['’]?[mkb]\b|[TKM]EUR|[TkM]€|"
    r"[\u4e00-\u9fff\uac00-\ud7af]"
)


def _resolve(text: str, source: ScaleSource) -> ScaleResolution | None:
    if not _MAYBE_SCALE.search(text):
        return None
    hint = detect_scale(text)
    if hint is None:
        return None
    return ScaleResolution(hint.scale, hint.currency, source, hint.text)


def _overlaps(line: Line, x0: float, x1: float) -> bool:
    return line.x1 > x0 and line.x0 < x1


@dataclass(frozen=True, slots=True)
class PageContext:
    """What a page says about one of its tables outside it.

    Attributes:
        scale: The nearest scale stated above the table, up to the previous table (``caption``), else
            above that (``page_header``); None when the page says nothing above it.
        heading: The text above the table up to the previous table (at most a few lines, nearest last),
            after the page's first lines: where a statement's title is printed.
    """

    scale: ScaleResolution | None
    heading: str


_HEADING_LINES = 6
_PAGE_TOP_LINES = 3


def scan_page_scales(tables: Sequence[RawTable], lines: Sequence[Line]) -> list[PageContext]:
    """The scale and heading each table's page states about it outside the table.

    Args:
        tables: The page's tables, top to bottom.
        lines: The page's lines, top to bottom.

    Returns:
        One :class:`PageContext` per table.
    """
    out: list[PageContext] = []
    previous_bottom = -1.0
    above_earlier: ScaleResolution | None = None  # nearest scale above the previous table, as page header
    first_top = tables[0].bbox[1] if tables else 0.0
    top = [ln.text for ln in lines[:_PAGE_TOP_LINES] if ln.y1 <= first_top + 1]
    for t in tables:
        x0, y_top, x1, _ = t.bbox
        found: ScaleResolution | None = None
        # A caption's last line may overlap the column heads' band, beside them: its middle is above the top.
        gap = [
            ln
            for ln in lines
            if previous_bottom - 1 <= ln.y0 and (ln.y0 + ln.y1) / 2 <= y_top + 1 and _overlaps(ln, x0, x1)
        ]
        # The caption's last line may go on in the table's stub head: "(in millions, except" above,
        # "headcount)" beside the column heads (a table set in one of a page's two text columns).
        stub = next((c.text for c in t.rows[0] if c.col == 0), "") if t.rows and t.header_rows else ""
        for i in range(len(gap) - 1, -1, -1):
            # A caption may break over two lines before its closing parenthesis.
            unclosed = gap[i].text.count("(") > gap[i].text.count(")")
            after = gap[i + 1].text if i + 1 < len(gap) else (stub if unclosed else "")
            found = _resolve(gap[i].text, "caption") or (
                _resolve(f"{gap[i].text} {after}", "caption") if after else None
            )
            if found is not None:
                found = _with_conflict(found, [ln.text for ln in gap[max(0, i - 2) : i + 2]])
                break
        if found is None and above_earlier is not None:
            p = above_earlier
            found = ScaleResolution(p.scale, p.currency, "page_header", p.text)
        near = [ln.text for ln in gap[-_HEADING_LINES:]]
        heading = "\n".join(dict.fromkeys([*top, *near]))
        out.append(PageContext(found, heading))
        if found is not None and found.conflict is None:
            above_earlier = found
        previous_bottom = t.bbox[3]
    return out


def _with_conflict(found: ScaleResolution, lines: Sequence[str]) -> ScaleResolution:
    """The caption's scale, marked when its sentence (read across the lines around it) states another."""
    for hints in sentence_scales(" ".join(lines)):
        if any(h.text == found.text for h in hints):
            other = next((h for h in hints if h.scale != found.scale), None)
            if other is not None:
                return ScaleResolution(found.scale, found.currency, found.source, found.text, other.text)
    return found


def document_default(lines: Sequence[Line]) -> ScaleResolution | None:
    """A scale the document states for all its figures ("All amounts in € millions unless otherwise stated").

    Args:
        lines: One page's lines.

    Returns:
        The first such statement on the page, with source ``document``; None when there is none.
    """
    for ln in lines:
        text = ln.text
        if _DOCUMENT_WIDE.search(text):
            found = _resolve(text, "document")
            if found is not None:
                return found
    return None


def own_scale(table: RawTable) -> ScaleResolution | None:
    """The scale a table states in its own head: the stub head, a spanning head or a label-only first row.

    Heads over a single value column are left to :func:`column_scales`. A caption broken over two lines
    ("(in millions, except per share, ratio" / "and headcount data)") is read joined as well.
    """
    heads = [c.text for row in table.rows[: table.header_rows] for c in row if c.col == 0 or c.col_span > 1]
    texts = [*heads, " ".join(heads)]
    # "(in millions)" often sits in the label column between the heads and the first figures, as in
    # "OPERATING ACTIVITIES:" / "(in millions)".
    for row in table.rows[table.header_rows : table.header_rows + 4]:
        if any(c.col > 0 and parse_number(c.text) is not None for c in row):
            break
        texts += [c.text for c in row]
    for text in texts:
        found = _resolve(text, "column_head")
        if found is not None:
            return found
    return None


def column_scales(table: RawTable) -> dict[int, ScaleResolution]:
    """Scales stated over single value columns ("Shares (in thousands)", "Amount $m").

    When every value column states the same scale it is the table's, which :func:`own_scale` does not see;
    the caller applies these per column either way.
    """
    out: dict[int, ScaleResolution] = {}
    for row in table.rows[: table.header_rows]:
        for c in row:
            if c.col > 0 and c.col_span == 1:
                found = _resolve(c.text, "column_head")
                if found is not None:
                    out.setdefault(c.col, found)
    return out


def label_scale(row: Sequence[RawCell]) -> ScaleResolution | None:
    """The scale a row's own label states for its figures ("Sales (millions)", "Shares (in thousands)")."""
    label = next((c for c in row if c.col == 0), None)
    return _resolve(label.text, "row_head") if label is not None else None


def _continues_statement(prev: RawTable, table: RawTable) -> bool:
    """Whether a page's first table carries on the statement that ended the page before.

    Its own title, if any, must be the same (less "continued"), and its value columns the same in number.
    """
    if table.page != prev.page + 1 or table.n_cols != prev.n_cols:
        return False
    return not table.title or title_name(table.title) == title_name(prev.title)


def resolve_group_scales(
    groups: Sequence[Sequence[RawTable]],
    stated: Sequence[ScaleResolution | None],
    defaults: Mapping[int, ScaleResolution],
) -> list[ScaleResolution | None]:
    """Resolve the scale of each logical table (sources 1-4 of the module docstring).

    Args:
        groups: Logical tables in reading order, each as its fragments (the first carries the head).
        stated: For each group, what the page of its first fragment states above it (the ``scale`` of
            that fragment's :class:`PageContext`, from :func:`scan_page_scales`).
        defaults: Page → document-wide statement printed on that page (:func:`document_default`).

    Returns:
        One resolution per group, None where nothing establishes the scale.
    """
    out: list[ScaleResolution | None] = []
    last_on_page: dict[int, tuple[RawTable, ScaleResolution | None]] = {}
    seen_pages: set[int] = set()
    for frags, above in zip(groups, stated, strict=True):
        first = frags[0]
        first_on_page = first.page not in seen_pages
        seen_pages.add(first.page)
        found = own_scale(first) or above
        # A caption stating two units, each for some lines, establishes neither, and is not overruled by a
        # scale said for other tables: the figures wait for their own heads or for agreement.
        ambiguous = found is not None and found.conflict is not None
        if ambiguous:
            found = None
        if found is None and first_on_page and not ambiguous:
            prev = last_on_page.get(first.page - 1)
            if prev is not None and prev[1] is not None and _continues_statement(prev[0], first):
                p = prev[1]
                found = ScaleResolution(p.scale, p.currency, "document", p.text)
        if found is None and not ambiguous:
            page = max((p for p in defaults if p <= first.page), default=None)
            if page is not None:
                found = defaults[page]
        out.append(found)
        last = frags[-1]
        last_on_page[last.page] = (last, found)
    return out


def scale_errors(tables: Sequence[Table], facts: Sequence[Fact]) -> list[ErrorRecord]:
    """One ``scale_unknown`` error item per table of figures whose scale nothing establishes.

    Args:
        tables: Typed tables after every source (agreement included) was tried.
        facts: The document's facts.

    Returns:
        Error items with the table's first page; their figures are published as printed, never as units.
    """
    unknown_facts: dict[str, int] = {}
    for f in facts:
        if f.table_id is not None and f.scale is None:
            unknown_facts[f.table_id] = unknown_facts.get(f.table_id, 0) + 1
    out: list[ErrorRecord] = []
    for t in tables:
        if t.scale is not None:
            continue
        unknown = sum(
            1 for c in t.cells if c.number is not None and c.number.scale is None and not c.number.is_dash
        )
        n_facts = unknown_facts.get(t.table_id, 0)
        if not unknown and not n_facts:
            continue
        name = f"'{t.title}'" if t.title else "without a title"
        out.append(
            ErrorRecord(
                doc_id=t.doc_id,
                source=t.source,
                stage="structure",
                category="scale_unknown",
                page=t.page,
                message=(
                    f"table {name} on page {t.page} states no scale (no column head, caption, page header or "
                    f"document statement, and no agreement with a figure of known scale): {unknown} figures "
                    f"and {n_facts} facts are kept as printed, without base-unit values"
                ),
            )
        )
    return out
