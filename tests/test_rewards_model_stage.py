"""Reward records from the model stage's verified proposals, and datasets split by document."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from adapters.rewards_dataset import build_dataset, export_dataset, export_rewards, split_of
from pipeline.parse.chunks import count_tokens
from pipeline.rewards.links import LINK_WEIGHTS
from pipeline.rewards.records import build_reward_records
from schemas.models import DocumentResult, ModelCall, ModelReport, ProposalOutcome

STAMP = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
MESSAGES = [
    {"role": "system", "content": "You link figures across pages."},
    {
        "role": "user",
        "content": "[page 2] Revenue 1,368.9\n[page 4] Revenue 1,368.9\nFind figures on two pages.",
    },
]
ANSWER = '{"links": [{"metric": "revenue", "period": "FY2025", "page_a": 2, "value_a": 1368.9, ...}]}'


def _link(**changes: object) -> dict[str, object]:
    link: dict[str, object] = {
        "metric": "revenue", "period": "FY2025", "page_a": 2, "value_a": 1368.9, "page_b": 4,
        "value_b": 1368.9, "rationale": "r",
    }  # fmt: skip
    return link | changes


def _outcome(
    task: str, accepted: bool, reason: str, call_id: str | None = "c1", **changes: object
) -> ProposalOutcome:
    return ProposalOutcome(
        task=task, accepted=accepted, reason=reason, proposal=_link(**changes), pages=[2, 4], call_id=call_id
    )


def _doc(doc_id: str = "doc-1") -> DocumentResult:
    calls = [
        ModelCall(
            task="cross_page_links", prompt_version="v3", model="smollm2", tier="standard",
            route="task route", call_id="c1", messages=MESSAGES, answer=ANSWER, tokens_in=40, tokens_out=30,
        ),
        ModelCall(
            task="label_mapping", prompt_version="v3", model="deep-m", tier="deep", call_id="c2", answer="{}"
        ),
    ]  # fmt: skip
    outcomes = [
        _outcome("cross_page_links", True, "verified_consistent"),
        _outcome("cross_page_links", True, "verified_mismatch", value_b=1386.9),
        _outcome("cross_page_links", False, "page_out_of_range", page_b=99),
        _outcome("cross_page_links", False, "number_not_on_page", value_b=1.0),
        _outcome("cross_page_links", False, "period_mismatch", period="FY2024"),
        _outcome("label_mapping", False, "unknown_metric", call_id="c2"),
        _outcome("cross_page_links", False, "a_check_added_later"),
        _outcome("narrative_claims", False, "number_not_in_quote", call_id=None),
    ]
    return DocumentResult(
        doc_id=doc_id, source="x.pdf", pipeline_version="t",
        model=ModelReport(status="partial", calls=calls, outcomes=outcomes),
    )  # fmt: skip


def test_every_outcome_is_a_record() -> None:
    records = [r for r in build_reward_records(_doc(), created_at=STAMP) if r.outcome is not None]
    assert [r.outcome for r in records] == [o.reason for o in _doc().model.outcomes]  # type: ignore[union-attr]
    passed = [sum(r.components.values()) for r in records]
    # accepted: every stage; page out of range: parsed only; not on page: pages exist; period: printed;
    # unknown metric of a mapping: parsed; an unknown reason: parsed; a claim whose number is not in the
    # quote: pages exist.
    assert passed == [4, 4, 1, 2, 3, 1, 1, 2]
    for r in records:
        assert r.reward == pytest.approx(sum(LINK_WEIGHTS[k] * v for k, v in r.components.items()))
        assert 0.0 <= r.reward <= 1.0 and r.created_at == STAMP and r.doc_id == "doc-1"
    first = records[0]
    assert first.reward == 1.0 and first.task == "cross_page_links" and first.extractor == "model:smollm2"
    assert first.messages == MESSAGES and first.completion == ANSWER and first.call_id == "c1"
    assert first.context == MESSAGES[-1]["content"] and first.pages == [2, 4]
    assert json.loads(first.proposal or "") == _link()
    mapping = records[5]
    assert mapping.extractor == "model:deep-m" and mapping.messages == [] and mapping.completion == "{}"
    # No call to cite: the proposal itself is the completion.
    orphan = records[7]
    assert orphan.extractor == "model" and json.loads(orphan.completion) == _link()
    assert len({r.record_id for r in records}) == len(records)
    # Stable across runs.
    again = [r for r in build_reward_records(_doc(), created_at=STAMP) if r.outcome is not None]
    assert [r.record_id for r in again] == [r.record_id for r in records]


def test_no_model_stage_no_model_records() -> None:
    doc = _doc().model_copy(update={"model": None})
    assert build_reward_records(doc, created_at=STAMP) == []


def test_export_carries_messages_split_and_lengths(tmp_path: Path) -> None:
    records = build_reward_records(_doc(), created_at=STAMP)
    _, parquet = export_rewards(records, tmp_path)
    rows = pq.read_table(parquet).to_pylist()
    assert [r["outcome"] for r in rows] == [r.outcome for r in records]
    first = rows[0]
    assert first["messages"] == MESSAGES and first["call_id"] == "c1" and first["values_printed"] == 1.0
    assert first["split"] == split_of("doc-1")
    assert first["prompt_tokens"] == sum(count_tokens(m["content"]) for m in MESSAGES)
    assert first["answer_tokens"] == count_tokens(ANSWER)


def test_split_is_stable_and_by_document() -> None:
    ids = [f"doc-{i}" for i in range(400)]
    splits = [split_of(i) for i in ids]
    assert splits == [split_of(i) for i in ids]
    assert split_of("doc-1") == split_of("doc-1")
    share = {name: splits.count(name) / len(ids) for name in ("train", "val", "test")}
    assert 0.7 < share["train"] < 0.9 and 0.05 < share["val"] < 0.15 and 0.05 < share["test"] < 0.15


def test_link_rows_and_splits_of_a_dataset(tmp_path: Path) -> None:
    from pipeline.engine import process_path

    sample = Path(__file__).resolve().parent.parent / "sample_docs" / "northwind_2025_annual_report.pdf"
    result = process_path(sample)
    calls = [c.model_copy(update={"call_id": "c1"}) for c in _doc().model.calls[:1]]  # type: ignore[union-attr]
    result = result.model_copy(update={"model": ModelReport(status="done", calls=calls)})
    # A second document, another id: each document's rows stay in its split.
    other = result.model_copy(update={"doc_id": "another-doc"})
    rows = build_dataset([result, other], count=len, counter_name="characters")
    links = [r for r in rows if r["extra_info"]["task"] == "cross_page_links"]
    assert len(links) == 2 and all(r["ground_truth"] is None and r["page_index"] for r in links)
    assert (
        links[0]["prompt"] == MESSAGES and links[0]["reward_model"]["ground_truth"] == links[0]["page_index"]
    )
    for row in rows:
        info = row["extra_info"]
        assert row["split"] == info["split"] == split_of(info["doc_id"])
        assert info["token_counter"] == "characters"
        assert info["prompt_tokens"] == sum(len(m["content"]) for m in row["prompt"]) > 0
        assert info["answer_tokens"] > 0
    written = export_dataset(rows, tmp_path)
    by_split = {p.stem: pq.read_table(p).to_pylist() for p in written[2:]}
    assert sum(len(v) for v in by_split.values()) == len(rows)
    for name, part in by_split.items():
        assert {r["split"] for r in part} == {name}
    docs_per_split = {name: {r["extra_info"]["doc_id"] for r in part} for name, part in by_split.items()}
    seen = [d for ds in docs_per_split.values() for d in ds]
    assert len(seen) == len(set(seen))  # never one document in two splits
