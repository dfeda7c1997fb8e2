"""A label wrapped over lines wider than any label above it does not cut its table in two.

PG&E's balance sheets describe receivables in a label of three lines ("Customers (net of allowance for
doubtful accounts of $166 million and $171 million at respective dates) (includes $2.47 billion …"), wider
than the labels above it. The table finder ends a region at such lines, and the second region, without
heads, was joined to the first only when the lines between held at most ten words and stayed inside the
label column as the first region measured it: the current assets were cut after restricted cash, "Total
current assets" added up nothing, and a keying error among them went unflagged (PG&E's 2022 10-K, its
Wildfire Fund asset 461 re-keyed 46 by the planted-errors bench, was the case found). A line that stops short
of the value columns is a wrapped label however many words it holds. Here, on the generated layout variants
with such a receivables label, the clean document raises nothing and total current assets is proven, and a
swapped pair of digits in the other current assets below it is flagged on its page.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sample_docs.generate import DocConfig
from tests.support.layouts import LayoutCases

LONG = (
    "Trade receivables (net of allowance for doubtful accounts of 166 and 171 at the respective dates) "
    "(includes 2,470 and 2,060 related to consolidated variable interest entities, net of allowance for "
    "doubtful accounts of 166 and 171 at the respective dates)"
)


def _long_receivables(cfg: DocConfig) -> DocConfig:
    return replace(cfg, labels={**cfg.labels, "recv": LONG})


CASES = LayoutCases("wrap", adjust=_long_receivables)


@pytest.mark.parametrize("name", CASES.names())
def test_total_current_assets_is_proven_and_nothing_is_flagged(name: str) -> None:
    label = CASES.cases[name].labels.get("tca", "Total current assets")
    CASES.proven_total(name, label, 4)


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_below_the_wrapped_label_is_flagged(name: str) -> None:
    label = CASES.cases[name].labels.get("other_ca", "Other current assets")
    CASES.caught(name, label.split(), "swap", "TOT001")
