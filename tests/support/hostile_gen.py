"""Generated hostile PDFs: the shapes that attack a parser's memory and time, made small at test time.

Every generator writes raw PDF bytes by hand (no PDF library), so what the file declares is exactly what
the test means: a structure a library would refuse to write, claims the bytes do not back, a stream that
inflates to gigabytes. Each file is small (kilobytes to a few megabytes) and made in well under a second;
the cost is in what a parser does with it.

* :func:`deeply_nested`: a page whose resources hold arrays nested ``depth`` deep.
* :func:`huge_page_count`: ``pages`` real tiny pages (200,000 by default).
* :func:`page_tree_bomb`: a page tree that shares its nodes, so a 1 KB file declares ``10**levels`` pages.
* :func:`giant_image`: a page drawing an image declared ``side`` x ``side`` pixels, with almost no data.
* :func:`decompression_bomb`: a page whose font (or content stream) is a Flate stream inflating to
  ``inflated_mb`` MiB.
* :func:`drawing_ops`: a page with a small table of text and ``n`` tiny filled rectangles.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

_MEDIABOX = b"[0 0 612 792]"
_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def write_pdf(objects: Sequence[bytes]) -> bytes:
    """A PDF whose object ``i + 1`` is ``objects[i]`` (object 1 is the catalog), with a correct xref."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def _one_page(content: bytes, resources: bytes, *more: bytes) -> bytes:
    """Catalog, page tree, one page (objects 1-4), the page's resources as given, then ``more``."""
    return write_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox %s /Resources %s /Contents 4 0 R >>"
            % (_MEDIABOX, resources),
            content,
            *more,
        ]
    )


def _text(lines: Sequence[tuple[float, float, str]]) -> bytes:
    ops = [b"BT /F1 10 Tf"]
    for x, y, s in lines:
        ops.append(b"1 0 0 1 %.1f %.1f Tm (%s) Tj" % (x, y, s.encode("latin-1")))
    ops.append(b"ET")
    return b"\n".join(ops) + b"\n"


_TABLE = _text(
    [(72, 700, "Consolidated statement of income (in millions)")]
    + [(x, 670, h) for x, h in ((300, "2025"), (400, "2024"))]
    + [
        (x, 650 - 18 * i, s)
        for i, (label, a, b) in enumerate(
            [
                ("Revenue", "1,234", "1,100"),
                ("Cost of sales", "(734)", "(650)"),
                ("Gross profit", "500", "450"),
            ]
        )
        for x, s in ((72, label), (300, a), (400, b))
    ]
)
"""A statement-like table: words whose right-hand side is a run of figures, so the table finder looks for
rules among the page's drawings."""


def deeply_nested(depth: int = 100_000) -> bytes:
    """One page of text whose resource dictionary holds an array nested ``depth`` deep (``[[[…]]]``).

    A recursive-descent parser overflows its stack on it; a careful one gives up at its nesting limit.
    """
    nested = b"[" * depth + b"]" * depth
    return _one_page(
        _stream(_TABLE),
        b"<< /Font << /F1 5 0 R >> /Deep %s >>" % nested,
        _FONT,
    )


_LEAF = b"<< /Type /Page /Parent %d 0 R%s >>"
_INHERITED = b"/MediaBox [0 0 200 100] /Resources << /Font << /F1 3 0 R >> >>"


