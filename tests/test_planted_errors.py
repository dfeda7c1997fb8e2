"""The planted-errors benchmark's pure parts, and one real plant in a tiny in-memory PDF (no corpus)."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

# ``bench`` is not an installed package: make it importable when pytest is run as a script.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import open_pdf
from bench.planted_errors import (
    KINDS,
    Candidate,
    EngineRun,
    EvidenceRec,
    FlagRec,
    Outcome,
    PlantResult,
    Word,
    base14_font,
    carries_figure,
    catching_flag,
    choose_plants,
    classify_statement,
    find_candidates,
    flag_key,
    group_thousands,
    mentions,
    mutate,
    mutations,
    parse_amount,
    plant,
    scan_document,
    score,
    score_splits,
    split_of,
    table_figures,
    verify_words,
)

# --- tokens ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token", ["1,234", "(842.1)", "$12,345", "3,004.5", "1,000", "123", "-1,234", "$(1,234)"]
)
def test_amounts_parse(token: str) -> None:
    assert parse_amount(token) is not None


@pytest.mark.parametrize(
    "token", ["2021", "1999", "12", "0123", "(1,234", "1,234)", "12.5", "1,2345", "5%", "--123"]
)
def test_non_amounts(token: str) -> None:
    assert parse_amount(token) is None


def test_amount_parts() -> None:
    amount = parse_amount("$(3,004.5)")
    assert amount is not None
    assert (amount.core, amount.key, amount.value, amount.negative) == ("3,004.5", "3004.5", -3004.5, True)
    assert parse_amount("2,021") is not None  # a year has no separator
    assert parse_amount("2200") is not None  # outside 1900–2100


def test_group_thousands() -> None:
    assert [group_thousands(d) for d in ("1", "123", "1234", "123456", "1234567")] == [
        "1",
        "123",
        "1,234",
        "123,456",
        "1,234,567",
    ]


def test_swap() -> None:
    assert mutations("1,234", "swap") == ["2,134", "1,324", "1,243"]
    assert mutations("(842.1)", "swap") == ["(482.1)", "(824.1)", "(841.2)"]
    assert "$13,245" in mutations("$12,345", "swap")
    assert mutations("3,004.5", "swap") == ["3,040.5", "3,005.4"]  # 0,304.5 would start with a zero
    assert mutations("1,000", "swap") == []  # only equal digits or a leading zero: impossible


def test_drop_regroups_and_never_leaves_a_leading_zero() -> None:
    assert mutations("12,345", "drop") == ["2,345", "1,345", "1,245", "1,235", "1,234"]
    assert mutations("1,034", "drop") == ["134", "104", "103"]  # "034" is not a number
    assert mutations("(842.1)", "drop") == ["(42.1)", "(82.1)", "(84.1)"]
    assert mutations("1,000", "drop") == ["100"]


def test_double() -> None:
    assert "122,345" in mutations("12,345", "double")
    assert mutations("123", "double") == ["1,123", "1,223", "1,233"]  # grouped like the rest of the filing
    assert "112345" in mutations("12345", "double")  # an ungrouped 5-digit figure stays ungrouped


def test_sign() -> None:
    assert mutations("1,234", "sign") == ["(1,234)"]
    assert mutations("(1,234)", "sign") == ["1,234"]
    assert mutations("$12,345", "sign") == ["$(12,345)"]
    assert mutations("$(12,345)", "sign") == ["$12,345"]
    assert mutations("-1,234", "sign") == ["1,234"]


def test_scale() -> None:
    assert mutations("1,234", "scale") == ["1,234,000"]
    assert mutations("3,004.5", "scale") == ["3,004,500"]
    assert mutations("(842.1)", "scale") == ["(842,100)"]
    assert mutations("$12,345", "scale") == ["$12,345,000"]


def test_every_mutation_is_a_different_valid_amount() -> None:
    tokens = ["1,234", "(842.1)", "$12,345", "3,004.5", "1,000", "100", "9,999.99", "-7,070"]
    for token in tokens:
        for kind in KINDS:
            for new in mutations(token, kind):
                parsed = parse_amount(new, strict=False)
                assert parsed is not None, (token, kind, new)
                assert parsed.digits == "0" or not parsed.digits.startswith("0")
                assert "," not in parsed.int_part or parsed.int_part == group_thousands(parsed.digits)
                assert parsed.value != parse_amount(token).value  # type: ignore[union-attr]


def test_mutate_is_seeded_and_rejects_unknown_kinds() -> None:
    assert mutate("12,345", "swap", random.Random(7)) == mutate("12,345", "swap", random.Random(7))
    assert mutate("1,000", "swap", random.Random(1)) is None
    with pytest.raises(ValueError):
        mutations("1,234", "typo")


# --- statements --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "statement"),
    [
        ("CONSOLIDATED BALANCE SHEETS", "balance"),
        ("Consolidated Statement of Financial Position", "balance"),
        ("Condensed Consolidated Statements of Operations", "income"),
        ("CONSOLIDATED STATEMENTS OF INCOME", "income"),
        ("Consolidated Statements of Income and Comprehensive Income", "income"),
        ("Consolidated Statements of Comprehensive Income (Loss)", "comprehensive"),
        ("CONSOLIDATED STATEMENTS OF CASH FLOWS", "cash_flow"),
        ("Consolidated Statements of Shareholders’ Equity", "equity"),
        ("Consolidated Statement of Changes in Equit y", "equity"),  # a word split by the PDF's text
        ("Management’s Discussion and Analysis of Financial Condition and Results of Operations", "other"),
        ("Off-Balance Sheet Arrangements", "other"),
        ("NOTE 12. Stockholders' Equity", "other"),
        ("Accumulated other comprehensive income (loss)", "other"),
    ],
)
def test_classify_statement(title: str, statement: str) -> None:
    assert classify_statement(["Table of Contents", "ACME INC.", title, "(In millions)"]) == statement


def test_classify_statement_reads_only_the_top_and_skips_prose() -> None:
    filler = [f"line {i}" for i in range(12)]
    assert classify_statement([*filler, "CONSOLIDATED BALANCE SHEETS"]) == "other"
    prose = (
        "As shown in the consolidated statements of operations, revenue grew in every segment we report on."
    )
    assert classify_statement([prose, "CONSOLIDATED BALANCE SHEETS"]) == "balance"


@pytest.mark.parametrize(
    ("font", "flags", "base14"),
    [
        ("TimesNewRomanPSMT", 4, "tiro"),
        ("TimesNewRomanPS-BoldMT", 20, "tibo"),
        ("ArialMT", 4, "helv"),  # MuPDF calls it serifed; the name says otherwise
        ("AmplitudeTF-Bold", 20, "hebo"),
        ("NewCenturySchlbkLTStd-Bd", 4, "tibo"),
        ("ABCDEF+Unknown", 0, "helv"),
        ("ABCDEF+Unknown", 4, "tiro"),
    ],
)
def test_base14_font(font: str, flags: int, base14: str) -> None:
    assert base14_font(font, flags) == base14


# --- candidates --------------------------------------------------------------------------------------


def _row(y: float, *texts: str, x: float = 50.0, step: float = 80.0) -> list[Word]:
    return [(x + i * step, y - 8, x + i * step + 40, y, t) for i, t in enumerate(texts)]


def test_table_figures_keep_rows_and_drop_prose_percentages_and_page_numbers() -> None:
    words = [
        *_row(100, "Revenue", "1,234", "1,100"),  # a table row: both figures
        *_row(120, "Tax", "$", "(842.1)", "$", "700"),  # "$" words are skipped
        *_row(140, "grew", "1,234", "million"),  # prose: the neighbours are words
        *_row(160, "Margin", "1,234", "%"),  # a percentage
        *_row(180, "Years", "2022", "2021"),  # years are not amounts
        *_row(200, "Note", "5", "4,321"),  # a small number is a neighbour
        *_row(780, "1,234", "777"),  # bottom margin: page numbers and footers
    ]
    figures = [w[4] for w in table_figures(words, page=5, height=800)]
    assert figures == ["1,234", "1,100", "(842.1)", "700", "4,321"]


def test_table_figures_skip_the_page_number_and_shadowed_words() -> None:
    words = [*_row(100, "Total", "105", "1,234"), (210.0, 92.0, 250.0, 100.0, "1,234")]  # drawn twice
    assert [w[4] for w in table_figures(words, page=105, height=800)] == []


def test_find_candidates_requires_the_digits_twice() -> None:
    page1 = _row(100, "Revenue", "1,234", "5,678")
    page2 = _row(300, "Total", "(1,234)", "9,999")  # same digits as page 1's 1,234
    found = find_candidates([(1, 800.0, page1), (2, 800.0, page2)])
    assert [(p, w[4]) for p, w in found] == [(1, "1,234"), (2, "(1,234)")]


def test_choose_plants_is_reproducible_and_skips_impossible_kinds() -> None:
    cands = [
        Candidate(1, (0, 0, 10, 10), "1,000"),
        *(Candidate(2, (0, i, 10, i + 8), "12,345") for i in range(5)),
    ]
    a = choose_plants(cands, 1, "x.pdf", "swap", tries=3)
    b = choose_plants(list(reversed(cands)), 1, "x.pdf", "swap", tries=3)
    assert a == b and len(a) == 3
    assert all(c.text == "12,345" and new in mutations("12,345", "swap") for c, new in a)
    assert choose_plants(cands, 2, "x.pdf", "swap", tries=3) != a  # another seed, another draw
    assert choose_plants([cands[0]], 1, "x.pdf", "swap", tries=3) == []


# --- verification and scoring ------------------------------------------------------------------------


def test_verify_words() -> None:
    old: Word = (100.0, 92.0, 130.0, 100.0, "1,234")
    before = [(10.0, 92.0, 60.0, 100.0, "Revenue"), old, (150.0, 92.0, 180.0, 100.0, "1,100")]
    good = [before[0], (100.2, 92.0, 130.1, 100.0, "1,243"), before[2]]
    assert verify_words(before, good, old, "1,243", right=130.0)
    moved = [before[0], (100.0, 120.0, 130.0, 128.0, "1,243"), before[2]]
    assert not verify_words(before, moved, old, "1,243", right=130.0)
    neighbour_lost = [before[0], (100.2, 92.0, 130.1, 100.0, "1,243")]
    assert not verify_words(before, neighbour_lost, old, "1,243", right=130.0)


def _flag(rule: str = "TOT001", pages: tuple[int, ...] = (3,), **kw: Any) -> FlagRec:
    evidence = kw.pop(
        "evidence", [EvidenceRec(page=3, bbox=[1, 2, 3, 4], text="Total: 9,999", role="total", value=9.999e9)]
    )
    base = FlagRec(
        flag_id="f", rule=rule, kind="sum_mismatch", metric="revenue", period="FY2023", pages=list(pages),
        expected=None, actual=None, message="m", evidence=evidence,
    )  # fmt: skip
    base.update(kw)  # type: ignore[typeddict-item]
    return base


def test_carries_figure_by_scaled_value_or_printed_digits() -> None:
    assert carries_figure(_flag(actual=11e6), "119", "11")  # a dropped digit leaves a short number
    assert carries_figure(_flag(expected=1.243e9), "1,234", "1,243")  # new value, in millions
    assert carries_figure(_flag(actual=-1234.0), "(1,234)", "1,234")  # sign-insensitive
    assert carries_figure(_flag(actual=1.234e6), "1,234", "1,243")  # old value, in thousands
    assert not carries_figure(_flag(actual=1.2345e9), "1,234", "1,243")
    text = [EvidenceRec(page=3, bbox=None, text="Revenue: $1,243", role="table", value=None)]
    assert carries_figure(_flag(evidence=text), "1,234", "1,243")
    assert not mentions("Revenue: 11,243", ["1,243"]) and not mentions("1,243.5", ["1,243"])
    assert mentions("was 1,243, up", ["1,243"])


def test_catching_flag_needs_a_new_flag_on_the_page_with_the_figure() -> None:
    hit = _flag(expected=1.243e9)
    assert catching_flag([hit], [], page=3, old="1,234", new="1,243") is hit
    assert catching_flag([hit], [], page=4, old="1,234", new="1,243") is None  # another page
    assert catching_flag([_flag()], [], page=3, old="1,234", new="1,243") is None  # another figure


def test_a_flag_the_clean_run_already_had_is_not_a_catch() -> None:
    ev_old = EvidenceRec(
        page=3, bbox=[10, 20, 30, 28], text="Revenue: 1,234", role="component", value=1.234e9
    )
    ev_new = EvidenceRec(page=3, bbox=[9, 20, 30, 28], text="Revenue: 1,243", role="component", value=1.243e9)
    total = EvidenceRec(page=3, bbox=[10, 40, 30, 48], text="Total: 5,000", role="total", value=5e9)
    clean = _flag(evidence=[ev_old, total], flag_id="a")
    planted = _flag(evidence=[ev_new, total], flag_id="b")  # another flag_id: the document id changed
    assert flag_key(clean, ("1,234", "1,243")) == flag_key(planted, ("1,234", "1,243"))
    assert catching_flag([planted], [clean], page=3, old="1,234", new="1,243") is None
    other_total = EvidenceRec(page=3, bbox=[10, 40, 30, 48], text="Total: 6,000", role="total", value=6e9)
    assert catching_flag([planted], [_flag(evidence=[ev_old, other_total])], 3, "1,234", "1,243") is planted


def test_score_counts_and_verdicts() -> None:
    hit = _flag(expected=1.243e9)
    outcome = Outcome(files=["a.pdf"], seconds=1.0)
    outcome.clean["a.pdf"] = {
        "file": "a.pdf",
        "error": None,
        "run": EngineRun(pages=1000, flags=[_flag(pages=(9,), evidence=[])], seconds=1.0),
        "candidates": [],
        "seconds": 1.0,
    }
    cand = Candidate(3, (0, 0, 10, 10), "1,234", "income")

    def plant_result(kind: str, flags: list[FlagRec]) -> PlantResult:
        return PlantResult(
            file="a.pdf", seed=1, kind=kind, status="ok", error=None, candidate=cand, new="1,243",
            discarded=1, run=EngineRun(pages=1000, flags=flags, seconds=1.0), seconds=1.0,
        )  # fmt: skip

    outcome.plants = [plant_result("swap", [hit]), plant_result("drop", [])]
    lines, summary = score(outcome, ["swap", "drop"], [1])
    assert summary["by_kind"]["swap"] == {"planted": 1, "caught": 1, "rate": 1.0}
    assert summary["by_statement"]["income"] == {"planted": 2, "caught": 1, "rate": 0.5}
    assert summary["false_flags_per_100_pages"] == pytest.approx(0.1)
    assert summary["discarded"] == 2
    assert [p["caught"] for p in summary["plants"]] == [True, False]
    assert summary["targets"]["swap_caught"]["pass"] is True
    assert summary["targets"]["all_caught"]["pass"] is False
    assert summary["targets"]["false_flags_per_100_pages"]["pass"] is True
    assert any("FAIL" in line for line in lines) and any("PASS" in line for line in lines)


# --- a real plant --------------------------------------------------------------------------------------


def _table_pdf() -> bytes:
    rows = [
        ("Revenue", "1,234", "1,100"),
        ("Cost of sales", "(842)", "(700)"),
        ("Gross profit", "392", "400"),
        ("Revenue, as reported", "1,234", "1,100"),
    ]
    with open_pdf() as doc:
        page = doc.new_page(width=400, height=300)
        for i, (label, a, b) in enumerate(rows):
            y = 80 + 16 * i
            page.insert_text((40, y), label, fontsize=10, fontname="tiro")
            for text, right in ((a, 260.0), (b, 340.0)):
                width = 5.0 * len(text)  # roughly right-aligned; the plant measures the real word
                page.insert_text((right - width, y), text, fontsize=10, fontname="tiro")
        return bytes(doc.tobytes())


def test_plant_a_swap_in_a_real_pdf() -> None:
    data = _table_pdf()
    cands = scan_document(data)
    assert {c.text for c in cands} == {"1,234", "1,100"}  # the figures printed twice
    cand, new = choose_plants(cands, 1, "t.pdf", "swap", tries=1)[0]
    planted = plant(data, cand, new)
    assert planted is not None
    with open_pdf(stream=data, filetype="pdf") as before, open_pdf(stream=planted, filetype="pdf") as after:
        old_words = Counter(w[4] for w in before[0].get_text("words"))
        new_words = Counter(w[4] for w in after[0].get_text("words"))
        placed = [w for w in after[0].get_text("words") if w[4] == new]
    assert old_words - new_words == Counter({cand.text: 1})
    assert new_words - old_words == Counter({new: 1})
    assert abs(placed[0][2] - cand.bbox[2]) < 1.0 and abs(placed[0][3] - cand.bbox[3]) < 1.0


def test_the_validation_split_is_reported_as_aggregates_beside_the_development_files(tmp_path: Path) -> None:
    manifest = tmp_path / "MANIFEST.tsv"
    manifest.write_text(
        "file\tpages\tnotes\n"
        "filings/dev.pdf\t10\tadded: development\n"
        "filings/val.pdf\t10\tadded 2026-12-01: validation split (measure only)\n",
        encoding="utf-8",
    )
    splits = split_of([Path("dev.pdf"), Path("val.pdf"), Path("elsewhere/own.pdf")], manifest)
    assert splits == {"dev.pdf": "development", "val.pdf": "validation", "own.pdf": "development"}

    cand = Candidate(3, (0, 0, 10, 10), "1,234", "income")
    outcome = Outcome(files=["dev.pdf", "val.pdf"], seconds=1.0)
    for name, flags in (("dev.pdf", []), ("val.pdf", [_flag(pages=(9,), evidence=[])])):
        outcome.clean[name] = {
            "file": name, "error": None, "run": EngineRun(pages=100, flags=flags, seconds=1.0),
            "candidates": [], "seconds": 1.0,
        }  # fmt: skip
        # A plant caught by one flag, beside a second new flag elsewhere: precision 1 of 2.
        other = _flag(pages=(7,), evidence=[], expected=5.0)
        outcome.plants.append(
            PlantResult(
                file=name, seed=1, kind="swap", status="ok", error=None, candidate=cand, new="1,243",
                discarded=0, run=EngineRun(pages=100, flags=[_flag(expected=1.243e9), other], seconds=1.0),
                seconds=1.0,
            )
        )  # fmt: skip
    lines, summary = score_splits(outcome, ["swap"], [1], splits)
    dev, val = summary["splits"]["development"], summary["splits"]["validation"]
    assert dev["plants"] and dev["clean_flags"] == []
    # The validation split: figures only, never a file, plant or flag to read.
    assert "plants" not in val and "clean_flags" not in val and val["files"] == 1
    assert val["false_flags_by_rule"] == {"TOT001": 1} and val["false_flags_per_100_pages"] == 1.0
    assert not any("val.pdf" in line for line in lines)
    # On val.pdf the second flag is the clean run's own (same rule, metric, period and evidence): not new.
    assert summary["side_by_side"]["precision on planted copies %"] == {
        "development": 0.5, "validation": 1.0, "all": pytest.approx(2 / 3),
    }  # fmt: skip
    assert summary["side_by_side"]["false flags"] == {"development": 0, "validation": 1, "all": 1}


def test_the_validation_reliability_uses_a_model_fitted_on_development_flags_only() -> None:
    from bench.planted.reporting import _validation_refit

    def lab(keying: float, real: bool) -> dict[str, Any]:
        return {
            "rule": "TOT001",
            "confidence": 0.8,
            "features": {"rule:TOT001": 1.0, "keying": keying},
            "real": real,
        }

    dev = [lab(1.0, i % 20 != 0) for i in range(60)] + [lab(0.0, i % 4 == 0) for i in range(60)]
    summaries: dict[str, dict[str, Any]] = {"development": {"labelled_flags": dev}, "validation": {}}
    hidden = [lab(1.0, True)] * 9 + [lab(1.0, False)] + [lab(0.0, False)] * 10
    lines = _validation_refit(summaries, hidden)
    queue = summaries["validation"]["queue_above_threshold"]
    assert queue["flags"] == 10 and queue["precision"] == pytest.approx(0.9)
    assert sum(r["flags"] for r in summaries["validation"]["reliability_refit_on_development"]) == 20
    assert "labelled_flags" not in summaries["validation"] and not any("TOT001" in line for line in lines)
