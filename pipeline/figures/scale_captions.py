"""The unit a table caption or column head declares: ``(in millions)``, ``£m``, ``TEUR``, ``百万円``.

Split from :mod:`pipeline.figures.numbers` (which still exports :func:`detect_scale` and :class:`ScaleHint`):
a caption is read once per table, not once per word, and its grammar (unit words in several languages,
currency names, East-Asian units) is a piece of its own. It shares the scale vocabulary with the figure
grammar in :mod:`pipeline.figures.number_grammar`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Final

# Imported by name: a caption is read after a cheap pre-filter, once per table, so the per-word binding
# of :mod:`pipeline.figures.numbers` buys nothing here.
from pipeline.figures.number_grammar import SCALE_ABBREVIATIONS, SCALE_WORDS, normalise

__all__ = ["ScaleHint", "detect_scale", "sentence_scales", "unit_caption"]


@dataclass(frozen=True, slots=True)
class ScaleHint:
    """The unit a caption or column head declares, e.g. ``(Dollars in millions)``."""

    scale: int
    currency: str | None
    text: str


# --------------------------------------------------------------------------------------------------
# Caption vocabulary: unit words and currency names as captions print them.
# --------------------------------------------------------------------------------------------------
_UNIT_WORDS: Final[dict[str, int]] = {
    **SCALE_WORDS,
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


# --------------------------------------------------------------------------------------------------
# Reading a caption.
# --------------------------------------------------------------------------------------------------
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
    return _UNIT_WORDS.get(key) or SCALE_ABBREVIATIONS.get(key, 0)


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
    normalised = normalise(text)
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


def sentence_scales(text: str) -> list[list[ScaleHint]]:
    """The units each sentence of a caption declares, in order of print.

    "… operating income (dollars in millions), operating margin, selected package statistics (in
    thousands, except yield amounts) …" is one sentence declaring two units, each for some of the table's
    lines: :func:`detect_scale` reads the first; this reads them all, so that a caller can tell a caption
    that states one scale from one that states several.
    """
    out: list[list[ScaleHint]] = []
    for sentence in _SENTENCE_END.split(normalise(text)):
        hints: list[ScaleHint] = []
        rest = sentence
        while (hint := detect_scale(rest)) is not None:
            hints.append(hint)
            at = rest.find(hint.text)
            if at < 0:
                break
            rest = rest[at + len(hint.text) :]
        if hints:
            out.append(hints)
    return out


_A_YEAR: Final = re.compile(r"\b(?:19|20)\d\d\b")


@functools.lru_cache(maxsize=8192)  # the same heads are read by every rule that asks for a table's heads
def unit_caption(text: str) -> bool:
    """Whether a header cell is a unit caption and nothing else.

    "(In millions, except years)" or "(In millions except contract rates)" is centred over the value
    columns and lands in the heads of the one or two it is printed over; it names their unit, never their
    period, basis or kind, and its "years" or "rates" made a column of amounts look like none.

    Args:
        text: One header cell's text.

    Returns:
        True when :func:`detect_scale` finds a caption that is the whole text and no year is printed in it.
    """
    hint = detect_scale(text)
    return hint is not None and hint.text == " ".join(text.split()) and _A_YEAR.search(text) is None
