"""A statement titled for the group ("… and Subsidiaries") is the consolidated entity, not a subsidiary's.

Table titles that name a subsidiary, a segment or a parent company alone put every figure of the table in
that context, out of the comparisons with the consolidated figures. "Corning Incorporated and Subsidiary
Companies" under "Consolidated Balance Sheets" matched "subsidiar", so the whole balance sheet was a context:
its long-term debt was compared with nothing, and re-keyed in the MD&A's table of balance-sheet measures
(7,437 -> 74,437) it went unflagged (Corning's 2023 second-quarter 10-Q, re-keyed by the planted-errors
bench). That table was no statement at all: "Total debt to total capital 39 %", a ratio whose label begins
like a total, marked its columns as percentages.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.statements.columns import statement_columns, statement_rows
from sample_docs.generate import DocConfig
from tests.support.layouts import LayoutCases, evidence_of, figure, rekeyed
from tests.support.printed import printed_rows
from tests.support.tables import make_table


def _group_titles(cfg: DocConfig) -> DocConfig:
    # The group's name under each statement's title, as a subtitle line ("Corning Incorporated and
    # Subsidiary Companies"), where the subtitle was a period line or nothing.
    labels = {**cfg.labels, **{f"{k}_subtitle": f"{cfg.issuer} and Subsidiaries" for k in ("is", "bs", "cf")}}
    # The highlights print total assets, whose only relation is its copy on the balance sheet.
    return replace(cfg, labels=labels, summary_rows=("revenue", "opinc", "net", "ocf", "ta"))


CASES = LayoutCases("group", adjust=_group_titles)


@pytest.mark.parametrize("name", CASES.names())
def test_the_group_statements_are_consolidated(name: str) -> None:
    assets = [f for f in CASES.quiet(name).facts if f.metric == "total_assets" and f.origin == "table_cell"]
    assert len(assets) >= 2 and all(f.context is None for f in assets), [(f.page, f.context) for f in assets]


@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_highlights_copy_is_flagged(name: str) -> None:
    label = CASES.cases[name].labels.get("sum_ta", "Total assets")
    target = figure(CASES.rendered(name), label.split(), 0, occurrence=0)
    new = rekeyed(target.text, "double")
    _, flags = CASES.planted_flags(name, target, new, "XREF001")
    hits = [f for f in flags if target.page in f.pages and f.rule in ("XREF001", "XST001")]
    assert evidence_of(hits, new), [f.message for f in flags]


def test_a_ratio_that_begins_like_a_total_leaves_the_columns_amounts() -> None:
    table = make_table(
        printed_rows("""
            Working capital             | 2,882 | 2,278
            Inventories                 | 2,757 | 2,904
            Long-term debt              | 7,437 | 6,687
            Total debt                  | 7,624 | 6,911
            Total debt to total capital | 39%   | 36%
        """),
        periods=("2023-06-30", "2022-12-31"),
    )
    assert [c.col for c in statement_columns(table, statement_rows(table))] == [1, 2]
