"""Rounding-aware comparison of printed figures (the XBRL Calculations 1.1 model).

A value printed with ``decimals = d`` (XBRL sense, in base units) stands for every number in the
interval ``value ± 0.5·10^(−d)``. Two statements are consistent when their intervals overlap; a sum is
consistent when the interval of the total overlaps the interval of the sum of the components, i.e.
``|total − Σ| ≤ 0.5·10^(−d_total) + Σ 0.5·10^(−d_i)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.ids import stable_id
from schemas.models import Evidence, Fact, Flag, FlagKind, Period

Severity = Literal["error", "warning", "info"]

# Floating-point slack relative to the magnitudes involved: 0.1 + 0.2 must equal 0.3.
_FP_RELATIVE = 1e-9


@dataclass(frozen=True, slots=True)
class Comparison:
    """Outcome of a rounding-aware comparison, in base units.

    Attributes:
        ok: True when the intervals overlap.
        expected: What the other side implies (e.g. the sum of the components).
        actual: The printed value under test (e.g. the printed total).
        difference: ``actual − expected``.
        tolerance: Half-width of the combined interval.
    """

    ok: bool
    expected: float
    actual: float
    difference: float
    tolerance: float


def half_unit(decimals: int) -> float:
    """Half a unit in the last printed place: the rounding radius of a printed value.

    Args:
        decimals: XBRL decimals in base units (``-5`` for "1,234.5" in millions).

    Returns:
        ``0.5 · 10^(−decimals)``.
    """
    return 0.5 * 10.0 ** (-decimals)


def _slack(*magnitudes: float) -> float:
    return _FP_RELATIVE * max((abs(m) for m in magnitudes), default=0.0)


def compare_values(
    actual: float, actual_decimals: int, expected: float, expected_decimals: int
) -> Comparison:
    """Compare two printed values for the same thing.

    Args:
        actual: The value under test, base units.
        actual_decimals: Its printed precision.
        expected: The reference value, base units.
        expected_decimals: Its printed precision.

    Returns:
        The comparison; ``ok`` when the rounding intervals overlap.
    """
    tolerance = half_unit(actual_decimals) + half_unit(expected_decimals)
    difference = actual - expected
    ok = abs(difference) <= tolerance + _slack(actual, expected)
    return Comparison(ok, expected, actual, difference, tolerance)


def compare_sum(total: float, total_decimals: int, components: Sequence[tuple[float, int]]) -> Comparison:
    """Check that a printed total equals the sum of printed (already signed) components.

    Args:
        total: The printed total, base units.
        total_decimals: Its printed precision.
        components: ``(signed value, decimals)`` of each component.

    Returns:
        The comparison with ``expected = Σ components`` and ``actual = total``.
    """
    expected = math.fsum(v for v, _ in components)
    tolerance = half_unit(total_decimals) + math.fsum(half_unit(d) for _, d in components)
    difference = total - expected
    magnitudes = [total, *(v for v, _ in components)]
    ok = abs(difference) <= tolerance + _slack(*magnitudes)
    return Comparison(ok, expected, total, difference, tolerance)


def interval(value: float, decimals: int) -> tuple[float, float]:
    """The interval a printed value stands for."""
    h = half_unit(decimals)
    return value - h, value + h


def pct_change_interval(
    current: float, current_decimals: int, prior: float, prior_decimals: int
) -> tuple[float, float] | None:
    """Range of the percentage change ``(current − prior)/|prior|·100`` over both rounding intervals.

    Args:
        current: Current-period value, base units.
        current_decimals: Its printed precision.
        prior: Prior-period value, base units.
        prior_decimals: Its printed precision.

    Returns:
        ``(low, high)`` in percent, or None when the prior interval contains zero (undefined change).
    """
    c_lo, c_hi = interval(current, current_decimals)
    p_lo, p_hi = interval(prior, prior_decimals)
    if p_lo <= 0.0 <= p_hi:
        return None
    # The change is monotone in each argument on an interval that excludes zero, so the extremes are
    # at the corners.
    values = [(c - p) / abs(p) * 100.0 for c in (c_lo, c_hi) for p in (p_lo, p_hi)]
    return min(values), max(values)


def compare_pct_change(
    printed_pct: float,
    pct_decimals: int,
    current: float,
    current_decimals: int,
    prior: float,
    prior_decimals: int,
) -> Comparison | None:
    """Check a printed percentage change against the change implied by two printed values.

    Args:
        printed_pct: The stated change in percent, signed (a decrease is negative).
        pct_decimals: Decimals printed on the percentage ("8.4%" → 1).
        current: Current-period value, base units.
        current_decimals: Its printed precision.
        prior: Prior-period value, base units.
        prior_decimals: Its printed precision.

    Returns:
        The comparison (``expected`` is the change computed from the values, ``tolerance`` the distance
        the intervals may be apart), or None when the change is undefined (prior is zero).
    """
    implied = pct_change_interval(current, current_decimals, prior, prior_decimals)
    if implied is None:
        return None
    lo, hi = implied
    h = half_unit(pct_decimals)
    expected = (current - prior) / abs(prior) * 100.0
    difference = printed_pct - expected
    ok = (printed_pct + h) >= lo - 1e-9 and (printed_pct - h) <= hi + 1e-9
    # Report the half-width of the combined interval around the point estimate.
    tolerance = h + max(hi - expected, expected - lo)
    return Comparison(ok, expected, printed_pct, difference, tolerance)


def decimals_of(values: Iterable[int]) -> int:
    """The coarsest precision among several decimals (the one that dominates rounding)."""
    return min(values)


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


def make_flag(
    *,
    rule: str,
    kind: FlagKind,
    severity: Severity,
    doc_id: str,
    source: str,
    message: str,
    evidence: Sequence[Evidence],
    metric: str | None = None,
    period: Period | None = None,
    comparison: Comparison | None = None,
) -> Flag:
    """Build a flag whose id depends only on the rule, the document and where the evidence is printed.

    Args:
        rule: Rule id, e.g. ``"TOT001"``.
        kind: Flag kind.
        severity: ``"error"``, ``"warning"`` or ``"info"``.
        doc_id: Document id.
        source: Source path.
        message: Analyst-facing explanation.
        evidence: Every side of the finding.
        metric: Metric id when known.
        period: Period of the finding.
        comparison: Expected/actual/difference/tolerance in base units.

    Returns:
        The flag; reruns over the same document give the same ``flag_id``.
    """
    locations = sorted(
        (e.page, tuple(round(x, 1) for x in e.bbox) if e.bbox else (), e.role, e.text) for e in evidence
    )
    flag_id = stable_id(rule, doc_id, metric, period.key if period else None, *locations)
    return Flag(
        flag_id=flag_id,
        doc_id=doc_id,
        source=source,
        rule=rule,
        kind=kind,
        severity=severity,
        metric=metric,
        period=period,
        message=message,
        expected=comparison.expected if comparison else None,
        actual=comparison.actual if comparison else None,
        difference=comparison.difference if comparison else None,
        tolerance=comparison.tolerance if comparison else None,
        pages=sorted({e.page for e in evidence}),
        evidence=list(evidence),
    )


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
