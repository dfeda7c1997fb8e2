"""Who, what and when: a document's issuer, identifiers, form and period end, read from its cover pages.

A pure stage over the printed lines of the first pages (:data:`COVER_PAGES`), each a
:class:`~schemas.models.Block` with its page and box: no file name, no guess. Every field it finds keeps
the page and the text that proves it; every field it does not find says why
(:class:`~schemas.models.IdentityField`).

What is read, strongest evidence first:

* **form**: the first page that names one decides. On it, a "Filed pursuant to Rule 424(b)" line (a
  final prospectus, ``424B``), an SEC cover's "FORM 10-K" line (``10-K/A`` when it says "/A" or an
  "Amendment No." follows), a "Prospectus" title, an "Annual Report" title (a glossy report that wraps the
  10-K it prints pages later is an annual report), or an earnings release's headline ("eBay Inc. Reports
  Second Quarter 2023 Results", "today reported financial results");
* **period end**: an SEC cover's "For the fiscal year ended December 31, 2022" / "For the quarterly
  period ended ..." / "For the 53 weeks ended ..." / a transition report's "For the transition period
  from <date> to <date>" (the date may be printed on the line below, in the same column), else the first
  "<quarter | year | period | months | weeks> ended <date>" on the pages read, else (from the body) the
  latest date heading the first balance sheet's columns; dates are read by
  :func:`pipeline.figures.periods.parse_period`;
* **issuer**: the line above "(Exact name of registrant as specified in its charter)", else the name
  printed under the "Commission file number" line, else the name before a ticker ("MGM Resorts
  International (NYSE: MGM)"), else the subject of a results headline or of a release's dateline
  ("CHICAGO, IL - McDonald's Corporation today announced results"), else a name with a legal form
  ("Inc.", "plc", "AG", ...) among the first lines of the first page, else (from the body, for a cover
  that prints its name as a picture) "<Name, Inc.>, incorporated under the laws of ...";
* **identifiers**: "Commission File Number 1-3285" (or a registration statement's "Registration No.
  333-..."), "Central Index Key", the first symbol of the cover's "Trading Symbol(s)" column or an
  "(Exchange: TICKER)" mention, an LEI (20 characters, ISO 17442: mod 97 = 1) and an ISIN (12 characters,
  Luhn check digit) on a page that names them, so that a random string is never taken for one.

Each field found says its ``source``: ``cover`` (the readers above, on what the cover states), ``body``
(the weaker fallbacks read elsewhere on the pages read) or ``ocr``. A page whose text layer is glyph
codes (:mod:`pipeline.parse.cover_ocr`) is never read as text: with the ``ocr`` extra its image is read by
OCR instead; without it, every unknown field's reason says that the text layer is unreadable and how to
read it.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pipeline.figures.periods import parse_period
from pipeline.parse.cover_ocr import OCR_PAGES, OCR_TOP, OcrUnavailable, unreadable_pages
from schemas.models import Block, DocumentIdentity, IdentityField

Source = Literal["cover", "body", "ocr"]
OcrReader = Callable[[Sequence[int], float], Sequence[Block]]
"""Reads the given pages (from 1) by OCR, the given share of each from the top, one block per line; raises
:class:`OcrUnavailable` without it."""

__all__ = [
    "COVER_PAGES",
    "isin_valid",
    "issuer_key",
    "lei_valid",
    "name_key",
    "name_words",
    "read_identity",
    "version_key",
]

COVER_PAGES: Final = 8
"""Pages read for the identity: a glossy annual report prints the 10-K's cover a few pages in (page 4 to
7 in the corpus); nothing else is read."""

_DASHES: Final = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))

# ----------------------------------------------------------------------------------------------------------
# Keys
# ----------------------------------------------------------------------------------------------------------
_LEGAL_FORMS: Final = frozenset(
    {
        "inc", "incorporated", "corp", "corporation", "co", "company", "companies", "plc", "ltd",
        "limited", "llc", "lp", "llp", "l", "p", "nv", "n", "v", "sa", "s", "a", "ag", "se", "kk", "kgaa",
        "gmbh", "spa", "bv", "ab", "asa", "oyj", "pty", "the", "and",
    }
)  # fmt: skip
"""Words dropped from the end of a name ("Inc.", "& Co.", "N.V." split by its dots, "Co., Ltd.")."""


def name_key(name: str) -> str:
    """An issuer's name normalised for "same issuer": how two printings of one name compare equal.

    Unicode compatibility forms and case are folded; "&" and every character but letters and digits
    become spaces; a leading "The" and trailing legal forms ("Inc.", "Incorporated", "Corporation",
    "Corp.", "Co.", "Company", "plc", "Ltd.", "Limited", "LLC", "L.P.", "N.V.", "S.A.", "AG", "SE", ... and
    a dangling "and") are dropped; the words are joined without spaces. "3M COMPANY" → ``3m``, "PG&E
    Corporation" → ``pge``, "The Kraft Heinz Company" → ``kraftheinz``, "JPMorgan Chase & Co." →
    ``jpmorganchase``.

    Args:
        name: A name as printed.

    Returns:
        The key ('' when nothing but legal forms is left).
    """
    return "".join(name_words(name))


def name_words(name: str) -> list[str]:
    """The words of a name that :func:`name_key` joins: folded, without "The" and trailing legal forms."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("&", " ")
    words = re.sub(r"[^\w]+|_", " ", text).split()
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words.pop()
    return words


