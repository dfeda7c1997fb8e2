"""Financial figures as printed: recognise, parse and type them.

These functions run for every word on every page, so the inner loop works on precompiled regular
expressions and small frozen dataclasses; the pydantic ``TypedNumber`` is built only by :func:`to_typed`,
once a figure has been kept.

Conventions:

* ``value`` is the printed magnitude with its sign; a scale (``million``, ``'000``) is recorded, never
  applied, so that ``1,234.5`` in a table "in millions" and ``$1,234.5 million`` in the narrative compare
  equal on ``(value, scale)`` and on ``base_value`` once typed.
* Grouping is read in the US/UK style (``1,234.5``) and in the Indian style (``1,23,456``). European style
  (``1.234,5``) is read only when it cannot be anything else, unless the caller knows the document's
  convention and passes ``decimal_comma``.
* A bare ``$`` is read as US dollars and a bare ``¥`` as yen; :func:`to_typed` lets the table's currency
  override those two symbols because a Canadian or Chinese filing prints them too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from schemas.models import Period, ScaleSource, TypedNumber, Unit

__all__ = [
    "ParsedNumber",
    "ScaleHint",
    "TextNumber",
    "detect_scale",
    "find_numbers",
    "is_numeric_token",
    "parse_number",
    "to_typed",
]


@dataclass(frozen=True, slots=True)
class ParsedNumber:
    """A number as printed in one cell or span, before any table context is applied."""

    text: str
    value: float
    decimals_printed: int
    negative: bool
    percent: bool
    currency: str | None
    scale: int
    is_dash: bool
    footnote: str | None


@dataclass(frozen=True, slots=True)
class ScaleHint:
    """The unit a caption or column head declares, e.g. ``(Dollars in millions)``."""

    scale: int
    currency: str | None
    text: str


@dataclass(frozen=True, slots=True)
class TextNumber:
    """A number found in running text, with its character span in that text."""

    start: int
    end: int
    number: ParsedNumber


# --------------------------------------------------------------------------------------------------
# Character normalisation.
#
# Every mapping is one character to one character so that spans found in the normalised text are spans
# in the original text too. PDFs print minus as U+2212, en dash or em dash, and East-Asian filings use
# full-width digits and punctuation; folding them here keeps every regex below ASCII-simple.
# --------------------------------------------------------------------------------------------------
_NORMALISE: Final = str.maketrans(
    {
        **dict.fromkeys(["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"], "-"),
        **dict.fromkeys(["\ufe58", "\ufe63", "\uff0d", "\u30fc"], "-"),
        **{chr(0xFF10 + i): str(i) for i in range(10)},
        "\uff0c": ",",
        "\uff0e": ".",
        "\uff08": "(",
        "\uff09": ")",
        "\uff05": "%",
        "\uff04": "$",
        "\uffe5": "¥",
        "\uffe1": "£",
        "\uff0b": "+",
        "\u3000": " ",
        "\u2032": "'",
    }
)


def _normalise(text: str) -> str:
    # ``isascii`` is a C-level scan; most tokens are ASCII and skip the translation entirely.
    return text if text.isascii() else text.translate(_NORMALISE)


# --------------------------------------------------------------------------------------------------
# Vocabulary: currencies and scale words.
# --------------------------------------------------------------------------------------------------
_PREFIX_CURRENCIES: Final[dict[str, str]] = {
    "U.S.$": "USD",
    "US$": "USD",
    "USD": "USD",
    "$": "USD",
    "HK$": "HKD",
    "HKD": "HKD",
    "A$": "AUD",
    "AU$": "AUD",
    "AUD": "AUD",
    "C$": "CAD",
    "CA$": "CAD",
    "CAD": "CAD",
    "NZ$": "NZD",
    "NZD": "NZD",
    "S$": "SGD",
    "SG$": "SGD",
    "SGD": "SGD",
    "NT$": "TWD",
    "TWD": "TWD",
    "R$": "BRL",
    "BRL": "BRL",
    "MX$": "MXN",
    "MXN": "MXN",
    "€": "EUR",
    "EUR": "EUR",
    "£": "GBP",
    "GBP": "GBP",
    "¥": "JPY",
    "JPY": "JPY",
    "CN¥": "CNY",
    "RMB": "CNY",
    "CNY": "CNY",
    "CHF": "CHF",
    "Rs.": "INR",
    "Rs": "INR",
    "INR": "INR",
    "₹": "INR",
    "₩": "KRW",
    "KRW": "KRW",
    "SEK": "SEK",
    "NOK": "NOK",
    "DKK": "DKK",
    "ZAR": "ZAR",
}

_SUFFIX_CURRENCIES: Final[dict[str, str]] = {
    "€": "EUR",
    "£": "GBP",
    "EUR": "EUR",
    "USD": "USD",
    "GBP": "GBP",
    "CHF": "CHF",
    "JPY": "JPY",
    "CNY": "CNY",
    "RMB": "CNY",
    "INR": "INR",
    "SEK": "SEK",
    "NOK": "NOK",
    "DKK": "DKK",
    "円": "JPY",
    "元": "CNY",
    "원": "KRW",
}

# Scale words that are unambiguous on their own ("1.2bn", "3 crore", "1,234百万").
_SCALE_WORDS: Final[dict[str, int]] = {
    "thousand": 3,
    "thousands": 3,
    "million": 6,
    "millions": 6,
    "billion": 9,
    "billions": 9,
    "trillion": 12,
    "trillions": 12,
    "crore": 7,
    "crores": 7,
    "lakh": 5,
    "lakhs": 5,
    "lac": 5,
    "lacs": 5,
    "bn": 9,
    "mn": 6,
    "mln": 6,
    "tn": 12,
    "百万": 6,
    "百萬": 6,
    "千万": 7,
    "千萬": 7,
    "万": 4,
    "萬": 4,
    "億": 8,
    "亿": 8,
    "千": 3,
}

# Abbreviations that are only a scale when a currency is attached: "3M" is a company, "5m" a distance and
# "10K" a form, but "$4.5M", "€340m" and "£12k" are money.
_SCALE_ABBREVIATIONS: Final[dict[str, int]] = {"m": 6, "mm": 6, "k": 3, "b": 9, "cr": 7}


def _alternation(words: Iterable[str]) -> str:
    # Longest first, because Python's alternation takes the first branch that matches ("US$" before "$").
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_CUR_PRE: Final = _alternation(_PREFIX_CURRENCIES)
_CUR_SUF: Final = _alternation(_SUFFIX_CURRENCIES)
_SCALE_WORD_RE: Final = (
    r"(?:(?i:thousands?|millions?|billions?|trillions?|crores?|lakhs?|lacs?|bn|mn|mln|tn)(?![A-Za-z])"
    r"|百万|百萬|千万|千萬|万|萬|億|亿|千)"
)
_SCALE_ABBR_RE: Final = r"(?i:mm|m|k|b|cr)(?![A-Za-z])"
# An abbreviation only counts when group ``cur`` matched; otherwise the branch fails.
_SCALE_RE: Final = rf"(?P<scale>{_SCALE_WORD_RE}|(?(cur){_SCALE_ABBR_RE}|(?!)))"
_PERCENT_RE: Final = r"(?:%|(?i:per\s?cent|percent)(?![A-Za-z])|pp(?:ts?)?(?![A-Za-z]))"
_FOOTNOTE_ONE: Final = (
    r"(?:\(\s*(?:[0-9]{1,2}|[A-Za-z]{1,2})\s*\)|\[\s*(?:[0-9]{1,2}|[A-Za-z]{1,2})\s*\]"
    r"|[*†‡§]+|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
)
_SUPERSCRIPT_DIGITS: Final = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

# --------------------------------------------------------------------------------------------------
# Number bodies. Three named groups tell the converter which convention the digits follow; every pattern
# defines all three (unused ones can never match) so that ``m.group`` never raises.
# --------------------------------------------------------------------------------------------------
_GROUP_SEPS: Final = "\u00a0\u2009\u202f'’"
_US_BODY: Final = (
    r"[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?"  # 1,234 / 1,234.56
    r"|[1-9][0-9]?(?:,[0-9]{2})+,[0-9]{3}(?:\.[0-9]+)?"  # Indian lakh grouping 1,23,45,678
    rf"|[1-9][0-9]{{0,2}}(?:[{_GROUP_SEPS}][0-9]{{3}})+(?:\.[0-9]+)?"  # 1'234.5 (CH), 1 234 (thin space)
    r"|[0-9]+(?:\.[0-9]+)?"  # 1234 / 0.5
    r"|\.[0-9]+"  # .50
)
_EU_UNAMBIGUOUS: Final = (
    r"[1-9][0-9]{0,2}(?:\.[0-9]{3})+,[0-9]+"  # 1.234,5
    r"|[1-9][0-9]{0,2}(?:\.[0-9]{3}){2,}"  # 1.234.567
    r"|[1-9][0-9]{0,2}(?:[\u00a0\u2009\u202f][0-9]{3})+,[0-9]+"  # 1 234,5 (non-breaking space)
)
# "12,5" cannot be US grouping (a group has three digits), so a cell holding only that is European.
_EU_BARE: Final = r"[0-9]+,[0-9]{1,2}|0,[0-9]+"
_EU_FULL: Final = rf"[1-9][0-9]{{0,2}}(?:[. {_GROUP_SEPS}][0-9]{{3}})+(?:,[0-9]+)?|[0-9]+(?:,[0-9]+)?|,[0-9]+"
_NEVER: Final = r"(?!)"

_BODY_AUTO: Final = rf"(?P<eu>{_EU_UNAMBIGUOUS})|(?P<us>{_US_BODY})|(?P<eu2>{_EU_BARE})"
_BODY_EUROPEAN: Final = rf"(?P<eu>{_EU_FULL})|(?P<us>{_NEVER})|(?P<eu2>{_NEVER})"
_BODY_US: Final = rf"(?P<eu>{_NEVER})|(?P<us>{_US_BODY})|(?P<eu2>{_NEVER})"
_BODY_PROSE: Final = rf"(?P<eu>{_EU_UNAMBIGUOUS})|(?P<us>{_US_BODY})|(?P<eu2>{_NEVER})"

_SIGN: Final = "-+△▲"
_NEGATIVE_SIGNS: Final = frozenset("-△▲")


def _cell_pattern(body: str) -> re.Pattern[str]:
    """Compile the whole-cell grammar around one body convention."""
    return re.compile(
        r"\s*(?P<open>\()?\s*"
        rf"(?:(?P<sign>[{_SIGN}])\s*)?"
        rf"(?:(?P<cur>{_CUR_PRE})\s*)?"
        r"(?P<open2>\()?\s*"
        rf"(?:(?P<sign2>[{_SIGN}])\s*)?"
        rf"(?P<body>{body})"
        rf"(?:\s*{_SCALE_RE})?"
        rf"(?:\s*(?P<pct>{_PERCENT_RE}))?"
        r"(?:\s*(?P<mult>[x×])(?![A-Za-z]))?"
        rf"(?:\s*(?P<cur2>{_CUR_SUF})(?![A-Za-z]))?"
        r"(?:\s*(?P<close2>\)))?"
        r"(?:\s*(?P<close>\)))?"
        r"(?:\s*(?P<pct2>%))?"
        rf"(?P<foot>(?:\s*{_FOOTNOTE_ONE})*)\s*"
    )


_CELL_AUTO: Final = _cell_pattern(_BODY_AUTO)
_CELL_EUROPEAN: Final = _cell_pattern(_BODY_EUROPEAN)
_CELL_US: Final = _cell_pattern(_BODY_US)

# A nil cell: one or more dashes, optionally with a currency, parentheses, a percent sign or a footnote.
_DASH_CELL: Final = re.compile(
    rf"\s*\(?\s*(?:(?P<cur>{_CUR_PRE})\s*)?\(?\s*-+(?:\s*-+)*\s*\)?\s*%?"
    rf"(?P<foot>(?:\s*{_FOOTNOTE_ONE})*)\s*"
)
_DASH_TOKENS: Final = frozenset(["-", "--", "---", "—", "–", "―", "−", "‒", "—%", "-%"])
_NIL_WORDS: Final = frozenset(["nil", "Nil", "NIL"])

# Narrative numbers. A minus sign counts only at the start of a word ("a change of -5%"), never inside
# "COVID-19" (the Japanese △/▲ are never hyphens, so they count anywhere). Parentheses make a number
# negative only in the accounting form "$(12.3) million", because in prose they usually hold a
# comparative ("(2024: £1.1bn)") or an enumerator ("(1)").
# Python's engine tries the whole pattern at every position; a one-character look-ahead on what a
# number can start with rejects most positions at once (about four times faster on filings).
_PROSE_FIRST: Final = "".join(sorted({k[0] for k in _PREFIX_CURRENCIES} | set("-+△▲0123456789.")))
_PROSE: Final = re.compile(
    rf"(?=[{re.escape(_PROSE_FIRST)}])"
    r"(?P<sign>(?<![^\s(\[])[-+]|[△▲])?"
    rf"(?:(?P<cur>{_CUR_PRE})\s?(?P<open2>\()?)?"
    rf"(?P<body>{_BODY_PROSE})"
    r"(?(open2)\))"
    rf"(?:\s?{_SCALE_RE})?"
    rf"(?:\s?(?P<pct>{_PERCENT_RE}))?"
    r"(?:(?P<mult>[x×])(?![A-Za-z0-9]))?"
    rf"(?:\s(?P<cur2>{_CUR_SUF})(?![A-Za-z])|(?P<cur3>[円元원]))?"
    r"(?P<foot>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"
)
_HAS_DIGIT: Final = re.compile(r"[0-9０-９]").search
# Characters that glue a number to a neighbouring word or number into one identifier or compound:
# "10-K", "2013-14", "12/31/2017", "10:30", "3.5.1", "1,2".
_GLUE: Final = frozenset("-‐‑–/.,:")
_PHONE: Final = re.compile(
    r"(?=[+(0-9])(?:(?:\+?1[\s.-]?)?\(?[0-9]{3}\)?[\s.-][0-9]{3}[\s.-][0-9]{4}(?![0-9])"
    r"|\+[0-9]{1,3}[\s.-]?(?:\(0\)[\s.-]?)?[0-9]{1,4}(?:[\s.-][0-9]{2,4}){2,4}(?![0-9]))"
)
_RATIO_TAIL: Final = re.compile(r"[0-9)]\s*[x×]")
_BARE_SYMBOL: Final = re.compile(r"(?<![A-Za-z.])[$¥]")


# --------------------------------------------------------------------------------------------------
# Shared conversion from a match to a ParsedNumber.
# --------------------------------------------------------------------------------------------------
_STRIP_US: Final = str.maketrans("", "", ", " + _GROUP_SEPS)
_STRIP_EU: Final = str.maketrans("", "", ". " + _GROUP_SEPS)


def _body_value(body: str, european: bool) -> tuple[float, int]:
    """Return ``(magnitude, digits after the decimal mark)`` of a validated number body."""
    cleaned = body.translate(_STRIP_EU).replace(",", ".") if european else body.translate(_STRIP_US)
    dot = cleaned.find(".")
    return float(cleaned), (0 if dot < 0 else len(cleaned) - dot - 1)


def _scale_of(word: str | None) -> int:
    if not word:
        return 0
    lowered = word.lower()
    return _SCALE_WORDS.get(lowered) or _SCALE_ABBREVIATIONS.get(lowered, 0)


def _footnote_of(raw: str | None) -> str | None:
    """Reduce a matched footnote run like ``" (1)"`` or ``"¹"`` to its marker (``"1"``)."""
    if not raw:
        return None
    marker = raw.strip().strip("()[]").strip().translate(_SUPERSCRIPT_DIGITS)
    return marker or raw.strip()


def _from_match(m: re.Match[str], text: str) -> ParsedNumber:
    european = m.group("us") is None
    magnitude, decimals = _body_value(m.group("body"), european)
    groups = m.groupdict()
    sign = groups.get("sign")
    sign2 = groups.get("sign2")
    negative = (
        (sign is not None and sign in _NEGATIVE_SIGNS)
        or (sign2 is not None and sign2 in _NEGATIVE_SIGNS)
        or bool(groups.get("open") or groups.get("open2") or groups.get("close") or groups.get("close2"))
    )
    cur = groups.get("cur")
    cur2 = groups.get("cur2") or groups.get("cur3")
    currency = _PREFIX_CURRENCIES[cur] if cur else (_SUFFIX_CURRENCIES[cur2] if cur2 else None)
    percent = bool(groups.get("pct") or groups.get("pct2"))
    return ParsedNumber(
        text=text,
        value=-magnitude if negative and magnitude else magnitude,
        decimals_printed=decimals,
        negative=negative,
        percent=percent,
        currency=currency,
        # A percentage carries no scale even when a caption says "in millions".
        scale=0 if percent else _scale_of(groups.get("scale")),
        is_dash=False,
        footnote=_footnote_of(groups.get("foot")),
    )


# The shapes that make up most cells of a filing ("1,234", "(1,234)", "$ 1,234", "12.5%", "(2.1)%", "2025")
# in US/UK grouping. Everything it accepts the full grammar accepts with the same reading (a test checks
# this); it exists because building a result from the full grammar's twenty groups costs several times more.
_SIMPLE: Final = re.compile(
    r"(?P<open>\()?(?P<cur>\$)?\s*(?P<open2>\()?"
    r"(?P<body>[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.(?P<dec>[0-9]+))?|[0-9]+(?:\.(?P<dec2>[0-9]+))?)"
    r"\s*(?P<pct>%)?(?P<close>\))?(?P<pct2>%)?"
)
# No figure ends in these; a word that does ("31,", "2017.", "2016-02,") is prose punctuation.
_NEVER_LAST: Final = frozenset(",.;:/")


def _simple(m: re.Match[str], text: str) -> ParsedNumber:
    # Positional: the nine groups of _SIMPLE in order (cheaper than looking them up by name).
    open_, cur, open2, body, dec, dec2, pct, close, pct2 = m.groups()
    magnitude = float(body.replace(",", "")) if "," in body else float(body)
    negative = bool(open_ or open2 or close)
    return ParsedNumber(
        text=text,
        value=-magnitude if negative and magnitude else magnitude,
        decimals_printed=len(dec or dec2 or ""),
        negative=negative,
        percent=bool(pct or pct2),
        currency="USD" if cur else None,
        scale=0,
        is_dash=False,
        footnote=None,
    )


def _cell_regex(decimal_comma: bool | None) -> re.Pattern[str]:
    if decimal_comma is None:
        return _CELL_AUTO
    return _CELL_EUROPEAN if decimal_comma else _CELL_US


# --------------------------------------------------------------------------------------------------
# Public API.
# --------------------------------------------------------------------------------------------------
def is_numeric_token(token: str, *, decimal_comma: bool | None = None) -> bool:
    """Tell quickly whether one whitespace-free word is a figure.

    Accepts what :func:`parse_number` accepts (``1,234``, ``(1,234)``, ``$1,234``, ``12.5%``, ``(12)%``,
    ``—``, ``2025``, ``€340m``, ``1,234(1)``), including the fragments a PDF splits a negative into
    (``(1,234`` and ``1,234)``). Words, identifiers (``10-K``, ``1Q21``, ``3M``) and trailing sentence
    punctuation (``2017.``) are rejected: use :func:`find_numbers` for running text.

    Args:
        token: One word as the PDF text layer returns it.
        decimal_comma: ``True`` for a document printed in the European style (``1.234,5``), ``False``
            for US/UK style only, ``None`` to accept European style only when unambiguous.

    Returns:
        True when ``parse_number(token)`` would return a number.
    """
    if not token:
        return False
    if token.isalpha():
        # The common case: a plain word. Checked first because it is a single C-level scan.
        return token in _NIL_WORDS
    if token in _DASH_TOKENS:
        return True
    if token[-1] in _NEVER_LAST:
        return False
    normalised = _normalise(token)
    if decimal_comma is not True and _SIMPLE.fullmatch(normalised):
        return True
    if (_HAS_DIGIT(normalised) is None or normalised[0] == "-") and _DASH_CELL.fullmatch(normalised):
        return True
    return _cell_regex(decimal_comma).fullmatch(normalised) is not None


def parse_number(text: str, *, decimal_comma: bool | None = None) -> ParsedNumber | None:
    """Parse a string that is exactly one figure, such as a table cell.

    Handles currency symbols and codes before or after the digits (``$ 1,234``, ``1.234,5 €``),
    accounting parentheses (``(1,234 )``, ``$(1,234)``), minus signs (``-``, ``−``, ``△``, ``▲``),
    percentages (``8.4 %``, ``(2.1)%``), attached scales (``$1.2bn``, ``1.2 million``, ``1,234百万円``),
    ratio multiples (``2.5x``), footnote markers (``1,234(1)``, ``1,234 (a)``, ``1,234*``, ``1,234¹``,
    ``5,000 [2]``) and nil dashes (``—``, ``$ —``, ``nil``).

    Args:
        text: The cell text.
        decimal_comma: ``True`` for a European-style document (``1.234,5`` and ``1 234,5``), ``False``
            for US/UK style only, ``None`` (default) to accept European style only when it is
            unambiguous (``1.234,5``, ``1.234.567``, ``12,5``); ``1.234`` then reads as one point two.

    Returns:
        The parsed number, or None when the text is not exactly one figure (words, dates such as
        ``31 December 2025``, identifiers, several numbers).
    """
    stripped = text.strip()
    if not stripped:
        return None
    normalised = _normalise(stripped)
    if decimal_comma is not True:
        simple = _SIMPLE.fullmatch(normalised)
        if simple is not None:
            return _simple(simple, stripped)
    return _parse_general(stripped, normalised, decimal_comma)


def _parse_general(stripped: str, normalised: str, decimal_comma: bool | None) -> ParsedNumber | None:
    """The full cell grammar: dashes, currencies, scales, footnotes, every grouping convention."""
    if stripped[-1] in _NEVER_LAST and stripped not in _DASH_TOKENS:
        return None
    if stripped in _NIL_WORDS:
        return ParsedNumber(stripped, 0.0, 0, False, False, None, 0, True, None)
    # A leading dash followed only by a footnote ("— (1)") is a nil cell, not minus one.
    dash = _DASH_CELL.fullmatch(normalised) if normalised[0] == "-" or not _HAS_DIGIT(normalised) else None
    if dash is not None:
        cur = dash.group("cur")
        return ParsedNumber(
            text=stripped,
            value=0.0,
            decimals_printed=0,
            negative=False,
            percent=normalised.rstrip().endswith("%"),
            currency=_PREFIX_CURRENCIES[cur] if cur else None,
            scale=0,
            is_dash=True,
            footnote=_footnote_of(dash.group("foot")),
        )
    if _HAS_DIGIT(normalised) is None:
        return None
    m = _cell_regex(decimal_comma).fullmatch(normalised)
    return None if m is None else _from_match(m, stripped)


def _glued(original: str, start: int, end: int) -> bool:
    """True when the span is part of a larger identifier, date or compound rather than a number."""
    if start > 0:
        prev = original[start - 1]
        if prev.isdigit() or (prev.isascii() and (prev.isalnum() or prev == "_")):
            return True
        if prev in _GLUE and start > 1:
            before = original[start - 2]
            if before.isascii() and before.isalnum():
                return True
    # Only a number that ends in a digit can be glued on its right: after "50%" or "$5 million" a hyphen
    # makes a compound adjective ("50%-owned"), not an identifier.
    if end < len(original) and original[end - 1].isdigit():
        nxt = original[end]
        if nxt.isascii() and (nxt.isalnum() or nxt == "_"):
            return True
        if end + 1 < len(original):
            after = original[end + 1]
            if nxt in _GLUE and after.isascii() and after.isalnum():
                return True
            # "401(k)": a letter in parentheses glued to the digits.
            if nxt == "(" and after.isalpha() and original[end + 2 : end + 3] == ")":
                return True
    return False


def find_numbers(text: str) -> list[TextNumber]:
    """Find the figures in a piece of running text.

    "Revenue increased by 8.4% from $1,234.5 million in 2024 to $1,338.2 million in 2025." gives
    ``8.4%``, ``$1,234.5 million`` (scale 6), ``2024``, ``$1,338.2 million`` and ``2025``. Years, day
    numbers and note references are reported like any number; consumers decide what they mean. Numbers
    glued into identifiers or compounds (``10-K``, ``COVID-19``, ``1Q21``, ``FY2025``, ``2013-14``,
    ``12/31/2017``, ``401(k)``) and telephone numbers are not reported, and a grouped number such as
    ``1,234.5`` is never split into pieces.

    Args:
        text: A paragraph, sentence or line of text.

    Returns:
        The numbers in order of appearance, with spans into ``text``.
    """
    normalised = _normalise(text)
    if _HAS_DIGIT(normalised) is None:
        return []
    phones = [p.span() for p in _PHONE.finditer(normalised)] if len(normalised) >= 12 else []
    found: list[TextNumber] = []
    for m in _PROSE.finditer(normalised):
        start, end = m.span()
        if _glued(text, start, end):
            continue
        if phones and any(s < end and start < e for s, e in phones):
            continue
        found.append(TextNumber(start, end, _from_match(m, text[start:end])))
    return found


def _ambiguous_symbol(text: str, currency: str | None) -> bool:
    """True when the currency came from a bare ``$`` or ``¥``, which many countries print."""
    return currency in ("USD", "JPY") and _BARE_SYMBOL.search(text) is not None


def to_typed(
    parsed: ParsedNumber,
    *,
    scale: int | None = 0,
    source: ScaleSource | None = "cell",
    currency: str | None = None,
    period: Period | None = None,
) -> TypedNumber:
    """Turn a parsed figure into a ``TypedNumber``, applying the table's unit where the figure has none.

    Args:
        parsed: The figure as parsed by :func:`parse_number` or :func:`find_numbers`.
        scale: Power of ten the table or caption declares (3, 6, 9); used when the figure carries none.
            None when nothing establishes it: the figure then keeps no scale, base value or decimals.
        source: Where ``scale`` was established (see :data:`schemas.models.ScaleSource`); a figure that
            carries its own scale ("$1.3bn"), or takes none (a percentage, a multiple), has ``cell``.
        currency: ISO code the table or caption declares; used when the figure carries none, and also
            in place of a bare ``$`` or ``¥`` (``C$`` filings print ``$``).
        period: The period of the figure's column, if known.

    Returns:
        The typed number. Percentages and multiples ("2.5x") never take a scale or currency; ``base_value`` is
        ``value * 10**scale``; ``decimals`` is the printed precision in base units
        (``decimals_printed - scale``), as XBRL's ``decimals``.
    """
    unit: Unit
    eff_currency: str | None
    eff_scale: int | None
    eff_source: ScaleSource | None
    if parsed.percent:
        eff_scale, eff_source, eff_currency, unit = 0, "cell", None, "percent"
    elif _RATIO_TAIL.search(parsed.text):
        # A multiple ("2.5x") is a pure number: the table's money unit does not apply to it.
        eff_scale, eff_source, eff_currency, unit = 0, "cell", None, "ratio"
    else:
        eff_scale, eff_source = (parsed.scale, "cell") if parsed.scale else (scale, source)
        if eff_scale is None:
            eff_source = None
        eff_currency = parsed.currency or currency
        if currency and parsed.currency and _ambiguous_symbol(parsed.text, parsed.currency):
            eff_currency = currency
        unit = "currency" if eff_currency else "number"
    decimals: int | None = None
    base_value: float | None = None
    if eff_scale is not None:
        decimals = parsed.decimals_printed - eff_scale
        # Rounding to the printed precision removes binary noise such as 1.1 * 10**9 = 1100000000.0000002.
        base_value = round(parsed.value * 10**eff_scale, max(decimals, 0))
    # model_construct: every field is typed above (the parser's own values), and a filing has tens of
    # thousands of figures; tests/test_sample_structure.py validates every cell, numbers included.
    return TypedNumber.model_construct(
        text=parsed.text,
        value=parsed.value,
        scale=eff_scale,
        scale_source=eff_source,
        base_value=base_value,
        decimals=decimals,
        places=max(parsed.decimals_printed, 0),
        unit=unit,
        currency=eff_currency,
        negative=parsed.negative,
        is_dash=parsed.is_dash,
        period=period,
    )


# --------------------------------------------------------------------------------------------------
# Scale captions.
# --------------------------------------------------------------------------------------------------
_UNIT_WORDS: Final[dict[str, int]] = {
    **_SCALE_WORDS,
    "mio": 6,
    "mio.": 6,
    "mrd": 9,
    "mrd.": 9,
    "tsd": 3,
    "tsd.": 3,
    "milliers": 3,
    "milliards": 9,
    "miles": 3,
    "millones": 6,
}
_THOUSANDS_MARK: Final = r"['’]?000(?:['’]?s)?(?![0-9])"
# A unit word on its own, as a caption prints it after "in" or first in a parenthesis.
_CAPTION_UNIT: Final = (
    r"(?P<unit>(?i:thousands?|millions?|billions?|trillions?|crores?|lakhs?|lacs?|mln|mn|bn|"
    rf"mio\.?|mrd\.?|tsd\.?|milliers|milliards|miles|millones)(?![A-Za-z])|{_THOUSANDS_MARK})"
)
# A unit right after a currency symbol, where the one-letter abbreviations are safe: "£m", "$ k".
_CURRENCY_UNIT: Final = (
    rf"(?P<abbr>{_THOUSANDS_MARK}|(?i:thousands?|millions?|billions?|trillions?|crores?|lakhs?|lacs?|"
    r"mm|mn|mln|bn|m|k|b)(?![A-Za-z0-9]))"
)
# Currency symbols and codes a caption glues to a unit ("$ in", "US$000", "Rs. in crore", "(` Billion)";
# the backtick is how the Rupee Foradian font, common in Indian filings, encodes ₹).
_CAP_CUR: Final = (
    r"(?:U\.S\.\$|US\$|HK\$|A\$|AU\$|C\$|CA\$|NZ\$|S\$|SG\$|NT\$|R\$|"
    r"(?<![A-Za-z])(?:RMB|CNY|EUR|USD|GBP|JPY|CHF|INR|HKD|AUD|CAD|SGD)|(?<![A-Za-z])Rs\.?|[$€£¥₹`])"
)
_CAP_CUR_WORD: Final = (
    r"(?i:(?:u\.?\s?s\.?|us|canadian|australian|hong\s+kong|singapore|new\s+taiwan|new\s+zealand)\s+"
    r"dollars?|dollars?|euros?|pounds?(?:\s+sterling)?|sterling|yen|swiss\s+francs?|rupees?|renminbi|yuan|"
    r"korean\s+won|reais|d['’]euros|de\s+euros)\b"
)
# Currencies a caption names, most specific first; the earliest mention in the caption wins.
_CAPTION_CURRENCY_RE: Final[list[tuple[re.Pattern[str], str]]] = [
    (re.compile(p), code)
    for p, code in [
        (r"\b(?i:canadian\s+dollars?)\b|(?<![A-Za-z])(?:C\$|CA\$|CAD\b)", "CAD"),
        (r"\b(?i:australian\s+dollars?)\b|(?<![A-Za-z])(?:A\$|AU\$|AUD\b)", "AUD"),
        (r"\b(?i:hong\s+kong\s+dollars?)\b|(?<![A-Za-z])(?:HK\$|HKD\b)|港元", "HKD"),
        (r"\b(?i:singapore\s+dollars?)\b|(?<![A-Za-z])(?:S\$|SG\$|SGD\b)", "SGD"),
        (r"\b(?i:new\s+taiwan\s+dollars?)\b|(?<![A-Za-z])(?:NT\$|TWD\b)", "TWD"),
        (r"\b(?i:new\s+zealand\s+dollars?)\b|(?<![A-Za-z])(?:NZ\$|NZD\b)", "NZD"),
        (r"(?<![A-Za-z])R\$|\b(?i:reais)\b|(?<![A-Za-z])BRL\b", "BRL"),
        (r"\b(?i:dollars?)\b|(?<![A-Za-z])(?:USD\b|US\$)|\$|美元", "USD"),
        (r"\b(?i:euros?)\b|(?<![A-Za-z])(?:EUR|[TKM]EUR)\b|€|(?i:d['’]euros)", "EUR"),
        (r"\b(?i:pounds?|sterling)\b|(?<![A-Za-z])GBP\b|£", "GBP"),
        (r"\b(?i:yen)\b|(?<![A-Za-z])JPY\b|円|¥", "JPY"),
        (r"\b(?i:swiss\s+francs?)\b|(?<![A-Za-z])CHF\b", "CHF"),
        (r"\b(?i:rupees?)\b|(?<![A-Za-z])(?:INR\b|Rs\.?(?![A-Za-z]))|₹|`", "INR"),
        (r"\b(?i:renminbi|yuan)\b|(?<![A-Za-z])(?:RMB|CNY)\b|人民币|元", "CNY"),
        (r"\b(?i:korean\s+won)\b|(?<![A-Za-z])KRW\b|원", "KRW"),
    ]
]
# What may follow a unit in a caption; prose ("millions of customers") has anything else.
_CAP_FOLLOW: Final = (
    r"(?=\s*(?:$|[,;:)\]/-]|(?i:except|unless|omitted|and|or|other)\b"
    rf"|(?i:of\s+)?{_CAP_CUR_WORD}|{_CAP_CUR}))"
)
_IN: Final = r"(?:^|(?<=[\s,;:$€£¥₹`.(]))(?i:in)\s+"
_PAREN: Final = re.compile(r"[(\[]([^()\[\]]{1,120})[)\]]")
# Inside parentheses: "(in millions)", "(Dollars in millions, except ...)", "(Rs. in 000)", "(in €m)".
_IN_UNIT_BODY: Final = rf"(?:{_CAP_CUR}\s*{_CURRENCY_UNIT}|{_CAPTION_UNIT}{_CAP_FOLLOW})"
_IN_UNIT: Final = re.compile(_IN + _IN_UNIT_BODY)
# Inside parentheses, the unit first: "(millions)", "(` Billion)", "(£m)", "(Millions of dollars)".
_UNIT_FIRST: Final = re.compile(rf"\s*{_IN_UNIT_BODY}")
# Caption lines and column heads, outside parentheses.
_CAPTION_LINES: Final[list[re.Pattern[str]]] = [
    re.compile(p)
    for p in [
        # "In millions of U.S. dollars", "Amounts expressed in thousands of euros", "$ in thousands".
        r"^\s*(?:(?i:(?:all\s+)?(?:amounts?|figures|values?|dollars|numbers)"
        r"(?:\s+(?:are|expressed|stated|shown|presented))?)\s+"
        rf"|{_CAP_CUR}\s*|{_CAP_CUR_WORD}\s+)?{_IN}{_IN_UNIT_BODY}",
        # "Thousands of U.S. dollars", "Millions of euros".
        rf"^\s*{_CAPTION_UNIT}\s+(?i:of)\s+{_CAP_CUR_WORD}",
        # A currency glued to a unit anywhere: "£m", "$'000", "US$000", "RMB'000", "€ million", "Rs. crore".
        rf"(?<![A-Za-z0-9]){_CAP_CUR}\s?{_CURRENCY_UNIT}",
        rf"(?<![A-Za-z0-9]){_CAP_CUR}\s+(?i:in)\s+{_CAPTION_UNIT}",
        rf"(?<![A-Za-z])(?i:dollars|amounts|figures|shares|rupees|euros)\s+(?i:in)\s+{_CAPTION_UNIT}{_CAP_FOLLOW}",
        rf"\b(?i:in)\s+{_CAPTION_UNIT}\s+(?i:of)\s+{_CAP_CUR_WORD}",
        # German column heads: "TEUR", "T€", "Mio. €", "EUR Mio.".
        r"(?<![A-Za-z])(?P<teur>[TK]EUR|T€|k€)(?![A-Za-z])",
        r"(?<![A-Za-z])(?P<meur>MEUR|M€)(?![A-Za-z])",
        rf"(?<![A-Za-z])(?P<de>(?i:mio|mrd|tsd))\.?\s*{_CAP_CUR}",
        rf"(?<![A-Za-z0-9]){_CAP_CUR}\s*(?P<de2>(?i:mio|mrd|tsd))(?![A-Za-z])",
        # A bare "'000" column head ("Number of shares '000").
        r"(?<![A-Za-z0-9])['’]000s?(?![0-9])",
    ]
]
_CJK_UNIT: Final = re.compile(
    r"(?P<mult>百万|百萬|千万|千萬|十亿|十億|万|萬|億|亿|千|百|)\s*(?P<cur>人民币元|美元|港元|円|元|株|股)"
)
_CJK_CAPTION: Final = re.compile(
    r"(?P<ko>백만|천|억)\s*원|(?:単位|单位|單位)\s*[:：]?\s*" + _CJK_UNIT.pattern
)
_CJK_SCALES: Final[dict[str, int]] = {
    "": 0,
    "百": 2,
    "千": 3,
    "万": 4,
    "萬": 4,
    "百万": 6,
    "百萬": 6,
    "千万": 7,
    "千萬": 7,
    "億": 8,
    "亿": 8,
    "十亿": 9,
    "十億": 9,
}
_CJK_CURRENCIES: Final[dict[str, str | None]] = {
    "円": "JPY",
    "元": "CNY",
    "人民币元": "CNY",
    "美元": "USD",
    "港元": "HKD",
    "株": None,
    "股": None,
}
_KOREAN_SCALES: Final[dict[str, int]] = {"백만": 6, "천": 3, "억": 8}
_SENTENCE_END: Final = re.compile(r"(?<![A-Z])(?<!Rs)(?<!Mio|Mrd|Tsd)\.\s|[;\n]")


def _caption_currency(scope: str) -> str | None:
    """The currency a caption names first, or None."""
    best: tuple[int, str] | None = None
    for pattern, code in _CAPTION_CURRENCY_RE:
        m = pattern.search(scope)
        if m is not None and (best is None or m.start() < best[0]):
            best = (m.start(), code)
    return None if best is None else best[1]


def _unit_scale(unit: str) -> int:
    key = unit.lower()
    if "000" in key:
        return 3
    return _UNIT_WORDS.get(key) or _SCALE_ABBREVIATIONS.get(key, 0)


def _hint(m: re.Match[str], scope: str) -> ScaleHint:
    groups = m.groupdict()
    phrase = m.group(0).strip()
    if groups.get("teur"):
        return ScaleHint(3, "EUR", phrase)
    if groups.get("meur"):
        return ScaleHint(6, "EUR", phrase)
    unit = groups.get("unit") or groups.get("abbr") or groups.get("de") or groups.get("de2") or phrase
    return ScaleHint(_unit_scale(unit), _caption_currency(phrase) or _caption_currency(scope), phrase)


def _cjk_hint(text: str) -> ScaleHint | None:
    m = _CJK_CAPTION.search(text)
    if m is None:
        # A column head or parenthesis that is nothing but a unit: "百万円", "(千元)".
        bare = text.strip().strip("()[]").strip()
        m = _CJK_UNIT.fullmatch(bare) if bare else None
        if m is None or not m.group("mult"):
            return None
    korean = m.groupdict().get("ko")
    if korean:
        return ScaleHint(_KOREAN_SCALES[korean], "KRW", m.group(0).strip())
    return ScaleHint(_CJK_SCALES[m.group("mult")], _CJK_CURRENCIES[m.group("cur")], m.group(0).strip())


def detect_scale(text: str) -> ScaleHint | None:
    """Find the unit a table caption, header or column head declares.

    Recognises parenthesised captions (``(in millions)``, ``(Dollars in millions, except per share
    data)``, ``(Rs. in crore)``, ``(` Billion)``, ``[In thousands]``), caption lines (``In millions of
    U.S. dollars``, ``Amounts in thousands of euros``, ``$ in thousands``), currency-and-unit column
    heads (``£m``, ``€m``, ``$'000``, ``US$000``, ``RMB'000``, ``€ million``, ``TEUR``, ``Mio. €``) and
    East-Asian units (``(単位：百万円)``, ``千円``, ``单位：万元``, ``백만원``). Prose such as "millions of
    customers" does not match: a unit word counts only inside parentheses, at the start of a caption
    line, after "in" when a currency or the end of the caption follows, or glued to a currency.

    Args:
        text: A caption, header line or column head (a longer text works too; the first caption wins).

    Returns:
        The scale (3 thousands, 6 millions, 9 billions, 7 crore, 5 lakh, 0 units) with the currency the
        caption names, or None when the text declares no unit.
    """
    normalised = _normalise(text)
    for paren in _PAREN.finditer(normalised):
        content = paren.group(1)
        m = _IN_UNIT.search(content) or _UNIT_FIRST.match(content)
        if m is not None:
            hint = _hint(m, content)
            return ScaleHint(hint.scale, hint.currency, paren.group(0))
    if not normalised.isascii():
        cjk = _cjk_hint(normalised)
        if cjk is not None:
            return cjk
    best: re.Match[str] | None = None
    for pattern in _CAPTION_LINES:
        m = pattern.search(normalised)
        if m is not None and (best is None or m.start() < best.start()):
            best = m
    if best is None:
        return None
    # The rest of the caption, up to the end of its sentence, names the currency ("In millions of U.S.
    # dollars"); an abbreviation's full stop ("U.S.", "Rs.") does not end it.
    scope = _SENTENCE_END.split(normalised[best.start() : best.start() + 160], maxsplit=1)[0]
    return _hint(best, scope)
