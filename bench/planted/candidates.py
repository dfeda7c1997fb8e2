"""Candidate figures: the table figures of a filing that may receive a planted error, found from words.

Chosen with PyMuPDF's words, independently of the engine (see :mod:`bench.planted_errors`), each with the
financial statement its page prints, and drawn in a reproducible order per seed, file and kind.
"""

from __future__ import annotations

import bisect
import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bench.planted.mutations import mutate, parse_amount

__all__ = [
    "STATEMENTS",
    "BBox",
    "Candidate",
    "Statement",
    "Word",
    "choose_plants",
    "classify_statement",
    "find_candidates",
    "table_figures",
]

STATEMENTS = ("balance", "income", "comprehensive", "cash_flow", "equity", "other")

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

_NUMBER_RE = re.compile(r"^[$(\-\u2212]{0,3}\d[\d,]*(?:\.\d+)?\)?$")
"""Any number, however short (a neighbour in a table row: ``12``, ``(3)``, ``2023``)."""
_PUNCT_RE = re.compile(r"^[$€£¥()\-\u2212\u2013\u2014.:,;*…]*$")
"""Words that are neither text nor numbers for the table-row test: ``$``, ``)``, dashes, dot leaders."""


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
