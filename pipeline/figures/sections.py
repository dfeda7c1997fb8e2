"""Which narrative blocks discuss a segment: the section and sub-headings a sentence sits under.

An MD&A discusses the consolidated results, then each segment, division or region under a heading of its
own ("Industrial Division", "Aerospace Systems", "North America"), in sentences that name no segment:
"Operating income increased 43 %". Read alone, such a sentence is about the consolidated operating income,
and comparing it with the consolidated statement raises a false alarm for every sentence of every
segment's discussion. The heading says whose figures they are.

The blocks are read in order, pages included, and each heading sets the section. The parser's headings
are not among the text blocks the checks read: the heading-aware chunks carry them as each block's heading
path, and a change of path is a heading; the lines among the text blocks that read as headings (a one-word
"Consumer", two heading lines merged into one block) are headings too.

1. A heading that names a segment starts a segment's section: it says "segment", "division", "region" or
   "geographic", or it is a name the document's tables print as a line or a column head (a segment
   table's "Industrial" and "Consumer"), not a metric and not statement structure.
2. A heading that names a metric ("Net sales", "Operating income") is a sub-heading: the section goes on.
3. Any other heading ("Results of Operations", "Liquidity and Capital Resources", "Note 12") ends a
   segment's section.

A paragraph that opens with a segment's name ("Industrial Division. Net sales …", a run-in heading, or a
heading merged into its paragraph) is that segment's, whatever section it sits in. Only whole-entity
sentences are compared with the whole entity's figures; what a segment's sentence could be compared with
is left to the segment's own table.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from pipeline.figures.facts import header_dimension, heading_is_generic
from pipeline.figures.taxonomy import Taxonomy, normalise_label
from schemas.models import Block, Chunk, Table

__all__ = ["segment_blocks"]

_SEGMENT_WORDS = re.compile(
    r"\b(?:segments?|divisions?|regions?|geographic(?:al)?|business (?:units?|groups?|lines?)|"
    r"operating groups?)\b",
    re.IGNORECASE,
)
_NAME_WORDS = re.compile(r"\b(?:segments?|divisions?|group|business|results|operations|sector)\b")
"""Words a heading adds to a segment's name as its tables print it ("Industrial Division")."""
_MAX_HEADING_WORDS = 8
_RUNNING_PAGES = 3
_RUN_IN_WORDS = 5


def _heading_like(block: Block) -> bool:
    """A heading block, or a few words standing alone that read as one.

    A one-word "Consumer" is no heading to the parser, nor are two heading lines it merged into one block
    ("Segment Results" over "Industrial Division"), set a little larger than the text: a few capitalised
    words without a figure or a sentence's stop are.
    """
    if block.kind == "heading":
        return True
    text = block.text.strip()
    return (
        block.kind == "text"
        and 0 < len(text.split()) <= _MAX_HEADING_WORDS
        and text[-1] not in ".;,:"
        and not any(ch.isdigit() for ch in text)
        and text[:1].isupper()
    )


def _running_heads(blocks: Sequence[Block]) -> frozenset[str]:
    """Heading-like lines printed on three pages or more: the pages' running heads.

    A running head ("ACME CORPORATION", "Table of Contents") opens no section, and must not end the one
    that goes on over the page.
    """
    pages: dict[str, set[int]] = {}
    for block in blocks:
        if block.kind != "table" and _heading_like(block):
            pages.setdefault(" ".join(block.text.split()), set()).add(block.page)
    return frozenset(text for text, on in pages.items() if len(on) >= _RUNNING_PAGES)


@functools.lru_cache(maxsize=1 << 14)  # a paragraph's first words and the tables' labels repeat
def _core(text: str) -> str:
    return " ".join(_NAME_WORDS.sub(" ", normalise_label(text)).split())