def issuer_key(issuer: str | None, cik: str | None) -> str | None:
    """``cik:<10 digits>`` when a CIK is printed, else ``name:<name_key>``; None when neither is known."""
    if cik:
        return f"cik:{cik}"
    key = name_key(issuer) if issuer else ""
    return f"name:{key}" if key else None


_PROSPECTUS_FORMS: Final = frozenset({"S-1", "F-1", "S-3", "F-3", "S-4", "F-4", "S-11", "424B", "prospectus"})


def version_key(issuer: str | None, form: str | None, period_end: str | None) -> str | None:
    """``<issuer_key>|<form family>|<period end or 'undated'>``: same key, versions of one document.

    The form family drops an amendment's "/A" (a 10-K/A is a version of its 10-K) and counts every
    prospectus form as one ("prospectus": an S-1, its amendments and the final 424B are drafts of one
    offering document). None when the issuer or the form is unknown.

    Args:
        issuer: The issuer key (:func:`issuer_key`).
        form: The normalised form.
        period_end: The ISO period end, or None.
    """
    if not issuer or not form:
        return None
    family = form.removesuffix("/A")
    if family in _PROSPECTUS_FORMS:
        family = "prospectus"
    return f"{issuer}|{family}|{period_end or 'undated'}"


# ----------------------------------------------------------------------------------------------------------
# Check digits
# ----------------------------------------------------------------------------------------------------------
def _alnum_digits(code: str) -> str:
    """Letters as numbers (A=10 ... Z=35), digits as themselves: the expansion both standards use."""
    return "".join(str(int(c, 36)) for c in code)


def lei_valid(code: str) -> bool:
    """Whether ``code`` is a well-formed LEI: 18 alphanumerics and 2 check digits, ISO 7064 mod 97 = 1."""
    if not re.fullmatch(r"[A-Z0-9]{18}[0-9]{2}", code):
        return False
    return int(_alnum_digits(code)) % 97 == 1


def isin_valid(code: str) -> bool:
    """Whether ``code`` is a well-formed ISIN: country letters, 9 alphanumerics, a Luhn check digit."""
    if not re.fullmatch(r"[A-Z]{2}[A-Z0-9]{9}[0-9]", code):
        return False
    digits = [int(d) for d in _alnum_digits(code)]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return total % 10 == 0


# ----------------------------------------------------------------------------------------------------------
# Reading the pages
# ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Line:
    """A printed line: its text (dashes unified, spaces collapsed), page and box."""

    text: str
    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    ocr: bool = False

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 1.0)


@dataclass(frozen=True, slots=True)
class _Found:
    """A value and its proof."""

    value: str
    line: _Line
    evidence: str
    source: Source = "cover"


class _Cover:
    """The lines of the pages read, by page, with the geometry the readers need."""

    def __init__(self, blocks: Sequence[Block], ocr_pages: frozenset[int] = frozenset()) -> None:
        self.pages: dict[int, list[_Line]] = {}
        for b in blocks:
            text = " ".join(b.text.translate(_DASHES).split())
            if text:
                line = _Line(text, b.page, *b.bbox, ocr=b.page in ocr_pages)
                self.pages.setdefault(b.page, []).append(line)
        # Each page's lines top down (by top edge) and bottom up (by bottom edge), for the column walks.
        self._down = {p: sorted(ls, key=lambda o: (o.y0, o.x0)) for p, ls in self.pages.items()}
        self._up = {p: sorted(ls, key=lambda o: (o.y1, -o.x0)) for p, ls in self.pages.items()}

    def lines(self) -> list[_Line]:
        return [line for page in sorted(self.pages) for line in self.pages[page]]

    def below(self, line: _Line) -> _Line | None:
        """The nearest line under ``line`` that shares some of its width (the same column)."""
        down = self._down[line.page]
        start = bisect_left(down, line.y0 + 0.5 * line.height, key=lambda o: o.y0)
        return next((o for o in down[start:] if _overlap(o, line)), None)

    def above(self, line: _Line) -> _Line | None:
        """The nearest line over ``line`` that shares some of its width."""
        up = self._up[line.page]
        end = bisect_right(up, line.y1 - 0.5 * line.height, key=lambda o: o.y1)
        return next((o for o in reversed(up[:end]) if _overlap(o, line)), None)

    def page_text(self, page: int) -> str:
        return " ".join(line.text for line in self.pages.get(page, []))


