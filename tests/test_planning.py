"""Planning rules (adapters/deploy/planning.py) on small made-up costs; the CLI on the committed result
files."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from adapters.deploy.capacity import RESULTS, load_costs
from adapters.deploy.planning import (
    Cost,
    Costs,
    Demand,
    PlanError,
    Policy,
    Source,
    helm_values,
    lag_recovery_s,
    make_plan,
    partitions_for,
    predicted_pages_per_s,
    prediction_error_pct,
    replicas_for,
)
from schemas.topology import TOPOLOGY
from tieout.cli import app

STAGES = [s.name.value for s in TOPOLOGY.stages]
TOPICS = [t.name.value for t in TOPOLOGY.topics]

SRC = Source("bench/results/made_up.json", "2026-01-02T03:04:05Z", "abc1234", "a 2-core test box")
DEEP = Source("bench/results/llm.json", "2026-01-03", "def5678", "nowhere", "PROJECTION, not a measurement")


def costs(parse: float = 0.1, verify: float = 0.01, sink: float = 0.5) -> Costs:
    return Costs(
        parse=Cost(parse, "page", "parse", SRC),
        verify={
            "none": Cost(verify, "page", "checks", SRC),
            "standard": Cost(verify + 2.0, "page", "CPU model", SRC),
            "deep": Cost(verify + 1.0, "page", "H200 latency bound", DEEP),
        },
        sink=Cost(sink, "document", "sink", SRC),
        model_server={"deep": Cost(0.1, "page", "GPU seconds", DEEP)},
    )


def test_replicas_carry_the_load_at_the_target_utilisation() -> None:
    # 360 docs/h × 10 pages × 0.1 s = 360 s of parse per 3600 s: 0.1 replicas busy, 1 replica.
    plan = make_plan(Demand(360, 10), costs())
    parse = plan.stage("parse")
    assert parse.seconds_per_doc == pytest.approx(1.0)
    assert parse.load_replicas == pytest.approx(0.1)
    assert parse.min_replicas == 1
    # 36,000 docs/h: 10 busy replicas at 70 % -> 15.
    big = make_plan(Demand(36_000, 10), costs()).stage("parse")
    assert big.load_replicas == pytest.approx(10.0)
    assert big.min_replicas == math.ceil(10 / 0.7) == 15
    assert replicas_for(1.4, 0.7) == 2  # an exact fit is not rounded up


@pytest.mark.parametrize("stage", STAGES)
def test_replicas_scale_with_documents_per_hour_and_pages_per_document(stage: str) -> None:
    base = make_plan(Demand(20_000, 20), costs()).stage(stage)
    more_docs = make_plan(Demand(40_000, 20), costs()).stage(stage)
    more_pages = make_plan(Demand(20_000, 40), costs()).stage(stage)
    assert more_docs.load_replicas == pytest.approx(2 * base.load_replicas)
    assert more_docs.min_replicas > base.min_replicas
    if stage == "sink":  # the sink's cost is per document: pages do not move it
        assert more_pages.load_replicas == pytest.approx(base.load_replicas)
    else:
        assert more_pages.load_replicas == pytest.approx(2 * base.load_replicas)
        assert more_pages.min_replicas > base.min_replicas


@pytest.mark.parametrize(
    ("docs", "pages", "burst"), [(1, 1, 0), (360, 10, 100), (36_000, 10, 50_000), (5_000, 300, 2_000)]
)
def test_partitions_cover_the_consuming_stage_at_max_replicas(docs: float, pages: float, burst: int) -> None:
    plan = make_plan(Demand(docs, pages, burst_docs=burst), costs())
    for s in plan.stages:
        assert s.max_replicas >= s.min_replicas
        assert plan.topic(s.input_topic).partitions >= s.max_replicas
        assert plan.topic(s.input_topic).partitions >= math.ceil(2 * s.max_replicas)
    for name in ("facts", "flags", "summaries", "rewards", "changes"):
        assert plan.topic(name).partitions == plan.topic("verified").partitions
    assert plan.topic("dlq").partitions == Policy().min_partitions
    assert partitions_for(1, Policy()) == 3 and partitions_for(7, Policy()) == 14


def test_lag_recovery_formula() -> None:
    # 2 replicas at 1 s per document clear 2 docs/s; 1 doc/s keeps arriving: 1 doc/s spare.
    assert lag_recovery_s(100, 2, 1.0, 3600) == pytest.approx(100.0)
    assert lag_recovery_s(100, 2, 1.0, 0) == pytest.approx(50.0)
    assert lag_recovery_s(0, 2, 1.0, 3600) == 0.0
    assert lag_recovery_s(100, 1, 1.0, 3600) is None  # capacity equals arrivals: never drains
    plan = make_plan(Demand(3600, 1, burst_docs=1000), costs(parse=0.5, verify=0.01, sink=0.2))
    parse = plan.stage("parse")
    expected = 1000 / (parse.min_replicas / 0.5 - 1.0)
    assert parse.recovery_s_at_min == pytest.approx(expected)
    # maxReplicas drains the burst within the recovery target, and the pipeline is its slowest stage.
    assert parse.recovery_s_at_max is not None and parse.recovery_s_at_max <= Policy().recovery_target_s
    assert plan.recovery_s_at_min == pytest.approx(max(s.recovery_s_at_min or 0 for s in plan.stages))


def test_retention_covers_the_outage_and_its_drain() -> None:
    plan = make_plan(Demand(1000, 10), costs())
    landing = plan.topic("landing").retention_ms
    assert landing >= Policy().outage_hours * 3_600_000
    assert plan.topic("dlq").retention_ms >= 14 * 24 * 3_600_000
    longer = make_plan(Demand(1000, 10), costs(), Policy(outage_hours=168)).topic("landing").retention_ms
    assert longer > landing


def test_assumptions_name_their_sources_and_the_projection() -> None:
    plan = make_plan(Demand(100, 50, tier="deep"), costs())
    text = "\n".join(plan.assumptions)
    assert "bench/results/made_up.json" in text and "2026-01-02T03:04:05Z" in text and "abc1234" in text
    assert "a 2-core test box" in text
    assert "PROJECTION" in text and "bench/results/llm.json" in text
    assert "target utilisation 70%" in text
    assert "partitions = max(3, ceil(maxReplicas" in text
    assert plan.model_servers == 1  # 100 × 50 × 0.1 GPU s / 3600 s at 70 %
    assert "model servers (deep): 0.1 s per page of server time" in text
    undated = Source("bench/results/old.json", "", "", "").describe()
    assert undated == "bench/results/old.json (no date, commit or machine recorded in the file)"
    assert "PROJECTION" not in "\n".join(make_plan(Demand(100, 50), costs()).assumptions)


def test_a_model_tier_costs_verify_more() -> None:
    none = make_plan(Demand(1000, 50), costs()).stage("verify")
    std = make_plan(Demand(1000, 50, tier="standard"), costs()).stage("verify")
    assert std.min_replicas > none.min_replicas


def test_unknown_tier_and_bad_inputs_are_refused_with_a_helpful_error() -> None:
    with pytest.raises(PlanError, match=r"unknown model tier 'huge': choose one of none, standard, deep"):
        Demand(100, 10, tier="huge")
    with pytest.raises(PlanError, match="docs-per-hour"):
        Demand(0, 10)
    with pytest.raises(PlanError, match="pages-per-doc"):
        Demand(10, -1)
    only_checks = Costs(costs().parse, {"none": costs().verify["none"]}, costs().sink)
    with pytest.raises(PlanError, match="no measured verify cost for the model tier 'deep'"):
        make_plan(Demand(10, 10, tier="deep"), only_checks)
    with pytest.raises(PlanError, match="target utilisation"):
        Policy(target_utilisation=1.5)


def test_the_plan_follows_the_topology() -> None:
    """Every stage on its input topic and every topic, in the table's order, named by plain strings (YAML)."""
    plan = make_plan(Demand(1000, 20, burst_docs=500), costs())
    assert [(s.stage, s.input_topic) for s in plan.stages] == [(s.name, s.input) for s in TOPOLOGY.stages]
    assert [t.name for t in plan.topics] == TOPICS
    names = [s.stage for s in plan.stages] + [s.input_topic for s in plan.stages] + TOPICS
    assert {type(n) for n in names} == {str}
    human = {t.name for t in TOPOLOGY.topics if t.human_paced}
    assert {t.name for t in plan.topics if t.partitions == Policy().min_partitions} >= human


