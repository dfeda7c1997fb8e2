"""Rounding-aware comparison of printed figures (the XBRL Calculations 1.1 model).

A value printed with ``decimals = d`` (XBRL sense, in base units) stands for every number in the
interval ``value ± 0.5·10^(−d)``. Two statements are consistent when their intervals overlap; a sum is
consistent when the interval of the total overlaps the interval of the sum of the components, i.e.
``|total − Σ| ≤ 0.5·10^(−d_total) + Σ 0.5·10^(−d_i)``.

This is the one place the interval is written: the statement trees, the checks, the scale inference and
the model stage's verifier all compare through it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Comparison",
    "compare_pct_change",
    "compare_sum",
    "compare_values",
    "decimals_of",
    "half_unit",
    "interval",
    "pct_change_interval",
    "within_rounding",
]

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
    return _FP_RELATIVE * max(map(abs, magnitudes), default=0.0)


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
    values = [v for v, _ in components]
    expected = math.fsum(values)
    tolerance = half_unit(total_decimals) + math.fsum([half_unit(d) for _, d in components])
    difference = total - expected
    ok = abs(difference) <= tolerance + _slack(total, *values)
    return Comparison(ok, expected, total, difference, tolerance)


def interval(value: float, decimals: int) -> tuple[float, float]:
    """The interval a printed value stands for."""
    h = half_unit(decimals)
    return value - h, value + h


def within_rounding(value: float, printed: float, decimals: int) -> bool:
    """Whether ``value`` lies in the interval of a figure printed as ``printed`` with ``decimals``.

    Args:
        value: The number under test (a model's answer, a figure rescaled to another table's scale).
        printed: The printed figure, in the same units.
        decimals: Its printed precision in those units.

    Returns:
        True when ``|value − printed| ≤ 0.5·10^(−decimals)``, with floating-point slack.
    """
    return abs(value - printed) <= half_unit(decimals) + _slack(value, printed)


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
