"""A line named for the whole entity under the segments' lines is their total, when the figures prove it.

UK and European annual reports close a segment table of two years with "Group revenue", "Group" or
"Consolidated net sales", a label that does not say "Total". A line that does not say it is a total was
never taken for one in a table of two columns (two columns are too few to prove a line that may be no
total at all), so a keying error in a segment's revenue, or in the group's, went unflagged. A label naming
the whole entity now makes the line a weak total (``labels.total_strength``): in two columns the other one
must add up to the unit. Found on mixed layouts (``sample_docs.mixed``); here on the generated layout
variants whose segment table prints revenue alone (no "Revenue" heading over it), its total so named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from sample_docs.generate import DocConfig
from tests.support.layouts import LayoutCases

LABELS = ("Group revenue", "Group", "Consolidated net sales")


def _named(label: str) -> Callable[[DocConfig], DocConfig]:
    def adjust(cfg: DocConfig) -> DocConfig:
        return replace(cfg, segment_profit=False, labels={**cfg.labels, "seg_total": label})

    return adjust


CASES = {label: LayoutCases(f"we{i}", adjust=_named(label)) for i, label in enumerate(LABELS)}
NAMES = [(label, name) for label, cases in CASES.items() for name in cases.names()]


@pytest.mark.parametrize(("label", "name"), NAMES)
def test_the_whole_entity_line_is_the_proven_total_of_the_segments(label: str, name: str) -> None:
    cases = CASES[label]
    segments = len(cases.cases[name].segments)
    cases.proven_total(name, label, segments)


@pytest.mark.parametrize("kind", ["swap", "sign"])
@pytest.mark.parametrize(("label", "name"), NAMES)
def test_a_keying_error_in_the_whole_entity_line_is_flagged(label: str, name: str, kind: str) -> None:
    CASES[label].caught(name, label.split(), kind, "TOT001")