def test_helm_values_have_exactly_the_charts_keys() -> None:
    values = helm_values(make_plan(Demand(1000, 20, burst_docs=500), costs()))
    assert set(values) == {"topics", "stages"}
    assert set(values["topics"]) == set(TOPICS)  # the wire names themselves: tests/test_topology.py
    for topic in values["topics"].values():
        assert set(topic) == {"partitions", "retentionMs"}
        assert isinstance(topic["partitions"], int) and isinstance(topic["retentionMs"], int)
    assert set(values["stages"]) == {"parse", "verify", "sink"}
    for stage in values["stages"].values():
        assert set(stage) == {"autoscaling"}
        assert set(stage["autoscaling"]) == {"minReplicas", "maxReplicas", "lagThreshold"}
        assert all(isinstance(v, int) and v >= 1 for v in stage["autoscaling"].values())


def test_predicted_throughput_is_bounded_by_the_cores() -> None:
    assert predicted_pages_per_s(1, 0.02) == pytest.approx(50)
    assert predicted_pages_per_s(4, 0.02) == pytest.approx(200)  # a core each: linear
    # 2 cores, 0.015 CPU s per page: at most 133 pages/s whatever the workers.
    assert predicted_pages_per_s(2, 0.02, cores=2, cpu_s_per_page=0.015) == pytest.approx(100)
    assert predicted_pages_per_s(4, 0.02, cores=2, cpu_s_per_page=0.015) == pytest.approx(2 / 0.015)
    assert prediction_error_pct(110, 100) == pytest.approx(10)
    assert prediction_error_pct(90, 100) == pytest.approx(-10)


