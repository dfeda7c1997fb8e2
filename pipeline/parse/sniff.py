"""Content sniffing: what a file is, from its first bytes, before anything tries to parse it."""

from __future__ import annotations

__all__ = ["HEAD_BYTES", "PDF_MAGIC", "not_a_pdf"]

PDF_MAGIC = b"%PDF-"
HEAD_BYTES = 1024  # ISO 32000 lets a PDF's header start anywhere in the first 1,024 bytes

_KNOWN = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"PK\x03\x04", "a ZIP archive (DOCX, XLSX, …)"),
    (b"\xd0\xcf\x11\xe0", "an OLE document (DOC, XLS)"),
    (b"<", "markup (HTML or XML)"),
)


def not_a_pdf(head: bytes) -> str | None:
    """Why ``head`` (a file's first bytes) is not a PDF, or None when it carries the PDF header."""
    if PDF_MAGIC in head[:HEAD_BYTES]:
        return None
    if not head:
        return None  # empty files have their own error category
    for magic, what in _KNOWN:
        if head.lstrip()[: len(magic)] == magic:
            return f"the file is {what}, not a PDF (no %PDF- header)"
    return "no %PDF- header in the first 1,024 bytes"