def part_names(tables: Sequence[Table], taxonomy: Taxonomy) -> frozenset[str]:
    """The names the document's tables print for parts of the entity.

    Line labels and column heads that are neither a metric nor statement structure: a segment table's
    "Industrial", a region's column.

    Args:
        tables: The document's tables.
        taxonomy: To leave out metric names.

    Returns:
        Their normalised text, without the words a heading adds to a name ("division", "segment").
    """
    names: set[str] = set()
    for table in tables:
        for cell in table.cells:
            text = " ".join(cell.text.split())
            if cell.number is not None or not text or len(text.split()) > _MAX_HEADING_WORDS:
                continue
            if cell.is_header:
                text = header_dimension(text) or ""
            elif cell.col != 0:
                continue
            if text and not heading_is_generic(text, taxonomy) and (core := _core(text)):
                names.add(core)
    return frozenset(names)


def _names_segment(text: str, names: frozenset[str]) -> bool:
    return bool(_SEGMENT_WORDS.search(text)) or _core(text) in names


def _segment_in(heading: str, names: frozenset[str]) -> str | None:
    """The segment a heading line names, if any.

    The whole line, or its last words where the parser merged two heading lines into one block ("Review of
    Operations" over "Industrial").
    """
    words = heading.split()
    return next(
        (" ".join(words[k:]) for k in range(len(words)) if _names_segment(" ".join(words[k:]), names)), None
    )


def _run_in(text: str, names: frozenset[str]) -> str | None:
    """The segment a paragraph's run-in heading names, if it has one.

    The longest run of its first capitalised words that names a segment ("Industrial Division. Operating
    income …", "Consumer Products Net sales …"). It speaks for its own paragraph only.
    """
    words: list[str] = []
    for word in text.split()[:_RUN_IN_WORDS]:
        if not word[:1].isupper():
            break
        words.append(word.rstrip(".:—–-"))
        if word[-1] in ".:—–-":
            break
    for k in range(len(words), 0, -1):
        if _names_segment(" ".join(words[:k]), names):
            return " ".join(words[:k])
    return None


def _heading_paths(chunks: Sequence[Chunk]) -> dict[tuple[int, tuple[float, ...]], tuple[str, ...]]:
    """Where each text block stands (page and box) → the headings its chunk sits under, outermost first."""
    return {
        (box.page, _at(box.bbox)): tuple(chunk.heading_path)
        for chunk in chunks
        if chunk.kind == "text"
        for box in chunk.boxes
    }


def _at(bbox: Sequence[float]) -> tuple[float, ...]:
    return tuple(round(v, 1) for v in bbox)


def segment_blocks(
    blocks: Sequence[Block], tables: Sequence[Table], taxonomy: Taxonomy, chunks: Sequence[Chunk] = ()
) -> dict[int, str]:
    """The narrative blocks that sit in a segment's section, with the heading that opened it.

    Args:
        blocks: The document's text blocks, in reading order.
        tables: Its tables (the names they print for parts of the entity).
        taxonomy: The metric taxonomy.
        chunks: Its heading-aware chunks: the headings each block sits under (the parser's headings are
            not among the text blocks). Without them, only the lines that read as headings among the
            blocks open sections.

    Returns:
        Block index → the segment's heading, for every text block under one.
    """
    names = part_names(tables, taxonomy)
    running = _running_heads(blocks)
    paths = _heading_paths(chunks)
    out: dict[int, str] = {}
    section: str | None = None
    path: tuple[str, ...] | None = None
    for i, block in enumerate(blocks):
        text = " ".join(block.text.split())
        if block.kind == "table" or text in running:
            continue
        if (here := paths.get((block.page, _at(block.bbox)), ())) != path:
            # A heading of the parser's came between: its path says whose section this is, unless it only
            # names metrics ("Net Sales" set as "Industrial Division" is, which it then replaced).
            path = here
            if any(taxonomy.match(h) is None for h in here):
                section = next((h for h in reversed(here) if _names_segment(h, names)), None)
        if _heading_like(block):
            if (named := _segment_in(text, names)) is not None:
                section = named
            elif taxonomy.match(text) is None:
                section = None  # a new section of the document's own ("Liquidity and Capital Resources")
            continue
        if (where := _run_in(text, names) or section) is not None:
            out[i] = where
    return out