def huge_page_count(pages: int = 200_000) -> bytes:
    """A document of ``pages`` real, tiny pages (one page tree node lists them all), ~80 bytes a page.

    Every page shares one content stream, and inherits its size and font from the tree; 200,000 pages
    make a 16 MB file.
    """
    # 1 catalog, 2 page tree, 3 font, 4 content, 5.. the pages.
    kids = b" ".join(b"%d 0 R" % n for n in range(5, 5 + pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d %s >>" % (kids, pages, _INHERITED),
        _FONT,
        _stream(_text([(20, 50, "Page of a very long document")])),
    ]
    objects += [_LEAF % (2, b" /Contents 4 0 R")] * pages
    return write_pdf(objects)


def page_tree_bomb(levels: int = 7, fan_out: int = 10) -> bytes:
    """A page tree of ``levels`` nodes, each listing the node below ``fan_out`` times, in about 1 KB.

    The nodes are shared (the tree is a DAG), so the file declares, and by its structure holds,
    ``fan_out ** levels`` pages (ten million by default), every one the same page.
    """
    # 1 catalog, 2 content, 3 font, 4 the leaf page, 5.. the nodes bottom-up (the last is the root).
    first_node = 5
    root = first_node + levels - 1
    objects = [
        b"<< /Type /Catalog /Pages %d 0 R >>" % root,
        _stream(_text([(20, 50, "Page of a very long document")])),
        _FONT,
        _LEAF % (first_node, b" /Contents 2 0 R " + _INHERITED),
    ]
    for level in range(levels):
        number = first_node + level
        parent = b" /Parent %d 0 R" % (number + 1) if number != root else b""
        kids = b" ".join([b"%d 0 R" % (number - 1)] * fan_out)
        objects.append(b"<< /Type /Pages%s /Kids [%s] /Count %d >>" % (parent, kids, fan_out ** (level + 1)))
    return write_pdf(objects)


def giant_image(side: int = 100_000) -> bytes:
    """One page without text that draws an RGB image declared ``side`` x ``side`` (30 GB decoded at 100k).

    The image's data is a few bytes of Flate: a reader that allocates the declared pixmap before decoding
    runs out of memory, one that trusts the data runs out of data.
    """
    data = zlib.compress(b"\x00" * 3 * 64)
    image = _stream(
        data,
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
        b"/BitsPerComponent 8 /Filter /FlateDecode" % (side, side),
    )
    draw = _stream(b"q 540 0 0 720 36 36 cm /Im1 Do Q\n")
    return _one_page(draw, b"<< /XObject << /Im1 5 0 R >> >>", image)


def _adler32_combine(adler1: int, adler2: int, len2: int) -> int:
    """zlib's ``adler32_combine``: the checksum of A + B from those of A and B and B's length."""
    base = 65521
    rem = len2 % base
    sum1 = adler1 & 0xFFFF
    sum2 = (rem * sum1) % base
    sum1 += (adler2 & 0xFFFF) + base - 1
    sum2 += ((adler1 >> 16) & 0xFFFF) + ((adler2 >> 16) & 0xFFFF) + base - rem
    return (sum1 % base) | ((sum2 % base) << 16)


def flate_bomb(head: bytes, inflated_mb: int, filler: bytes = b" ") -> bytes:
    """A valid zlib stream of ``head`` then ``inflated_mb`` MiB of ``filler``, made without inflating it.

    Each MiB of filler is compressed once after a full flush (which resets the compressor's state), so the
    same bytes stand for every further MiB; the checksum is combined arithmetically. A gigabyte costs about
    a megabyte of file and a millisecond to write.
    """
    mib = filler * ((1 << 20) // len(filler))
    co = zlib.compressobj(9)
    first = co.compress(head) + co.flush(zlib.Z_FULL_FLUSH)
    block = co.compress(mib) + co.flush(zlib.Z_FULL_FLUSH)
    tail = co.flush()[:-4]  # the final empty block; its checksum is replaced below
    block_adler = zlib.adler32(mib)
    adler = zlib.adler32(head)
    for _ in range(inflated_mb):
        adler = _adler32_combine(adler, block_adler, len(mib))
    return first + block * inflated_mb + tail + adler.to_bytes(4, "big")


def decompression_bomb(inflated_mb: int = 8192, *, where: str = "font") -> bytes:
    """A page of text with a Flate stream that inflates to ``inflated_mb`` MiB (about 1 KB of file a MiB).

    ``where="font"``: the embedded TrueType file of the font the text is set in, which a reader must
    inflate whole before it can use the font (zeros: a memory attack at the speed of zlib).
    ``where="content"``: the page's content stream, the table's text followed by blanks, which a reader
    interprets as a stream (a CPU attack) and which a reader that loads it whole holds in memory.
    """
    if where == "content":
        data = flate_bomb(_TABLE, inflated_mb)
        return _one_page(_stream(data, b"/Filter /FlateDecode"), b"<< /Font << /F1 5 0 R >> >>", _FONT)
    font = (
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /FirstChar 32 /LastChar 126 /Widths [%s] "
        b"/FontDescriptor 6 0 R >>" % b" ".join([b"500"] * 95)
    )
    descriptor = (
        b"<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 "
        b"/Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>"
    )
    data = flate_bomb(b"", inflated_mb, filler=b"\0")
    return _one_page(
        _stream(_TABLE),
        b"<< /Font << /F1 5 0 R >> >>",
        font,
        descriptor,
        _stream(data, b"/Filter /FlateDecode"),
    )


def drawing_ops(n: int = 2_000_000) -> bytes:
    """A page with a small table of text and ``n`` filled 0.1 pt rectangles (a Flate content stream).

    The table makes the engine look for ruling lines among the page's drawings, so it walks all of them.
    """
    rect = b"0.1 0.1 0.1 0.1 re f\n"
    data = zlib.compress(_TABLE + rect * n, 6)
    return _one_page(_stream(data, b"/Filter /FlateDecode"), b"<< /Font << /F1 5 0 R >> >>", _FONT)


GENERATORS = {
    "deeply_nested": deeply_nested,
    "huge_page_count": huge_page_count,
    "page_tree_bomb": page_tree_bomb,
    "giant_image": giant_image,
    "decompression_bomb": decompression_bomb,
    "drawing_ops": drawing_ops,
}
"""Every generated case by name, with its default (full-strength) parameters."""
