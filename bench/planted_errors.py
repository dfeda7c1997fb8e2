"""Planted keying errors: how many does the engine catch on real filings, and how many false flags does it
raise on the untouched ones?

For every filing of the corpus (``<corpus>/financial/*.pdf`` and ``<corpus>/filings/*.pdf``):

1. **Clean run.** The engine runs on the untouched PDF; all its flags count as false flags (the filings are
   taken to be consistent). The same task lists the *candidate figures*, chosen with PyMuPDF's words and
   independently of the engine: an amount token (``1,234``, ``(842.1)``, ``$12,345``; no years, page
   numbers, percentages or tokens with fewer than 3 digits) whose nearest word on the same baseline (|Δy1|
   ≤ 2 pt) to the left or right, punctuation aside, is a number (a figure in a table row, not prose), and
   whose digits are printed at least twice in the document.
2. **Planted runs.** For every seed and error kind, one candidate is drawn with
   ``random.Random(f"{seed}:{file}:{kind}")`` and mutated (``swap`` two adjacent different digits, ``drop``
   a digit, ``double`` a digit, flip the ``sign``, or key it at the wrong ``scale``, ×1,000). The new token
   is typeset in place: the old token's characters are redacted (rules and images are kept) and the new one
   is written right-aligned on the old baseline, in the span's size and colour with a base-14 font of the
   same family and weight. Every plant is verified by reading the page's words back: the word multiset
   must differ by exactly old → new, with the new word at the old place. A plant that does not verify is
   discarded and the next candidate is tried (``--tries``).
3. **Score.** A plant is *caught* when the planted run has a flag that the clean run does not have, whose
   pages include the planted page and that carries the new or the old figure (a value ±v×10^k, k ∈
   {0, 3, 6, 9}, or the printed digits in an evidence text). Flags are matched between the two runs on
   their rule, metric, period and evidence (page, role, box, text) with the planted figure's evidence
   masked, not on ``flag_id``: the engine hashes the document id (the sha256 of the bytes) into every
   ``flag_id``, so every flag of a planted copy would otherwise look new.

4. **Splits.** ``../shared/corpus/MANIFEST.tsv`` marks some filings as the ``validation split``: they are for
   measuring only (issue 23). The report gives the development files in full and the validation files as
   aggregates only (by kind, statement and rule; no file, flag or plant), and the two side by side, so that
   a reader measures on them without reading a flag to tune a rule. ``--split`` runs one of them alone.

Each task runs in a worker process (``--workers``), with a per-task time limit (``--timeout``); a task that
fails or times out is recorded as an error and the run goes on. Targets: ``swap`` caught ≥ 90 %, all kinds
together ≥ 80 %, false flags ≤ 0.2 per 100 untouched pages.

Usage::

    python -m bench.planted_errors [INPUT ...] [--kinds swap,drop,double,sign,scale] [--seeds 1,2,3]
        [--workers 2] [--limit N] [--tries 8] [--timeout 300] [--split all|development|validation]
        [--json OUT]
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import multiprocessing
import random
import re
import signal
import sys
import time
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from types import FrameType
from typing import Any, Literal, NotRequired, TypedDict

if __package__ in (None, ""):  # run as ``python bench/planted_errors.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.calibrate import fit_labelled, reliability_table
from bench.gt import corpus_dir, open_pdf

KINDS = ("swap", "drop", "double", "sign", "scale")
STATEMENTS = ("balance", "income", "comprehensive", "cash_flow", "equity", "other")
DEFAULT_SEEDS = (1, 2, 3)
DEFAULT_TRIES = 8
TASK_TIMEOUT_S = 300.0
WATCHDOG_GRACE_S = 60.0
"""A task still running this long after its own time limit is hung in native code: its pool is killed."""

SPLITS = ("development", "validation")
VALIDATION_MARK = "validation split"
"""The words in a MANIFEST.tsv row's notes that put its file in the validation split."""

TARGET_SWAP = 0.90
TARGET_ALL = 0.80
TARGET_FALSE_PER_100 = 0.2

SCALES = (1.0, 1e3, 1e6, 1e9)
BASELINE_TOL = 2.0
"""Two words sit on the same baseline when their bottoms differ by at most this (pt)."""
TOP_MARGIN, BOTTOM_MARGIN = 0.05, 0.94
"""Fractions of the page height outside which numbers are running heads and page numbers."""
HEADER_LINES = 12
"""Lines from the top of the page searched for a statement title."""

Word = tuple[float, float, float, float, str]
"""``(x0, y0, x1, y1, text)`` of one word, as PyMuPDF's ``get_text("words")`` lists it."""
BBox = tuple[float, float, float, float]
Statement = Literal["balance", "income", "comprehensive", "cash_flow", "equity", "other"]
Status = Literal["ok", "unverified", "no_candidate", "error"]

# --- tokens ------------------------------------------------------------------------------------------

_AMOUNT_RE = re.compile(
    r"^(?P<lead>[$(\-\u2212]{0,3})"
    r"(?P<int>[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d{2,})"
    r"(?:\.(?P<dec>\d+))?"
    r"(?P<trail>\)?)$"
)
_ANY_NUMBER_RE = re.compile(
    r"^(?P<lead>[$(\-\u2212]{0,3})(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?(?P<trail>\)?)$"
)
"""Any printed number (a mutated figure may have fewer than 3 digits: ``119`` → ``11``)."""
_NUMBER_RE = re.compile(r"^[$(\-\u2212]{0,3}\d[\d,]*(?:\.\d+)?\)?$")
"""Any number, however short (a neighbour in a table row: ``12``, ``(3)``, ``2023``)."""
_PUNCT_RE = re.compile(r"^[$€£¥()\-\u2212\u2013\u2014.:,;*…]*$")
"""Words that are neither text nor numbers for the table-row test: ``$``, ``)``, dashes, dot leaders."""
_MINUS = ("-", "\u2212")


