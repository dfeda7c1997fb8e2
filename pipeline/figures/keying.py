"""How two printed figures of one thing differ when a keying error made the difference.

A digit dropped or doubled, two adjacent digits swapped, one digit wrong, the sign flipped, a power of a
thousand: the checks read these signatures to tell a misprint from two concepts sharing a label
(:mod:`pipeline.checks.tolerance` re-exports them), and the facts stage to tell a copy of the statements
with one figure keyed wrong from a table of some other measure (:func:`pipeline.figures.facts.other_figures`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pipeline.figures.rounding import compare_values

__all__ = ["NEAR_MISS_RELATIVE", "Relation", "digit_slip", "keyed_variants", "keying_relation"]

NEAR_MISS_RELATIVE = 0.25
"""Relative difference under which two figures for "the same" metric are treated as a genuine
discrepancy (typo, stale figure, rounding slip) rather than two different concepts sharing a label."""


def _digits_at(value: float, decimals: int) -> str:
    return str(abs(round(value * 10.0**decimals)))


def digit_slip(a: float, b: float, decimals: int) -> bool:
    """True when ``a`` and ``b`` printed at ``decimals`` differ by one digit or one adjacent swap.

    Args:
        a: First value, base units.
        b: Second value, base units.
        decimals: Common (coarsest) precision to print both at.

    Returns:
        True for 1,338.2 vs 1,383.2 (transposition) or 1,338.2 vs 1,358.2 (one digit).
    """
    da, db = _digits_at(a, decimals), _digits_at(b, decimals)
    if len(da) != len(db) or da == db:
        return False
    diffs = [i for i, (x, y) in enumerate(zip(da, db, strict=True)) if x != y]
    if len(diffs) == 1:
        return True
    i, j = diffs[0], diffs[-1]
    return len(diffs) == 2 and j == i + 1 and da[i] == db[j] and da[j] == db[i]


Relation = Literal["swap", "digit", "digit_count", "sign", "scale", "near_miss"]
"""How one printed figure differs from another: two adjacent digits swapped, one digit wrong, a digit
dropped or doubled (or any one added), the sign flipped, a power of a thousand, or a near miss."""


def _one_edit_apart(a: str, b: str) -> bool:
    """True when deleting one character of the longer string gives the shorter one."""
    long, short = (a, b) if len(a) > len(b) else (b, a)
    if len(long) != len(short) + 1:
        return False
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def keying_relation(a: float, a_decimals: int, b: float, b_decimals: int) -> Relation | None:
    """How two disagreeing figures for the same thing differ, when it is how keying errors look.

    Args:
        a: One figure, base units.
        a_decimals: Its precision.
        b: The other figure, base units.
        b_decimals: Its precision.

    Returns:
        ``sign`` (equal magnitudes, opposite signs), ``scale`` (one is the other times 10^±3 or 10^±6),
        ``swap``/``digit`` (printed at their common precision, two adjacent digits swapped or one digit
        different, not the last: a last digit off is a rounding slip or a restated figure as much as a
        keying error, as :func:`keyed_variants` holds), ``digit_count`` (a digit dropped, doubled or added),
        ``near_miss`` (within 25 %), or None when they look like two different concepts.
    """
    if a == 0.0 or b == 0.0:
        return None
    decimals = min(a_decimals, b_decimals)
    if compare_values(abs(a), a_decimals, abs(b), b_decimals).ok:
        return "sign" if (a < 0) != (b < 0) else None
    for k in (3, 6):
        for big, big_d, small, small_d in ((a, a_decimals, b, b_decimals), (b, b_decimals, a, a_decimals)):
            if compare_values(abs(big), big_d, abs(small) * 10.0**k, small_d + k).ok and (big < 0) == (
                small < 0
            ):
                return "scale"
    if (a < 0) != (b < 0):
        return None
    da, db = _digits_at(a, decimals), _digits_at(b, decimals)
    if len(da) == len(db) and da != db:
        diffs = [i for i, (x, y) in enumerate(zip(da, db, strict=True)) if x != y]
        if diffs == [len(da) - 1]:
            pass  # the last digit alone: a rounding slip as much as a keying error (a near miss, below)
        elif len(diffs) == 1:
            return "digit"
        i, j = diffs[0], diffs[-1]
        if len(diffs) == 2 and j == i + 1 and da[i] == db[j] and da[j] == db[i]:
            return "swap"
    elif _one_edit_apart(da, db):
        return "digit_count"
    big, small = max(abs(a), abs(b)), min(abs(a), abs(b))
    if (big - small) / big <= NEAR_MISS_RELATIVE:
        return "near_miss"
    return None


def keyed_variants(value: float, places: int) -> Iterator[tuple[float, Relation]]:
    """The figures a keying error could have turned into ``value``, each with how.

    Two adjacent digits swapped, one digit wrong (not the last: a last digit off is a rounding slip as much
    as a keying error), a digit dropped or doubled (any digit inserted or deleted), the sign, a power of a
    thousand.

    Args:
        value: The figure as printed.
        places: Its decimal places as printed.

    Yields:
        ``(intended value, signature)`` pairs.
    """
    digits = str(abs(round(value * 10.0**places)))
    sign = -1.0 if value < 0 else 1.0
    unit = 10.0**-places

    def back(text: str) -> float:
        return sign * int(text) * unit

    yield -value, "sign"
    yield value * 1000.0, "scale"
    yield value / 1000.0, "scale"
    for i in range(len(digits) - 1):
        if digits[i] != digits[i + 1]:
            yield back(digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :]), "swap"
    for i in range(len(digits) - 1):
        for d in "0123456789":
            if d != digits[i] and (i or d != "0"):
                yield back(digits[:i] + d + digits[i + 1 :]), "digit"
    for i in range(len(digits) + 1):
        if len(digits) > 1 and i < len(digits):
            yield back(digits[:i] + digits[i + 1 :]), "digit_count"
        for d in "0123456789":
            if i or d != "0":
                yield back(digits[:i] + d + digits[i:]), "digit_count"
