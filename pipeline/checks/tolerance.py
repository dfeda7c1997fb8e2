"""What the rules share besides the rounding arithmetic.

The rounding-aware comparisons live in :mod:`pipeline.figures.rounding` and are re-exported here; this module
adds
when a discrepancy is worth an analyst's time, how figures are written in messages, and how a flag is built
with a stable id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pipeline.figures.keying import NEAR_MISS_RELATIVE, Relation, digit_slip, keying_relation
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
    "Relation",
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
# The keying-error signatures (keying_relation, digit_slip) live in pipeline.figures.keying, where the
# facts stage reads them too.


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
    if (big - small) / big <= NEAR_MISS_RELATIVE:
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
    if not bbox:
        return page, ()
    x0, y0, x1, y1 = bbox  # (unpacked, not a generator: every term of every relation is keyed by it)
    return page, (round(x0, 1), round(y0, 1), round(x1, 1), round(y1, 1))


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
