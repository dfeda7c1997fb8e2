"""What the rules share besides the rounding arithmetic.

The rounding-aware comparisons live in :mod:`pipeline.figures.rounding` and are re-exported here; this module
adds
when a discrepancy is worth an analyst's time, how figures are written in messages, and how a flag is built
with a stable id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pipeline.figures.rounding import (
    Comparison,
    compare_pct_change,
    compare_sum,
    compare_values,
    decimals_of,
    half_unit,
    interval,
    pct_change_interval,
)
from schemas.models import BBox, Evidence, Fact, Period

__all__ = [
    "Comparison",
    "KnownFact",
    "Severity",
    "compare_pct_change",
    "compare_sum",
    "compare_values",
    "decimals_of",
    "digit_slip",
    "fmt_amount",
    "fmt_small",
    "half_unit",
    "interval",
    "keying_relation",
    "known_facts",
    "pct_change_interval",
    "period_text",
    "plausible_discrepancy",
    "printed_at",
    "printed_decimals",
    "scale_note",
    "where_printed",
]

Severity = Literal["error", "warning", "info"]

# --- discrepancy plausibility --------------------------------------------------------------------

_NEAR_MISS_RELATIVE = 0.25
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
        different), ``digit_count`` (a digit dropped, doubled or added), ``near_miss`` (within 25 %), or None
        when they look like two different concepts.
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
        if len(diffs) == 1:
            return "digit"
        i, j = diffs[0], diffs[-1]
        if len(diffs) == 2 and j == i + 1 and da[i] == db[j] and da[j] == db[i]:
            return "swap"
    elif _one_edit_apart(da, db):
        return "digit_count"
    big, small = max(abs(a), abs(b)), min(abs(a), abs(b))
    if (big - small) / big <= _NEAR_MISS_RELATIVE:
        return "near_miss"
    return None


def plausible_discrepancy(a: float, a_decimals: int, b: float, b_decimals: int) -> bool:
    """Whether two disagreeing figures look like one figure misstated rather than two concepts.

    The same label printed in two places with wildly different values almost always means two
    different things (a segment's revenue and the group's, a sub-ledger total); a misstatement is a
    near miss (stale or mistyped figure) or a digit slip. Opposite signs of equal magnitude, and exact
    powers of ten, are left out too: they are usually the reader's sign or scale inference, not the
    filer's error.

    Args:
        a: First value, base units.
        a_decimals: Its precision.
        b: Second value, base units.
        b_decimals: Its precision.

    Returns:
        True when flagging the pair is worth an analyst's time.
    """
    if a == 0.0 or b == 0.0 or (a < 0) != (b < 0):
        return False
    big, small = max(abs(a), abs(b)), min(abs(a), abs(b))
    if (big - small) / big <= _NEAR_MISS_RELATIVE:
        return True
    return digit_slip(a, b, min(a_decimals, b_decimals))


# --- reporting helpers shared by the rules -------------------------------------------------------


def printed_decimals(decimals: int, scale: int) -> int:
    """Decimal places shown when a base-unit precision is printed at ``scale``."""
    return max(0, decimals + scale)


def fmt_amount(base_value: float, scale: int = 0, places: int = 0) -> str:
    """Format a base-unit value in the printed scale with thousands separators.

    Args:
        base_value: Value in base units.
        scale: Power of ten it is printed in (6 for millions).
        places: Decimal places to show.

    Returns:
        e.g. ``"1,234.5"``.
    """
    return f"{base_value / 10.0**scale:,.{max(0, places)}f}"


def scale_note(scale: int) -> str:
    """Scale suffix for messages: ", in millions" at scale 6, empty for units."""
    names = {3: "thousands", 6: "millions", 9: "billions"}
    return f", in {names[scale]}" if scale in names else ""


def fmt_small(base_value: float, scale: int = 0, places: int = 0) -> str:
    """Format a difference or tolerance: up to two more places than the figures, never fewer."""
    places = max(0, places)
    text = f"{base_value / 10.0**scale:,.{places + 2}f}"
    # Trim only the two extra places, so "9.00" reads "9.0" next to figures printed as "1,234.5".
    for _ in range(2):
        if text.endswith("0") and "." in text and len(text.split(".")[1]) > places:
            text = text[:-1]
    return text.rstrip(".")


def period_text(period: Period | None) -> str:
    """A short, uniform period for messages: "2025" for FY2025, the ISO date of an instant, else the key.

    The printed header ("As at 31 December 2025 £m") is in the flag's ``period.label`` already.
    """
    if period is None:
        return ""
    if period.key.startswith("FY") and period.key[2:].isdigit():
        return period.key[2:]
    return period.key


def where_printed(evidence: Evidence) -> tuple[int, tuple[float, ...]]:
    """The page and box (rounded to 0.1 pt) a piece of evidence is printed at: what identifies a figure."""
    return printed_at(evidence.page, evidence.bbox)


def printed_at(page: int, bbox: BBox | None) -> tuple[int, tuple[float, ...]]:
    """The page and box, rounded to 0.1 pt (empty without a box): what identifies a printed figure."""
    return page, tuple(round(x, 1) for x in bbox) if bbox else ()


# --- facts the checks compare ---------------------------------------------------------------------


class KnownFact(Fact):
    """A fact whose scale is established: the only kind the checks compare in base units."""

    value: float
    decimals: int
    scale: int


def known_facts(facts: Iterable[Fact]) -> list[KnownFact]:
    """The facts with a base-unit value (scale established), typed so that the checks need no None tests."""
    return [
        KnownFact.model_construct(**dict(f))
        for f in facts
        if f.value is not None and f.decimals is not None and f.scale is not None
    ]