def _overlap(a: _Line, b: _Line) -> bool:
    """Whether two lines share some width: they are in one column."""
    return min(a.x1, b.x1) > max(a.x0, b.x0)


def _field(found: _Found | None, unknown: str) -> IdentityField:
    if found is None:
        return IdentityField(reason=unknown)
    source: Source = "ocr" if found.line.ocr else found.source
    return IdentityField(value=found.value, page=found.line.page, evidence=found.evidence, source=source)


def _first(cover: _Cover, pattern: re.Pattern[str], value: Callable[[re.Match[str]], str]) -> _Found | None:
    """The first line (with the line under it, for a phrase wrapped over two) where ``pattern`` matches."""
    for line in cover.lines():
        for text in (line.text, _with_below(cover, line)):
            m = pattern.search(text)
            if m is not None:
                return _Found(value(m), line, " ".join(m.group(0).split()))
    return None


def _with_below(cover: _Cover, line: _Line) -> str:
    under = cover.below(line)
    return line.text if under is None else f"{line.text} {under.text}"


# --- form -------------------------------------------------------------------------------------------------
_SEC_FORMS: Final = r"10-?KT?|10-?QT?|8-?K|20-?F|40-?F|6-?K|11-?K|S-?1|S-?3|S-?4|S-?11|F-?1|F-?3|F-?4"
_FORM_LINE: Final = re.compile(
    rf"^(?:\(mark one\)\s*)?form\s+(?P<form>{_SEC_FORMS})(?P<amend>\s*/\s*A)?"
    r"(?:\s*\(?amendment\s+no\.?\s*\d+\)?)?(?:\s+registration\s+statement\b.*|\s*\(mark one\))?\s*$",
    re.IGNORECASE,
)
_AMENDMENT: Final = re.compile(r"^\(?amendment\s+no\.?\s*\d+\)?$", re.IGNORECASE)
_RULE_424: Final = re.compile(r"\bfiled\s+pursuant\s+to\s+rule\s+424\s*\(\s*b\s*\)", re.IGNORECASE)
_PROSPECTUS_TITLE: Final = re.compile(
    r"^(?:preliminary\s+|final\s+|base\s+)?prospectus(?:\s+supplement)?(?:\s+dated\b.*)?$", re.IGNORECASE
)
_ANNUAL_TITLE: Final = re.compile(
    r"^(?:(?:19|20)\d\d(?:\s*[-/]\s*\d{2,4})?\s+)?annual\s+report(?:\s+and\s+accounts)?"
    r"(?:\s+(?:19|20)\d\d(?:\s*[-/]\s*\d{2,4})?)?(?:\s+on\s+form\s+10-?K)?$",
    re.IGNORECASE,
)
_RESULTS_HEADLINE: Final = re.compile(
    r"\b(?:reports?|announces?|posts?|delivers?)\b[^.]{0,120}?\bresults\b"
    r"|\btoday\s+(?:reported|announced)\b[^.]{0,60}?\bresults\b",
    re.IGNORECASE,
)


def _sec_form(cover: _Cover, page: int) -> _Found | None:
    lines = cover.pages.get(page, [])
    for i, line in enumerate(lines):
        m = _FORM_LINE.match(line.text)
        if m is None:
            continue
        form = m.group("form").upper()
        if "-" not in form:
            form = re.sub(r"^(\d+|[SF])", r"\1-", form)
        amended = bool(m.group("amend")) or "amendment" in line.text.lower()
        evidence = line.text
        for nxt in lines[i + 1 : i + 3]:
            if not amended and _AMENDMENT.match(nxt.text):
                amended, evidence = True, f"{line.text} {nxt.text}"
        return _Found(form + ("/A" if amended else ""), line, evidence)
    return None


def _titled(cover: _Cover, page: int, pattern: re.Pattern[str], form: str) -> _Found | None:
    for line in cover.pages.get(page, []):
        m = pattern.search(line.text) if pattern is _RULE_424 else pattern.match(line.text)
        if m is not None:
            return _Found(form, line, line.text)
    return None


def _results_release(cover: _Cover, page: int) -> _Found | None:
    # A headline wraps over lines: read the page as one text, and point at the line it starts on.
    text = cover.page_text(page)
    m = _RESULTS_HEADLINE.search(text)
    if m is None:
        return None
    start, pos = m.start(), 0
    for line in cover.pages[page]:
        if pos + len(line.text) >= start:
            return _Found("earnings release", line, " ".join(m.group(0).split()))
        pos += len(line.text) + 1
    return None  # pragma: no cover - the match lies in the page's text


