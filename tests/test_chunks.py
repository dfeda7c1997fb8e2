"""Chunking: heading-aware, token-bounded, tables kept whole or split with their header repeated."""

from __future__ import annotations

from pipeline.parse.chunks import build_chunks, classify_blocks, count_tokens
from schemas.models import Block, Cell, Table


def block(page: int, y: float, text: str, size: float = 10.0, lines: int = 1) -> Block:
    return Block(page=page, bbox=(50.0, y, 500.0, y + 12.0 * lines), text=text, font_size=size, n_lines=lines)


def table(page: int, y: float, n_rows: int) -> Table:
    cells = [Cell(row=0, col=1, text="2025", page=page, is_header=True)]
    for r in range(1, n_rows + 1):
        cells.append(Cell(row=r, col=0, text=f"Line item number {r}", page=page))
        cells.append(Cell(row=r, col=1, text=f"{r},000", page=page))
    return Table(
        table_id="t1",
        doc_id="d",
        source="s.pdf",
        page=page,
        pages=[page],
        bbox=(50.0, y, 500.0, y + 200.0),
        n_rows=n_rows + 1,
        n_cols=2,
        header_rows=1,
        row_pages=[page] * (n_rows + 1),
        cells=cells,
        method="whitespace",
    )


BODY = "The group grew revenue in every region during the year, helped by pricing and volumes."


def test_headings_build_the_path_and_open_their_chunk() -> None:
    blocks = classify_blocks(
        [
            block(1, 50, "Annual Report 2025", size=18),
            block(1, 80, "Operating review", size=14),
            block(1, 100, BODY, lines=2),
            block(2, 50, "Liquidity", size=14),
            block(2, 70, BODY, lines=2),
        ]
        + [block(3, 50 + 30 * i, BODY, lines=2) for i in range(3)]
    )
    chunks = build_chunks(blocks, [], doc_id="d", source="s.pdf", max_tokens=400)
    assert [c.heading_path for c in chunks] == [
        ["Annual Report 2025", "Operating review"],
        ["Annual Report 2025", "Liquidity"],
    ]
    assert chunks[0].text.startswith("Annual Report 2025\nOperating review\n")
    assert chunks[1].pages == [2, 3] and chunks[1].page == 2
    assert all(b.page in c.pages for c in chunks for b in c.boxes)


def test_token_bound_is_respected() -> None:
    blocks = classify_blocks([block(1, 20 + 30 * i, BODY, lines=2) for i in range(40)])
    chunks = build_chunks(blocks, [], doc_id="d", source="s.pdf", max_tokens=64)
    assert len(chunks) > 5
    assert all(c.token_count <= 64 for c in chunks)
    assert all(c.token_count == count_tokens(c.text) for c in chunks)
    assert " ".join(c.text for c in chunks).count("helped by pricing") == 40  # nothing lost or repeated


def test_long_table_split_by_rows_with_header_repeated() -> None:
    chunks = build_chunks([], [table(4, 100, 60)], doc_id="d", source="s.pdf", max_tokens=80)
    assert len(chunks) > 1
    assert all(c.kind == "table" and c.table_id == "t1" for c in chunks)
    assert all(c.text.splitlines()[0] == "2025" for c in chunks)
    body = [ln for c in chunks for ln in c.text.splitlines()[1:]]
    assert body == [f"Line item number {r} | {r},000" for r in range(1, 61)]


def test_small_table_kept_whole() -> None:
    chunks = build_chunks([], [table(4, 100, 5)], doc_id="d", source="s.pdf", max_tokens=400)
    assert len(chunks) == 1 and chunks[0].text.count("\n") == 5