def test_the_costs_come_from_the_committed_result_files() -> None:
    c = load_costs()
    scaling = json.loads((RESULTS / "scaling.json").read_text())
    load = json.loads((RESULTS / "load.json").read_text())
    whole = json.loads((RESULTS / "parse_throughput_whole.json").read_text())
    engine = whole["docs"]["tieout"].values()
    assert c.parse.seconds == pytest.approx(
        sum(d["seconds"] for d in engine) / sum(d["pages"] for d in engine)
    )
    calib = scaling["calibration"]
    assert c.parse.per_doc_seconds == pytest.approx(calib["wall_s_per_page"] * calib["mean_pages_per_doc"])
    assert c.parse.per_doc_source is not None and c.parse.per_doc_source.path.endswith("scaling.json")
    assert c.sink.seconds == load["costs"]["sink_s_per_doc"]
    assert c.verify["none"].seconds == load["costs"]["verify_s_per_page"]
    assert c.parse.source.date == whole["meta"]["date"] and c.parse.source.commit == whole["meta"]["commit"]
    assert c.parse.per_doc_source.date == scaling["meta"]["date"]
    assert "PROJECTION" in c.verify["deep"].source.note
    assert "PROJECTION" not in c.verify["standard"].source.note


def test_a_cost_per_page_may_have_a_part_per_document() -> None:
    parse = Cost(
        0.02, "page", "engine", SRC, per_doc_seconds=0.5, per_doc_what="service", per_doc_source=DEEP
    )
    assert parse.per_document(10) == pytest.approx(0.7)
    assert parse.per_document(100) == pytest.approx(2.5)
    lines = parse.describe("parse")
    assert (
        len(lines) == 2
        and "0.5 s per document (service)" in lines[1]
        and "bench/results/llm.json" in lines[1]
    )
    c = Costs(parse, costs().verify, costs().sink)
    plan = make_plan(Demand(3600, 10), c)
    assert plan.stage("parse").seconds_per_doc == pytest.approx(0.7)
    assert any("0.5 s per document" in a for a in plan.assumptions)
    with pytest.raises(PlanError, match="per-document part"):
        Cost(0.02, "page", "engine", SRC, per_doc_seconds=-1)