def _form(cover: _Cover) -> _Found | None:
    """The form the first page that names one says, by the strength of what it prints."""
    for page in sorted(cover.pages):
        found = (
            _titled(cover, page, _RULE_424, "424B")
            or _sec_form(cover, page)
            or _titled(cover, page, _PROSPECTUS_TITLE, "prospectus")
            or _titled(cover, page, _ANNUAL_TITLE, "annual report")
            or _results_release(cover, page)
        )
        if found is not None:
            return found
    return None


# --- period end -------------------------------------------------------------------------------------------
_COVER_PERIOD: Final = re.compile(  # a line of its own on a cover, not a sentence's words
    r"^\W*for\s+the\s+(?:(?:fis\s?cal\s+year|financial\s+year|year|quarterly\s+period|quarter|period"
    r"|(?:three|six|nine|twelve|thirteen|twenty-six|thirty-nine|fifty-two|fifty-three|\d{1,2})[-\s]"
    r"(?:months|weeks))\s+ended\b|transition\s+period\s+from\b)",
    re.IGNORECASE,
)
"""A cover's period line; a 52/53-week year may count its weeks in digits ("For the 53 weeks ended"); a
transition report states its period as a range ("For the transition period from July 1, 2022 to
December 31, 2022"), whose end is the second date (a blank range, "from ____ to ____", has none)."""
_ANY_PERIOD: Final = re.compile(
    r"\b(?:year|quarter|period|months|weeks)\s*,?\s+(?:then\s+)?ended\b", re.IGNORECASE
)
_ASIDE: Final = re.compile(r"\s*\([^()]{0,40}\)")
_DATE_TAIL: Final = re.compile(r".{0,30}?(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])")
"""What follows "ended" up to the first year: the date, and not the comparison that may follow it."""
_RANGE_TAIL: Final = re.compile(
    r".{0,30}?(?<![0-9])(?:19|20)[0-9]{2}\s*(?:to|through|-)\s*.{0,30}?(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])"
)
"""What follows "period from": both dates of the range."""


def _end_date(phrase: str) -> str | None:
    """The ISO end date of a duration phrase ("fiscal year ended December 31, 2022"), None without one."""
    # "ended:" (a cover's label and its value) reads as "ended".
    period = parse_period(re.sub(r"(?i)\bended\s*:", "ended", phrase.replace("fis cal", "fiscal")))
    if period is None or period.kind != "duration":
        return None
    end = period.end_day()
    return None if end is None else end.isoformat()


def _period_in(cover: _Cover, pattern: re.Pattern[str], lines: Sequence[_Line]) -> _Found | None:
    for line in lines:
        text = _ASIDE.sub("", line.text)
        m = pattern.search(text)
        if m is None:
            continue
        tails = _RANGE_TAIL if m.group(0).lower().endswith("from") else _DATE_TAIL
        for joined in (text, _ASIDE.sub("", _with_below(cover, line))):
            tail = tails.match(joined, m.end())
            if tail is not None and (end := _end_date(joined[m.start() : tail.end()])) is not None:
                return _Found(end, line, joined[m.start() : tail.end()])
    return None


_BALANCE_SHEET: Final = re.compile(
    r"^(?:consolidated\s+|group\s+|company\s+)?(?:balance\s+sheets?|statements?\s+of\s+financial\s+position)"
    r"(?:\s*\(continued\))?$",
    re.IGNORECASE,
)
_HEAD_LINES: Final = 6
"""Lines under a balance sheet's title searched for its column heads (a unit line may come between)."""


def _instant(text: str) -> str | None:
    """The ISO date of a column head that is one date ("31.12.2025", "As at 31 December 2025")."""
    period = parse_period(text)
    day = period.end_day() if period is not None and period.kind == "instant" else None
    return None if day is None else day.isoformat()


def _balance_sheet_date(cover: _Cover) -> _Found | None:
    """The latest date heading a column of the first balance sheet titled on the pages read.

    A report that never prints "<period> ended <date>" ("Annual Report 2025" over year column heads) still
    dates its balance sheet: the statement of financial position is drawn up at the end of the period
    reported (IAS 1.10, ASC 210), so its latest column date is the period end, read from the body.
    """
    for line in cover.lines():
        if not _BALANCE_SHEET.match(line.text):
            continue
        down = cover._down[line.page]
        under = [o for o in down if o.y0 >= line.y1 - 0.5][:_HEAD_LINES]
        dated = [(d, o) for o in under if (d := _instant(o.text)) is not None]
        if dated:
            row = [(d, o) for d, o in dated if abs(o.y0 - dated[0][1].y0) < dated[0][1].height]
            end, head = max(row, key=lambda t: t[0])
            return _Found(end, head, f"{line.text}: {head.text}", "body")
    return None


