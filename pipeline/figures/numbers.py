"""Financial figures as printed: parse one cell, tell a figure from a word, find the figures in text.

These functions run for every word on every page, so the inner loop works on precompiled regular
expressions and small frozen dataclasses; the pydantic ``TypedNumber`` is built only by
:func:`~pipeline.figures.typed_numbers.to_typed`,
once a figure has been kept. The work is split in three modules:

* :mod:`pipeline.figures.number_grammar` recognises: the vocabulary and the compiled patterns;
* this module parses: a match becomes a :class:`ParsedNumber`;
* :mod:`pipeline.figures.typed_numbers` types: :func:`to_typed` applies the table's unit and period.

A table's unit itself is read from its caption by :mod:`pipeline.figures.scale_captions`
(:func:`~pipeline.figures.scale_captions.detect_scale`).

Conventions:

* ``value`` is the printed magnitude with its sign; a scale (``million``, ``'000``) is recorded, never
  applied, so that ``1,234.5`` in a table "in millions" and ``$1,234.5 million`` in the narrative compare
  equal on ``(value, scale)`` and on ``base_value`` once typed.
* Grouping is read in the US/UK style (``1,234.5``) and in the Indian style (``1,23,456``). European style
  (``1.234,5``) is read only when it cannot be anything else, unless the caller knows the document's
  convention and passes ``decimal_comma``.
* A bare ``$`` is read as US dollars and a bare ``¥`` as yen;
  :func:`~pipeline.figures.typed_numbers.to_typed` lets the table's currency
  override those two symbols because a Canadian or Chinese filing prints them too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from pipeline.figures import number_grammar as _grammar

__all__ = [
    "ParsedNumber",
    "TextNumber",
    "find_numbers",
    "is_numeric_token",
    "parse_number",
]

# The grammar is bound by assignment, not ``from ... import``: CPython compiles ``NAME.method(...)`` on an
# imported name as an attribute load and a call (it expects a module there), which builds a bound-method
# object on every call, and these calls run for every word of every page.
_normalise: Final = _grammar.normalise
_cell_regex: Final = _grammar.cell_regex
_PREFIX_CURRENCIES: Final = _grammar.PREFIX_CURRENCIES
_CELL_SUFFIX_CURRENCIES: Final = _grammar.CELL_SUFFIX_CURRENCIES
_SCALE_WORDS: Final = _grammar.SCALE_WORDS
_SCALE_ABBREVIATIONS: Final = _grammar.SCALE_ABBREVIATIONS
_SUPERSCRIPT_DIGITS: Final = _grammar.SUPERSCRIPT_DIGITS
_GROUP_SEPS: Final = _grammar.GROUP_SEPS
_NEGATIVE_SIGNS: Final = _grammar.NEGATIVE_SIGNS
_SIMPLE: Final = _grammar.SIMPLE
_NEVER_LAST: Final = _grammar.NEVER_LAST
_DASH_CELL: Final = _grammar.DASH_CELL
_DASH_TOKENS: Final = _grammar.DASH_TOKENS
_NIL_WORDS: Final = _grammar.NIL_WORDS
_HAS_DIGIT: Final = _grammar.HAS_DIGIT
_PROSE: Final = _grammar.PROSE
_PHONE: Final = _grammar.PHONE
_GLUE: Final = _grammar.GLUE


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
class TextNumber:
    """A number found in running text, with its character span in that text."""

    start: int
    end: int
    number: ParsedNumber


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
    currency = _PREFIX_CURRENCIES[cur] if cur else (_CELL_SUFFIX_CURRENCIES[cur2] if cur2 else None)
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