def test_without_the_engine_figures_the_service_figure_is_spread_over_pages(tmp_path: Path) -> None:
    for name in ("scaling.json", "load.json", "llm_verify_amd_2022.json"):
        shutil.copy(RESULTS / name, tmp_path / name)
    c = load_costs(tmp_path)
    assert (
        c.parse.seconds
        == json.loads((tmp_path / "scaling.json").read_text())["calibration"]["wall_s_per_page"]
    )
    assert c.parse.per_doc_seconds == 0


def test_a_missing_result_file_names_the_bench_that_writes_it(tmp_path: Path) -> None:
    for name in ("load.json", "llm_verify_amd_2022.json"):
        shutil.copy(RESULTS / name, tmp_path / name)
    with pytest.raises(PlanError, match=r"scaling.json is missing: run `python -m bench.scaling`"):
        load_costs(tmp_path)


def test_cli_prints_the_plan_from_the_committed_results(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    result = CliRunner().invoke(
        app,
        [
            "plan",
            "--docs-per-hour",
            "2000",
            "--pages-per-doc",
            "40",
            "--model-tier",
            "deep",
            "--burst-docs",
            "5000",
            "--helm-values",
            str(values),
        ],
    )
    assert result.exit_code == 0, result.output
    out = result.output
    for stage in STAGES:
        assert f"\n{stage} " in out
    for topic in TOPICS:
        assert f"\n{topic} " in out
    assert "Lag recovery after a burst of 5000 documents" in out
    assert "bench/results/scaling.json" in out and "bench/results/load.json" in out
    assert "PROJECTION" in out
    fragment = yaml.safe_load(values.read_text())
    assert set(fragment) == {"topics", "stages"} and set(fragment["topics"]) == set(TOPICS)

    as_json = CliRunner().invoke(app, ["plan", "--docs-per-hour", "2000", "--pages-per-doc", "40", "--json"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    assert data["stages"]["parse"]["min_replicas"] >= 1 and data["assumptions"]


def test_cli_refuses_an_unknown_tier() -> None:
    result = CliRunner().invoke(
        app, ["plan", "--docs-per-hour", "10", "--pages-per-doc", "5", "--model-tier", "huge"]
    )
    assert result.exit_code == 2
    assert "unknown model tier 'huge'" in result.output


def test_cli_outage_hours_and_utilisation_move_the_plan() -> None:
    def planned(*extra: str) -> dict[str, Any]:
        result = CliRunner().invoke(
            app, ["plan", "--docs-per-hour", "20000", "--pages-per-doc", "40", "--json", *extra]
        )
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    base = planned()
    week = planned("--outage-hours", "168")
    busy = planned("--target-utilisation", "0.35")
    assert week["topics"]["landing"]["retention_ms"] > base["topics"]["landing"]["retention_ms"]
    assert week["topics"]["landing"]["retention_ms"] >= 168 * 3_600_000
    assert busy["stages"]["verify"]["min_replicas"] > base["stages"]["verify"]["min_replicas"]
    bad = CliRunner().invoke(
        app, ["plan", "--docs-per-hour", "1", "--pages-per-doc", "1", "--target-utilisation", "2"]
    )
    assert bad.exit_code == 2 and "target utilisation" in bad.output
