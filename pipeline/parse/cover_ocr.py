"""The cover read by OCR when its text layer cannot be read: detection, and the optional OCR engine.

Some PDFs carry a text layer of glyph codes from a font without a Unicode map: MuPDF extracts
``!"# $&'()'*+,(-'`` where the page shows "McDONALD'S REPORTS FOURTH QUARTER". Nothing printed can be read
from it, and reading it as text would only find noise. :func:`unreadable_pages` tells such pages from
ordinary ones by how many of their tokens look like words or numbers; :func:`ocr_lines` then reads the
page image with RapidOCR (PaddleOCR's detection and recognition networks on ONNX Runtime; the weights ship
inside the ``rapidocr-onnxruntime`` wheel, so nothing is downloaded at run time). OCR is the optional
extra ``tieout[ocr]``: without it, :func:`ocr_lines` raises :class:`OcrUnavailable` and the identity
says so in its reasons.

OCR costs ~7 s a page at 150 dpi on a quiet 2-core machine (several times that on a loaded one) and
~700 MB of memory (the networks and the page image), so only the first :data:`OCR_PAGES` unreadable pages
are read, and only when the text layer of the cover is unreadable: never for a cover whose text reads.
A page is read top first (:data:`OCR_TOP`, a fifth of the cost): a release's headline and an SEC cover's
form, registrant and period are printed there, and the whole page is read only when they are not.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any, Final

import pymupdf

from schemas.models import Block

__all__ = [
    "OCR_DPI",
    "OCR_PAGES",
    "OCR_THREADS",
    "OCR_TOP",
    "OcrUnavailable",
    "ocr_lines",
    "readable_share",
    "unreadable_pages",
    "unreadable_share",
]

OCR_PAGES: Final = 2
"""Unreadable pages read by OCR, from the first: an SEC cover or a release's headline is on page 1 or 2."""

OCR_TOP: Final = 0.4
"""The share of a page's height read first, from the top; the rest only when the top does not tell."""

OCR_DPI: Final = 150
"""Render resolution for OCR: 10-point type is ~20 pixels high, what the recognition network reads well."""

READABLE_SHARE: Final = 0.3
"""A page with fewer than this share of tokens that read is unreadable. Every page of the corpus's
development files and samples scores 0.5 or more (tables of figures count: numbers read; so do CJK
words), the glyph-code layer of a font without a Unicode map 0.12 at most."""

MIN_TOKENS: Final = 20
"""Fewer tokens than this say too little to judge: such a page is taken as readable."""

_WORD_LIKE: Final = re.compile(
    r"[\"'“‘(\[]*(?:[A-Za-z][a-z]*[aeiouy][a-z]*|[A-Z]*[AEIOUY][A-Z]*|[A-Z][A-Za-z]*[aeiouy][a-z]*"
    r"|[$€£]?[0-9][0-9.,/%-]*)[\"'”’)\].,;:%]*"
)
"""A token that reads: a word with a vowel ("the", "REPORTS", "McDonald"), or a number ("$2.59", "12.6%")."""


class OcrUnavailable(RuntimeError):
    """The OCR extra is not installed: the cover's text cannot be read."""


_LEADER: Final = re.compile(r"[._=*·…\-–—]+")
"""A dot leader or a rule: not a word, but no sign of an unreadable layer either (a contents page)."""


def _reads(token: str) -> bool:
    """Whether a token reads: a Latin word or number, or mostly letters of another script (CJK, ...)."""
    if _WORD_LIKE.fullmatch(token):
        return True
    letters = sum(1 for c in token if c.isalpha() and not c.isascii())
    return letters > 0 and 2 * sum(1 for c in token if c.isalpha()) >= len(token)


def readable_share(texts: Iterable[str]) -> float | None:
    """The share of the tokens of ``texts`` that read (words, numbers); None under :data:`MIN_TOKENS`.

    Dot leaders and rules are not counted either way.
    """
    tokens = [t for text in texts for t in text.split() if not _LEADER.fullmatch(t)]
    if len(tokens) < MIN_TOKENS:
        return None
    return sum(1 for t in tokens if _reads(t)) / len(tokens)