def _period_end(cover: _Cover) -> _Found | None:
    lines = cover.lines()
    return (
        _period_in(cover, _COVER_PERIOD, lines)
        or _period_in(cover, _ANY_PERIOD, lines)
        or _balance_sheet_date(cover)
    )


# --- issuer -----------------------------------------------------------------------------------------------
_EXACT_NAME: Final = re.compile(r"^\(?exact\s+name\s+of\s+registrants?\b", re.IGNORECASE)
_NOT_A_NAME: Final = re.compile(
    r":|\b(?:commission|file|number|ended|pursuant|form|act\s+of|washington|mark\s+one|identification"
    r"|incorporation|jurisdiction|address|telephone|report|exchange|period|specified)\b|^(?:or|x|o)$"
    r"|^[_\W]*$|(?<![0-9])(?:19|20)[0-9]{2}(?![0-9])|[0-9]{1,3}-[0-9]{3,}",
    re.IGNORECASE,
)
_LEGAL_FORM_END: Final = re.compile(
    r"\b(?:inc|incorporated|corp|corporation|co|company|plc|ltd|limited|llc|l\.?p|n\.?v|s\.?a|ag|se"
    r"|holdings|group|international|partnership|trust)\.?\)?$",
    re.IGNORECASE,
)
_FILE_NUMBER_LINE: Final = re.compile(r"\bcommission\s+file\b", re.IGNORECASE)
_EXCHANGES: Final = (
    r"NYSE(?:\s+American|\s+Arca)?|NASDAQ(?:\s*(?:GS|GM|CM))?|Nasdaq(?:\s*(?:GS|GM|CM))?|AMEX|TSX|ASX|LSE"
)
_TICKER_MENTION: Final = re.compile(rf"\((?:{_EXCHANGES})\s*:\s*(?P<ticker>[A-Z][A-Z.]{{0,5}})\)")
_NAME_WORD: Final = re.compile(
    r"^(?:[A-Z0-9][\w.,'’&-]*|[a-z]+[A-Z][\w.,'’&-]*|&|and|of|de"
    r"|(?:plc|inc|ltd|llc|co|corp|ag|se|sa|nv|s\.a|n\.v)[.,]*)$"
)
"""A word of a name: capitalised ("Resorts"), an inner capital ("eBay"), a joint ("&", "of"), a legal form."""
_RESULTS_SUBJECT: Final = re.compile(r"^(?P<name>.+?)\s+(?:reports?|announces?|posts?|delivers?)\b", re.I)


def _name_before(text: str) -> str | None:
    """The capitalised words just before the end of ``text``: the name a ticker mention follows."""
    words: list[str] = []
    for word in reversed(text.split()):
        if not _NAME_WORD.match(word) or word.endswith("--") or any(c.isdigit() for c in word[-1:]):
            break
        words.insert(0, word)
    while words and words[0].lower() in ("and", "of", "de", "&"):
        words.pop(0)
    return " ".join(words).strip(" ,") or None


def _registrant(cover: _Cover) -> _Found | None:
    """The name above "(Exact name of registrant as specified in its charter)", in the same column.

    Several registrants print one name a line ("BOSTON PROPERTIES, INC." over "BOSTON PROPERTIES LIMITED
    PARTNERSHIP"): the first is the issuer. A name wrapped over two lines is joined.
    """
    for line in cover.lines():
        if not _EXACT_NAME.match(line.text):
            continue
        if not line.text.startswith("("):  # a column head ("Exact Name of Registrant"): the names under it
            under = cover.below(line)
            if under is not None and _NOT_A_NAME.search(under.text):  # its second line
                under = cover.below(under)
            if under is not None and not _NOT_A_NAME.search(under.text):
                return _Found(under.text.strip(" ,"), under, f"{line.text}: {under.text}")
            continue
        names: list[_Line] = []
        cursor = cover.above(line)
        while cursor is not None and len(names) < 3:
            if not re.fullmatch(r"[_\W]*", cursor.text):  # a rule of underscores is skipped
                if _NOT_A_NAME.search(cursor.text) or (names and names[0].y0 - cursor.y1 > cursor.height):
                    break
                names.insert(0, cursor)
            cursor = cover.above(cursor)
        if not names:
            continue
        if all(_LEGAL_FORM_END.search(n.text) for n in names):
            names = names[:1]  # several registrants, one a line
        name = " ".join(n.text for n in names)
        return _Found(name.strip(" ,"), names[0], f"{name} {line.text}")
    return None


