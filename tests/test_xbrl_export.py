"""``tieout export xbrl``: the sample documents' reports load in Arelle (offline) with no error, a planted
break is Arelle's one calculation inconsistency, and unclean figures are left out of the report."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.xbrl.agreement import agreement, tot001_totals
from adapters.xbrl.check import INCONSISTENT, XbrlCheck, check_reports
from adapters.xbrl.figures import Selection, select, sheets
from adapters.xbrl.report import AXIS, CAL_FILE, DEF_FILE, REPORT_FILE, XbrlReport, concept_name, xbrl_report
from pipeline.checks.sums import proven_structures
from pipeline.engine import process_bytes, process_path
from sample_docs.generate import layout_variants, render_variant
from schemas.models import Cell, DocumentResult, Fact, Period
from tieout.cli import app

SAMPLES = sorted(Path("sample_docs").glob("*.pdf"))
_ARC = re.compile(rb'xlink:from="(\w+)" xlink:to="(\w+)" order="\d+" weight="(-?1\.0)"')


def _write(report: XbrlReport, folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name, data in report.files.items():
        (folder / name).write_bytes(data)
    return folder / REPORT_FILE


def _facts(report: XbrlReport) -> dict[str, dict[str, object]]:
    facts: dict[str, dict[str, object]] = json.loads(report.files[REPORT_FILE])["facts"]
    return facts


@pytest.fixture(scope="module")
def results() -> dict[str, DocumentResult]:
    return {p.stem: process_path(p) for p in SAMPLES}


def _alpenglow(results: dict[str, DocumentResult]) -> tuple[DocumentResult, Selection]:
    """The clean sample that the tests below alter, and what its report holds."""
    result = results["alpenglow_2025_annual_report"]
    report = xbrl_report(result)
    assert report.selection is not None
    return result, report.selection


def _left_out(report: XbrlReport) -> dict[str, str]:
    """Each figure left out of ``report``, and why."""
    return {e.fact_id: e.reason for e in report.excluded}


@pytest.fixture(scope="module")
def net_assets() -> DocumentResult:
    """A generated layout (kestrel) whose balance sheet prints "Net assets" as total assets less total
    liabilities, and whose total assets are mis-keyed (the variant's own planted inconsistency)."""
    return _variant("kestrel")


def _planted(result: DocumentResult) -> tuple[DocumentResult, str]:
    """The document with one item of a summation put 1,000 units off, and the total's concept.

    The item is a leaf that adds into one summation only, so exactly one summation breaks; every printed
    copy of it moves together, so the copies still agree and the item stays published.
    """
    report = xbrl_report(result)
    arcs = _ARC.findall(report.files[CAL_FILE])
    totals = {a for a, _, _ in arcs}
    parents: dict[bytes, list[bytes]] = {}
    for a, b, _ in arcs:
        parents.setdefault(b, []).append(a)
    published = set(report.published.values())
    # A leaf with a fact of its own (a line no metric names, a segment's, is in the tree but has none),
    # whose metric is no total anywhere: revenue printed again under the segments, as their total "Group",
    # would break that summation too.
    first_fact: dict[str, Fact] = {}
    for f in result.facts:
        if f.fact_id in published:
            first_fact.setdefault(concept_name(f.metric), f)
    summed = {f.metric for f in result.facts if f.role in ("subtotal", "total")}
    leaf = next(
        b
        for b, ps in parents.items()
        if len(ps) == 1
        and b not in totals
        and b.decode() in first_fact
        and first_fact[b.decode()].metric not in summed
    )
    target = first_fact[leaf.decode()]
    assert target.decimals is not None and target.value is not None and target.period is not None
    delta = 1000 * 10.0 ** (-target.decimals)
    facts = [
        f.model_copy(update={"value": (f.value or 0) + delta})
        if f.metric == target.metric and f.period is not None and f.period.key == target.period.key
        else f
        for f in result.facts
    ]
    return result.model_copy(update={"facts": facts}), parents[leaf][0].decode()


def _excess_digits(report: XbrlReport) -> XbrlReport:
    """The report with one fact given a digit its ``decimals`` does not allow."""
    document = json.loads(report.files[REPORT_FILE])
    fact = next(f for f in document["facts"].values() if f["decimals"] < 0)
    fact["value"] = str(Decimal(fact["value"]) + 1)
    files = {**report.files, REPORT_FILE: json.dumps(document).encode()}
    return XbrlReport(
        files=files, excluded=report.excluded, published=report.published, selection=report.selection
    )


def _segment(result: DocumentResult) -> tuple[DocumentResult, str]:
    """The document with the last column of its first statement read as a segment's, and that statement."""
    first = next(s for s in result.statements if len(s.columns) >= 2)
    columns = [*first.columns[:-1], first.columns[-1].model_copy(update={"context": "Utility segment"})]
    statements = [s.model_copy(update={"columns": columns}) if s is first else s for s in result.statements]
    return result.model_copy(update={"statements": statements}), first.statement_id


def _variant(prefix: str) -> DocumentResult:
    (cfg,) = [c for c in layout_variants() if c.file.startswith(prefix)]
    return process_bytes(render_variant(cfg)[0], source=cfg.file)


def _bumped(result: DocumentResult, cell: Cell, units: int) -> DocumentResult:
    """The document with a table figure (its cell and its fact) ``units`` off in its last printed place."""
    n = cell.number
    assert n is not None and n.base_value is not None and n.decimals is not None
    step = units * 10.0 ** (-n.decimals)
    number = n.model_copy(
        update={"value": n.value + units * 10.0 ** (-n.places), "base_value": n.base_value + step}
    )
    at = (cell.page, cell.bbox)
    tables = [
        t.model_copy(
            update={
                "cells": [
                    c.model_copy(update={"number": number}) if (c.page, c.bbox) == at else c for c in t.cells
                ]
            }
        )
        for t in result.tables
    ]
    facts = [
        f.model_copy(update={"value": (f.value or 0.0) + step}) if (f.page, f.bbox) == at else f
        for f in result.facts
    ]
    return result.model_copy(update={"tables": tables, "facts": facts})


@pytest.fixture(scope="module")
def rounded_copy() -> tuple[DocumentResult, str]:
    """A generated layout (marlow) whose income statement prints profit before tax one unit in the last
    place above its lines' sum (a rounding difference TOT001 accepts), and whose highlights print it one
    unit higher still: the two copies agree, the report kept the highlights' under the metric's concept,
    and the income statement's "net income = profit before tax - tax" bound it, two units off: a break
    Arelle reported and no page has. Returns the document and the income statement's id."""
    result = _variant("marlow")
    cells = {
        sheet.statement.kind: sheet.grid[line.row][1].cell
        for sheet in sheets(result)
        for line in sheet.statement.lines
        if line.metric == "profit_before_tax" and 1 in sheet.grid.get(line.row, {})
    }
    income = next(s.statement_id for s in sheets(result) if s.statement.kind == "income")
    highlights = next(kind for kind in cells if kind != "income")
    return _bumped(_bumped(result, cells["income"], 1), cells[highlights], 2), income


@pytest.fixture(scope="module")
def checks(
    results: dict[str, DocumentResult],
    net_assets: DocumentResult,
    rounded_copy: tuple[DocumentResult, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, XbrlCheck]:
    """Every sample's report, and one with a planted break, checked in one Arelle child process."""
    root = tmp_path_factory.mktemp("xbrl")
    reports = {name: _write(xbrl_report(r), root / name) for name, r in results.items()}
    planted, _ = _planted(results["alpenglow_2025_annual_report"])
    reports["planted"] = _write(xbrl_report(planted), root / "planted")
    reports["segment"] = _write(xbrl_report(_segment(results["alpenglow_2025_annual_report"])[0]), root / "s")
    reports["excess"] = _write(
        _excess_digits(xbrl_report(results["alpenglow_2025_annual_report"])), root / "x"
    )
    reports["net_assets"] = _write(xbrl_report(net_assets), root / "n")
    reports["rounded_copy"] = _write(xbrl_report(rounded_copy[0]), root / "r")
    found = check_reports(list(reports.values()))
    return dict(zip(reports, found, strict=True))


@pytest.mark.parametrize("sample", [p.stem for p in SAMPLES])
def test_sample_report_loads_in_arelle_and_its_sums_agree_with_tot001(
    sample: str, checks: dict[str, XbrlCheck], results: dict[str, DocumentResult]
) -> None:
    check = checks[sample]
    assert check.report_ok, [(m.code, m.text) for m in check.errors]
    selection = select(results[sample])
    found = agreement(results[sample], selection, check)
    assert found.one_to_one, (found.flag_only, found.arelle_only)
    assert found.matched == found.flags == found.inconsistencies


def test_the_flagged_samples_are_inconsistent_in_arelle_too(
    checks: dict[str, XbrlCheck], results: dict[str, DocumentResult]
) -> None:
    """The samples with a planted misprint: TOT001 flags it and Arelle finds the same sum broken."""
    flagged = [n for n, r in results.items() if any(f.rule == "TOT001" for f in r.flags)]
    assert flagged
    for name in flagged:
        assert checks[name].inconsistencies, name


def test_a_segment_column_is_a_member_of_the_column_dimension(
    results: dict[str, DocumentResult], checks: dict[str, XbrlCheck]
) -> None:
    segmented, statement_id = _segment(results["alpenglow_2025_annual_report"])
    report = xbrl_report(segmented)
    assert report.selection is not None
    assert report.selection.members == (("UtilitySegmentMember", "Utility segment"),)
    assert DEF_FILE in report.files
    facts = _facts(report)
    dimensional = {
        fid
        for fid, f in facts.items()
        if f["dimensions"].get(AXIS) == "tieout:UtilitySegmentMember"  # type: ignore[attr-defined]
    }
    in_column = {
        f"f_{f.fact.fact_id}"
        for f in report.selection.figures
        if f.line is not None and f.line[0] == statement_id and f.member is not None
    }
    assert dimensional and dimensional == in_column
    check = checks["segment"]
    assert check.report_ok, [(m.code, m.text) for m in check.errors]
    found = agreement(segmented, report.selection, check)
    assert found.one_to_one and found.inconsistencies == 0


def test_a_tot001_flag_folded_into_another_rules_flag_still_counts(
    results: dict[str, DocumentResult],
) -> None:
    """One misprint, one finding: the localization folds a TOT001 flag into the first flag by precedence."""
    result = results["kaizen_fy2025_annual_report"]
    tot001 = next(f for f in result.flags if f.rule == "TOT001")
    host = tot001.model_copy(
        update={
            "rule": "XST001",
            "reasons": [f"one misprint, one finding: ... folded into this one (TOT001 {tot001.flag_id})"],
        }
    )
    folded = result.model_copy(update={"flags": [host if f is tot001 else f for f in result.flags]})
    assert tot001_totals(folded) == tot001_totals(result) != []
    other = host.model_copy(update={"reasons": []})  # a flag of another rule, folding nothing
    assert tot001_totals(result.model_copy(update={"flags": [other]})) == []


def test_a_balance_identity_flag_that_stands_for_a_node_counts_as_its_total(
    net_assets: DocumentResult, checks: dict[str, XbrlCheck]
) -> None:
    """The checks keep BAL001's flag where it compares the very figures of a TOT001 node ("Net assets" =
    total assets - total liabilities): Arelle's inconsistency on that summation is that flag's, not one
    TOT001 lacks."""
    assert [f.rule for f in net_assets.flags] == ["BAL001"]
    found = agreement(net_assets, select(net_assets), checks["net_assets"])
    assert found.inconsistencies == 1 and found.one_to_one and found.matched == found.flags == 1


def test_a_tree_line_whose_kept_copy_prints_other_digits_keeps_its_own(
    rounded_copy: tuple[DocumentResult, str], checks: dict[str, XbrlCheck]
) -> None:
    """Two statements print a figure one unit apart in the last place: the copies agree, but the income
    statement's summation must bind its own digits (those TOT001 adds), or Arelle finds a break that no
    page has. Its line publishes under a concept of its own."""
    result, statement_id = rounded_copy
    check = checks["rounded_copy"]
    assert check.report_ok and check.inconsistencies == []
    selection = select(result)
    own = [
        f
        for f in selection.figures
        if f.line is not None and f.line[0] == statement_id and f.fact.metric == "profit_before_tax"
    ]
    assert own and all(f.concept.name != concept_name("profit_before_tax") for f in own)
    assert agreement(result, selection, check).one_to_one


def test_a_value_with_excess_digits_fails_the_check(checks: dict[str, XbrlCheck]) -> None:
    check = checks["excess"]
    assert not check.report_ok
    assert [m.code for m in check.errors] == ["calc11e:excessDigits"]


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_check_needs_no_network(tmp_path: Path, results: dict[str, DocumentResult]) -> None:
    """Arelle loads the report with no network at all: nothing it needs is downloaded."""
    if subprocess.run(["unshare", "-rn", "true"], check=False).returncode != 0:
        pytest.skip("user namespaces are not allowed here")
    report = _write(xbrl_report(results["alpenglow_2025_annual_report"]), tmp_path / "r")
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "XDG_CONFIG_HOME": str(tmp_path)}
    cmd = ["unshare", "-rn", sys.executable, "-m", "adapters.xbrl.check", str(report)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    assert json.loads(done.stdout.split(" ", 1)[1]) == {"report": str(report), "messages": []}


def test_sample_reports_publish_facts_and_summations(results: dict[str, DocumentResult]) -> None:
    for name, result in results.items():
        report = xbrl_report(result)
        arcs = _ARC.findall(report.files[CAL_FILE])
        assert report.published and arcs, name
        assert {w for _, _, w in arcs} <= {b"1.0", b"-1.0"}


def test_planted_break_is_one_inconsistency_on_its_total(
    results: dict[str, DocumentResult], checks: dict[str, XbrlCheck]
) -> None:
    _, total = _planted(results["alpenglow_2025_annual_report"])
    check = checks["planted"]
    assert check.report_ok, [(m.code, m.text) for m in check.errors]
    assert len(check.inconsistencies) == 1
    found = check.inconsistencies[0]
    assert found.code == INCONSISTENT and found.concept == f"tieout:{total}"
    assert found.fact_ids and found.fact_ids[0].startswith("f_")


def test_every_fact_carries_where_it_is_printed_and_no_excess_digits(
    results: dict[str, DocumentResult],
) -> None:
    for result in results.values():
        report = xbrl_report(result)
        assert report.selection is not None
        figures = {f"f_{f.fact.fact_id}": f for f in report.selection.figures}
        by_id = {f.fact_id: f for f in result.facts}
        for fid, fact in _facts(report).items():
            source = figures[fid].fact
            location = fact["src:location"]
            assert location == {
                "document": result.source,
                "page": source.page,
                "bbox": list(source.bbox) if source.bbox else None,
                "label": source.label,
                "printed": source.printed,
                "factId": source.fact_id,
            }
            assert location["label"], fid  # a statement line without a metric keeps its label
            if source.fact_id in by_id:  # the engine's fact, as printed
                assert source.printed == by_id[source.fact_id].printed
            decimals = fact["decimals"]
            assert isinstance(decimals, int) and isinstance(fact["value"], str)
            assert Decimal(fact["value"]) % Decimal(1).scaleb(-decimals) == 0


def test_flagged_figures_are_published_marked_and_unscaled_ones_left_out(
    results: dict[str, DocumentResult],
) -> None:
    result = results["kaizen_fy2025_annual_report"]
    tot001 = {f.flag_id for f in result.flags if f.rule == "TOT001"}
    assert tot001
    report = xbrl_report(result)
    marked = {
        fid: {m["flagId"] for m in fact["src:openFlags"]}  # type: ignore[attr-defined]
        for fid, fact in _facts(report).items()
        if "src:openFlags" in fact
    }
    assert len([f for f, ids in marked.items() if ids & tot001]) >= 2  # the total and its lines
    clean = next(
        f for f in result.facts if f"f_{f.fact_id}" in report.published and f"f_{f.fact_id}" not in marked
    )
    unscaled = clean.model_copy(update={"value": None, "decimals": None, "scale": None, "scale_source": None})
    stripped = result.model_copy(update={"facts": [unscaled if f is clean else f for f in result.facts]})
    after = xbrl_report(stripped)
    assert clean.fact_id not in after.published.values()
    assert any(e.fact_id == clean.fact_id and e.reason == "scale not established" for e in after.excluded)


def test_a_conflicting_copy_is_left_out_and_its_statement_line_keeps_a_concept_of_its_own(
    results: dict[str, DocumentResult],
) -> None:
    result, selection = _alpenglow(results)
    line = next(f for f in selection.figures if f.line is not None and f.fact.metric)
    fact = line.fact
    copy = Fact.model_validate(
        {
            **fact.model_dump(),
            "fact_id": "copy",
            "origin": "text_span",
            "table_id": None,
            "row": None,
            "col": None,
            "value": fact.value + 10 * 10.0 ** (-fact.decimals),
        }
    )
    after = xbrl_report(result.model_copy(update={"facts": [*result.facts, copy]}))
    assert after.selection is not None
    left = _left_out(after)
    assert left["copy"].startswith("conflicting duplicates")
    moved = next(f for f in after.selection.figures if f.fact.fact_id == fact.fact_id)
    assert moved.concept.name != concept_name(fact.metric) and moved.line == line.line
    assert _facts(after)[f"f_{fact.fact_id}"]["src:metric"] == fact.metric


def test_a_total_whose_line_was_not_read_in_a_column_is_left_out(results: dict[str, DocumentResult]) -> None:
    """TOT001 does not add up a column where a line is blank (the reader may have lost it); Arelle would."""
    result, selection = _alpenglow(results)
    figures = selection.figures
    total, item = next(
        (t, i)
        for s in selection.summations
        for t in figures
        if t.line == (s.statement.statement_id, s.row)
        for i in figures
        if i.line is not None
        and i.line[0] == t.line[0]
        and i.col == t.col
        and i.concept.name == s.items[0][0]
    )
    tables = [
        t.model_copy(
            update={
                "cells": [
                    c.model_copy(update={"number": None, "text": ""})
                    if (c.page, c.bbox) == (item.fact.page, item.fact.bbox)
                    else c
                    for c in t.cells
                ]
            }
        )
        for t in result.tables
    ]
    after = xbrl_report(result.model_copy(update={"tables": tables}))
    left = _left_out(after)
    assert left[total.fact.fact_id].startswith("a total whose lines are not all read")


def test_a_total_whose_line_is_left_out_in_one_column_is_left_out_there_and_its_node_stated(
    results: dict[str, DocumentResult],
) -> None:
    """Calculations 1.1 reads a line left out as nil: the total goes too, in that column only."""
    result, selection = _alpenglow(results)
    figures = selection.figures
    by_id = {f.fact_id: f for f in result.facts}
    s, item = next(
        (s, i)
        for s in selection.summations
        for i in figures
        if i.line is not None
        and i.line[0] == s.statement.statement_id
        and i.concept.name == s.items[0][0]
        and i.fact.fact_id in by_id
        and i.fact.value
        and len({f.col for f in figures if f.line == (s.statement.statement_id, s.row)}) >= 2
    )
    total = next(f for f in figures if f.line == (s.statement.statement_id, s.row) and f.col == item.col)
    unscaled = by_id[item.fact.fact_id].model_copy(update={"scale_source": None})
    after = xbrl_report(
        result.model_copy(
            update={"facts": [unscaled if f.fact_id == unscaled.fact_id else f for f in result.facts]}
        )
    )
    assert after.selection is not None
    left = _left_out(after)
    assert left[item.fact.fact_id] == "scale not established"
    assert left[total.fact.fact_id].startswith("a total whose line")
    assert any(
        (x.statement.statement_id, x.row) == (s.statement.statement_id, s.row)
        for x in after.selection.summations
    )


def test_every_proven_node_of_the_samples_is_a_summation(results: dict[str, DocumentResult]) -> None:
    """The report states the trees TOT001 checks: each proven node with a published total is a summation."""
    for name, result in results.items():
        selection = select(result)
        stated = {(s.statement.statement_id, s.row) for s in selection.summations}
        skipped = {(s.statement_id, s.row) for s in selection.skipped}
        totals = {f.line for f in selection.figures if f.line is not None}
        for st in result.statements:
            lines = {line.row: line for line in st.lines}
            for line, _ in proven_structures(st, lines):
                key = (st.statement_id, line.row)
                if key in totals:
                    assert key in stated | skipped, (name, line.label)
        assert stated and len(skipped) <= len(stated) // 4, (name, selection.skipped)


def test_export_xbrl_writes_private_checked_reports(tmp_path: Path) -> None:
    out = tmp_path / "xbrl"
    res = CliRunner().invoke(app, ["export", "xbrl", str(SAMPLES[0]), "--out", str(out)])
    assert res.exit_code == 0, res.output
    (folder,) = out.iterdir()
    assert len(folder.name) == 64  # the document id
    names = {"report.json", "tieout-ext.xsd", "tieout-ext-cal.xml", "excluded.jsonl"}
    assert {p.name for p in folder.iterdir()} == names
    assert all(p.stat().st_mode & 0o077 == 0 for p in [folder, *folder.iterdir()])
    rows = [json.loads(line) for line in (folder / "excluded.jsonl").read_text().splitlines()]
    assert rows and all(set(r) == {"fact_id", "metric", "reason"} for r in rows)
    assert "Arelle errors" in res.output


def test_a_total_outside_its_statements_columns_is_left_out_where_a_summation_binds_it(
    results: dict[str, DocumentResult],
) -> None:
    """TOT001 adds up a statement's own columns only. A total printed again in another period (a five-year
    summary) beside one of its lines would be bound there by the statement's summation, whether the lines
    printed there are all of it or another breakdown: it is left out."""
    result, selection = _alpenglow(results)
    by_concept = {f.concept.name: f for f in selection.figures if f.fact.metric}
    # a summation whose total and lines are all metric figures, so each can be printed again elsewhere
    summation = next(
        s
        for s in selection.summations
        if s.total in by_concept and all(name in by_concept for name, _ in s.items)
    )
    figures = [by_concept[summation.total], *(by_concept[name] for name, _ in summation.items)]
    total = figures[0].fact
    assert total.period is not None
    elsewhere = Period(kind=total.period.kind, key="FY2015", label="2015", fiscal_year=2015, months=12)
    # every line printed there too, but another breakdown: they do not add up to the total
    copies = [
        Fact.model_validate(
            {
                **f.fact.model_dump(),
                "fact_id": f"y2015-{k}",
                "table_id": "summary",
                "page": 99,
                "period": elsewhere,
                "value": f.fact.value + (10 * 10.0 ** (-f.fact.decimals) if k == 0 else 0),
            }
        )
        for k, f in enumerate(figures)
    ]
    after = xbrl_report(result.model_copy(update={"facts": [*result.facts, *copies]}))
    left = _left_out(after)
    assert left.get("y2015-0") == "a total outside its statement's columns whose lines are published there"
    assert {f"y2015-{k}" for k in range(1, len(copies))} <= set(after.published.values())


def test_flows_under_a_date_head_are_not_published_as_instants(results: dict[str, DocumentResult]) -> None:
    """A 52/53-week year headed by its last day ("December 25, 2021"): the column reads as an instant, the
    engine gives the flows under it no period kind, and the report does not make them instants."""
    result = results["alpenglow_2025_annual_report"]
    income = next(s for s in result.statements if s.kind == "income")
    column = income.columns[0]
    assert column.period is not None and column.period.fiscal_year is not None
    day = f"{column.period.fiscal_year}-12-27"
    instant = Period(kind="instant", key=day, label=day, fiscal_year=column.period.fiscal_year, end_date=day)
    unknown = instant.model_copy(update={"kind": "unknown"})
    dated = income.model_copy(
        update={"columns": [column.model_copy(update={"period": instant}), *income.columns[1:]]}
    )
    statements = [dated if s is income else s for s in result.statements]
    facts = [
        f.model_copy(update={"period": unknown})
        if f.table_id == income.table_id and f.col == column.col
        else f
        for f in result.facts
    ]
    selection = select(result.model_copy(update={"statements": statements, "facts": facts}))
    in_column = [
        f
        for f in selection.figures
        if f.line is not None and f.line[0] == income.statement_id and f.col == column.col
    ]
    assert not in_column
    assert any("date head over flows" in e.reason for e in selection.excluded)
