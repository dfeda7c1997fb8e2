"""A one-column schedule that runs over a page break is one table, without the page's foot in it.

Found on mixed layouts (``sample_docs.mixed``), two classes at once, each of which raised a false TOT001 on
a clean lease maturity schedule ("2028, 2029, 2030, Thereafter" added up against the whole "Total"):

* a table of one value column takes its title lines into its label column's head, so the continuation's
  "Maturities of lease liabilities (continued)" was in no caption or title and the two parts stayed apart;
* a table that runs to the foot of its page took the foot in as a row when the page number sits under the
  value column ("Aurelia Logistik SE | Prospectus" over "8"), which then split the stitched schedule.

The two documents are the mixed layouts that showed them, written out as settings over the issuers' own.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from pipeline.engine import process_bytes
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.parse.table_grid import pick_title
from pipeline.statements.build import build_statements, maybe_partial
from sample_docs.generate import DOCS, LAYOUT_VARIANTS, DocConfig, render_document
from schemas.models import DocumentResult, Table
from tests.support.tables import make_table

_DONORS = {cfg.file: cfg for cfg in (*DOCS, *LAYOUT_VARIANTS)}

CASES: dict[str, DocConfig] = {
    # The foot "Aurelia Logistik SE | Prospectus" with the page number at the value column's edge.
    "foot": replace(
        _DONORS["aurelia_2025_prospectus.pdf"],
        file="pb-foot.pdf",
        seed=157617073,
        page_size=(612.0, 792.0),
        style="filing",
        neg="paren",
        notes_col=None,
        label_width=230.0,
        col_width=78.0,
        cf_start="pbt",
        summary_years=2,
        has_other_op=False,
        duration_header="two_line_uk",
        segment_profit=True,
        footer="rule",
        sbc_twice=True,
        titled_note=True,
        maturities=True,
        fair_value_columns=True,
        single_step=True,
        injections=(),
    ),
    # A running head ("Table of Contents") over the continuation, which says "(continued)" in its head.
    "continued": replace(
        _DONORS["halvorsen_2025_form_10k.pdf"],
        file="pb-continued.pdf",
        seed=635758879,
        page_size=(595.0, 842.0),
        neg="minus",
        nil="–",
        label_width=230.0,
        col_width=62.0,
        duration_header="two_line_us",
        instant_header="two_line_uk",
        summary_header=None,
        footer_offset=0,
        cover_page=False,
        sbc_twice=True,
        tax_sections=True,
        maturities=True,
        injections=(),
    ),
}


# A ruled layout whose unit note "(€ million)" sits under each title: the note was read as the
# continuation's title, so "Maturities of lease liabilities (continued)" above it said nothing.
UNIT_NOTE = replace(
    _DONORS["marlow_2025_annual_report.pdf"],
    file="pb-unit-note.pdf",
    seed=265043763,
    font="helv",
    bold="hebo",
    italic="heit",
    style="grid",
    nil="—",
    expense_sign=-1,
    body_size=9.0,
    table_size=8.0,
    label_width=230.0,
    cf_start="opinc",
    instant_header="two_line_uk",
    summary_change_col=True,
    footer="center",
    cover_page=False,
    title_caption_one_line=False,
    repeat_header_on_break=True,
    net_of_first=True,
    plan_asset_levels=True,
    maturities=True,
    fair_value_columns=True,
    plans_by_group=True,
    fx_neutral_changes=True,
    spilled_totals=True,
    injections=(),
)


@cache
def _result(name: str) -> DocumentResult:
    return process_bytes(render_document(CASES[name])[0], source=CASES[name].file)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_schedule_over_a_page_break_is_one_table_and_raises_nothing(name: str) -> None:
    result = _result(name)
    schedule = [t for t in result.tables if any(c.text == "Thereafter" for c in t.cells)]
    # The layout still breaks the schedule over two pages (else this test shows nothing).
    assert len(schedule) == 1 and len(schedule[0].pages) == 2, [(t.table_id, t.pages) for t in schedule]
    labels = [c.text for c in schedule[0].cells if c.col == 0 and not c.is_header]
    years = [str(y) for y in range(max(CASES[name].years) + 1, max(CASES[name].years) + 6)]
    assert labels == [*years, "Thereafter", "Total"]
    totals = [
        (ln.proven, len(ln.children)) for s in result.statements for ln in s.lines if ln.label == "Total"
    ]
    assert (True, 6) in totals
    assert not result.flags, [f.message for f in result.flags]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_schedule_whose_heads_are_not_printed_again_is_still_one_table(name: str) -> None:
    # The continuation's only head row is then the running head ("Table of Contents"), no column head.
    cfg = replace(CASES[name], file=f"pb-{name}-bare.pdf", repeat_header_on_break=False)
    result = process_bytes(render_document(cfg)[0], source=cfg.file)
    schedule = [t for t in result.tables if any(c.text == "Thereafter" for c in t.cells)]
    assert len(schedule) == 1 and len(schedule[0].pages) == 2, [(t.table_id, t.pages) for t in schedule]
    labels = [c.text for c in schedule[0].cells if c.col == 0 and not c.is_header]
    assert "Table of Contents" not in labels
    assert not result.flags, [f.message for f in result.flags]


def _headless(table: Table) -> Table:
    """The table without its head row and title: the top of a page that carries on a table."""
    cells = [c.model_copy(update={"row": c.row - 1}) for c in table.cells if not c.is_header]
    return table.model_copy(
        update={"cells": cells, "n_rows": table.n_rows - 1, "header_rows": 0, "title": None, "table_id": "t2"}
    )


def test_a_part_of_a_schedule_proves_nothing() -> None:
    # A schedule's first year sat at the foot of the page before and was read as no table, or the
    # schedule broke there without its heads printed again: the part left starts with the second year
    # and says "(continued)", or has no heads and no title (found on mixed layouts: false TOT001s).
    rows = [(str(y), [f"{100 + y % 7}.4"]) for y in range(2027, 2031)] + [
        ("Thereafter", ["662.3"]),
        ("Total", ["1,107.9"]),
    ]
    whole = make_table(rows, periods=("2025-12-31",), title="Maturities of lease liabilities")
    said = make_table(rows, periods=("2025-12-31",), title="Maturities of lease liabilities (continued)")
    parts = [said, _headless(whole)]
    assert all(maybe_partial(t) for t in parts) and not maybe_partial(whole)
    totals = [
        [
            ln.proven
            for s in build_statements([t], {}, load_taxonomy())
            for ln in s.lines
            if ln.label == "Total"
        ]
        for t in (whole, *parts)
    ]
    assert totals == [[True], [False], [False]]


def test_a_schedule_a_lead_in_introduces_on_its_page_is_whole_without_heads() -> None:
    # PayPal's 2023 10-Q prints its term debt's maturities with no column heads and no title, mid-page
    # under "… were as follows (in millions):". A planted 500 -> 5,500 went unflagged: the table was taken
    # for the rest of one begun on the page before, whose total a part need not add up to. A running head
    # above a part ends in no colon.
    def schedule(keyed: str) -> Table:
        rows = [("Remaining 2023", ["—"]), ("2024", ["1,250"]), ("2025", ["1,207"]), ("2026", ["1,409"])]
        rows += [("2027", [keyed]), ("Thereafter", ["6,256"]), ("Total", ["10,622"])]
        return _headless(make_table(rows, periods=("2023-06-30",)))

    lead_in = "FUTURE PRINCIPAL PAYMENTS\nAs of June 30, 2023, the future principal payments were as follows:"
    running = (
        "Table of Contents\nNOTES TO CONDENSED CONSOLIDATED FINANCIAL STATEMENTS (continued)\n(Unaudited)"
    )
    assert maybe_partial(schedule("500"), running) and not maybe_partial(schedule("500"), lead_in)

    def total(keyed: str, above: str) -> tuple[bool, int]:
        (line,) = [
            ln
            for s in build_statements([schedule(keyed)], {"t2": above}, load_taxonomy())
            for ln in s.lines
            if ln.label == "Total"
        ]
        return line.proven, len(line.children)

    # As printed, the lines add up either way; keyed wrong, only the whole schedule still holds its lines.
    assert [total("500", above) for above in (running, lead_in)] == [(True, 6), (True, 6)]
    assert [total("5,500", above) for above in (running, lead_in)] == [(False, 0), (True, 6)]


def test_a_unit_note_under_the_title_is_not_the_title() -> None:
    assert pick_title(["Maturities of lease liabilities (continued)", "(€ million)"]) == (
        "Maturities of lease liabilities (continued)"
    )
    assert pick_title(["(EUR thousands)"]) == "(EUR thousands)"  # the title when nothing else is
    assert pick_title(["Segment results", "(£m)"]) == "Segment results"


def test_a_schedule_whose_first_line_ends_a_page_is_whole() -> None:
    # The schedule's heads and first year sit alone at the foot of the page; the rest says "(continued)" in
    # its title, over the unit note "(€ million)" (found on mixed layouts: a false TOT001, the rest read as
    # the whole). The line at the foot is the schedule's start, which the next page continues.
    result = process_bytes(render_document(UNIT_NOTE)[0], source=UNIT_NOTE.file)
    (schedule,) = [t for t in result.tables if any(c.text == "Thereafter" for c in t.cells)]
    assert len(schedule.pages) == 2 and schedule.row_pages.count(schedule.pages[0]) == 2, schedule.row_pages
    totals = [
        (ln.proven, len(ln.children)) for s in result.statements for ln in s.lines if ln.label == "Total"
    ]
    assert (True, 6) in totals
    assert not result.flags, [f.message for f in result.flags]