def _under_file_number(cover: _Cover) -> _Found | None:
    """The name printed under the "Commission file number" line of a cover without "(Exact name ...)"."""
    for line in cover.lines():
        if _FILE_NUMBER_LINE.search(line.text):
            under = cover.below(line)
            if (
                under is not None
                and _LEGAL_FORM_END.search(under.text)
                and not _NOT_A_NAME.search(under.text)
            ):
                return _Found(under.text.strip(" ,"), under, under.text)
    return None


def _before_ticker(cover: _Cover) -> _Found | None:
    for line in cover.lines():
        joined = _with_below(cover, line) if cover.above(line) is None else line.text
        for text in (line.text, joined):
            m = _TICKER_MENTION.search(text)
            if m is not None and (name := _name_before(text[: m.start()])):
                return _Found(name, line, f"{name} {m.group(0)}")
    return None


_DATELINE_SUBJECT: Final = re.compile(r"^(?P<name>.+?)\s+today\s+(?:reported|announced)\b", re.IGNORECASE)
"""A release's first sentence: "CHICAGO, IL - McDonald's Corporation today announced results ..."."""
_DATELINE_END: Final = re.compile(r"(?:^|[-:)]|\bPRNewswire\b|\bBusiness\s?Wire\b)$", re.IGNORECASE)
"""What may stand before the subject: nothing, or a dateline's end ("CHICAGO, IL -", "(BUSINESS WIRE)--")."""
_GLUED_DASH: Final = re.compile(r"(—|–|--|(?<=\s)-)(?=[A-Z])")
"""A dateline's dash set against the name after it: "CHICAGO--(BUSINESS WIRE)--Acme Inc.", "IL -Acme" (as
wire services print it, and as OCR reads a dash and a thin space). A hyphen inside a name ("Coca-Cola")
follows a letter, not a space."""


def _headline_subject(cover: _Cover) -> _Found | None:
    """The subject of a results headline, else of the release's dateline sentence, on the first page."""
    for page in sorted(cover.pages):
        for line in cover.pages[page]:
            if not _RESULTS_HEADLINE.search(_with_below(cover, line)):
                continue
            m = _RESULTS_SUBJECT.match(line.text)
            name = _name_before(m.group("name")) if m is not None else None
            if m is not None and name and name == m.group("name").strip(" ,"):
                return _Found(name, line, line.text)
            m = _DATELINE_SUBJECT.match(_GLUED_DASH.sub(r"\1 ", line.text))
            name = _name_before(m.group("name")) if m is not None else None
            if m is not None and name:
                before = m.group("name").strip(" ,")[: -len(name)].strip()
                if _DATELINE_END.search(before) and name_words(name)[-1:] != ["company"]:
                    return _Found(name, line, line.text)
        break  # the headline is on the first page
    return None


def _titled_name(cover: _Cover) -> _Found | None:
    """A name with a legal form among the first lines of the first page (a report's or prospectus's title)."""
    for page in sorted(cover.pages):
        for line in cover.pages[page][:5]:
            if (
                _LEGAL_FORM_END.search(line.text)
                and len(line.text.split()) <= 8
                and not _NOT_A_NAME.search(line.text)
                and _name_before(line.text) == line.text.strip(" ,")
            ):
                return _Found(line.text.strip(" ,"), line, line.text)
        break
    return None


_INCORPORATED: Final = re.compile(
    r",?\s+(?:(?:was|is)\s+)?(?:incorporated|organized)\s+(?:in\s+(?:19|20)\d\d\s+)?under\s+the\s+laws\s+of\b"
    r"|,?\s+(?:(?:was|is)\s+)?(?:incorporated|organized)\s+in\s+(?:the\s+state\s+of\s+)?[A-Z]",
    re.IGNORECASE,
)
"""The body's "Foot Locker, Inc., incorporated under the laws of the State of New York in 1989"."""


def _incorporated_name(cover: _Cover) -> _Found | None:
    """A name with a legal form that the text says was incorporated: the body's account of the registrant.

    For a cover whose registrant name is not in the text layer (printed as an image): the business
    section's first sentence names the company as it was incorporated. "The Company was incorporated" is
    not a name (only legal forms are left of it).
    """
    lines = cover.lines()
    # Each line alone first: joined to the line under it, a heading above the sentence ("General") would
    # read as the name's first word; the join is for a sentence wrapped between the name and its verb.
    for line, text in [*((o, o.text) for o in lines), *((o, _with_below(cover, o)) for o in lines)]:
        for m in _INCORPORATED.finditer(text):
            name = _name_before(text[: m.start()])
            if (
                name
                and _LEGAL_FORM_END.search(name)
                and not all(w in _LEGAL_FORMS for w in name_words(name))
                and not _NOT_A_NAME.search(name)
            ):
                said = " ".join(text[text.rfind(name, 0, m.start()) : m.end()].split())
                return _Found(name, line, said, "body")
    return None


