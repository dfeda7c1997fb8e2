"""Rewards: the extraction scorer, its TRL/verl adapters, reward records, datasets and exports."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pydantic
import pytest
from typer.testing import CliRunner

from adapters.rewards_dataset import build_dataset, export_dataset, export_rewards
from pipeline.engine import process_path
from pipeline.rewards.functions import COMPONENTS, grpo_reward, implied_decimals, score_extraction
from pipeline.rewards.records import RewardRecord, build_reward_records
from pipeline.rewards.verl_reward import compute_score
from schemas.models import DocumentResult
from tieout.cli import app

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
TRUTH = json.loads((SAMPLES / "truth.json").read_text(encoding="utf-8"))
FLAGGED = ("northwind", "halvorsen", "kaizen", "sundaram")
CLEAN = ("aurelia", "alpenglow")


def _truth_doc(prefix: str) -> dict[str, Any]:
    return next(d for d in TRUTH["documents"] if d["file"].startswith(prefix))


@pytest.fixture(scope="module")
def results() -> dict[str, DocumentResult]:
    return {p.name.split("_")[0]: process_path(p) for p in sorted(SAMPLES.glob("*.pdf"))}


# --- hand-made completions for Northwind's truth ---------------------------------------------------

NORTHWIND = _truth_doc("northwind")
GROUND_TRUTH: dict[str, Any] = {"facts": NORTHWIND["facts"]}


def _answer(**changes: Any) -> list[dict[str, Any]]:
    """The exact answer (last page each figure is printed on), with per-fact edits applied."""
    facts = []
    for f in NORTHWIND["facts"]:
        fact = {"metric": f["metric"], "period": f["period"], "value": f["value"], "page": f["pages"][-1]}
        edit = changes.get(f"{f['metric']}@{f['period']}")
        if edit is not None:
            fact.update(edit)
        facts.append(fact)
    return facts


def _score(answer: object) -> tuple[float, dict[str, float]]:
    return score_extraction(answer if isinstance(answer, str) else json.dumps(answer), GROUND_TRUTH)


def _hand_made() -> dict[str, float]:
    exact = _answer()
    return {
        "exact": _score(exact)[0],
        # Every figure right, but cited on the cover page.
        "wrong_page": _score([dict(f, page=1) for f in exact])[0],
        # Every figure misread by 10% (a plausible misread that keeps the identities).
        "wrong_value": _score([dict(f, value=f["value"] * 1.1) for f in exact])[0],
        # Every figure 1,000 times too large (thousands read as units).
        "wrong_scale": _score([dict(f, value=f["value"] * 1000) for f in exact])[0],
        # Figures the document does not print: one real metric id, one made-up id.
        "invented": _score(
            [
                {"metric": "goodwill", "period": "2025-12-31", "value": 210_000_000, "page": 5},
                {"metric": "adjusted_ebitda", "period": "FY2025", "value": 250_000_000, "page": 2},
            ]
        )[0],
        "malformed": _score('[{"metric": "revenue", "period": "FY2025", "value": 1368900000, "page": 4')[0],
    }


def test_hand_made_completions_are_ranked() -> None:
    s = _hand_made()
    assert s["exact"] == 1.0
    assert s["exact"] > s["wrong_page"] > max(s["wrong_value"], s["wrong_scale"])
    assert abs(s["wrong_value"] - s["wrong_scale"]) <= 0.1
    assert min(s["wrong_value"], s["wrong_scale"]) > s["invented"] > s["malformed"]
    assert s["malformed"] == 0.0


def test_observed_values() -> None:
    # Pinned so that a change of weights is a deliberate, visible change (see the README's table).
    s = _hand_made()
    assert s == pytest.approx(
        {
            "exact": 1.0,
            "wrong_page": 0.8,
            "wrong_value": 0.5,
            "wrong_scale": 0.5,
            "invented": 0.15,
            "malformed": 0.0,
        }
    )


def test_internally_inconsistent_numbers_score_below_an_isolated_error() -> None:
    # One wrong figure each; gross profit also breaks gross profit = revenue - cost of sales.
    inconsistent, parts = _score(_answer(**{"gross_profit@FY2025": {"value": 560_000_000.0}}))
    isolated, isolated_parts = _score(_answer(**{"operating_cash_flow@FY2025": {"value": 160_000_000.0}}))
    assert parts["values"] == isolated_parts["values"] < 1.0
    assert parts["consistency"] < isolated_parts["consistency"] == 1.0
    assert 1.0 > isolated > inconsistent


def test_wrapped_answers_parse() -> None:
    body = json.dumps({"facts": _answer()})
    assert _score(f"Here are the figures:\n```json\n{body}\n```\nLet me know.")[0] == 1.0
    assert _score(f"<think>draft [1, 2]</think>The answer is {body} as requested.")[0] == 1.0


def test_rounding_scale_and_sign() -> None:
    def values(value: float, metric: str = "revenue", period: str = "FY2025") -> float:
        answer = [{"metric": metric, "period": period, "value": value, "page": 4}]
        return _score(answer)[1]["values"] * len(NORTHWIND["facts"])

    assert values(1_368_900_000) == pytest.approx(1)
    assert values(1_368_940_000) == pytest.approx(1)  # within the printed 1,368.9's rounding
    assert values(1_369_000_000) == 0  # 1,369.0 is another printed figure
    assert values(1_368.9) == 0  # the printed number without its scale
    assert values(1_368_900_000_000) == 0
    assert values(842_100_000, metric="cost_of_sales") == pytest.approx(1)  # sign of a cost is free
    assert values(-1_368_900_000) == 0  # revenue's sign is not
    answer = [{"metric": "revenue", "period": "2025", "value": "1,368,900,000", "page": "4"}]
    assert _score(answer)[1]["values"] > 0  # "2025" is FY2025; numeric strings are read


def test_faithful_transcription_of_an_inconsistent_filing_is_not_penalised() -> None:
    kaizen = _truth_doc("kaizen")  # gross profit 2024 does not equal net sales - cost of sales
    answer = [
        {"metric": f["metric"], "period": f["period"], "value": f["value"], "page": f["pages"][0]}
        for f in kaizen["facts"]
    ]
    total, parts = score_extraction(json.dumps(answer), {"facts": kaizen["facts"]})
    assert total == 1.0 and parts["consistency"] == 1.0


def test_disputed_figures_are_neither_rewarded_nor_penalised() -> None:
    truth = {
        "facts": [{"metric": "revenue", "period": "FY2025", "value": 100.0, "pages": [2], "decimals": 0}],
        "disputed": [{"metric": "total_equity", "period": "2024-03-31"}],
    }
    answer = [
        {"metric": "revenue", "period": "FY2025", "value": 100, "page": 2},
        {"metric": "total_equity", "period": "2024-03-31", "value": 5, "page": 2},
    ]
    assert score_extraction(json.dumps(answer), truth)[0] == 1.0


def test_malformed_or_empty() -> None:
    assert score_extraction("not json", GROUND_TRUTH) == (0.0, dict.fromkeys(_score("x")[1], 0.0))
    assert score_extraction('{"answer": 3}', GROUND_TRUTH)[0] == 0.0
    assert score_extraction("[]", GROUND_TRUTH)[0] == pytest.approx(0.0)
    assert score_extraction(json.dumps(_answer()), "{broken")[0] == 0.0


def test_implied_decimals() -> None:
    assert implied_decimals(1_368_900_000.0) == -5
    assert implied_decimals(1.25) == 2
    assert implied_decimals(0.0) == 0


# --- TRL and verl calling conventions --------------------------------------------------------------


def test_grpo_reward_called_as_trl_calls_it() -> None:
    exact = json.dumps(_answer())
    wrong_page = json.dumps([dict(f, page=1) for f in _answer()])
    truth_text = json.dumps(GROUND_TRUTH)
    prompt_std = "Extract the figures."
    prompt_conv = [{"role": "user", "content": "Extract the figures."}]
    n = 5
    # TRL: reward_func(prompts=..., completions=..., completion_ids=..., **reward_kwargs), where
    # reward_kwargs holds every other dataset column (one entry per completion) and trainer_state.
    rewards = grpo_reward(
        prompts=[prompt_std, prompt_std, prompt_conv, prompt_conv, prompt_std],
        completions=[
            exact,  # standard format
            wrong_page,
            [{"role": "assistant", "content": exact}],  # conversational format
            [{"role": "assistant", "content": "no JSON here"}],
            exact,
        ],
        completion_ids=[[1, 2, 3]] * n,
        ground_truth=[truth_text, truth_text, GROUND_TRUTH, truth_text, None],
        data_source=["tieout/northwind_2025_annual_report.pdf"] * n,
        extra_info=[{"doc_id": "d", "pages": [2]}] * n,
        reward_model=[{"style": "rule", "ground_truth": truth_text}] * n,
        trainer_state=object(),
    )
    assert isinstance(rewards, list) and len(rewards) == n
    assert rewards[0] == 1.0 and rewards[2] == 1.0
    assert rewards[1] == pytest.approx(0.8)
    assert rewards[3] == 0.0
    assert rewards[4] is None  # no ground truth: not applicable (TRL turns it into NaN)
    assert all(r is None or isinstance(r, float) for r in rewards)


def test_grpo_reward_without_ground_truth_column() -> None:
    assert grpo_reward(prompts=["p", "p"], completions=["[]", "[]"]) == [None, None]


def test_compute_score_called_as_verl_calls_it() -> None:
    exact = json.dumps(_answer())
    truth_text = json.dumps(GROUND_TRUTH)
    # verl's reward managers call with keywords; the custom function may also be called positionally.
    by_keyword = compute_score(
        data_source="tieout/northwind_2025_annual_report.pdf",
        solution_str=exact,
        ground_truth=truth_text,
        extra_info={"doc_id": "d", "pages": [2], "num_turns": None},
    )
    positional = compute_score("tieout/northwind_2025_annual_report.pdf", exact, GROUND_TRUTH)
    assert by_keyword == positional
    assert by_keyword["score"] == 1.0 and isinstance(by_keyword["score"], float)
    assert all(by_keyword[name] == 1.0 for name in COMPONENTS)
    # verl merges the config's reward_kwargs and the reward loop's extras into the call.
    assert (
        compute_score(
            data_source="tieout/x",
            solution_str=exact,
            ground_truth=truth_text,
            extra_info=None,
            num_turns=1,
            k=2,
        )
        == by_keyword
    )
    assert compute_score("tieout/x", "oops", truth_text, None)["score"] == 0.0


# --- reward records ------------------------------------------------------------------------------


def test_records_from_sample_docs(results: dict[str, DocumentResult]) -> None:
    for name, result in results.items():
        records = build_reward_records(result)
        assert len(records) == len(result.facts)
        assert {r.task for r in records} == {"table_fact", "narrative_claim"}
        for r in records:
            assert 0.0 <= r.reward <= 1.0
            assert r.context.startswith("[page ")
            (claim,) = json.loads(r.completion)
            assert set(claim) == {"metric", "period", "value", "page"}
        touched = [r for r in records if r.components["consistency"] < 1.0]
        if name in CLEAN:
            assert not touched and all(r.reward == 1.0 for r in records)
        else:
            assert name in FLAGGED and touched
            untouched = [r for r in records if r.components["consistency"] == 1.0]
            mean = sum(r.reward for r in untouched) / len(untouched)
            assert sum(r.reward for r in touched) / len(touched) < mean


def test_every_injected_inconsistency_lowers_consistency(results: dict[str, DocumentResult]) -> None:
    for name in FLAGGED:
        records = build_reward_records(results[name])
        low = {
            (c["metric"], c["period"])
            for r in records
            if r.components["consistency"] < 1.0
            for c in json.loads(r.completion)
        }
        for issue in _truth_doc(name)["inconsistencies"]:
            if issue["metric"] is not None:
                assert (issue["metric"], issue["period"]) in low, (name, issue)


def test_misstated_copies_fail_truth(results: dict[str, DocumentResult]) -> None:
    kaizen = build_reward_records(results["kaizen"])
    narrative = next(r for r in kaizen if r.task == "narrative_claim" and "62587000000" in r.completion)
    assert narrative.components["truth"] == 0.0
    assert "¥62,587 million" in narrative.context
    mis_keyed = next(r for r in kaizen if "238782000000" in r.completion)  # highlights net assets
    assert mis_keyed.components["truth"] == 0.0 and mis_keyed.reward < 0.5


def test_analyst_decision_replaces_the_estimate(results: dict[str, DocumentResult]) -> None:
    result = results["northwind"]
    first, second = result.facts[0], result.facts[1]
    records = build_reward_records(result, analyst={first.fact_id: False, second.fact_id: True})
    assert records[0].components["analyst"] == 0.0 and records[0].reward == 0.0
    assert records[1].components["analyst"] == 1.0 and records[1].reward == 1.0
    assert "analyst" not in records[2].components


def test_reward_record_is_strict(results: dict[str, DocumentResult]) -> None:
    record = build_reward_records(results["aurelia"])[0]
    with pytest.raises(pydantic.ValidationError):
        record.reward = 0.5  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError):
        RewardRecord.model_validate({**record.model_dump(), "unknown": 1})
    with pytest.raises(pydantic.ValidationError):
        RewardRecord.model_validate({**record.model_dump(), "reward": 1.5})


# --- datasets and exports ------------------------------------------------------------------------


def test_dataset_rows(results: dict[str, DocumentResult]) -> None:
    rows = build_dataset(list(results.values()))
    assert rows
    for row in rows:
        system, user = row["prompt"]
        assert system["role"] == "system" and user["role"] == "user"
        assert "[page " in user["content"] and "JSON" in user["content"]
        assert row["data_source"].startswith("tieout/")
        assert set(row["extra_info"]) >= {"doc_id", "pages"}
        truth = json.loads(row["ground_truth"])
        assert truth["facts"] and row["reward_model"]["ground_truth"] == row["ground_truth"]
        # The ground truth itself, transcribed, is a perfect answer.
        answer = [
            {"metric": f["metric"], "period": f["period"], "value": f["value"], "page": f["pages"][0]}
            for f in truth["facts"]
        ]
        assert (
            compute_score(row["data_source"], json.dumps(answer), row["ground_truth"], row["extra_info"])[
                "score"
            ]
            == 1.0
        )
    # Copies the statements contradict are disputed, not taught.
    halvorsen = [json.loads(r["ground_truth"]) for r in rows if "halvorsen" in r["data_source"]]
    assert {"metric": "operating_cash_flow", "period": "FY2025"} in halvorsen[0]["disputed"]


def test_export_rewards_round_trip(results: dict[str, DocumentResult], tmp_path: Path) -> None:
    stamp = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    records = [r for res in results.values() for r in build_reward_records(res, created_at=stamp)]
    jsonl, parquet = export_rewards(records, tmp_path)
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    assert [RewardRecord.model_validate_json(line) for line in lines] == records
    table = pq.read_table(parquet)
    assert table.num_rows == len(records)
    assert {"consistency", "agreement", "truth", "analyst", "reward"} <= set(table.column_names)
    for row, record in zip(table.to_pylist(), records, strict=True):
        assert row["record_id"] == record.record_id and row["reward"] == record.reward
        assert row["consistency"] == record.components["consistency"]
        assert row["truth"] == record.components.get("truth")
        assert row["analyst"] is None
        assert row["pages"] == record.pages and row["created_at"] == stamp


def test_export_dataset_round_trip(results: dict[str, DocumentResult], tmp_path: Path) -> None:
    rows = build_dataset(list(results.values()))
    jsonl, parquet, *splits = export_dataset(rows, tmp_path)
    assert [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()] == rows
    assert pq.read_table(parquet).to_pylist() == rows
    # The split files partition the rows.
    assert sum(pq.read_table(p).num_rows for p in splits) == len(rows)
    for path in splits:
        assert set(pq.read_table(path).column("split").to_pylist()) == {path.stem}


def test_cli_builds_the_example(tmp_path: Path) -> None:
    out = CliRunner().invoke(app, ["export", "rewards", str(SAMPLES), "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    names = {p.name for p in tmp_path.iterdir()}
    assert {"dataset.jsonl", "dataset.parquet", "rewards.jsonl", "rewards.parquet"} <= names
    assert names - {"dataset.jsonl", "dataset.parquet", "rewards.jsonl", "rewards.parquet"} <= {
        "train.parquet",
        "val.parquet",
        "test.parquet",
    }
    assert f"reward records from {len(list(SAMPLES.glob('*.pdf')))} documents" in out.output
