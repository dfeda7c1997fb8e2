"""What a printed figure looks like: the vocabulary and the compiled grammar that recognise one.

:mod:`pipeline.figures.numbers` parses with these patterns and :mod:`pipeline.figures.scale_captions` reads
units with the same vocabulary. They live apart from the parsing code so that the grammar can be read (and
changed) as one piece. The parsers bind these names to module globals of their own by assignment, so the
per-word hot loops run the same bytecode as when the grammar was defined next to them.

Every pattern works on text :func:`normalise` has folded to ASCII digits, signs and punctuation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

__all__ = [
    "BARE_SYMBOL",
    "CELL_SUFFIX_CURRENCIES",
    "DASH_CELL",
    "DASH_TOKENS",
    "GLUE",
    "GROUP_SEPS",
    "HAS_DIGIT",
    "NEGATIVE_SIGNS",
    "NEVER_LAST",
    "NIL_WORDS",
    "PHONE",
    "PREFIX_CURRENCIES",
    "PROSE",
    "RATIO_TAIL",
    "SCALE_ABBREVIATIONS",
    "SCALE_WORDS",
    "SIMPLE",
    "SUFFIX_CURRENCIES",
    "SUPERSCRIPT_DIGITS",
    "cell_regex",
    "normalise",
]


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


def normalise(text: str) -> str:
    """Fold the one-to-one character variants PDFs print (minus signs, full-width digits) to ASCII.

    Args:
        text: A word or a piece of text.

    Returns:
        Text of the same length, so spans found in it are spans in ``text``.
    """
    # ``isascii`` is a C-level scan; most tokens are ASCII and skip the translation entirely.
    return text if text.isascii() else text.translate(_NORMALISE)


# --------------------------------------------------------------------------------------------------
# Vocabulary: currencies and scale words.
# --------------------------------------------------------------------------------------------------
PREFIX_CURRENCIES: Final[dict[str, str]] = {
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

SUFFIX_CURRENCIES: Final[dict[str, str]] = {
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

# A cell may also end in "$": French-Canadian filings print "1 234 $", and a figure set close to the next
# column's dollar sign takes it into its cell ("2,188 $" before "$ 1,930"). The figure reads the same
# either way. Prose keeps the shorter list: there "$" after a number is the next amount's currency.
CELL_SUFFIX_CURRENCIES: Final[dict[str, str]] = {**SUFFIX_CURRENCIES, "$": "USD"}

# Scale words that are unambiguous on their own ("1.2bn", "3 crore", "1,234百万").
SCALE_WORDS: Final[dict[str, int]] = {
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
SCALE_ABBREVIATIONS: Final[dict[str, int]] = {"m": 6, "mm": 6, "k": 3, "b": 9, "cr": 7}


def _alternation(words: Iterable[str]) -> str:
    # Longest first, because Python's alternation takes the first branch that matches ("US$" before "$").
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_CUR_PRE: Final = _alternation(PREFIX_CURRENCIES)
_CUR_SUF: Final = _alternation(SUFFIX_CURRENCIES)
_CUR_SUF_CELL: Final = _alternation(CELL_SUFFIX_CURRENCIES)
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
SUPERSCRIPT_DIGITS: Final = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

# --------------------------------------------------------------------------------------------------
# Number bodies. Three named groups tell the converter which convention the digits follow; every pattern
# defines all three (unused ones can never match) so that ``m.group`` never raises.
# --------------------------------------------------------------------------------------------------
GROUP_SEPS: Final = "\u00a0\u2009\u202f'’"
_US_BODY: Final = (
    r"[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?"  # 1,234 / 1,234.56
    r"|[1-9][0-9]?(?:,[0-9]{2})+,[0-9]{3}(?:\.[0-9]+)?"  # Indian lakh grouping 1,23,45,678
    rf"|[1-9][0-9]{{0,2}}(?:[{GROUP_SEPS}][0-9]{{3}})+(?:\.[0-9]+)?"  # 1'234.5 (CH), 1 234 (thin space)
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
_EU_FULL: Final = rf"[1-9][0-9]{{0,2}}(?:[. {GROUP_SEPS}][0-9]{{3}})+(?:,[0-9]+)?|[0-9]+(?:,[0-9]+)?|,[0-9]+"
_NEVER: Final = r"(?!)"

_BODY_AUTO: Final = rf"(?P<eu>{_EU_UNAMBIGUOUS})|(?P<us>{_US_BODY})|(?P<eu2>{_EU_BARE})"
_BODY_EUROPEAN: Final = rf"(?P<eu>{_EU_FULL})|(?P<us>{_NEVER})|(?P<eu2>{_NEVER})"
_BODY_US: Final = rf"(?P<eu>{_NEVER})|(?P<us>{_US_BODY})|(?P<eu2>{_NEVER})"
_BODY_PROSE: Final = rf"(?P<eu>{_EU_UNAMBIGUOUS})|(?P<us>{_US_BODY})|(?P<eu2>{_NEVER})"

_SIGN: Final = "-+△▲"
NEGATIVE_SIGNS: Final = frozenset("-△▲")


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
        rf"(?:\s*(?P<cur2>{_CUR_SUF_CELL})(?![A-Za-z]))?"
        r"(?:\s*(?P<close2>\)))?"
        r"(?:\s*(?P<close>\)))?"
        r"(?:\s*(?P<pct2>%))?"
        rf"(?P<foot>(?:\s*{_FOOTNOTE_ONE})*)\s*"
    )


_CELL_AUTO: Final = _cell_pattern(_BODY_AUTO)
_CELL_EUROPEAN: Final = _cell_pattern(_BODY_EUROPEAN)
_CELL_US: Final = _cell_pattern(_BODY_US)

# A nil cell: one or more dashes, optionally with a currency, parentheses, a percent sign or a footnote.
DASH_CELL: Final = re.compile(
    rf"\s*\(?\s*(?:(?P<cur>{_CUR_PRE})\s*)?\(?\s*-+(?:\s*-+)*\s*\)?\s*%?"
    rf"(?P<foot>(?:\s*{_FOOTNOTE_ONE})*)\s*"
)
DASH_TOKENS: Final = frozenset(["-", "--", "---", "—", "–", "―", "−", "‒", "—%", "-%"])
NIL_WORDS: Final = frozenset(["nil", "Nil", "NIL"])

# Narrative numbers. A minus sign counts only at the start of a word ("a change of -5%"), never inside
# "COVID-19" (the Japanese △/▲ are never hyphens, so they count anywhere). Parentheses make a number
# negative only in the accounting form "$(12.3) million", because in prose they usually hold a
# comparative ("(2024: £1.1bn)") or an enumerator ("(1)").
# Python's engine tries the whole pattern at every position; a one-character look-ahead on what a
# number can start with rejects most positions at once (about four times faster on filings).
_PROSE_FIRST: Final = "".join(sorted({k[0] for k in PREFIX_CURRENCIES} | set("-+△▲0123456789.")))
PROSE: Final = re.compile(
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
HAS_DIGIT: Final = re.compile(r"[0-9０-９]").search
# Characters that glue a number to a neighbouring word or number into one identifier or compound:
# "10-K", "2013-14", "12/31/2017", "10:30", "3.5.1", "1,2".
GLUE: Final = frozenset("-‐‑–/.,:")
PHONE: Final = re.compile(
    r"(?=[+(0-9])(?:(?:\+?1[\s.-]?)?\(?[0-9]{3}\)?[\s.-][0-9]{3}[\s.-][0-9]{4}(?![0-9])"
    r"|\+[0-9]{1,3}[\s.-]?(?:\(0\)[\s.-]?)?[0-9]{1,4}(?:[\s.-][0-9]{2,4}){2,4}(?![0-9]))"
)
RATIO_TAIL: Final = re.compile(r"[0-9)]\s*[x×]")
BARE_SYMBOL: Final = re.compile(r"(?<![A-Za-z.])[$¥]")

# The shapes that make up most cells of a filing ("1,234", "(1,234)", "$ 1,234", "12.5%", "(2.1)%", "2025")
# in US/UK grouping. Everything it accepts the full grammar accepts with the same reading (a test checks
# this); it exists because building a result from the full grammar's twenty groups costs several times more.
SIMPLE: Final = re.compile(
    r"(?P<open>\()?(?P<cur>\$)?\s*(?P<open2>\()?"
    r"(?P<body>[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.(?P<dec>[0-9]+))?|[0-9]+(?:\.(?P<dec2>[0-9]+))?)"
    r"\s*(?P<pct>%)?(?P<close>\))?(?P<pct2>%)?"
)
# No figure ends in these; a word that does ("31,", "2017.", "2016-02,") is prose punctuation.
NEVER_LAST: Final = frozenset(",.;:/")


def cell_regex(decimal_comma: bool | None) -> re.Pattern[str]:
    """The whole-cell grammar for a document's decimal convention.

    Args:
        decimal_comma: ``True`` European style, ``False`` US/UK style only, ``None`` European style only
            where it is unambiguous.

    Returns:
        The compiled pattern a cell must match in full.
    """
    if decimal_comma is None:
        return _CELL_AUTO
    return _CELL_EUROPEAN if decimal_comma else _CELL_US