def _issuer(cover: _Cover) -> _Found | None:
    return (
        _registrant(cover)
        or _under_file_number(cover)
        or _before_ticker(cover)
        or _headline_subject(cover)
        or _titled_name(cover)
        or _incorporated_name(cover)
    )


# --- identifiers ------------------------------------------------------------------------------------------
_FILE_NUMBER: Final = re.compile(
    r"\bcommission\s+file\s+(?:number|no\.?)\s*:?\s*(?P<n>\d{1,3}-\d{3,6})\b"
    r"|\bregistration\s+(?:statement\s+)?no\.?\s*:?\s*(?P<r>333-\d{4,7})\b",
    re.IGNORECASE,
)
_CIK: Final = re.compile(
    r"\b(?:central\s+index\s+key|CIK)(?:\s+(?:no\.?|number))?\s*[:#]?\s*(?P<n>\d{1,10})\b", re.IGNORECASE
)
_TICKER_HEAD: Final = re.compile(r"\btrading\s+symbols?(?:\s*\(s\))?", re.IGNORECASE)
_TICKER: Final = re.compile(r"[A-Z][A-Z0-9.]{0,5}(?:\s+PR\s*[A-Z]{1,2})?")
_LEI_LABEL: Final = re.compile(r"\bLEI\b|legal\s+entity\s+identifier", re.IGNORECASE)
_ISIN_LABEL: Final = re.compile(r"\bISIN\b")
_LEI_SHAPE: Final = re.compile(r"(?<![A-Z0-9])[A-Z0-9]{18}[0-9]{2}(?![A-Z0-9])")
_ISIN_SHAPE: Final = re.compile(r"(?<![A-Z0-9])[A-Z]{2}[A-Z0-9]{9}[0-9](?![A-Z0-9])")


_FILE_NUMBER_HEAD: Final = re.compile(r"^(?:commission\s+)?file\s+(?:number|no\.?)$", re.IGNORECASE)
_FILE_NUMBER_CELL: Final = re.compile(r"\d{1,3}-\d{3,6}")


def _file_number(cover: _Cover) -> _Found | None:
    """The number after "Commission File Number", else the first under a "Commission File Number" column."""
    found = _first(cover, _FILE_NUMBER, lambda m: m.group("n") or m.group("r"))
    if found is not None:
        return found
    for line in cover.lines():
        if _FILE_NUMBER_HEAD.match(line.text):
            under = cover.below(line)
            if under is not None and _FILE_NUMBER_CELL.fullmatch(under.text):
                return _Found(under.text, under, f"{line.text}: {under.text}")
    return None


def _cik(cover: _Cover) -> _Found | None:
    return _first(cover, _CIK, lambda m: m.group("n").zfill(10))


def _ticker(cover: _Cover) -> _Found | None:
    """The first symbol under the cover's "Trading Symbol(s)" head, else an "(Exchange: TICKER)" mention."""
    for line in cover.lines():
        m = _TICKER_HEAD.search(line.text)
        if m is None:
            continue
        # A caption "(Trading Symbol)" may be printed under its column's first row.
        candidates = [cover.above(line)] if line.text.startswith("(") else []
        cursor: _Line | None = line
        for _ in range(3):  # the first row of the column; a wrapped class title may push it down
            cursor = cover.below(cursor) if cursor is not None else None
            candidates.append(cursor)
        for c in candidates:
            if c is not None and _TICKER.fullmatch(c.text):
                return _Found(c.text, c, f"{m.group(0)}: {c.text}")
    return _first(cover, _TICKER_MENTION, lambda m: m.group("ticker"))


def _checked_code(
    cover: _Cover,
    label: re.Pattern[str],
    shape: re.Pattern[str],
    valid: Callable[[str], bool],
    what: str,
    where: str,
) -> IdentityField:
    """The first code of ``shape`` that passes ``valid`` on a page naming it (``label``), or why none."""
    rejected: list[str] = []
    for page in sorted(cover.pages):
        if not label.search(cover.page_text(page)):
            continue
        for line in cover.pages[page]:
            for m in shape.finditer(line.text):
                if valid(m.group(0)):
                    return _field(_Found(m.group(0), line, line.text), "")
                rejected.append(f"{m.group(0)!r} (page {page})")
    if rejected:
        return _field(None, f"{', '.join(rejected[:3])}: not an {what}, its check digits do not verify")
    return _field(None, f"no {what} printed with its label on {where}")


