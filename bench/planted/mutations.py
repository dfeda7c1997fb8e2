"""The keying errors the benchmark plants: a printed amount parsed, and every way of mistyping it.

See :mod:`bench.planted_errors` for the method; these functions are pure (no PDF, no engine).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

__all__ = ["KINDS", "Amount", "flip_sign", "group_thousands", "mutate", "mutations", "parse_amount"]

KINDS = ("swap", "drop", "double", "sign", "scale")

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
