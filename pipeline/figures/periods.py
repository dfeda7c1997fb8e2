"""Reporting periods from column headers and phrases.

A period is read from the words as printed ("Year ended 31 December 2025", "Three Months Ended March 31,
2021", "Q4 FY23", "As at 31.12.2025", "2024/25", "平成26年３月期") and normalised to a comparison key:

* a duration of 12 months is ``FY<year>``; a quarter ``Q<n>-<year>``; six months ``H1-<year>`` /
  ``H2-<year>`` when the period ends in June / December, else ``6M-<year>``; nine months ``9M-<year>``;
  any other length ``<n>M-<year>``; a period of unstated length ("Period ended ...") ``P-<end date>``;
* an instant is its ISO date ``YYYY-MM-DD`` (``YYYY-MM`` when the day is not printed);
* a bare year column ("2025") is ``FY2025`` with ``months=None``.

Quarters and halves are derived from the calendar month the period ends in. Retailers' 52/53-week years
end a few days into the next month ("13 weeks ended April 1, 2023"); a period end in the first week of a
month is read as the end of the previous month for the key and fiscal year, while ``end_date`` keeps the
printed date.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from schemas.models import Period

__all__ = ["combine_periods", "lead_in_period", "parse_period", "period_key", "period_lengths"]

# --------------------------------------------------------------------------------------------------
# Normalisation: one character to one character, so positions stay valid.
# --------------------------------------------------------------------------------------------------
_NORMALISE: Final = str.maketrans(
    {
        **dict.fromkeys(
            ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\uff0d"], "-"
        ),
        **{chr(0xFF10 + i): str(i) for i in range(10)},
        **dict.fromkeys(["\u00a0", "\u2009", "\u202f", "\u3000"], " "),
        "\uff0c": ",",
        "\uff0e": ".",
        "\uff08": "(",
        "\uff09": ")",
        "\uff0f": "/",
        "\uff5e": "~",
        "\u301c": "~",
        "\u2019": "'",
    }
)

_MONTHS: Final[dict[str, int]] = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MON: Final = (
    r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![a-z])\.?"
)
_YEAR4: Final = r"(?P<y>(?:19|20)[0-9]{2})(?![0-9])"
_ERAS: Final[dict[str, int]] = {"令和": 2018, "平成": 1988, "昭和": 1925}
_NUMBER_WORDS: Final[dict[str, int]] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "sixteen": 16,
    "seventeen": 17,
    "twenty-six": 26,
    "twenty-seven": 27,
    "thirty-nine": 39,
    "forty": 40,
    "fifty-two": 52,
    "fifty-three": 53,
}
_ORDINALS: Final[dict[str, int]] = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "1": 1,
    "2": 2,
    "3": 3,
    "4": 4,
}


@dataclass(frozen=True, slots=True)
class _Date:
    """A date found in the text; ``day`` is None for "December 2025"."""

    year: int
    month: int
    day: int | None
    start: int
    end: int

    @property
    def iso(self) -> str:
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def effective(self) -> tuple[int, int]:
        """``(year, month)`` the period really closes, rolling a 52/53-week end back into its month."""
        if self.day is not None and self.day <= 7:
            return (self.year - 1, 12) if self.month == 1 else (self.year, self.month - 1)
        return self.year, self.month


def _year(text: str) -> int:
    """A four-digit year, or a two-digit one pivoted at 1970 ("FY23" -> 2023, "FY99" -> 1999)."""
    value = int(text)
    if len(text) == 2:
        return 2000 + value if value < 70 else 1900 + value
    return value


def _valid(year: int, month: int, day: int | None) -> bool:
    try:
        dt.date(year, month, day or 1)
    except ValueError:
        return False
    return 1900 <= year <= 2100


# --------------------------------------------------------------------------------------------------
# Dates. Each pattern yields year/month/day groups; overlapping hits keep the earliest, longest one.
# --------------------------------------------------------------------------------------------------
_DATE_PATTERNS: Final[list[re.Pattern[str]]] = [
    re.compile(p, re.IGNORECASE)
    for p in [
        # 2025年3月31日, 平成25年3月31日, 2025年3月 (Japanese/Chinese).
        r"(?:(?P<era>令和|平成|昭和)\s*(?P<ey>[0-9]{1,2}|元)|(?P<y>(?:19|20)[0-9]{2}))\s*年\s*"
        r"(?P<m>[0-9]{1,2})\s*月(?:\s*(?P<d>[0-9]{1,2})\s*日)?",
        # 2025-12-31, 2025/12/31, 2025.12.31.
        r"(?<![0-9])(?P<y>(?:19|20)[0-9]{2})(?P<sep>[-/.])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})(?![0-9])",
        # December 31, 2017 / Dec. 31 2017 / Sept 30, 2024.
        rf"\b{_MON}\s*(?P<d>[0-9]{{1,2}})(?:st|nd|rd|th)?(?![0-9])\s*,?\s*{_YEAR4}",
        # 31 December 2025 / 31st Dec 2025 / 31-Dec-2025 / 31-Dec-25.
        rf"(?<![0-9])(?P<d>[0-9]{{1,2}})(?:st|nd|rd|th)?[\s-]*{_MON}[\s,-]*(?P<y>(?:19|20)[0-9]{{2}}|[0-9]{{2}})(?![0-9])",
        # 31.12.2025 (day first), 12/31/2017 (month first when it must be, else US order).
        r"(?<![0-9.])(?P<a>[0-9]{1,2})(?P<sep>[./-])(?P<b>[0-9]{1,2})(?P=sep)(?P<y>(?:19|20)[0-9]{2})(?![0-9])",
        # December 2025, end-March 1997.
        rf"\b{_MON}\s*,?\s*{_YEAR4}",
        # Mar-25, Dec'24 (column heads in Indian and UK decks); never "Dec-31-2025".
        rf"\b{_MON}[-'](?P<y>[0-9]{{2}})(?![0-9-])",
    ]
]


def _date_from(m: re.Match[str]) -> _Date | None:
    g = m.groupdict()
    if g.get("era"):
        ey = g["ey"]
        year = _ERAS[g["era"]] + (1 if ey == "元" else int(ey))
    else:
        year = _year(g["y"])
    day_text = g.get("d")
    day: int | None
    if g.get("a"):
        a, b = int(g["a"]), int(g["b"])
        # Dots and hyphens are day-first everywhere; a slash is month-first unless that cannot be.
        month, day = (b, a) if g["sep"] in ".-" or a > 12 else (a, b)
    else:
        month = _MONTHS[g["mon"][:3].lower()] if g.get("mon") else int(g["m"])
        day = int(day_text) if day_text else None
    if not _valid(year, month, day):
        return None
    return _Date(year, month, day, m.start(), m.end())


def _find_dates(text: str) -> list[_Date]:
    hits = [d for p in _DATE_PATTERNS for m in p.finditer(text) if (d := _date_from(m)) is not None]
    hits.sort(key=lambda d: (d.start, -(d.end - d.start)))
    kept: list[_Date] = []
    for d in hits:
        if not kept or d.start >= kept[-1].end:
            kept.append(d)
    return kept


def _date_at(dates: list[_Date], text: str, pos: int) -> _Date | None:
    """The date that starts at ``pos``, allowing only blanks and commas in between."""
    for d in dates:
        if d.start >= pos:
            return d if text[pos : d.start].strip(" ,") == "" else None
    return None


# --------------------------------------------------------------------------------------------------
# Building periods.
# --------------------------------------------------------------------------------------------------
def _duration(
    label: str,
    months: int | None,
    end: _Date | None,
    *,
    fiscal_year: int | None = None,
    quarter: int | None = None,
    half: int | None = None,
) -> Period:
    """A duration period; quarter/half come from the end month when not printed."""
    end_month: int | None = None
    if end is not None:
        fiscal_year, end_month = end.effective()
    assert fiscal_year is not None  # every caller passes a year or an end date
    if months == 3 and quarter is None and end_month is not None and end_month % 3 == 0:
        quarter = end_month // 3
    if months == 6 and half is None and end_month in (6, 12):
        half = 1 if end_month == 6 else 2
    if months == 12:
        key = f"FY{fiscal_year}"
    elif months == 3 and quarter is not None:
        key = f"Q{quarter}-{fiscal_year}"
    elif months == 3 and end is not None:
        key = f"3M-{end.iso}"
    elif months == 6 and half is not None:
        key = f"H{half}-{fiscal_year}"
    elif months is not None:
        key = f"{months}M-{fiscal_year}"
    elif end is not None:
        key = f"P-{end.iso}"
    else:
        key = f"FY{fiscal_year}"
    return Period(
        kind="duration",
        key=key,
        label=label,
        fiscal_year=fiscal_year,
        quarter=quarter if months == 3 else None,
        months=months,
        end_date=None if end is None else end.iso,
    )


def _instant(label: str, date: _Date) -> Period:
    return Period(kind="instant", key=date.iso, label=label, fiscal_year=date.year, end_date=date.iso)


# --------------------------------------------------------------------------------------------------
# Strong forms: searched anywhere in the text.
# --------------------------------------------------------------------------------------------------
# "twenty-six" is also printed "twenty six".
_NUMBER_WORD_RE: Final = "|".join(
    w.replace("-", r"[-\s]") for w in sorted(_NUMBER_WORDS, key=len, reverse=True)
)
_LENGTH: Final = (
    r"(?P<years>(?:fiscal\s+|financial\s+)?years?)"
    rf"|(?P<n>[0-9]{{1,2}}|{_NUMBER_WORD_RE})[-\s]+(?P<unit>months?|weeks?)(?:\s+periods?)?"
    r"|(?P<quarter>(?:fiscal\s+)?quarters?)"
    r"|(?P<half>half[-\s]?years?|(?:first|second)\s+half(?:[-\s]years?)?|semesters?)"
    r"|(?P<period>(?:interim\s+|reporting\s+|fiscal\s+)?periods?)"
)
_DURATION_PHRASE: Final = re.compile(
    rf"\b(?:{_LENGTH})\s*,?\s+(?:then\s+)?(?:ended|ending|ended\s+on|to|through|until)\b\s*,?",
    re.IGNORECASE,
)
_RANGE_JOIN: Final = re.compile(r"\s*(?:to|through|thru|until|till|-|~|至)\s*$", re.IGNORECASE)
_INSTANT_PHRASE: Final = re.compile(
    r"(?:\b(?:as\s+(?:of|at|on)|at|balance\s+(?:at|as\s+of)|end\s+of)|\bend-)\s*,?", re.IGNORECASE
)
_YEAR_ONLY_AFTER: Final = re.compile(r"\s*,?\s*((?:19|20)[0-9]{2})(?![0-9])")
_FY_TOKEN: Final = r"(?:FY|F/Y|FYE|fiscal(?:\s+year)?|financial\s+year)"
_YY: Final = r"['’]?([0-9]{4}|[0-9]{2})(?![0-9])"
_ORDINAL_WORDS: Final = "first|second|third|fourth|1st|2nd|3rd|4th"

# (pattern, kind) for quarters ("q"), halves ("h"), nine months ("9m"), fiscal years ("fy").
# Group order per kind is given by the handler below.
_SHORT_FORMS: Final[list[tuple[re.Pattern[str], str]]] = [
    (re.compile(p, re.IGNORECASE), kind)
    for p, kind in [
        (rf"\bQ([1-4])\s*(?:{_FY_TOKEN})?\s*{_YY}", "q"),  # Q1 2021, Q4 FY23, Q1'21
        (rf"\b([1-4])Q\s*(?:{_FY_TOKEN})?\s*{_YY}", "q"),  # 1Q21, 4Q 2020
        (rf"\b{_FY_TOKEN}\s*{_YY}\s*[-/]?\s*Q([1-4])\b", "q-rev"),  # FY2024 Q3
        (r"(?<![0-9])((?:19|20)[0-9]{2})\s*[-/]?\s*Q([1-4])\b", "q-rev"),  # 2021 Q1, 2021Q1
        (
            rf"\b({_ORDINAL_WORDS})\s+(?:fiscal\s+)?quarter(?:\s+of)?"
            r"(?:\s+(?:fiscal(?:\s+year)?|FY))?\s*['’]?((?:19|20)[0-9]{2})(?![0-9])",
            "q",
        ),
        (rf"\b({_ORDINAL_WORDS})\s+(?:fiscal\s+)?quarter(?:\s+of)?\s+FY\s*{_YY}", "q"),
        (rf"(?<![0-9])((?:19|20)[0-9]{{2}})\s+({_ORDINAL_WORDS})\s+quarter", "q-rev"),
        (r"((?:19|20)[0-9]{2})\s*年\s*第\s*([一二三四1-4])\s*(?:季度|四半期)", "q-rev"),
        (rf"\bH([12])\s*(?:{_FY_TOKEN})?\s*{_YY}", "h"),  # H1 2025, H1 FY25
        (rf"\b([12])H\s*(?:{_FY_TOKEN})?\s*{_YY}", "h"),  # 1H25
        (r"(?<![0-9])((?:19|20)[0-9]{2})\s*[-/]?\s*H([12])\b", "h-rev"),
        (
            r"\b(first|second)\s+half(?:[-\s]year)?(?:\s+of)?\s*(?:fiscal\s+(?:year\s+)?|FY\s*)?"
            r"((?:19|20)[0-9]{2})(?![0-9])",
            "h",
        ),
        (r"((?:19|20)[0-9]{2})\s*年\s*(?:上半年|半年度|中期)", "h1-cjk"),
        (rf"\b9M\s*(?:{_FY_TOKEN})?\s*{_YY}", "9m"),  # 9M 2024, 9M24
        (r"\bnine\s+months\s+(?:of\s+)?(?:fiscal\s+)?((?:19|20)[0-9]{2})(?![0-9])", "9m"),
        # FY2025, FY 2024-25, Fiscal 2023.
        (rf"\b{_FY_TOKEN}\s*{_YY}(?:\s*[-/]\s*([0-9]{{4}}|[0-9]{{2}})(?![0-9]))?", "fy"),
        (r"\bfull[-\s]year\s+((?:19|20)[0-9]{2})(?![0-9])", "fy"),
        (r"((?:19|20)[0-9]{2})\s*年度", "fy"),
    ]
]
# Chinese month ranges: 2018年1-3月 (Q1), 2018年1-6月 (H1), 2018年1-9月 (9M).
_CJK_MONTH_RANGE: Final = re.compile(r"((?:19|20)[0-9]{2})\s*年\s*([0-9]{1,2})\s*[-~至]\s*([0-9]{1,2})\s*月")
# Comparison columns ("2025 vs 2024", "% change", "Increase (decrease)") are not periods; a percentage
# column of one year ("2025 %") is.
_COMPARISON: Final = re.compile(
    r"\b(?:vs\.?|versus|compared\s+(?:to|with)|change|variance|var\.|increase|decrease|inc\.?\s*/\s*\(?dec)"
    r"(?![a-z])|Δ",
    re.IGNORECASE,
)


def _consecutive_end(first: str, second: str | None) -> int | None:
    """End year of a fiscal-year span ("2024/25", "2013-14"), None when the years do not follow."""
    start = _year(first)
    if second is None:
        return start
    end = _year(second) if len(second) == 4 else (start // 100) * 100 + int(second)
    if end == start + 1 or (len(second) == 2 and int(second) == (start + 1) % 100):
        return start + 1
    return None


def _short_form(label: str, text: str) -> Period | None:
    for pattern, kind in _SHORT_FORMS:
        m = pattern.search(text)
        if m is None:
            continue
        g = m.groups()
        if kind in ("q", "q-rev", "h", "h-rev"):
            number_text, year_text = (g[1], g[0]) if kind.endswith("-rev") else (g[0], g[1])
            number = _ORDINALS[number_text.lower()]
            year = _year(year_text)
            if kind[0] == "q":
                return _duration(label, 3, None, fiscal_year=year, quarter=number)
            return _duration(label, 6, None, fiscal_year=year, half=number)
        if kind == "h1-cjk":
            return _duration(label, 6, None, fiscal_year=int(g[0]), half=1)
        if kind == "9m":
            return _duration(label, 9, None, fiscal_year=_year(g[0]))
        end_year = _consecutive_end(g[0], g[1] if len(g) > 1 else None)
        if end_year is not None:
            return _duration(label, 12, None, fiscal_year=end_year)
    m = _CJK_MONTH_RANGE.search(text)
    if m is not None:
        first, last = int(m.group(2)), int(m.group(3))
        if 1 <= first <= last <= 12:
            end = _Date(int(m.group(1)), last, None, m.start(), m.end())
            return _duration(label, last - first + 1, end)
    return None


def _length_months(m: re.Match[str]) -> int | None:
    if m.group("years"):
        return 12
    if m.group("quarter"):
        return 3
    if m.group("half"):
        return 6
    if m.group("period"):
        return None
    raw = m.group("n").lower().replace(" ", "-")
    count = int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]
    if m.group("unit").lower().startswith("week"):
        # 13 weeks is a quarter, 26 a half, 39 nine months, 52/53 a year.
        return max(1, round(count * 12 / 52))
    return count


_LENGTH_WORDS: Final = re.compile(rf"\b(?:{_LENGTH})\b", re.IGNORECASE)


def period_lengths(text: str) -> list[int]:
    """The length in months of each period length a text names, in order.

    Examples: "Three Months Ended" (``[3]``), "13 weeks" (``[3]``), "Quarter" (``[3]``), "Six months and
    fiscal year" (``[6, 12]``); "Reporting period" names none.

    Args:
        text: A header or a phrase.

    Returns:
        Months, one per length named.
    """
    return [n for m in _LENGTH_WORDS.finditer(_normalise(text)) if (n := _length_months(m)) is not None]


def _as_date(date: _Date) -> dt.date:
    return dt.date(date.year, date.month, date.day or 1)


def _range_period(label: str, text: str, dates: list[_Date]) -> Period | None:
    """A period printed as its two ends: "From 1 April 2024 to 31 March 2025", "(自平成24年4月1日 至...)"."""
    for first, second in itertools.pairwise(dates):
        if first.day is None or second.day is None:
            continue
        if not _RANGE_JOIN.fullmatch(text[first.end : second.start]):
            continue
        days = (_as_date(second) - _as_date(first)).days
        if days <= 0:
            continue
        return _duration(label, round((days + 1) / 30.4375), second)
    return None


def _phrase_period(label: str, text: str, dates: list[_Date]) -> Period | None:
    """Durations and instants introduced by words: "Year ended ...", "As at ...", "2025年3月期"."""
    for m in _DURATION_PHRASE.finditer(text):
        end = _date_at(dates, text, m.end())
        if end is not None:
            return _duration(label, _length_months(m), end)
    for fiscal_end in dates:
        # Japanese fiscal periods are named by the month they end: 2025年3月期, 平成26年3月期.
        if text[fiscal_end.end : fiscal_end.end + 1] == "期" and fiscal_end.day is None:
            return _duration(label, 12, fiscal_end)
    short = _short_form(label, text)
    if short is not None:
        return short
    for m in _INSTANT_PHRASE.finditer(text):
        date = _date_at(dates, text, m.end())
        if date is not None:
            return _instant(label, date)
    return None


# --------------------------------------------------------------------------------------------------
# Weak forms: only when they are all the header says, once qualifiers are removed.
# --------------------------------------------------------------------------------------------------
_NOISE_PAREN: Final = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
_NOISE_WORDS: Final = re.compile(
    r"\b(?:as\s+)?(?:restated|re-?presented|unaudited|audited|actual|reported|budget(?:ed)?|forecast|"
    r"estimated?|pro[-\s]?forma|adjusted|underlying|statutory|group|company|consolidated|parent|bank|"
    r"total|notes?|amounts?|in)\b"
    r"|\b(?:under\s+(?:the\s+)?)?(?:prior|previous|former)\s+(?:method|guidance|standard)\b"
    r"|(?:U\.S\.\$|US\$|HK\$|[$€£¥₹]|\bRs\.?|\b(?:USD|EUR|GBP|JPY|CHF|INR|RMB|CNY)\b)\s*['’]?"
    r"(?:000s?|m|mn|bn|k|millions?|thousands?|billions?|crores?|lakhs?)?(?![A-Za-z])"
    r"|\b(?:millions?|thousands?|billions?|crores?|lakhs?|mn|bn)\b|['’]000s?|[%*†‡§⁰¹²³⁴⁵⁶⁷⁸⁹]",
    re.IGNORECASE,
)
_FISCAL_SPAN: Final = re.compile(r"((?:19|20)[0-9]{2})\s*[-/]\s*([0-9]{4}|[0-9]{2})")
_BARE_YEAR: Final = re.compile(r"(?:(?P<full>(?:calendar|full)[-\s]?year|year)\s+)?((?:19|20)[0-9]{2})", re.I)


def _drop_paren(m: re.Match[str]) -> str:
    inner = m.group(1).strip()
    # Keep parentheses that carry a date; drop remarks ("(restated)") and footnote marks ("(1)", "(a)").
    if len(inner) <= 2 or not any(c.isdigit() for c in inner) or inner.lower().startswith("note"):
        return " "
    return m.group(0)


def _strip_noise(text: str) -> str:
    cleaned = _NOISE_PAREN.sub(_drop_paren, text)
    cleaned = _NOISE_WORDS.sub(" ", cleaned)
    return " ".join(cleaned.split()).strip(" ,.:;-")


def _weak_period(label: str, text: str) -> Period | None:
    cleaned = _strip_noise(text)
    if not cleaned:
        return None
    dates = _find_dates(cleaned)
    if len(dates) == 1 and dates[0].start == 0 and dates[0].end == len(cleaned):
        return _instant(label, dates[0])
    m = _FISCAL_SPAN.fullmatch(cleaned)
    if m is not None:
        end_year = _consecutive_end(m.group(1), m.group(2))
        return None if end_year is None else _duration(label, 12, None, fiscal_year=end_year)
    m = _BARE_YEAR.fullmatch(cleaned)
    if m is not None:
        # "2025" alone does not say how long the period is; "Full year 2025" does.
        return _duration(label, 12 if m.group("full") else None, None, fiscal_year=int(m.group(2)))
    return None


def _normalise(text: str) -> str:
    return " ".join(text.translate(_NORMALISE).split())


@functools.lru_cache(maxsize=1 << 14)  # every table's heads ask again; a Period is frozen
def parse_period(text: str) -> Period | None:
    """Read the reporting period a header string or phrase names.

    Examples: "2025" (``FY2025``, months None), "FY 2025", "Fiscal 2023", "Year Ended December 31, 2017"
    (``FY2017``), "Three Months Ended March 31, 2021" (``Q1-2021``), "1Q21", "Q4 FY23", "Six months ended
    30 June 2025" (``H1-2025``), "Nine months ended Sept 30, 2024" (``9M-2024``), "As at 31 December
    2025" / "December 31, 2017" / "31.12.2025" (instants), "2024/25" and "2013-14" (fiscal years ending
    2025 and 2014), "From 1 April 2024 to 31 March 2025", "平成26年3月期", "2018年第一季度".

    Words around the period are tolerated when the period is introduced by a keyword ("Balance at
    December 31, 2016", "Form 10-Q for the quarter ended June 30, 2017"). A bare year or date must be the
    whole header apart from qualifiers such as "(restated)", "Unaudited", "Group", "£m" or a footnote
    mark, so that a sentence mentioning 2025 is not a period. Comparison headers ("2025 vs 2024",
    "% change") are not periods.

    Args:
        text: One header cell (or several header lines joined), or a short phrase.

    Returns:
        The period with ``label`` set to the text as printed (whitespace collapsed), or None.
    """
    label = " ".join(text.split())
    if not label or not any(c.isdigit() for c in label):
        return None
    normalised = _normalise(label)
    if len(normalised.split()) <= 10 and _COMPARISON.search(normalised):
        return None
    dates = _find_dates(normalised)
    return (
        _range_period(label, normalised, dates)
        or _phrase_period(label, normalised, dates)
        or _weak_period(label, normalised)
    )


_NAMED_YEAR: Final = re.compile(r"(?P<name>.*[^\W\d_].*?)\s*,?\s+(?P<year>(?:19|20)[0-9]{2})", re.DOTALL)
_PERIOD_WORDS: Final = re.compile(
    rf"(?:{_LENGTH})|{_MON}|\b(?:ended|ending|through|thru|until|since|from|fiscal|FY|[HQ][1-4]|YTD|QTD|"
    r"as\s+(?:of|at|on)|balances?|at|end|to\s+date|current|last|next)\b|[0-9]{3}|"
    # "Prior year", "Previous quarter" say which period; "Under prior method" says how it is measured.
    r"\b(?:prior|previous)\b(?!\s+(?:method|guidance|standard|accounting|presentation)\b)",
    re.IGNORECASE,
)


def _named_year(joined: str) -> Period | None:
    """A year or a date printed under or after a name ("U.S. Plans December 25, 2021").

    "U.S. Pension Plans 2023", "International  2020": a plan's, a segment's or a region's columns print
    the name over (or before) each year or balance-sheet date; the name is the column's dimension
    (:func:`pipeline.figures.facts.header_dimension`), the year or date its period, as a bare "2023" or
    "December 25, 2021" is. Only when the name says nothing of a period: "Three Months 2023" is no fiscal
    year.
    """
    name, when = _named_date(joined)
    if not when and (m := _NAMED_YEAR.fullmatch(joined)) is not None:
        name, when = m.group("name"), m.group("year")
    if not name or _PERIOD_WORDS.search(name) or _COMPARISON.search(name):
        return None
    period = parse_period(when)
    return None if period is None else period.model_copy(update={"label": joined})


def _named_date(joined: str) -> tuple[str, str]:
    """The words before, and the date, of a head whose one date (with its day) ends it; else two empties."""
    dates = _find_dates(joined)
    if len(dates) != 1 or dates[0].day is None or dates[0].end != len(joined):
        return "", ""
    return joined[: dates[0].start].strip(" ,"), joined[dates[0].start :]


_YEAR_ENDED: Final = re.compile(
    r"(?:(?:fiscal\s+|financial\s+)?years?\s*,?\s+(?:ended|ending)|(?:fiscal|financial)\s+years)\s*,?\s*"
    r"((?:19|20)[0-9]{2})",
    re.IGNORECASE,
)
"""A year's length over a bare year: "Year Ended" (or "Fiscal Years", spanning several) over "2021"."""


def combine_periods(parts: Sequence[str]) -> Period | None:
    """Read a column's stacked header lines, top to bottom, as one period.

    A spanning header such as "Year ended December 31," printed once above several year columns is
    passed with each year below it: ``["Year ended December 31,", "2025"]``, ``["Three Months Ended",
    "March 31,", "2021"]``, ``["As at", "31 December", "2025"]``. A bare year under "As at" or a
    month-and-day line becomes an instant. A year under a name that says nothing of a period
    (``["U.S. Pension Plans", "2023"]``) is that year, as a bare "2023" is; under "Year Ended"
    (``["Year Ended", "2021"]``), the twelve months of that fiscal year.

    Args:
        parts: The header lines of one column, top first; blank lines are ignored.

    Returns:
        The period, or None when the lines together name none.
    """
    return _combined(tuple(parts))


@functools.lru_cache(maxsize=1 << 14)
def _combined(parts: tuple[str, ...]) -> Period | None:
    lines = [" ".join(p.split()) for p in parts]
    joined = " ".join(line for line in lines if line)
    period = parse_period(joined)
    if period is not None and period.months == 12:
        return _part_of_year(period, joined)
    if period is not None or not joined:
        return period
    # "As at" / "As of" above a bare year: an instant whose month and day are not printed.
    normalised = _normalise(joined)
    for m in _INSTANT_PHRASE.finditer(normalised):
        year = _YEAR_ONLY_AFTER.fullmatch(normalised, m.end())
        if year is not None:
            y = int(year.group(1))
            return Period(kind="instant", key=str(y), label=joined, fiscal_year=y)
    year_ended = _YEAR_ENDED.fullmatch(_strip_noise(normalised))
    if year_ended is not None:
        # "Year Ended" over a bare "2021": the length is printed, the year too; the fiscal year's end is
        # the document's year end, as a bare year's is. A quarter or a half over a bare year says
        # neither which one nor when it ends: no period.
        return _duration(joined, 12, None, fiscal_year=int(year_ended.group(1)))
    named = [line for line in lines if line]
    if len(named) >= 2 and (_BARE_YEAR_HEAD.fullmatch(named[0]) or _a_day(named[0])):
        # A year or a balance-sheet date printed over its columns' names ("2022" over "Total Utility",
        # "December 31, 2022" over "Carrying Amount  Fair Value"): the name under the year or date.
        period = _named_year(_normalise(" ".join([*named[1:], named[0]])))
        return None if period is None else period.model_copy(update={"label": joined})
    return _named_year(normalised)


def _a_day(line: str) -> bool:
    """Whether a head line is one date with its day and nothing else ("December 31, 2022")."""
    period = parse_period(line)
    return period is not None and period.kind == "instant" and len(period.key) == 10


_BARE_YEAR_HEAD: Final = re.compile(_YEAR4)
_PART_OF_YEAR: Final = re.compile(rf"\b({_ORDINAL_WORDS})\s+(?:fiscal\s+)?(quarter|half)\b", re.IGNORECASE)


def _part_of_year(year: Period, joined: str) -> Period | None:
    """The year a column's heads name, or the quarter or half of it the column's own head names.

    A quarterly-results table prints "Year Ended December 31, 2017" once over "First Quarter" …
    "Fourth Quarter": each column is that quarter of the fiscal year, never the year (four different
    figures published as one year's revenue). Two parts named in one column's heads say no one period.
    """
    found = _PART_OF_YEAR.findall(joined)
    if not found:
        return year
    if len(found) > 1 or year.fiscal_year is None:
        return None
    number, part = _ORDINALS[found[0][0].lower()], found[0][1].lower()
    if part == "quarter":
        return _duration(joined, 3, None, fiscal_year=year.fiscal_year, quarter=number)
    return _duration(joined, 6, None, fiscal_year=year.fiscal_year, half=number) if number <= 2 else None


_LENGTHS_SHARED: Final = re.compile(
    rf"\b({_NUMBER_WORD_RE}|[0-9]{{1,2}})\s+and\s+({_NUMBER_WORD_RE}|[0-9]{{1,2}})\s+(months|weeks)\b",
    re.IGNORECASE,
)
"""Two lengths sharing one unit: "three and six months"."""


def lead_in_period(lead: str, months: int, year: int) -> Period | None:
    """The period of a column that prints its length and year only, dated by the sentence above its table.

    "Revenue by geographic area for the three and six months ended June 2, 2023 and June 3, 2022 were as
    follows:" over "Three Months 2023  2022  Six Months 2023  2022": the column "Three Months 2023" is the
    three months ended June 2, 2023. Only when the sentence names that length before "ended" and prints
    exactly one day in that year (a 52/53-week year ends on another day each year: never carried over).

    Args:
        lead: The sentence introducing the table.
        months: The column's length in months, as its head (or its span's) prints it.
        year: The column's year, as its head prints it.

    Returns:
        The duration, or None when the sentence does not date it.
    """
    text = _LENGTHS_SHARED.sub(r"\1 \3 and \2 \3", _normalise(lead))
    ended = [m for m in _DURATION_PHRASE.finditer(text)]
    if not ended or months not in {
        n for m in _LENGTH_WORDS.finditer(text[: ended[-1].end()]) if (n := _length_months(m))
    }:
        return None
    days = [d for d in _find_dates(text[ended[0].start() :]) if d.day is not None and d.year == year]
    if len(days) != 1:
        return None
    return _duration(f"{months} months ended {days[0].iso}", months, days[0])


def period_key(period: Period) -> str:
    """The key two figures must share to be compared (``FY2025``, ``Q1-2021``, ``2025-12-31``).

    Args:
        period: A parsed period.

    Returns:
        ``period.key``.
    """
    return period.key