@dataclass(frozen=True)
class Amount:
    """A printed amount split into its parts.

    Attributes:
        lead: Characters before the digits (``$``, ``(``, ``-``), as printed.
        int_part: Integer digits as printed, thousands separators included.
        decimals: Digits after the decimal point, or None.
        trail: ``)`` or ``""``.
    """

    lead: str
    int_part: str
    decimals: str | None
    trail: str

    @property
    def digits(self) -> str:
        """Integer digits without separators."""
        return self.int_part.replace(",", "")

    @property
    def grouped(self) -> bool:
        """Whether mutated integers are printed with thousands separators.

        An ungrouped integer of 3 digits or fewer gives no evidence either way, so it is grouped like the
        rest of a filing; only an ungrouped integer of 4+ digits (``12345``) stays ungrouped.
        """
        return "," in self.int_part or len(self.int_part) <= 3

    @property
    def negative(self) -> bool:
        """Printed in parentheses or with a leading minus."""
        return "(" in self.lead or any(m in self.lead for m in _MINUS)

    @property
    def core(self) -> str:
        """The digits as printed, without ``$``, sign or parentheses (``"3,004.5"``)."""
        return self.int_part + (f".{self.decimals}" if self.decimals is not None else "")

    @property
    def key(self) -> str:
        """The digit string compared across the document (``"1,234"`` and ``"$(1234)"`` share ``"1234"``)."""
        return self.digits + (f".{self.decimals}" if self.decimals is not None else "")

    @property
    def value(self) -> float:
        """The signed value as printed (no scale)."""
        magnitude = float(self.key)
        return -magnitude if self.negative else magnitude


def parse_amount(token: str, *, strict: bool = True) -> Amount | None:
    """Parse a word as a table amount, or None.

    An amount has an integer part of at least 3 digits or with thousands separators, optional decimals, an
    optional ``$``, and balanced parentheses or a leading minus. Years (a bare 4-digit 1900–2100 without a
    separator) and numbers with a leading zero are not amounts.

    Args:
        token: The word.
        strict: False accepts any printed number of that shape (short ones, years), as a planted figure
            may be: only candidates must be strict amounts.
    """
    m = (_AMOUNT_RE if strict else _ANY_NUMBER_RE).match(token)
    if m is None:
        return None
    lead, int_part, decimals, trail = m["lead"], m["int"], m["dec"], m["trail"]
    minus = sum(lead.count(c) for c in _MINUS)
    if lead.count("$") > 1 or lead.count("(") > 1 or minus > 1 or ("(" in lead and minus):
        return None
    if ("(" in lead) != (trail == ")"):
        return None
    year = decimals is None and "," not in int_part and len(int_part) == 4 and 1900 <= int(int_part) <= 2100
    if strict and year:
        return None
    return Amount(lead, int_part, decimals, trail)


def group_thousands(digits: str) -> str:
    """``"1234567"`` → ``"1,234,567"``."""
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return ",".join(parts)


def _format(amount: Amount, digits: str, decimals: str | None) -> str:
    int_part = group_thousands(digits) if amount.grouped else digits
    core = int_part + (f".{decimals}" if decimals is not None else "")
    return f"{amount.lead}{core}{amount.trail}"


def _valid(digits: str) -> bool:
    return bool(digits) and (digits == "0" or not digits.startswith("0"))


def _unique(items: Iterable[str], old: str) -> list[str]:
    out: list[str] = []
    for item in items:
        if item != old and item not in out:
            out.append(item)
    return out


