"""A figure printed twice that disagrees by no keying error is flagged: the highlights page not updated.

The classic tie-out failure: a late adjustment reaches the statements but not the summary ("Financial
highlights", "Selected financial data"). The summary's figure is about 1.3 % off — no digit swapped,
dropped or doubled — so a rule that flags only keying-error signatures misses it. Here, on the generated
layout variants (layouts none of the committed samples has), one summary figure of the latest year is
left stale, a different line in each layout; the engine must flag it on the summary page and the
statement page, name the summary's figure as the one to change (the statement's copy holds in its own
sums), and raise nothing else.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

import pytest

from pipeline.engine import process_bytes
from sample_docs.generate import SUMMARY_ROWS, DocConfig, Injection, layout_variants, render_variant
from schemas.models import DocumentResult

LINES = ("revenue", "net", "ocf", "opinc", "te")
"""The summary line left stale, taken in turn over the layouts."""


def _cases() -> dict[str, DocConfig]:
    out: dict[str, DocConfig] = {}
    for i, cfg in enumerate(layout_variants()):
        line = next(k for k in (*LINES[i % len(LINES) :], *LINES) if k in cfg.summary_rows)
        stale = Injection("cross_reference_mismatch", line, max(cfg.years), mode="stale")
        out[cfg.file] = replace(cfg, file=f"stale-{line}-{cfg.file}", injections=(stale,))
    return out


CASES = _cases()


@cache
def checked(name: str) -> tuple[DocumentResult, dict[str, Any]]:
    data, truth = render_variant(CASES[name])
    return process_bytes(data, source=name), truth


def test_the_cases_cover_five_layouts_and_several_lines() -> None:
    assert len(CASES) >= 5
    assert len({c.injections[0].key for c in CASES.values()}) >= 3


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_stale_summary_figure_is_flagged_and_localized_on_the_summary(name: str) -> None:
    result, truth = checked(name)
    inconsistencies = truth["inconsistencies"]
    assert isinstance(inconsistencies, list) and len(inconsistencies) == 1
    planted: dict[str, Any] = inconsistencies[0]
    metric = SUMMARY_ROWS[CASES[name].injections[0].key][2]
    hits = [f for f in result.flags if f.metric == metric and set(f.pages) & set(planted["pages"])]
    assert hits, f"not flagged: {planted['description']}; flags: {[f.message for f in result.flags]}"
    flag = hits[0]
    assert flag.rule in ("XREF001", "XST001") and flag.proof
    # The statement's copy holds in the statement's own sums: the summary's is the one to change.
    loc = flag.localization
    assert loc is not None and loc.alternatives == 0, flag.message
    shown = str(planted["description"]).split(" as ", 1)[1].split(";", 1)[0]
    assert loc.figures[0].text.endswith(shown), (loc.note, shown)
    others = [f.message for f in result.flags if f is not flag]
    assert not others, others
