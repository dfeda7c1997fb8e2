"""A company whose name begins with a digit is no note reference (generated filing).

"Net income attributable to 3M": the label normaliser took the trailing "3M" for a note number with a
letter ("Revenue 3a") and dropped it, leaving "net income attributable to", which names no metric. So the
parent's net income was no fact anywhere in 3M's filings, and a keyed error in it broke nothing
(development seeds 33-34: the free-cash-flow summary's 4,570 keyed 4,750). A trailing token printed with
a capital after its digit is a name; a note's letter is printed small.
"""

from __future__ import annotations

import pytest

from pipeline.figures.taxonomy import load_taxonomy

TAX = load_taxonomy()


@pytest.mark.parametrize(
    ("label", "metric"),
    [
        ("Net income attributable to 3M", "net_income_attributable_to_parent"),
        ("Net income attributable to 7G", "net_income_attributable_to_parent"),
        ("Revenue 3a", "revenue"),  # a note's number and letter
        ("Revenue 12", "revenue"),
    ],
)
def test_a_digit_led_name_is_kept(label: str, metric: str) -> None:
    found = TAX.match(label)
    assert (found.id if found else None) == metric
