"""The cross-page-link reward: a model's links scored against a serialised index of the printed numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.engine import process_path
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.model.grounding import PageIndex
from pipeline.rewards.links import (
    LINK_COMPONENTS,
    grpo_link_reward,
    page_index_json,
    restore_page_index,
    score_links,
)
from pipeline.rewards.verl_reward import LINKS_TASK, compute_score

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"


@pytest.fixture(scope="module")
def index() -> PageIndex:
    return PageIndex.of(process_path(SAMPLES / "northwind_2025_annual_report.pdf"), load_taxonomy())


@pytest.fixture(scope="module")
def index_text(index: PageIndex) -> str:
    # Through JSON text, as a dataset row carries it.
    return json.dumps(page_index_json(index))


# Northwind prints revenue FY2025 as 1,368.9 (millions) on pages 2, 3 and 4; FY2024 as 1,234.5.
RIGHT: dict[str, Any] = {
    "metric": "revenue",
    "period": "FY2025",
    "page_a": 2,
    "value_a": 1368.9,
    "page_b": 4,
    "value_b": 1368.9,
    "rationale": "highlights and income statement",
}


def _answer(*links: dict[str, Any]) -> str:
    return json.dumps({"links": list(links)})


def test_restored_index_holds_the_same_numbers(index: PageIndex, index_text: str) -> None:
    restored = restore_page_index(json.loads(index_text))
    assert restored.n_pages == index.n_pages == 8
    assert restored.by_page == index.by_page
    assert restored.printed(4, 1368.9) == index.printed(4, 1368.9) != []


def test_right_link_scores_one(index_text: str) -> None:
    score, components = score_links(_answer(RIGHT), index_text)
    assert score == 1.0
    assert components == dict.fromkeys(LINK_COMPONENTS, 1.0)
    # Fenced and inside prose, as chat models answer.
    assert score_links(f"Here you go:\n```json\n{_answer(RIGHT)}\n```", index_text)[0] == 1.0


def test_wrong_page(index_text: str) -> None:
    # Page 6 exists but does not print 1,368.9.
    score, components = score_links(_answer(dict(RIGHT, page_b=6)), index_text)
    assert components == {"parse_ok": 1.0, "pages_exist": 1.0, "values_printed": 0.0, "agreement": 0.0}
    assert score == pytest.approx(0.3)
    # A page the document does not have.
    score, components = score_links(_answer(dict(RIGHT, page_b=99)), index_text)
    assert components == {"parse_ok": 1.0, "pages_exist": 0.0, "values_printed": 0.0, "agreement": 0.0}
    assert score == pytest.approx(0.1)


def test_wrong_value(index_text: str) -> None:
    score, components = score_links(_answer(dict(RIGHT, value_b=1386.9)), index_text)
    assert components["values_printed"] == 0.0 and components["agreement"] == 0.0
    assert score == pytest.approx(0.3)
    # Printed on both pages, but it is the FY2024 figure: printed, yet not the period the link names.
    score, components = score_links(_answer(dict(RIGHT, value_a=1234.5, value_b=1234.5)), index_text)
    assert components == {"parse_ok": 1.0, "pages_exist": 1.0, "values_printed": 1.0, "agreement": 0.0}
    assert score == pytest.approx(0.6)


def test_shares_over_links(index_text: str) -> None:
    score, components = score_links(_answer(RIGHT, dict(RIGHT, page_b=99)), index_text)
    assert components == {"parse_ok": 1.0, "pages_exist": 0.5, "values_printed": 0.5, "agreement": 0.5}
    assert score == pytest.approx(0.55)


@pytest.mark.parametrize(
    "answer",
    [
        '{"links": [{"metric": "revenue", "period": "FY2025", "page_a": 2',  # cut off
        "The revenue is the same on pages 2 and 4.",  # no JSON
        json.dumps({"links": [dict(RIGHT, page_a="two")]}),  # not the schema
        json.dumps({"links": [dict(RIGHT, extra=1)]}),  # extra field: the schema forbids it
        json.dumps([RIGHT]),  # a bare list, not CrossPageLinks
    ],
)
def test_malformed_scores_zero(index_text: str, answer: str) -> None:
    assert score_links(answer, index_text) == (0.0, dict.fromkeys(LINK_COMPONENTS, 0.0))


def test_no_links_and_bad_index(index_text: str) -> None:
    assert score_links('{"links": []}', index_text) == (
        0.1,
        {**dict.fromkeys(LINK_COMPONENTS, 0.0), "parse_ok": 1.0},
    )
    assert score_links(_answer(RIGHT), "not json")[0] == 0.0
    assert score_links(_answer(RIGHT), {"pages": {}})[0] == 0.0  # no version: not a page index


def test_grpo_link_reward_rows(index_text: str) -> None:
    completions = [[{"role": "assistant", "content": _answer(RIGHT)}], "oops", _answer(RIGHT)]
    got = grpo_link_reward(
        prompts=["p"] * 3,
        completions=completions,
        page_index=[index_text, index_text, None],
        trainer_state=None,
    )
    assert got == [1.0, 0.0, None]


def test_compute_score_for_a_link_row(index_text: str) -> None:
    extra = {"doc_id": "d", "task": LINKS_TASK}
    got = compute_score(
        data_source="tieout/northwind_2025_annual_report.pdf",
        solution_str=_answer(RIGHT),
        ground_truth=index_text,
        extra_info=extra,
        num_turns=1,
        format_weight=0.1,
    )
    assert got["score"] == 1.0
    assert all(got[name] == 1.0 for name in LINK_COMPONENTS)
    # The extraction components are there too (0.0), so verl's per-sample lists stay aligned.
    assert got["values"] == 0.0 and got["well_formed"] == 0.0