def mutations(token: str, kind: str) -> list[str]:
    """Every way of planting one error of ``kind`` in ``token``, in digit-position order.

    Args:
        token: A printed amount (see :func:`parse_amount`).
        kind: ``swap`` (two adjacent different digits, decimals included, separators ignored), ``drop``
            (one integer digit removed), ``double`` (one integer digit repeated), ``sign`` (parentheses
            added or removed; a leading minus removed) or ``scale`` (×1,000, decimals dropped).

    Returns:
        Distinct new tokens, each regrouped and keeping ``$``, parentheses and decimals; empty when the
        kind cannot apply (``"1,000"`` has no swap: ``0,100`` would start with a zero).

    Raises:
        ValueError: for an unknown kind.
    """
    amount = parse_amount(token)
    if amount is None:
        return []
    digits, decimals = amount.digits, amount.decimals
    if kind == "swap":
        seq = digits + (decimals or "")
        options = []
        for i in range(len(seq) - 1):
            if seq[i] == seq[i + 1]:
                continue
            swapped = seq[:i] + seq[i + 1] + seq[i] + seq[i + 2 :]
            new_int = swapped[: len(digits)]
            if _valid(new_int):
                options.append(_format(amount, new_int, swapped[len(digits) :] if decimals else None))
        return _unique(options, token)
    if kind == "drop":
        dropped = (digits[:i] + digits[i + 1 :] for i in range(len(digits)))
        return _unique((_format(amount, d, decimals) for d in dropped if _valid(d)), token)
    if kind == "double":
        doubled = (digits[: i + 1] + digits[i:] for i in range(len(digits)))
        return _unique((_format(amount, d, decimals) for d in doubled), token)
    if kind == "sign":
        return [flip_sign(amount)]
    if kind == "scale":
        scaled = (Decimal(amount.key) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        return _unique([_format(amount, str(scaled), None)], token)
    raise ValueError(f"unknown error kind {kind!r}")


def flip_sign(amount: Amount) -> str:
    """``1,234`` ↔ ``(1,234)``, ``$1,234`` → ``$(1,234)``, ``-1,234`` → ``1,234``."""
    if any(m in amount.lead for m in _MINUS):
        lead = "".join(c for c in amount.lead if c not in _MINUS)
        return f"{lead}{amount.core}{amount.trail}"
    if "(" in amount.lead:
        return f"{amount.lead.replace('(', '')}{amount.core}"
    return f"{amount.lead}({amount.core})"


def mutate(token: str, kind: str, rng: random.Random) -> str | None:
    """One error of ``kind`` planted in ``token`` (position drawn with ``rng``), or None if none applies."""
    options = mutations(token, kind)
    return rng.choice(options) if options else None


# --- statements --------------------------------------------------------------------------------------

_HOLDERS = r"(?:(?:stockholders|shareholders|shareowners|members|partners)'?s?'?|total)?"
# Matched on the line in lower case with all whitespace removed: PDF text often splits words
# ("Changes in Equit y"), and titles are spelled with or without "consolidated"/"condensed".
_STATEMENT_TITLES: tuple[tuple[Statement, re.Pattern[str]], ...] = (
    ("balance", re.compile(r"(?<!off-)(?<!off)balancesheets?|statements?offinancial(?:position|condition)")),
    ("cash_flow", re.compile(r"statements?ofcashflows?|cashflows?statements?")),
    ("comprehensive", re.compile(r"statements?ofcomprehensive(?:income|loss|earnings)")),
    ("equity", re.compile(rf"statements?of(?:changesin)?{_HOLDERS}equity|changesin{_HOLDERS}equity")),
    ("income", re.compile(r"statements?of(?:operations|income|earnings|profit)|incomestatements?")),
)
_QUALIFIERS = re.compile(r"consolidated|condensed|combined|interim|unaudited")
_TITLE_MAX_WORDS = 14
"""Longer lines are prose (an MD&A sentence mentioning "the statements of operations"), not titles."""


def classify_statement(lines: Sequence[str]) -> Statement:
    """Which financial statement a page prints, from its own first lines (independent of the engine).

    The first line, top down, that is short enough to be a title and names a statement decides. Titles
    must read as a statement's ("Consolidated Statements of Cash Flows", "Balance Sheets"), so MD&A
    running heads ("Financial Condition and Results of Operations"), note titles and row labels
    ("Accumulated other comprehensive income") do not count. Case, whitespace (also inside words) and
    "consolidated"/"condensed" are ignored, and a combined "Statements of Income and Comprehensive Income"
    is an income statement.

    Args:
        lines: The page's text lines in reading order; only the first :data:`HEADER_LINES` non-empty ones
            are used.

    Returns:
        ``balance``, ``income``, ``comprehensive``, ``cash_flow``, ``equity`` or ``other`` (notes, MD&A,
        summaries, cover pages).
    """
    kept = [line for line in (raw.strip() for raw in lines) if line][:HEADER_LINES]
    for line in kept:
        if len(line.split()) > _TITLE_MAX_WORDS:
            continue
        compact = _QUALIFIERS.sub("", "".join(line.lower().replace("\u2019", "'").split()))
        for statement, pattern in _STATEMENT_TITLES:
            if pattern.search(compact):
                return statement
    return "other"


# --- candidate figures -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A table figure that may receive a planted error.

    Attributes:
        page: 1-based page number.
        bbox: The word's box (PyMuPDF coordinates, pt).
        text: The word as printed.
        statement: :func:`classify_statement` of the page.
    """

    page: int
    bbox: BBox
    text: str
    statement: Statement = "other"


def _is_row_number(text: str) -> bool:
    return bool(_NUMBER_RE.match(text)) and any(c.isdigit() for c in text)


def table_figures(words: Sequence[Word], page: int, height: float) -> list[Word]:
    """The amount tokens of one page that are figures in a table row.

    A figure is an amount (:func:`parse_amount`) that is not a percentage (``%`` in the token or as the
    next word), not the page number, not in the top or bottom margin, not printed twice on the same spot
    (shadow or fake-bold text), and whose nearest word on the same baseline to the left or to the right,
    skipping ``$``, parentheses, dashes and dot leaders, is a number. Requiring the *nearest* word rather
    than any word on the baseline keeps prose such as "$1,234 million compared with $1,100 million" out.

    Args:
        words: The page's words.
        page: 1-based page number.
        height: Page height (pt).

    Returns:
        The figures, in the order of ``words``.
    """
    spots = Counter((w[4], round(w[0]), round(w[3])) for w in words)
    by_bottom = sorted(words, key=lambda w: w[3])
    bottoms = [w[3] for w in by_bottom]
    out: list[Word] = []
    for w in words:
        x0, y0, x1, y1, text = w
        amount = parse_amount(text)
        if amount is None or spots[(text, round(x0), round(y1))] > 1:
            continue
        if y0 < TOP_MARGIN * height or y1 > BOTTOM_MARGIN * height or (x1 - x0) < 0.9 * (y1 - y0):
            continue  # running heads, page numbers, vertical text
        if amount.key == str(page):
            continue
        lo = bisect.bisect_left(bottoms, y1 - BASELINE_TOL)
        hi = bisect.bisect_right(bottoms, y1 + BASELINE_TOL)
        row = [o for o in by_bottom[lo:hi] if o is not w]
        right_all = sorted((o for o in row if o[0] >= x1 - 0.5), key=lambda o: o[0])
        if right_all and right_all[0][4].startswith("%"):
            continue
        left = sorted((o for o in row if o[2] <= x0 + 0.5 and not _PUNCT_RE.match(o[4])), key=lambda o: -o[2])
        right = [o for o in right_all if not _PUNCT_RE.match(o[4])]
        if (left and _is_row_number(left[0][4])) or (right and _is_row_number(right[0][4])):
            out.append(w)
    return out


def find_candidates(pages: Iterable[tuple[int, float, Sequence[Word]]]) -> list[tuple[int, Word]]:
    """Candidate figures of a document: table figures whose digits are printed at least twice.

    Args:
        pages: ``(1-based page, page height, words)`` for every page.

    Returns:
        ``(page, word)`` pairs sorted by page, then top to bottom and left to right.
    """
    keys: Counter[str] = Counter()
    figures: list[tuple[int, Word]] = []
    for page, height, words in pages:
        seen: set[tuple[str, int, int]] = set()
        for w in words:
            amount = parse_amount(w[4])
            spot = (w[4], round(w[0]), round(w[3]))
            if amount is not None and spot not in seen:
                seen.add(spot)
                keys[amount.key] += 1
        figures.extend((page, w) for w in table_figures(words, page, height))
    out = [(p, w) for p, w in figures if keys[_key(w[4])] >= 2]
    return sorted(out, key=lambda pw: (pw[0], pw[1][3], pw[1][0]))


def _key(token: str) -> str:
    amount = parse_amount(token)
    return amount.key if amount is not None else ""


def choose_plants(
    candidates: Sequence[Candidate], seed: int, name: str, kind: str, tries: int
) -> list[tuple[Candidate, str]]:
    """The candidates to try, in order, for one (seed, file, kind), each with its new token.

    The draw uses ``random.Random(f"{seed}:{name}:{kind}")`` for the order and for the digit position, so
    runs are reproducible. Candidates where the kind cannot apply are skipped.

    Args:
        candidates: The document's candidates (any order: they are sorted first).
        seed: Run seed.
        name: File name.
        kind: Error kind.
        tries: How many candidates to return at most.

    Returns:
        Up to ``tries`` ``(candidate, new token)`` pairs.
    """
    rng = random.Random(f"{seed}:{name}:{kind}")
    pool = sorted(candidates, key=lambda c: (c.page, c.bbox[3], c.bbox[0], c.text))
    rng.shuffle(pool)
    out: list[tuple[Candidate, str]] = []
    for cand in pool:
        new = mutate(cand.text, kind, rng)
        if new is not None:
            out.append((cand, new))
            if len(out) >= tries:
                break
    return out


# --- planting (PyMuPDF) ------------------------------------------------------------------------------


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


# --- flags and scoring -------------------------------------------------------------------------------


class EvidenceRec(TypedDict):
    page: int
    bbox: list[float] | None
    text: str
    role: str
    value: float | None


class FlagRec(TypedDict):
    flag_id: str
    rule: str
    kind: str
    metric: str | None
    period: str | None
    pages: list[int]
    expected: float | None
    actual: float | None
    message: str
    evidence: list[EvidenceRec]
    confidence: NotRequired[float]
    features: NotRequired[dict[str, float]]


def flag_record(flag: Any) -> FlagRec:
    """A picklable, JSON-ready summary of a ``schemas.models.Flag``."""
    return FlagRec(
        flag_id=flag.flag_id,
        rule=flag.rule,
        kind=flag.kind,
        metric=flag.metric,
        period=flag.period.key if flag.period is not None else None,
        pages=list(flag.pages),
        expected=flag.expected,
        actual=flag.actual,
        message=flag.message,
        evidence=[
            EvidenceRec(
                page=e.page,
                bbox=list(e.bbox) if e.bbox is not None else None,
                text=e.text,
                role=e.role,
                value=e.value,
            )
            for e in flag.evidence
        ],
        confidence=flag.confidence,
        features=dict(flag.features),
    )


def _digits_re(token: str) -> re.Pattern[str] | None:
    amount = parse_amount(token, strict=False)
    if amount is None:
        return None
    return re.compile(rf"(?<![\d.,]){re.escape(amount.core)}(?![\d]|[.,]\d)")


def mentions(text: str, tokens: Sequence[str]) -> bool:
    """Whether ``text`` prints the digits of one of ``tokens`` as a whole number (not in ``11,234``)."""
    for token in tokens:
        pattern = _digits_re(token)
        if pattern is not None and pattern.search(text):
            return True
    return False


def flag_key(flag: FlagRec, tokens: Sequence[str] = ()) -> tuple[Any, ...]:
    """A flag's identity across a document and its planted copy.

    The engine's ``flag_id`` hashes the rule, the document id, the metric, the period and every evidence's
    (page, box, role, text); the document id is the sha256 of the PDF's bytes, so it changes with any
    plant. This key is the same recipe without the document id, and evidence that prints one of
    ``tokens`` (the planted figure, old or new) is reduced to its page and role: a flag that the clean run
    already raised on the same figure is then the same flag, not a catch.
    """
    evidence: list[tuple[int, str, str, tuple[float, ...]]] = []
    for e in flag["evidence"]:
        if tokens and mentions(e["text"], tokens):
            evidence.append((e["page"], e["role"], "*", ()))
        else:
            box = tuple(round(x, 1) for x in e["bbox"]) if e["bbox"] else ()
            evidence.append((e["page"], e["role"], e["text"], box))
    return (flag["rule"], flag["metric"], flag["period"], tuple(sorted(evidence)))


def carries_figure(flag: FlagRec, old: str, new: str) -> bool:
    """Whether the flag holds the old or the new figure: as a value (±v×10^k, k ∈ {0, 3, 6, 9}; relative
    tolerance 1e-9 or absolute 1e-6) in its evidence, expected or actual, or as printed digits in an
    evidence text."""
    amounts = (parse_amount(old, strict=False), parse_amount(new, strict=False))
    targets = [abs(a.value) for a in amounts if a is not None]
    values = [e["value"] for e in flag["evidence"]] + [flag["expected"], flag["actual"]]
    for v in values:
        if v is None:
            continue
        for t in targets:
            if any(math.isclose(abs(v), t * k, rel_tol=1e-9, abs_tol=1e-6) for k in SCALES):
                return True
    return any(mentions(e["text"], (old, new)) for e in flag["evidence"])


def catching_flag(
    planted: Sequence[FlagRec], clean: Sequence[FlagRec], page: int, old: str, new: str
) -> FlagRec | None:
    """The first flag of the planted run that catches the plant, or None (missed).

    A flag catches it when the clean run has no flag with the same :func:`flag_key`, its pages include the
    planted page, and it carries the old or new figure (:func:`carries_figure`).
    """
    tokens = (old, new)
    before = {flag_key(f, tokens) for f in clean}
    for flag in planted:
        if page in flag["pages"] and carries_figure(flag, old, new) and flag_key(flag, tokens) not in before:
            return flag
    return None


# --- worker tasks ------------------------------------------------------------------------------------


class TaskTimeout(BaseException):
    """Raised in a worker when a task runs past its limit (a BaseException, so the engine's per-page
    ``except Exception`` cannot swallow it)."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise TaskTimeout


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`TaskTimeout` in the main thread after ``seconds`` (SIGALRM; Unix only)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _init_worker() -> None:
    from adapters.logs import configure_logging

    configure_logging("ERROR")  # the progress bar owns stderr


class EngineRun(TypedDict):
    pages: int
    flags: list[FlagRec]
    seconds: float
    questions: NotRequired[int]
    """Structure questions: breaks no small change explains, out of the analyst's queue."""
    localize_seconds: NotRequired[float]


def run_engine(data: bytes, name: str) -> EngineRun:
    """``process_bytes`` on one PDF, reduced to its page count and flags.

    Raises:
        RuntimeError: when the engine could not process the document at all.
    """
    from pipeline.engine import process_bytes

    t0 = time.perf_counter()
    result = process_bytes(data, source=name)
    if result.failed:
        raise RuntimeError(f"engine failed: {result.errors[0].message}")
    return EngineRun(
        pages=result.stats.pages,
        flags=[flag_record(f) for f in result.flags],
        seconds=time.perf_counter() - t0,
        questions=len(result.structure_questions),
        localize_seconds=result.stats.stage_seconds.get("localize", 0.0),
    )


class CleanResult(TypedDict):
    file: str
    error: str | None
    run: EngineRun | None
    candidates: list[Candidate]
    seconds: float


@dataclass(frozen=True)
class PlantJob:
    """One planted copy to build and run: a file, a seed, a kind and the candidates to try in order."""

    path: str
    seed: int
    kind: str
    tries: tuple[tuple[Candidate, str], ...]


class PlantResult(TypedDict):
    file: str
    seed: int
    kind: str
    status: Status
    error: str | None
    candidate: Candidate | None
    new: str | None
    discarded: int
    run: EngineRun | None
    seconds: float


def clean_task(path: str, timeout: float) -> CleanResult:
    """Worker: the engine on the untouched PDF, and its candidate figures."""
    t0 = time.perf_counter()
    result = CleanResult(file=Path(path).name, error=None, run=None, candidates=[], seconds=0.0)
    try:
        with time_limit(timeout):
            data = Path(path).read_bytes()
            result["run"] = run_engine(data, result["file"])
            result["candidates"] = scan_document(data)
    except TaskTimeout:
        result["error"], result["run"] = f"timeout after {timeout:g} s", None
    except Exception as exc:
        result["error"], result["run"] = f"{type(exc).__name__}: {exc}", None
    result["seconds"] = time.perf_counter() - t0
    return result


def plant_task(job: PlantJob, timeout: float) -> PlantResult:
    """Worker: plant the first candidate that verifies, then run the engine on the planted copy."""
    t0 = time.perf_counter()
    result = _skipped(Path(job.path).name, job.seed, job.kind, "error", None)
    try:
        with time_limit(timeout):
            data = Path(job.path).read_bytes()
            for cand, new in job.tries:
                planted = plant(data, cand, new)
                if planted is None:
                    result["discarded"] += 1
                    continue
                result["candidate"], result["new"] = cand, new
                result["run"] = run_engine(planted, result["file"])
                result["status"] = "ok"
                break
            else:
                result["status"] = "unverified"
    except TaskTimeout:
        result["error"] = f"timeout after {timeout:g} s"
    except Exception as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["seconds"] = time.perf_counter() - t0
    return result


# --- running -----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """Everything a run produced, before scoring."""

    files: list[str]
    clean: dict[str, CleanResult] = field(default_factory=dict)
    plants: list[PlantResult] = field(default_factory=list)
    seconds: float = 0.0


def input_pdfs(inputs: Sequence[Path]) -> list[Path]:
    """PDFs named on the command line (folders expand to their ``*.pdf``), or the corpus defaults."""
    if not inputs:
        corpus = corpus_dir()
        inputs = [d for d in (corpus / "financial", corpus / "filings") if d.is_dir()]
    missing = [str(item) for item in inputs if not item.exists()]
    if missing:
        raise SystemExit(f"no such file or folder: {', '.join(missing)}")
    out: list[Path] = []
    for item in inputs:
        out.extend(sorted(item.glob("*.pdf")) if item.is_dir() else [item])
    return out


def split_of(paths: Sequence[Path], manifest: Path | None = None) -> dict[str, str]:
    """``{file name: "development" or "validation"}``: validation when its ``MANIFEST.tsv`` row's notes say
    ``validation split``; files not in the manifest (named on the command line) are development files."""
    manifest = manifest or corpus_dir() / "MANIFEST.tsv"
    validation: set[str] = set()
    if manifest.is_file():
        lines = manifest.read_text(encoding="utf-8").splitlines()
        header = lines[0].split("\t") if lines else []
        if "file" in header and "notes" in header:
            fi, ni = header.index("file"), header.index("notes")
            for line in lines[1:]:
                cols = line.split("\t")
                if len(cols) > max(fi, ni) and VALIDATION_MARK in cols[ni]:
                    validation.add(Path(cols[fi]).name)
    return {p.name: ("validation" if p.name in validation else "development") for p in paths}


def _kill_workers() -> None:
    """Kill this process's worker children (all started by the pool), by pid."""
    for child in multiprocessing.active_children():
        child.kill()
        child.join(5)


def run_all(
    paths: Sequence[Path],
    kinds: Sequence[str],
    seeds: Sequence[int],
    workers: int,
    tries: int,
    timeout: float,
) -> Outcome:
    """Clean runs, candidate draws and planted runs over ``paths``, ``workers`` tasks at a time.

    At most ``workers`` tasks are submitted at once, so each submitted task is running and its age is
    its run time: a task older than ``timeout`` + :data:`WATCHDOG_GRACE_S` (hung where the worker's alarm
    cannot interrupt it) is recorded as an error and the pool is replaced.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    outcome = Outcome(files=[p.name for p in paths])
    t0 = time.perf_counter()
    by_name = {p.name: p for p in paths}
    pending: deque[tuple[str, Any]] = deque(("clean", str(p)) for p in paths)
    context = multiprocessing.get_context("spawn")  # no fork under the progress bar's thread

    def new_pool() -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker)

    pool = new_pool()
    running: dict[Future[Any], tuple[tuple[str, Any], float]] = {}
    total = len(paths) * (1 + len(kinds) * len(seeds))
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as progress:
        bar = progress.add_task("planted errors", total=total)

        def finish(task: tuple[str, Any], value: Any, error: str | None) -> None:
            kind, arg = task
            if kind == "clean":
                res: CleanResult = value or CleanResult(
                    file=Path(arg).name, error=error, run=None, candidates=[], seconds=0.0
                )
                outcome.clean[res["file"]] = res
                for seed in seeds:
                    for k in kinds:
                        if res["error"] is not None:
                            outcome.plants.append(_skipped(res["file"], seed, k, "error", "clean run failed"))
                            progress.advance(bar)
                            continue
                        plan = choose_plants(res["candidates"], seed, res["file"], k, tries)
                        if not plan:
                            outcome.plants.append(_skipped(res["file"], seed, k, "no_candidate", None))
                            progress.advance(bar)
                            continue
                        job = PlantJob(str(by_name[res["file"]]), seed, k, tuple(plan))
                        pending.appendleft(("plant", job))
            else:
                job = arg
                outcome.plants.append(
                    value or _skipped(Path(job.path).name, job.seed, job.kind, "error", error)
                )
            progress.advance(bar)

        try:
            while pending or running:
                while pending and len(running) < workers:
                    task = pending.popleft()
                    fn = clean_task if task[0] == "clean" else plant_task
                    running[pool.submit(fn, task[1], timeout)] = (task, time.monotonic())
                    what = Path(task[1] if task[0] == "clean" else task[1].path).name
                    progress.update(bar, description=f"{task[0]:<5} {what[:44]}")
                done, _ = wait(running, timeout=5.0, return_when=FIRST_COMPLETED)
                for fut in done:
                    task, _started = running.pop(fut)
                    try:
                        finish(task, fut.result(), None)
                    except Exception as exc:  # a worker that died (BrokenProcessPool) or a pickling error
                        finish(task, None, f"{type(exc).__name__}: {exc}")
                now = time.monotonic()
                hung = [
                    f for f, (_, started) in running.items() if now - started > timeout + WATCHDOG_GRACE_S
                ]
                if hung:
                    for fut in hung:
                        finish(
                            running.pop(fut)[0], None, f"hung: killed after {timeout + WATCHDOG_GRACE_S:g} s"
                        )
                    pending.extendleft(task for task, _ in running.values())  # still healthy: run again
                    running.clear()
                    _kill_workers()
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool = new_pool()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    outcome.seconds = time.perf_counter() - t0
    return outcome


def _skipped(name: str, seed: int, kind: str, status: Status, error: str | None) -> PlantResult:
    return PlantResult(
        file=name, seed=seed, kind=kind, status=status, error=error, candidate=None, new=None, discarded=0,
        run=None, seconds=0.0,
    )  # fmt: skip


# --- report ------------------------------------------------------------------------------------------


def _rate(caught: int, planted: int) -> float | None:
    return caught / planted if planted else None


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def plant_record(p: PlantResult, clean_flags: Sequence[FlagRec]) -> dict[str, Any]:
    """One plant as reported: where, what, and whether (and by which flag) it was caught.

    ``new_flags`` lists the planted run's flags that the clean run does not have (by :func:`flag_key`),
    caught or not, so a near miss (a flag on another page, or without the figure) can be looked at.
    """
    cand, run, new = p["candidate"], p["run"], p["new"]
    rec: dict[str, Any] = {
        "file": p["file"], "seed": p["seed"], "kind": p["kind"], "status": p["status"], "error": p["error"],
        "discarded": p["discarded"], "seconds": round(p["seconds"], 2), "page": None, "bbox": None,
        "old": None, "new": new, "statement": None, "caught": None, "rule": None, "flag_id": None,
        "message": None, "new_flags": [], "new_on_plant": 0,
    }  # fmt: skip
    if p["status"] != "ok" or cand is None or run is None or new is None:
        return rec
    flag = catching_flag(run["flags"], clean_flags, cand.page, cand.text, new)
    rec.update(page=cand.page, bbox=list(cand.bbox), old=cand.text, statement=cand.statement)
    rec["caught"] = flag is not None
    if flag is not None:
        rec.update(rule=flag["rule"], flag_id=flag["flag_id"], message=flag["message"])
    before = {flag_key(f, (cand.text, new)) for f in clean_flags}
    added = [f for f in run["flags"] if flag_key(f, (cand.text, new)) not in before]
    on_plant = [cand.page in f["pages"] and carries_figure(f, cand.text, new) for f in added]
    rec["new_flags"] = [
        {"rule": f["rule"], "pages": f["pages"], "message": f["message"], "on_plant": hit,
         "confidence": f.get("confidence"), "features": f.get("features", {})}
        for f, hit in zip(added, on_plant, strict=True)
    ]  # fmt: skip
    rec["new_on_plant"] = sum(on_plant)
    return rec


def score(
    outcome: Outcome, kinds: Sequence[str], seeds: Sequence[int], *, details: bool = True
) -> tuple[list[str], dict[str, Any]]:
    """Score the plants against the clean runs and format the report.

    Args:
        outcome: What the run produced.
        kinds: The error kinds planted.
        seeds: The seeds used.
        details: Include the per-file table, every plant and every clean flag. Off for the validation
            split: its figures are read as aggregates only.

    Returns:
        Printable lines and the JSON-ready summary.
    """
    plants: list[dict[str, Any]] = []
    tally: dict[str, dict[str, list[int]]] = {
        "kind": defaultdict(lambda: [0, 0]),
        "statement": defaultdict(lambda: [0, 0]),
    }
    per_file: dict[str, dict[str, Any]] = {}
    for name in outcome.files:
        clean = outcome.clean.get(name)
        run = clean["run"] if clean else None
        per_file[name] = {
            "pages": run["pages"] if run else None,
            "candidates": len(clean["candidates"]) if clean else 0,
            "clean_flags": len(run["flags"]) if run else None,
            "clean_error": clean["error"] if clean else "not run",
            "planted": 0,
            "caught": 0,
        }
    ordered = sorted(
        outcome.plants, key=lambda p: (outcome.files.index(p["file"]), p["seed"], KINDS.index(p["kind"]))
    )
    for p in ordered:
        cr = outcome.clean.get(p["file"])
        rec = plant_record(p, cr["run"]["flags"] if cr and cr["run"] else [])
        if rec["caught"] is not None:
            for axis, value in (("kind", rec["kind"]), ("statement", rec["statement"])):
                tally[axis][value][0] += 1
                tally[axis][value][1] += rec["caught"]
            per_file[p["file"]]["planted"] += 1
            per_file[p["file"]]["caught"] += rec["caught"]
        plants.append(rec)

    clean_flags_out = [
        {"file": name, "rule": f["rule"], "page": f["pages"][0] if f["pages"] else None, "pages": f["pages"],
         "message": f["message"], "flag_id": f["flag_id"], "confidence": f.get("confidence"),
         "features": f.get("features", {})}
        for name in outcome.files
        if (cr := outcome.clean.get(name)) and cr["run"]
        for f in cr["run"]["flags"]
    ]  # fmt: skip
    worker_s = sum(c["seconds"] for c in outcome.clean.values()) + sum(p["seconds"] for p in outcome.plants)
    total_pages = sum(f["pages"] or 0 for f in per_file.values())
    total_clean = len(clean_flags_out)
    false_per_100 = 100 * total_clean / total_pages if total_pages else None
    planted_n = sum(v[0] for v in tally["kind"].values())
    caught_n = sum(v[1] for v in tally["kind"].values())
    overall = _rate(caught_n, planted_n)
    swap = tally["kind"].get("swap", [0, 0])
    swap_rate = _rate(swap[1], swap[0])
    status_counts = Counter(p["status"] for p in plants)
    # Precision of what the analyst sees on a planted copy: of the flags the plant added, how many are it.
    new_total = sum(len(p["new_flags"]) for p in plants if p["caught"] is not None)
    new_on_plant = sum(p["new_on_plant"] for p in plants if p["caught"] is not None)
    planted_precision = _rate(new_on_plant, new_total)
    false_by_rule = Counter(str(f["rule"]) for f in clean_flags_out)
    labelled = labelled_flags(plants, clean_flags_out)
    reliability = reliability_table(labelled)
    clean_runs = [cr["run"] for name in outcome.files if (cr := outcome.clean.get(name)) and cr["run"]]
    questions = sum(r.get("questions", 0) for r in clean_runs)
    questions_per_100 = 100 * questions / total_pages if total_pages else None
    localize_ms_per_page = (
        1000 * sum(r.get("localize_seconds", 0.0) for r in clean_runs) / total_pages if total_pages else None
    )
    discarded = sum(p["discarded"] for p in plants)
    discarded_by_kind = Counter({k: sum(p["discarded"] for p in plants if p["kind"] == k) for k in kinds})

    lines = [
        f"files {len(outcome.files)}, pages {total_pages}, seeds {','.join(map(str, seeds))}, "
        f"kinds {','.join(kinds)}, wall time {outcome.seconds:.0f} s "
        f"(tasks took {worker_s:.0f} s of worker time)",
        f"plants: {status_counts['ok']} run, {status_counts['unverified']} unverified (all tries discarded), "
        f"{status_counts['no_candidate']} without candidate, {status_counts['error']} errors; "
        f"{discarded} plant attempts discarded by verification "
        f"({', '.join(f'{k} {discarded_by_kind[k]}' for k in kinds)})",
        "",
    ]
    for axis, keys in (("kind", list(kinds)), ("statement", list(STATEMENTS))):
        lines.append(f"{'by ' + axis:<16} {'planted':>8} {'caught':>8} {'%':>8}")
        for key in keys:
            n, c = tally[axis].get(key, [0, 0])
            if axis == "statement" and n == 0:
                continue
            lines.append(f"{key:<16} {n:>8} {c:>8} {_pct(_rate(c, n)):>8}")
        lines.append(f"{'all':<16} {planted_n:>8} {caught_n:>8} {_pct(overall):>8}")
        lines.append("")
    header = f"{'file':<46} {'pages':>5} {'cands':>6} {'clean':>5} {'/100p':>6} {'planted':>7} {'caught':>6}"
    for name, f in per_file.items() if details else ():
        if name == next(iter(per_file)):
            lines.append(header)
        pages = f["pages"] or 0
        rate = f"{100 * f['clean_flags'] / pages:.2f}" if pages and f["clean_flags"] is not None else "n/a"
        note = f"  error: {f['clean_error']}" if f["clean_error"] else ""
        lines.append(
            f"{name[:46]:<46} {pages:>5} {f['candidates']:>6} {f['clean_flags'] or 0:>5} {rate:>6} "
            f"{f['planted']:>7} {f['caught']:>6}{note}"
        )
    if details:
        lines.append("")
    fp_text = "n/a" if false_per_100 is None else f"{false_per_100:.3f}"
    lines.append(f"false flags: {total_clean} on {total_pages} untouched pages = {fp_text} per 100 pages")
    lines.append(
        "false flags by rule: "
        + (", ".join(f"{r} {n}" for r, n in sorted(false_by_rule.items(), key=_by_count)) or "none")
    )
    lines.append(
        f"precision on planted copies: {new_on_plant} of the {new_total} flags the plants added are the "
        f"planted error ({_pct(planted_precision)})"
    )
    lines.append("reliability (confidence bin: flags, mean confidence, observed precision):")
    for row in reliability:
        observed = "n/a" if row["observed"] is None else f"{row['observed']:.2f}"
        lines.append(f"  {row['bin']:<10} {row['flags']:>6} {row['predicted']:>8.2f} {observed:>8}")
    q_text = "n/a" if questions_per_100 is None else f"{questions_per_100:.3f}"
    ms_text = "n/a" if localize_ms_per_page is None else f"{localize_ms_per_page:.2f}"
    lines.append(
        f"structure questions: {questions} on the untouched pages = {q_text} per 100 pages; "
        f"localization {ms_text} ms per page"
    )
    targets = {
        "swap_caught": (TARGET_SWAP, swap_rate, None if swap_rate is None else swap_rate >= TARGET_SWAP),
        "all_caught": (TARGET_ALL, overall, None if overall is None else overall >= TARGET_ALL),
        "false_flags_per_100_pages": (
            TARGET_FALSE_PER_100,
            false_per_100,
            None if false_per_100 is None else false_per_100 <= TARGET_FALSE_PER_100,
        ),
    }
    lines.append(
        f"target swap caught >= {TARGET_SWAP:.0%}: {_pct(swap_rate)}  {_verdict(targets['swap_caught'][2])}"
    )
    lines.append(
        f"target all kinds caught >= {TARGET_ALL:.0%}: {_pct(overall)}  {_verdict(targets['all_caught'][2])}"
    )
    lines.append(
        f"target false flags <= {TARGET_FALSE_PER_100} per 100 pages: {fp_text}  "
        f"{_verdict(targets['false_flags_per_100_pages'][2])}"
    )
    summary: dict[str, Any] = {
        "seeds": list(seeds),
        "kinds": list(kinds),
        "files": per_file,
        "pages": total_pages,
        "wall_seconds": round(outcome.seconds, 1),
        "worker_seconds": round(worker_s, 1),
        "by_kind": {k: _axis(tally["kind"].get(k, [0, 0])) for k in kinds},
        "by_statement": {s: _axis(v) for s in STATEMENTS if (v := tally["statement"].get(s))},
        "overall": _axis([planted_n, caught_n]),
        "false_flags": total_clean,
        "false_flags_per_100_pages": false_per_100,
        "false_flags_by_rule": dict(false_by_rule),
        "reliability": reliability,
        "structure_questions": questions,
        "structure_questions_per_100_pages": questions_per_100,
        "localize_ms_per_page": localize_ms_per_page,
        "planted_copies": {
            "new_flags": new_total,
            "on_the_plant": new_on_plant,
            "precision": planted_precision,
        },
        "status": dict(status_counts),
        "discarded": discarded,
        "discarded_by_kind": dict(discarded_by_kind),
        "targets": {k: {"target": t, "value": v, "pass": ok} for k, (t, v, ok) in targets.items()},
        "plants": plants,
        "clean_flags": clean_flags_out,
    }
    if not details:
        summary["files"] = len(per_file)
        del summary["plants"], summary["clean_flags"]
    else:
        summary["labelled_flags"] = labelled
    return lines, summary


def labelled_flags(
    plants: Sequence[dict[str, Any]], clean_flags: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every flag with its label, for calibration and the reliability table.

    A flag a plant added on the planted figure is a real finding; every flag of an untouched run, and a flag
    a plant added elsewhere, is a false alarm.
    """
    out = [
        {
            "rule": f["rule"],
            "confidence": f.get("confidence"),
            "features": f.get("features", {}),
            "real": bool(f["on_plant"]),
        }
        for p in plants
        if p["caught"] is not None
        for f in p["new_flags"]
    ]
    out += [
        {
            "rule": f["rule"],
            "confidence": f.get("confidence"),
            "features": f.get("features", {}),
            "real": False,
        }
        for f in clean_flags
    ]
    return out


def _subset(outcome: Outcome, names: set[str]) -> Outcome:
    return Outcome(
        files=[f for f in outcome.files if f in names],
        clean={k: v for k, v in outcome.clean.items() if k in names},
        plants=[p for p in outcome.plants if p["file"] in names],
        seconds=outcome.seconds,
    )


def _validation_refit(summaries: dict[str, dict[str, Any]], hidden: Sequence[dict[str, Any]]) -> list[str]:
    """The validation split's reliability with the confidence ``bench.calibrate`` would ship.

    The model is fitted on the development files' flags only and then measured on the validation split's
    (``hidden``: used here for the figures and nowhere else, never printed or written).
    """
    model = fit_labelled(summaries["development"]["labelled_flags"])
    if model is None:
        return []
    refit = [
        {"confidence": model.confidence(f["rule"], f["features"], f["confidence"]), "real": f["real"]}
        for f in hidden
    ]
    table = reliability_table(refit)
    above = [f for f in refit if f["confidence"] is not None and f["confidence"] >= model.threshold]
    precision = sum(f["real"] for f in above) / len(above) if above else None
    val = summaries["validation"]
    val["reliability_refit_on_development"] = table
    val["queue_above_threshold"] = {"threshold": model.threshold, "flags": len(above), "precision": precision}
    shown = "n/a" if precision is None else f"{precision:.2f}"
    out = [
        "== validation split: confidence fitted on the development files (bench.calibrate)",
        f"queue threshold {model.threshold:.4f}: {len(above)} flags at or above it, precision {shown}",
    ]
    for line in table:
        observed = "n/a" if line["observed"] is None else f"{line['observed']:.2f}"
        out.append(f"  {line['bin']:<10} {line['flags']:>6} {line['predicted']:>8.2f} {observed:>8}")
    return [*out, ""]


def score_splits(
    outcome: Outcome, kinds: Sequence[str], seeds: Sequence[int], splits: dict[str, str]
) -> tuple[list[str], dict[str, Any]]:
    """:func:`score` per split (development in full, validation as aggregates), then the two side by side.

    Returns:
        Printable lines and ``{"splits": {name: summary}, "side_by_side": {row: {split: value}}}``.
    """
    lines: list[str] = []
    summaries: dict[str, dict[str, Any]] = {}
    for name in SPLITS:
        names = {f for f in outcome.files if splits.get(f, "development") == name}
        if not names:
            continue
        details = name != "validation"
        part_lines, summaries[name] = score(_subset(outcome, names), kinds, seeds, details=details)
        title = "development files" if name == "development" else "validation split (aggregates only)"
        lines += [f"== {title}", *part_lines, ""]
    if len(summaries) > 1:
        _, summaries["all"] = score(outcome, kinds, seeds, details=False)
    if "development" in summaries and "validation" in summaries:
        names = {f for f in outcome.files if splits.get(f, "development") == "validation"}
        _, hidden = score(_subset(outcome, names), kinds, seeds, details=True)
        lines += _validation_refit(summaries, hidden["labelled_flags"])
    rows: dict[str, dict[str, Any]] = {}
    for name, sm in summaries.items():
        rows.setdefault("files", {})[name] = sm["files"] if isinstance(sm["files"], int) else len(sm["files"])
        rows.setdefault("pages", {})[name] = sm["pages"]
        for kind in kinds:
            rows.setdefault(f"{kind} caught %", {})[name] = sm["by_kind"][kind]["rate"]
        rows.setdefault("all kinds caught %", {})[name] = sm["overall"]["rate"]
        rows.setdefault("plants run", {})[name] = sm["overall"]["planted"]
        rows.setdefault("false flags", {})[name] = sm["false_flags"]
        rows.setdefault("false flags / 100 pages", {})[name] = sm["false_flags_per_100_pages"]
        rows.setdefault("precision on planted copies %", {})[name] = sm["planted_copies"]["precision"]
        rows.setdefault("structure questions / 100 pages", {})[name] = sm["structure_questions_per_100_pages"]
        rows.setdefault("localization ms / page", {})[name] = sm["localize_ms_per_page"]
    cols = list(summaries)
    lines.append("== side by side")
    lines.append(f"{'':<32}" + "".join(f"{c:>14}" for c in cols))
    for row, values in rows.items():
        cells = []
        for c in cols:
            v = values.get(c)
            if v is None:
                cells.append("n/a")
            elif "%" in row:
                cells.append(_pct(v))
            elif isinstance(v, float):
                cells.append(f"{v:.3f}")
            else:
                cells.append(str(v))
        lines.append(f"{row:<32}" + "".join(f"{x:>14}" for x in cells))
    return lines, {"splits": summaries, "side_by_side": rows}


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def _axis(counts: Sequence[int]) -> dict[str, Any]:
    return {"planted": counts[0], "caught": counts[1], "rate": _rate(counts[1], counts[0])}


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description="Planted keying errors: catch rate and false flags.")
    parser.add_argument("inputs", nargs="*", type=Path, help="PDFs or folders (default: the corpus filings)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated error kinds")
    parser.add_argument("--seeds", default=",".join(map(str, DEFAULT_SEEDS)), help="comma-separated seeds")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--limit", type=int, help="only the first N files")
    parser.add_argument("--tries", type=int, default=DEFAULT_TRIES, help="candidates tried per plant")
    parser.add_argument("--timeout", type=float, default=TASK_TIMEOUT_S, help="seconds per task")
    parser.add_argument(
        "--split", choices=("all", *SPLITS), default="all",
        help="which corpus files (MANIFEST.tsv marks the validation split; default both, side by side)",
    )  # fmt: skip
    parser.add_argument(
        "--json", type=Path, help="write the figures (and the development files' plants and flags) here"
    )
    args = parser.parse_args(argv)

    kinds = _csv(args.kinds)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds: {', '.join(unknown)} (choose from {', '.join(KINDS)})")
    seeds = [int(s) for s in _csv(args.seeds)]
    paths = input_pdfs(args.inputs)
    splits = split_of(paths)
    if args.split != "all":
        paths = [p for p in paths if splits[p.name] == args.split]
    if args.limit is not None:
        paths = paths[: args.limit]
    if not paths:
        print(f"no PDFs found (corpus {corpus_dir()}; set TIEOUT_CORPUS or name inputs)")
        return 2
    outcome = run_all(paths, kinds, seeds, max(1, args.workers), args.tries, args.timeout)
    lines, summary = score_splits(outcome, kinds, seeds, splits)
    print("\n".join(lines))
    if args.json is not None:
        summary["command"] = " ".join(["python -m bench.planted_errors", *(argv or sys.argv[1:])])
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    # Run the imported module's ``main``, not ``__main__``'s: the worker processes (spawned) pickle
    # functions and records by module name, and ``bench.planted_errors`` is a name they can import.
    from bench.planted_errors import main as _main

    sys.exit(_main())
