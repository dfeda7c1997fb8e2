"""Planting one error: the new token typeset in place of the old one in the PDF, then read back to verify.

Also the document scan that lists a PDF's candidates (:func:`scan_document`), the only other PDF reading
the benchmark does outside the engine.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.gt import open_pdf
from bench.planted.candidates import BBox, Candidate, Statement, Word, classify_statement, find_candidates

__all__ = [
    "Style",
    "base14_font",
    "plant",
    "right_edge",
    "scan_document",
    "span_style",
    "text_width",
    "verify_words",
]


@dataclass(frozen=True)
class Style:
    """How the original figure is typeset."""

    size: float
    color: tuple[float, float, float]
    fontname: str
    baseline: float


def _open(data: bytes) -> Any:
    """Open PDF bytes with PyMuPDF, as the engine does (an empty user password is tried)."""
    doc = open_pdf(stream=data, filetype="pdf")
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise ValueError("the PDF is encrypted and needs a password")
    return doc


def _words(page: Any) -> list[Word]:
    return [(float(w[0]), float(w[1]), float(w[2]), float(w[3]), str(w[4])) for w in page.get_text("words")]


def _header_lines(page: Any) -> list[str]:
    return str(page.get_text("text", sort=True)).splitlines()


_SANS_NAMES = re.compile(
    r"sans|arial|helvetica|univers|frutiger|futura|verdana|tahoma|calibri|gill|myriad|segoe|franklin|"
    r"amplitude|avenir|gotham|roboto|lato|interstate|trebuchet"
)
_SERIF_NAMES = re.compile(
    r"serif|times|roman|georgia|garamond|minion|palatino|century|schlbk|bookman|caslon|baskerville|cambria"
)
_BOLD_NAMES = re.compile(r"bold|black|heavy|semibold|demi|[-,]bd\b")


def base14_font(font: str, flags: int) -> str:
    """The base-14 font closest to a span's: ``helv``/``hebo`` for sans, ``tiro``/``tibo`` for serif.

    The family is read from the font name first: MuPDF's "serifed" flag (bit 4) is set for many sans
    fonts of the corpus (ArialMT, AmplitudeTF), so it only decides for names that say nothing.
    """
    name = font.lower()
    bold = bool(flags & 16) or bool(_BOLD_NAMES.search(name))
    if _SANS_NAMES.search(name):
        serif = False
    elif _SERIF_NAMES.search(name):
        serif = True
    else:
        serif = bool(flags & 4)
    return ("tibo" if bold else "tiro") if serif else ("hebo" if bold else "helv")


def _overlap(a: BBox, b: BBox) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def span_style(page: Any, bbox: BBox) -> Style | None:
    """Size, colour, base-14 font and baseline of the horizontal span that prints the word at ``bbox``."""
    clip = (bbox[0] - 1, bbox[1] - 1, bbox[2] + 1, bbox[3] + 1)
    info = page.get_text("dict", clip=clip, flags=0)
    best: tuple[float, Style] | None = None
    for block in info.get("blocks", ()):
        for line in block.get("lines", ()):
            dx, dy = line["dir"]
            if abs(dy) > 1e-3 or dx <= 0:
                continue
            for span in line["spans"]:
                if not any(c.isdigit() for c in span["text"]):
                    continue
                area = _overlap(tuple(span["bbox"]), bbox)
                if area <= 0 or (best is not None and area <= best[0]):
                    continue
                rgb = int(span["color"])
                color = ((rgb >> 16 & 255) / 255, (rgb >> 8 & 255) / 255, (rgb & 255) / 255)
                font = base14_font(str(span["font"]), int(span["flags"]))
                best = (area, Style(float(span["size"]), color, font, float(span["origin"][1])))
    return best[1] if best else None


def text_width(text: str, fontname: str, size: float) -> float:
    """Advance width of ``text`` in a base-14 font."""
    import pymupdf

    return float(pymupdf.get_text_length(text, fontname=fontname, fontsize=size))


def right_edge(old: str, new: str, x1: float, fontname: str, size: float) -> float:
    """Where the new token ends: the old right edge, moved so the digits stay in their column.

    Negative figures let the closing parenthesis hang right of the column, so a sign flip moves the right
    edge by the width of ``)``.
    """
    paren = text_width(")", fontname, size)
    return x1 - (paren if old.endswith(")") else 0.0) + (paren if new.endswith(")") else 0.0)


def verify_words(before: Sequence[Word], after: Sequence[Word], old: Word, new: str, right: float) -> bool:
    """Whether a page's words show exactly the plant: ``old`` replaced by ``new`` and nothing else changed.

    Args:
        before: Words of the page before planting.
        after: Words read back from the planted PDF.
        old: The replaced word.
        new: The new token.
        right: Where the new token was meant to end (x, pt).

    Returns:
        True when the word multisets differ by exactly old → new, the new word sits on the old word's line
        ending within 2 pt of ``right``, and no word ``old`` is left at the old spot.
    """
    b, a = Counter(w[4] for w in before), Counter(w[4] for w in after)
    if b - a != Counter({old[4]: 1}) or a - b != Counter({new: 1}):
        return False
    height = old[3] - old[1]

    def same_line(w: Word) -> bool:
        return min(w[3], old[3]) - max(w[1], old[1]) >= 0.5 * min(height, w[3] - w[1])

    if not any(w[4] == new and same_line(w) and abs(w[2] - right) <= 2.0 for w in after):
        return False
    return not any(w[4] == old[4] and _overlap(w[:4], old[:4]) > 0 for w in after)


def _mupdf_const(name: str) -> int:
    """A PyMuPDF constant that its type hints do not declare (the redaction options)."""
    import pymupdf

    return int(getattr(pymupdf, name))


def plant(data: bytes, cand: Candidate, new: str) -> bytes | None:
    """Typeset ``new`` in place of the candidate and return the PDF, or None when the plant does not verify.

    Only the token's own characters are redacted (the word box shrunk by 0.5 pt in x and to its middle 60 %
    in y, no fill), keeping rules, images and neighbouring words; the new token is written right-aligned on
    the span's baseline in its size and colour.
    """
    import pymupdf

    with _open(data) as doc:
        page = doc[cand.page - 1]
        if page.rotation % 360:
            return None
        before = _words(page)
        old = next((w for w in before if w[4] == cand.text and _overlap(w[:4], cand.bbox) > 0), None)
        style = span_style(page, cand.bbox)
        if old is None or style is None:
            return None
        x0, y0, x1, y1 = cand.bbox
        inset = 0.2 * (y1 - y0)
        page.add_redact_annot(pymupdf.Rect(x0 + 0.5, y0 + inset, x1 - 0.5, y1 - inset), fill=False)
        page.apply_redactions(
            images=_mupdf_const("PDF_REDACT_IMAGE_NONE"),
            graphics=_mupdf_const("PDF_REDACT_LINE_ART_NONE"),
            text=_mupdf_const("PDF_REDACT_TEXT_REMOVE"),
        )
        right = right_edge(cand.text, new, x1, style.fontname, style.size)
        start = right - text_width(new, style.fontname, style.size)
        page.insert_text(
            (start, style.baseline), new, fontsize=style.size, fontname=style.fontname, color=style.color
        )
        out = bytes(doc.tobytes(garbage=0))
    with _open(out) as check:
        after = _words(check[cand.page - 1])
    return out if verify_words(before, after, old, new, right) else None


def scan_document(data: bytes) -> list[Candidate]:
    """The candidate figures of a PDF (see :func:`find_candidates`), each with its page's statement."""
    with _open(data) as doc:
        pages = [
            (i + 1, float(page.rect.height), _words(page))
            for i, page in enumerate(doc)
            if page.rotation % 360 == 0
        ]
        found = find_candidates(pages)
        statements: dict[int, Statement] = {}
        for page_no, _ in found:
            if page_no not in statements:
                statements[page_no] = classify_statement(_header_lines(doc[page_no - 1]))
    return [Candidate(p, w[:4], w[4], statements[p]) for p, w in found]