_WORD_LIKE_TOKEN: Final = re.compile(rf"(?<!\S)(?:{_WORD_LIKE.pattern})(?!\S)")
"""A whole whitespace-delimited token that :data:`_WORD_LIKE` matches, found in a page's joined text."""


def unreadable_share(texts: Iterable[str]) -> float | None:
    """The share of ``texts``' tokens that read when it is under :data:`READABLE_SHARE`, else None.

    Every page is asked, so the common answer comes first from one pass of a regex over the page's text:
    the Latin words and numbers alone, over all its tokens, are a lower bound of the share (the other
    scripts' words only add to the count, dot leaders only leave the total), and as soon as that bound
    reaches :data:`READABLE_SHARE` the page reads. Only a page under it is counted token by token.
    """
    text = " ".join(texts)
    tokens = text.split()
    if len(tokens) < MIN_TOKENS:
        return None
    # The bound is met long before the text's end on a page that reads: stop counting there.
    enough = math.ceil(READABLE_SHARE * len(tokens))
    if next(itertools.islice(_WORD_LIKE_TOKEN.finditer(text), enough - 1, None), None) is not None:
        return None
    share = readable_share(tokens)
    return share if share is not None and share < READABLE_SHARE else None


def unreadable_pages(blocks: Sequence[Block]) -> list[int]:
    """The pages whose printed lines are not text that reads (:data:`READABLE_SHARE`), in order."""
    by_page: dict[int, list[str]] = {}
    for b in blocks:
        by_page.setdefault(b.page, []).append(b.text)
    return [page for page, texts in sorted(by_page.items()) if unreadable_share(texts) is not None]


OCR_THREADS: Final = 1
"""Threads ONNX Runtime runs each network on. Its default, one per core, is no faster once another worker
holds a core (measured: 2.0 s a cover top either way beside a busy process), while its threads spin waiting
for each other and take the time the other worker needs."""


@cache
def _engine() -> Any:
    """The OCR engine, loaded once a process (loading the networks takes a fraction of a second)."""
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:
        raise OcrUnavailable("install tieout[ocr] to read it by OCR") from exc
    return RapidOCR(intra_op_num_threads=OCR_THREADS, inter_op_num_threads=OCR_THREADS)


def ocr_lines(data: bytes, pages: Sequence[int], top: float = 1.0) -> list[Block]:
    """One block per line OCR reads on ``pages`` (numbered from 1) of the PDF ``data``, in page space.

    Boxes are in points of the page as displayed (rotation applied), as the text layer's lines are.
    ``top``: the share of each page's height read, from the top (the networks' time grows with the area).

    Raises:
        OcrUnavailable: The ``ocr`` extra (``rapidocr-onnxruntime``) is not installed.
    """
    engine = _engine()
    import numpy as np  # the OCR extra's dependency; numpy comes with it

    scale = 72 / OCR_DPI
    out: list[Block] = []
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for pno in pages:
            if not 1 <= pno <= doc.page_count:
                continue
            page = doc.load_page(pno - 1)
            rect = page.rect  # as displayed: the clip and the pixmap are in the same space
            bottom = rect.y0 + rect.height * top
            clip = None if top >= 1.0 else pymupdf.Rect(rect.x0, rect.y0, rect.x1, bottom)
            pix = page.get_pixmap(dpi=OCR_DPI, alpha=False, clip=clip)
            image = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
            # The angle classifier is for text turned upside down; a cover's lines are upright.
            found, _ = engine(image, use_cls=False)
            for box, text, _score in found or ():
                xs = [rect.x0 + p[0] * scale for p in box]
                ys = [rect.y0 + p[1] * scale for p in box]
                text = " ".join(str(text).split())
                if text:
                    bbox = (min(xs), min(ys), max(xs), max(ys))
                    out.append(Block(page=pno, bbox=bbox, text=text, font_size=round(bbox[3] - bbox[1], 1)))
    return out
