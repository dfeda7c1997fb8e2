"""The one backoff formula: capped exponential with ±25 % jitter (so that retrying clients spread out)."""

from __future__ import annotations

import random


def backoff_s(attempt: int, *, base_s: float, max_s: float) -> float:
    """Seconds to wait after failed attempt ``attempt`` (from 1): ``base_s·2^(attempt−1)``, capped."""
    return float(min(max_s, base_s * 2 ** (max(1, attempt) - 1)) * (0.75 + 0.5 * random.random()))
