"""Ground-truth loaders, the cell-F1 metric and the benchmark helpers (no timing assertions)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

# ``bench`` is not an installed package: make it importable when pytest is run as a script.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import (
    GTTable,
    best_f1,
    cell_f1,
    corpus_dir,
    load_all,
    load_camelot,
    load_icdar,
    load_tabula,
    normalise,
    open_pdf,
)
from bench.parse_throughput import report as throughput_report
from bench.peak_rss import parse_vmhwm, peak_rss_mb
from bench.table_accuracy import MethodRun, tables_by_page
from bench.table_accuracy import report as accuracy_report
from schemas.models import Cell, Table

# --- normalise -------------------------------------------------------------------------------------


def test_normalise_removes_camelot_line_break_artefact() -> None:
    assert normalise("N\net Asset Value") == normalise("Net Asset Value") == "netassetvalue"


def test_normalise_drops_superscript_markup_and_folds() -> None:
    assert normalise("Loans<s>1</s> from\tRBI") == "loans1fromrbi"
    assert normalise("１，２３４") == "1,234"  # full-width digits and comma (NFKC)
    assert normalise("  \r\n ") == ""


# --- cell_f1 / best_f1 -----------------------------------------------------------------------------


def test_cell_f1_identical_and_empty() -> None:
    grid = [["a", "b"], ["c", ""]]
    assert cell_f1(grid, grid) == 1.0
    assert cell_f1(grid, []) == 0.0
    assert cell_f1([], grid) == 0.0
    assert cell_f1([["", " "]], [["", None]]) == 0.0


def test_cell_f1_ignores_positions_and_blank_cells() -> None:
    assert cell_f1([["a", "b"], ["c", "d"]], [["", "d", "c"], [None, "b", "a"]]) == 1.0


def test_cell_f1_partial_match() -> None:
    # P = 2/3, R = 2/4 -> F1 = 4/7
    assert cell_f1([["a", "b", "c", "d"]], [["a", "b", "e"]]) == pytest.approx(4 / 7)


def test_cell_f1_counts_duplicates_as_a_multiset() -> None:
    # GT has "-" twice, extraction once: P = 1, R = 1/2 -> F1 = 2/3
    assert cell_f1([["-", "-"]], [["-"]]) == pytest.approx(2 / 3)


def test_cell_f1_penalises_merged_cells() -> None:
    # Two GT cells merged into one extracted cell match neither.
    assert cell_f1([["Revenue", "1,234"]], [["Revenue 1,234"]]) == 0.0


def test_best_f1_takes_the_best_table_on_the_page() -> None:
    gt = GTTable(Path("x.pdf"), 1, "x:t", [["a", "b"], ["c", "d"]])
    assert best_f1(gt, []) == 0.0
    assert best_f1(gt, [[["z"]], [["a", "b"], ["c", "d"]], [["a"]]]) == 1.0


# --- loaders on hand-made files --------------------------------------------------------------------


def test_load_camelot_pads_rows_and_keeps_multiline_cells(tmp_path: Path) -> None:
    path = tmp_path / "doc.gt.camelot-stream.csv"
    path.write_text('Key figures,\n,2016\n"N\net Asset Value","5,111,372",x\n', encoding="utf-8")
    (table,) = load_camelot(path)
    assert table.pdf == tmp_path / "doc.pdf"
    assert table.page == 1
    assert table.name == "doc:camelot"
    assert table.cells == [["Key figures", "", ""], ["", "2016", ""], ["N\net Asset Value", "5,111,372", "x"]]
    assert table.shape == (3, 3)


def test_load_tabula_splits_tables_with_json(tmp_path: Path) -> None:
    csv_path = tmp_path / "two.gt.tabula-lattice.csv"
    csv_path.write_text('"",A,B\nr1,1,2\n"",C,D,E\nr2,3,4,5\nr3,6,7,8\n', encoding="utf-8")
    specs = [
        {"page_number": 1, "data": [[{"text": ""}] * 3] * 2},
        {"page_number": 2, "data": [[{"text": ""}] * 4] * 3},
    ]
    csv_path.with_suffix(".json").write_text(json.dumps(specs), encoding="utf-8")
    first, second = load_tabula(csv_path)
    assert (first.name, first.page, first.cells) == ("two:tabula-t1", 1, [["", "A", "B"], ["r1", "1", "2"]])
    assert (second.name, second.page, second.shape) == ("two:tabula-t2", 2, (3, 4))
    assert second.cells[-1] == ["r3", "6", "7", "8"]


def test_load_tabula_rejects_json_that_does_not_match(tmp_path: Path) -> None:
    csv_path = tmp_path / "bad.gt.tabula-lattice.csv"
    csv_path.write_text("a,b\nc,d\n", encoding="utf-8")
    csv_path.with_suffix(".json").write_text(json.dumps([{"page_number": 1, "data": [[]]}]), encoding="utf-8")
    with pytest.raises(ValueError, match="rows"):
        load_tabula(csv_path)


def test_load_tabula_without_json_is_one_table(tmp_path: Path) -> None:
    path = tmp_path / "frx.gt.tabula-lattice-area.csv"
    path.write_text("a,b\nc,d\n", encoding="utf-8")
    (table,) = load_tabula(path)
    assert (table.name, table.page, table.shape) == ("frx:tabula", 1, (2, 2))


def test_load_icdar_reads_page_from_name(tmp_path: Path) -> None:
    path = tmp_path / "us-018.gt.table3-p3.csv"
    path.write_text(",,\nRegion,2004,2005\n\n", encoding="utf-8")
    (table,) = load_icdar(path)
    assert (table.name, table.page, table.cells) == (
        "us-018:table3-p3",
        3,
        [["", "", ""], ["Region", "2004", "2005"]],
    )


def test_load_all_dispatches_by_name_and_ignores_other_files(tmp_path: Path) -> None:
    table_dir = tmp_path / "table"
    table_dir.mkdir()
    (table_dir / "a.gt.camelot-stream.csv").write_text("x\n", encoding="utf-8")
    (table_dir / "b.gt.table1-p2.csv").write_text("y\n", encoding="utf-8")
    (table_dir / "c.gt.tabula-lattice.csv").write_text("z\n", encoding="utf-8")
    (table_dir / "d.gt.accounting-identities.json").write_text("{}", encoding="utf-8")
    assert [t.name for t in load_all(tmp_path)] == ["a:camelot", "b:table1-p2", "c:tabula"]
    assert load_all(tmp_path / "missing") == []


def test_corpus_dir_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TIEOUT_CORPUS", str(tmp_path))
    assert corpus_dir() == tmp_path


# --- benchmark helpers -----------------------------------------------------------------------------


def _cell(row: int, col: int, text: str, page: int) -> Cell:
    return Cell(row=row, col=col, text=text, page=page)


def test_tables_by_page_splits_a_stitched_table() -> None:
    cells = [_cell(0, 0, "a", 1), _cell(0, 1, "1", 1), _cell(1, 0, "b", 2), _cell(1, 1, "2", 2)]
    table = Table(
        table_id="t1", doc_id="d", source="s.pdf", page=1, pages=[1, 2], bbox=(0, 0, 1, 1),
        n_rows=2, n_cols=2, row_pages=[1, 2], cells=cells, method="ruled", continued=True,
    )  # fmt: skip
    assert tables_by_page([table]) == {1: [[["a", "1"]]], 2: [[["b", "2"]]]}


def test_accuracy_report_ends_with_the_mean_line() -> None:
    gts = [GTTable(Path("x.pdf"), 1, "x:t", [["a"]])]
    runs = {
        "tieout": MethodRun(unavailable="ImportError: no engine"),
        "camelot_stream": MethodRun(scores={"x:t": 0.5}, pages=1, seconds=0.5),
    }
    lines = accuracy_report(runs, gts)
    assert lines[-1] == "mean cell F1: tieout=n/a camelot_stream=0.500"
    assert any("target tieout mean cell F1 >= 0.95: n/a" in line for line in lines)


def test_throughput_report_ratios() -> None:
    docs = {"d.pdf": {"pages": 40, "seconds": 1.0}}
    results = {
        "tieout": {"docs": docs, "peak_rss_mb": 100.0},
        "pymupdf": {"docs": {"d.pdf": {"pages": 40, "seconds": 0.5}}, "peak_rss_mb": 90.0},
        "pdfplumber": {"docs": {"d.pdf": {"pages": 10, "seconds": 5.0}}, "peak_rss_mb": 200.0},
    }
    _, summary = throughput_report(results)
    assert summary["ratios"]["a_over_b"] == pytest.approx(0.5)
    assert summary["ratios"]["a_over_c"] == pytest.approx(20.0)


def test_parse_vmhwm_and_self() -> None:
    assert parse_vmhwm("Name:\tpython\nVmHWM:\t  20480 kB\nVmRSS:\t 1 kB\n") == 20.0
    with pytest.raises(RuntimeError):
        parse_vmhwm("Name:\tpython\n")
    if Path("/proc/self/status").exists():
        assert peak_rss_mb() > 1.0


# --- the real corpus -------------------------------------------------------------------------------

EXPECTED_SHAPES = {
    "camelot__edge_tol:camelot": (1, (27, 2)),
    "camelot__health:camelot": (1, (29, 8)),
    "camelot__superscript:camelot": (1, (36, 11)),
    "icdar2013__eu-002:table1-p1": (1, (6, 6)),
    "icdar2013__us-004:table1-p2": (2, (15, 7)),
    "icdar2013__us-009:table1-p1": (1, (22, 7)),
    "icdar2013__us-018:table1-p1": (1, (58, 11)),
    "icdar2013__us-018:table2-p2": (2, (58, 10)),
    "icdar2013__us-018:table3-p3": (3, (59, 5)),
    "icdar2013__us-018:table4-p4": (4, (32, 7)),
    "icdar2013__us-018:table5-p5": (5, (29, 4)),
    "icdar2013__us-018:table6-p6": (6, (32, 6)),
    "icdar2013__us-018:table7-p7": (7, (32, 6)),
    "tabula__frx_2012_disclosure:tabula": (1, (88, 5)),
    "tabula__twotables:tabula-t1": (1, (11, 6)),
    "tabula__twotables:tabula-t2": (1, (11, 8)),
}


@pytest.mark.corpus
def test_every_corpus_gt_table_loads_with_expected_shape(corpus: Path) -> None:
    tables = load_all(corpus)
    assert {t.name: (t.page, t.shape) for t in tables} == EXPECTED_SHAPES
    for table in tables:
        assert table.pdf.is_file(), table.pdf
        with open_pdf(table.pdf) as doc:
            assert 1 <= table.page <= doc.page_count, table.name
        assert all(len(row) == table.shape[1] for row in table.cells), table.name
        assert cell_f1(table.cells, table.cells) == 1.0, table.name


@pytest.mark.corpus
def test_corpus_gt_content_spot_checks(corpus: Path) -> None:
    tables = {t.name: t for t in load_all(corpus)}
    edge = tables["camelot__edge_tol:camelot"].cells
    assert normalise(edge[4][0]) == normalise("Net Asset Value at 31 December")
    assert tables["tabula__twotables:tabula-t1"].cells[2][:2] == ["当期首残高", "5,664"]
    assert tables["tabula__twotables:tabula-t2"].cells[-1][-1] == "18,683"
    assert tables["icdar2013__eu-002:table1-p1"].cells[0] == ["", "Q1", "Q2", "Q3", "Q4", "Total"]


@pytest.mark.corpus
@pytest.mark.slow
def test_tieout_scores_cover_every_gt_table(corpus: Path) -> None:
    from bench.table_accuracy import tieout_scores

    scores = tieout_scores(corpus)
    assert set(scores) == set(EXPECTED_SHAPES)
    assert all(0.0 <= f1 <= 1.0 for f1 in scores.values())
