"""pipeline.figures.keying: how two printings of one figure differ when a keying error made the difference."""

from __future__ import annotations

import pytest

from pipeline.figures.keying import keyed_variants, keying_relation


@pytest.mark.parametrize(
    ("a", "b", "relation"),
    [
        (1234.0, 1284.0, "digit"),
        (1234.0, 1243.0, "swap"),  # the last two digits swapped: a swap, not a last digit off
        (1234.0, 12334.0, "digit_count"),
        (1234.0, -1234.0, "sign"),
        (1234.0, 1_234_000.0, "scale"),
        # The last digit alone: a rounding slip, a restated figure or a keying error alike (a near miss, as
        # keyed_variants holds: it never proposes a last digit as the intended figure).
        (1234.0, 1237.0, "near_miss"),
        (111.0, 114.0, "near_miss"),
        (5.0, 7.0, None),  # a figure of one digit is all last digit: 40 % apart, two concepts
    ],
)
def test_keying_relation(a: float, b: float, relation: str | None) -> None:
    assert keying_relation(a, 0, b, 0) == relation
    assert keying_relation(b, 0, a, 0) == relation


def test_a_last_digit_off_is_no_keyed_variant_and_no_keying_relation() -> None:
    variants = dict(keyed_variants(1288.0, 0))
    assert 1289.0 not in variants
    assert keying_relation(1288.0, 0, 1289.0, 0) not in ("digit", "swap", "digit_count", "sign", "scale")