# ----------------------------------------------------------------------------------------------------------
# The stage
# ----------------------------------------------------------------------------------------------------------
def _pages(pages: Sequence[int]) -> str:
    """Page numbers for a reason: "1-8" for a run, "1, 3" otherwise."""
    run = len(pages) > 2 and list(pages) == list(range(pages[0], pages[-1] + 1))
    return f"{pages[0]}-{pages[-1]}" if run else ", ".join(map(str, pages))


def _known(cover: _Cover) -> bool:
    """Whether the three fields that make a version key are read."""
    return bool(_form(cover) and _period_end(cover) and _issuer(cover))


def _readable(blocks: Sequence[Block], ocr: OcrReader | None) -> tuple[_Cover, str]:
    """The lines worth reading: an unreadable page's dropped, and read by OCR instead when it can be.

    OCR takes seconds a page: the unreadable pages are read one at a time, up to
    :data:`~pipeline.parse.cover_ocr.OCR_PAGES`, until the issuer, form and period end are known; each
    page's top (:data:`~pipeline.parse.cover_ocr.OCR_TOP`) first, and the whole page only when the top
    does not tell.

    Returns:
        The cover, and what to say first in an unknown field's reason ('' when every page was read).
    """
    bad = unreadable_pages(blocks)
    kept = [b for b in blocks if b.page not in bad]
    if not bad:
        return _Cover(kept), ""
    unread = f"text layer unreadable on page(s) {_pages(bad)}"
    if ocr is None:
        return _Cover(kept), f"{unread}, not read by OCR here; "
    seen: list[Block] = []
    done: list[int] = []
    cover = _Cover(kept)
    for page in bad[:OCR_PAGES]:
        done.append(page)
        for top in (OCR_TOP, 1.0):
            try:
                lines = ocr([page], top)
            except OcrUnavailable:
                return cover, f"{unread}; install tieout[ocr] to read it by OCR; "
            cover = _Cover([*kept, *seen, *lines], frozenset(done))
            if _known(cover):
                return cover, f"{unread}, page(s) {_pages(done)} read by OCR; "
        seen += lines
    return cover, f"{unread}, page(s) {_pages(done)} read by OCR; "


def read_identity(
    blocks: Sequence[Block], *, pages_read: int, ocr: OcrReader | None = None
) -> DocumentIdentity:
    """A document's identity from the printed lines of its first pages.

    A page whose text layer does not read (glyph codes: :func:`~pipeline.parse.cover_ocr.unreadable_pages`)
    is not read as text; ``ocr`` reads the first :data:`~pipeline.parse.cover_ocr.OCR_PAGES` of them
    instead, and a field found there says so (``source`` 'ocr').

    Args:
        blocks: One block per printed line of the pages read (tables' text included), in reading order.
        pages_read: How many pages the lines come from (said in the reasons).
        ocr: Reads pages by OCR (:func:`pipeline.parse.cover_ocr.ocr_lines` over the PDF's bytes); None
            where no PDF is at hand.

    Returns:
        Every field found with its page and evidence; every other one unknown, with why.
    """
    cover, unread = _readable(blocks, ocr)
    where = f"the first {pages_read} page(s)" if pages_read else "no page with text"
    form = _form(cover)
    period = _period_end(cover)
    issuer = _issuer(cover)
    cik = _cik(cover)
    key = issuer_key(issuer.value if issuer else None, cik.value if cik else None)
    identity = DocumentIdentity(
        issuer=_field(issuer, f"no registrant name, ticker mention, headline or titled name on {where}"),
        cik=_field(cik, f"no 'Central Index Key' or 'CIK' printed on {where}"),
        file_number=_field(
            _file_number(cover), f"no 'Commission File Number' or 'Registration No.' printed on {where}"
        ),
        ticker=_field(_ticker(cover), f"no 'Trading Symbol(s)' column or '(Exchange: TICKER)' on {where}"),
        lei=_checked_code(cover, _LEI_LABEL, _LEI_SHAPE, lei_valid, "LEI (ISO 17442)", where),
        isin=_checked_code(cover, _ISIN_LABEL, _ISIN_SHAPE, isin_valid, "ISIN (ISO 6166)", where),
        form=_field(form, f"no form line, prospectus or annual report title, or results headline on {where}"),
        period_end=_field(period, f"no '<period> ended <date>' printed on {where}"),
        issuer_key=key,
        version_key=version_key(key, form.value if form else None, period.value if period else None),
        pages_read=pages_read,
    )
    if not unread:
        return identity
    # Every unknown field says first that a page could not be read, and what would read it.
    return identity.model_copy(
        update={
            name: field.model_copy(update={"reason": unread + field.reason})
            for name, field in identity
            if isinstance(field, IdentityField) and field.reason
        }
    )
