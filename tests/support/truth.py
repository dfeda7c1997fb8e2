"""The engine held to a truth file (``sample_docs/truth.json`` or a layout variant's truth entry).

One definition, for the committed samples (``tests/test_truth.py``) and the layout variants
(``tests/test_layouts.py``) alike, of a truth fact found (a table-cell fact of its metric and period, its
value in base units and its currency) and of a planted inconsistency flagged (a flag of its kind on its
pages, of its period when both say one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schemas.models import Fact, Flag

__all__ = ["candidates", "close", "flagged", "found_on"]


def close(a: float, b: float) -> bool:
    """Whether ``a`` is ``b`` up to float rounding."""
    return abs(a - b) <= max(1e-6, 1e-9 * abs(b))


def candidates(facts: Sequence[Fact], truth_fact: dict[str, Any]) -> list[Fact]:
    """The table-cell facts of the truth fact's metric and period, whatever their value."""
    return [
        x
        for x in facts
        if x.metric == truth_fact["metric"]
        and x.origin == "table_cell"
        and x.period is not None
        and x.period.key == truth_fact["period"]
    ]


def found_on(facts: Sequence[Fact], truth_fact: dict[str, Any]) -> set[int]:
    """The pages the truth fact was found on: a candidate with its value (base units) and its currency."""
    return {
        x.page
        for x in candidates(facts, truth_fact)
        if x.value is not None
        and close(x.value, truth_fact["value"])
        and x.currency == truth_fact["currency"]
    }


def flagged(
    flags: Sequence[Flag], inconsistencies: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[Flag]]:
    """The truth's inconsistencies no flag matches, and the flags that match none of them."""
    unmatched: list[dict[str, Any]] = []
    matched: set[str] = set()
    for inc in inconsistencies:
        hits = [
            f
            for f in flags
            if f.kind == inc["kind"]
            and set(f.pages) <= set(inc["pages"])
            and (f.period is None or inc["period"] is None or f.period.key == inc["period"])
        ]
        if not hits:
            unmatched.append(inc)
        matched.update(f.flag_id for f in hits)
    return unmatched, [f for f in flags if f.flag_id not in matched]
