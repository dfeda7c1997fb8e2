"""Heading-aware, token-bounded chunks with page spans and the boxes they cover.

Headings are told from body text by size and weight relative to the document's body font, so the rule
holds for any house style; their level is the rank of their size. A chunk never crosses a heading; a table
is a chunk of its own, split by rows with its header repeated when it is longer than the token bound.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pipeline.ids import stable_id
from schemas.models import Block, Chunk, PageBox, Table

__all__ = [
    "body_font_size",
    "build_chunks",
    "classify_blocks",
    "count_tokens",
    "is_heading",
    "merge_paragraphs",
    "table_lines",
    "table_parts",
]

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Word-piece estimate of a text's tokens: words and punctuation marks.

    Deterministic and dependency-free; within about 15% of BPE tokenisers on English financial prose,
    which is what a chunk bound needs.
    """
    return len(_TOKEN_RE.findall(text))


def body_font_size(blocks: Sequence[Block]) -> float:
    """The font size carrying most characters: the document's body text."""
    sizes: Counter[float] = Counter()
    for b in blocks:
        sizes[round(b.font_size, 1)] += len(b.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


_NUMBERED = re.compile(r"^(?:item|note|part|section|schedule|appendix)\s+\w+|^\d+(?:\.\d+)*\.?\s+[A-Z]", re.I)
_SMALL_WORDS = frozenset(
    {"and", "of", "the", "in", "for", "to", "on", "a", "an", "or", "by", "with", "at", "from"}
)


def is_heading(block: Block, body: float) -> bool:
    """A heading: a short line set larger than body text, or a stand-alone title-like line.

    Without font weights (see :func:`pipeline.engine._blocks`), bold headings at body size are recognised
    by their shape: one line, no closing punctuation, capitalised like a title or numbered like
    "Item 7." / "Note 12" / "2.1".
    """
    text = block.text.strip()
    words = text.split()
    if not text or len(words) > 20 or text[-1] in ".;,:" or not any(ch.isalpha() for ch in text):
        return False
    if block.font_size >= body * 1.18:
        return True
    if block.n_lines != 1 or len(words) > 12 or block.font_size < body * 0.9:
        return False
    if _NUMBERED.match(text) or (text.isupper() and len(text) > 3):
        return True
    content = [w for w in words if w.casefold() not in _SMALL_WORDS and w[:1].isalpha()]
    return len(content) >= 2 and all(w[:1].isupper() for w in content)


def merge_paragraphs(blocks: Sequence[Block]) -> list[Block]:
    """Join blocks that are lines of one paragraph: same page and size, aligned, line spacing apart.

    Some producers write every line as its own block; without this each line of a large-type paragraph
    would look like a heading.
    """
    out: list[Block] = []
    for b in blocks:
        if out:
            a = out[-1]
            h = max(a.bbox[3] - a.bbox[1], 1.0) / max(a.n_lines, 1)
            gap = b.bbox[1] - a.bbox[3]
            if (
                a.page == b.page
                and abs(a.font_size - b.font_size) <= 0.5
                and abs(a.bbox[0] - b.bbox[0]) <= 3
                and -0.5 * h <= gap <= 0.6 * h
                and a.text[-1:] not in ".:;"
                and not _NUMBERED.match(b.text)
            ):
                out[-1] = a.model_copy(
                    update={
                        "text": f"{a.text} {b.text}",
                        "bbox": (min(a.bbox[0], b.bbox[0]), a.bbox[1], max(a.bbox[2], b.bbox[2]), b.bbox[3]),
                        "n_lines": a.n_lines + b.n_lines,
                    }
                )
                continue
        out.append(b)
    return out


def classify_blocks(blocks: Sequence[Block]) -> list[Block]:
    """Merge paragraph lines, then mark headings (``kind="heading"``) using the body font size."""
    merged = merge_paragraphs(blocks)
    body = body_font_size([b for b in merged if b.kind == "text"])
    return [b.model_copy(update={"kind": "heading"}) if is_heading(b, body) else b for b in merged]


@dataclass(slots=True)
class _Open:
    texts: list[str] = field(default_factory=list)
    boxes: list[PageBox] = field(default_factory=list)
    tokens: int = 0
    has_body: bool = False


def table_lines(table: Table) -> tuple[list[str], list[str]]:
    """A table as text lines: header lines and body lines, cells joined by " | "."""
    rows: dict[int, list[tuple[int, str]]] = {}
    for c in table.cells:
        rows.setdefault(c.row, []).append((c.col, c.text))
    header: list[str] = []
    body: list[str] = []
    for r in sorted(rows):
        line = " | ".join(t for _, t in sorted(rows[r]))
        (header if r < table.header_rows else body).append(line)
    return header, body


@dataclass
class _Chunker:
    """Turns blocks and tables, in reading order, into chunks that carry their heading path."""

    doc_id: str
    source: str
    max_tokens: int
    chunks: list[Chunk] = field(default_factory=list)
    path: list[tuple[float, str]] = field(default_factory=list)  # (font size, heading), outermost first
    cur: _Open = field(default_factory=_Open)

    def emit(
        self,
        texts: list[str],
        boxes: list[PageBox],
        kind: str = "text",
        table_id: str | None = None,
        tokens: int | None = None,
    ) -> None:
        text = "\n".join(texts)
        pages = sorted({b.page for b in boxes})
        self.chunks.append(
            Chunk(
                chunk_id=stable_id(self.doc_id, "chunk", len(self.chunks)),
                doc_id=self.doc_id,
                source=self.source,
                page=pages[0],
                pages=pages,
                heading_path=[h for _, h in self.path],
                text=text,
                token_count=count_tokens(text) if tokens is None else tokens,
                kind="table" if kind == "table" else "text",
                table_id=table_id,
                boxes=boxes,
            )
        )

    def flush(self) -> None:
        if self.cur.texts:
            self.emit(self.cur.texts, self.cur.boxes, tokens=self.cur.tokens)
        self.cur = _Open()

    def table(self, table: Table) -> None:
        """A table's chunks; headings waiting above it open its first part."""
        cur = self.cur
        lead = [] if cur.has_body else cur.texts
        lead_boxes = [] if cur.has_body else cur.boxes
        if cur.has_body:
            self.flush()
        self.cur = _Open()
        boxes = [PageBox(page=p, bbox=table.bbox) for p in table.pages]
        for i, part in enumerate(table_parts(table, self.max_tokens)):
            self.emit(
                lead + part if i == 0 else part,
                lead_boxes + boxes if i == 0 else boxes,
                "table",
                table.table_id,
            )

    def heading(self, b: Block) -> None:
        """A heading closes the chunk in hand and opens the next, replacing headings at its level or below."""
        if self.cur.has_body:
            self.flush()
        while self.path and self.path[-1][0] <= b.font_size + 0.1:
            self.path.pop()
        self.path.append((b.font_size, b.text.strip()))
        self.cur.texts.append(b.text.strip())
        self.cur.boxes.append(PageBox(page=b.page, bbox=b.bbox))
        self.cur.tokens += count_tokens(b.text)

    def text(self, b: Block) -> None:
        """Body text, cut by sentences when a paragraph alone is over the bound."""
        for piece, n in _split_long(b.text, self.max_tokens):
            if self.cur.tokens + n > self.max_tokens and self.cur.has_body:
                self.flush()
            self.cur.texts.append(piece)
            self.cur.boxes.append(PageBox(page=b.page, bbox=b.bbox))
            self.cur.tokens += n
            self.cur.has_body = True


def build_chunks(
    blocks: Sequence[Block],
    tables: Sequence[Table],
    *,
    doc_id: str,
    source: str,
    max_tokens: int,
) -> list[Chunk]:
    """Chunk a document's text blocks and tables in reading order.

    Heading lines open the chunk that follows them, so a chunk's text is self-contained and no printed
    text is lost when headings follow each other without body text in between.

    Args:
        blocks: Text blocks outside tables, headings already classified.
        tables: Logical tables of the document.
        doc_id: Document id.
        source: File name or object key.
        max_tokens: Upper bound of a chunk's tokens (a single longer paragraph is split by sentences).

    Returns:
        Chunks in reading order.
    """
    items: list[tuple[int, float, int, Block | Table]] = [(b.page, b.bbox[1], 0, b) for b in blocks]
    items += [(t.page, t.bbox[1], 1, t) for t in tables]
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    chunker = _Chunker(doc_id, source, max_tokens)
    for _, _, _, item in items:
        if isinstance(item, Table):
            chunker.table(item)
        elif item.kind == "heading":
            chunker.heading(item)
        else:
            chunker.text(item)
    chunker.flush()
    return chunker.chunks


def table_parts(table: Table, max_tokens: int) -> list[list[str]]:
    """A table's text lines cut into token-bounded parts, each starting with the header lines."""
    header, body = table_lines(table)
    head_tokens = sum(count_tokens(h) for h in header)
    parts: list[list[str]] = []
    part: list[str] = []
    tokens = head_tokens
    for line in body:
        n = count_tokens(line)
        if part and tokens + n > max_tokens:
            parts.append(header + part)
            part, tokens = [], head_tokens
        part.append(line)
        tokens += n
    if part or not body:
        parts.append(header + part)
    return parts


_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def _split_long(text: str, max_tokens: int) -> list[tuple[str, int]]:
    """Split a paragraph longer than the bound at sentence ends (then at words as a last resort).

    Returns:
        The pieces, each with its token count; the paragraph whole, counted once, when it fits.
    """
    if (whole := count_tokens(text)) <= max_tokens:
        return [(text, whole)]
    out: list[str] = []
    cur: list[str] = []
    n = 0
    for sent in _SENTENCE_RE.split(text):
        k = count_tokens(sent)
        if k > max_tokens:
            words = sent.split()
            for i in range(0, len(words), max(1, max_tokens // 2)):
                out.append(" ".join(words[i : i + max(1, max_tokens // 2)]))
            continue
        if cur and n + k > max_tokens:
            out.append(" ".join(cur))
            cur, n = [], 0
        cur.append(sent)
        n += k
    if cur:
        out.append(" ".join(cur))
    return [(piece, count_tokens(piece)) for piece in out]
