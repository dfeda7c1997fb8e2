"""The Grafana dashboard and the Prometheus alert rules use only what the services expose.

Metric and label names are read from the services' registry (:mod:`consumers.metrics`), never from a
second list: a metric renamed in the code fails here until the dashboard and the rules follow, and a
metric added to the code fails here until the dashboard shows it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from consumers import metrics

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "infra" / "grafana" / "tieout-dashboard.json"
ALERTS = ROOT / "infra" / "prometheus" / "tieout-alerts.yml"
PROMETHEUS = ROOT / "infra" / "prometheus" / "prometheus.yml"

KEYWORDS = {"and", "or", "unless", "offset", "bool", "by", "without", "on", "ignoring", "group_left",
            "group_right", "inf", "nan"}  # fmt: skip
GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
SELECTOR = re.compile(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}")
MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*\"(?:[^\"\\]|\\.)*\"")


def dashboard_exprs() -> list[str]:
    doc = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    out = []
    for panel in doc["panels"]:
        out += [t["expr"] for t in panel.get("targets", [])]
    for var in doc["templating"]["list"]:
        if var["type"] == "query":
            out.append(str(var["definition"]).removeprefix("label_values(").removesuffix(")").split(",")[0])
    return out


def alert_rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    return [rule for group in doc["groups"] for rule in group["rules"]]


def label_names() -> dict[str, set[str]]:
    """Series name → its label names, for every metric the services define (and ``le`` for buckets)."""
    out: dict[str, set[str]] = {name: set() for name in metrics.exposed_names()}
    for obj in vars(metrics).values():
        if isinstance(obj, MetricWrapperBase):
            for family in obj.describe():
                for name in metrics.series_names(family):
                    out[name] = set(obj._labelnames) | ({"le"} if name.endswith("_bucket") else set())
    return out


def parse(expr: str) -> tuple[set[str], dict[str, set[str]], set[str]]:
    """The metric names an expression reads, the label names matched per metric, the grouping labels."""
    grouping: set[str] = set()
    for _, labels in GROUPING.findall(expr):
        grouping |= {label.strip() for label in labels.split(",") if label.strip()}
    matched: dict[str, set[str]] = {}
    for name, body in SELECTOR.findall(expr):
        matched.setdefault(name, set()).update(label for label, _ in MATCHER.findall(body))
    bare = GROUPING.sub(" ", expr)
    bare = re.sub(r"\{[^}]*\}", " ", bare)  # selectors' label matchers
    bare = re.sub(r"\[[^\]]*\]", " ", bare)  # ranges: [5m], [$__rate_interval]
    bare = re.sub(r"\"(?:[^\"\\]|\\.)*\"", " ", bare)  # strings
    names = {
        m.group(1)
        for m in re.finditer(r"(?<![\w$.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:]|\s*\()", bare)
        if m.group(1) not in KEYWORDS
    }
    return names, matched, grouping


def test_the_expression_parser_sees_metrics_labels_and_groupings() -> None:
    names, matched, grouping = parse(
        'histogram_quantile(0.95, sum by (service, le) (rate(tieout_x_bucket{service=~"$s", a!="b"}[5m])))'
        " and on (instance) up offset 5m"
    )
    assert names == {"tieout_x_bucket", "up"}
    assert matched == {"tieout_x_bucket": {"service", "a"}} and grouping == {"service", "le", "instance"}


EXPRS = [pytest.param(e, id=f"dashboard-{i}") for i, e in enumerate(dashboard_exprs())] + [
    pytest.param(r["expr"], id=r["alert"]) for r in alert_rules()
]


@pytest.mark.parametrize("expr", EXPRS)
def test_every_metric_and_label_used_is_one_the_services_expose(expr: str) -> None:
    known = label_names()
    names, matched, grouping = parse(expr)
    assert names, f"reads no metric: {expr}"
    unknown = names - set(known)
    assert not unknown, f"not exposed by consumers/metrics.py: {sorted(unknown)} in {expr}"
    for name, labels in matched.items():
        assert labels <= known[name], f"{name} has no label {sorted(labels - known[name])}: {expr}"
    # Grouping labels: the metrics' own, the histogram's le, or the scrape's instance and job.
    available = set().union(*(known[n] for n in names)) | {"instance", "job"}
    assert grouping <= available, f"groups by unknown labels {sorted(grouping - available)}: {expr}"
    assert expr.count("(") == expr.count(")"), expr


def test_the_dashboard_shows_every_tieout_metric() -> None:
    used = set().union(*(parse(e)[0] for e in dashboard_exprs()))
    families = {family.name for family in metrics.REGISTRY.collect() if family.name.startswith("tieout_")}
    shown = {f for f in families if any(n == f or n.startswith(f + "_") for n in used)}
    assert families - shown == set(), f"metrics without a panel: {sorted(families - shown)}"


def test_the_alerts_cover_lag_growth_dead_letters_and_a_stage_that_stopped_committing() -> None:
    rules = {r["alert"]: r for r in alert_rules()}
    assert {"TieoutConsumerLagGrowing", "TieoutDeadLettersGrowing", "TieoutStageStoppedCommitting"} <= set(
        rules
    )
    assert "tieout_consumer_lag" in rules["TieoutConsumerLagGrowing"]["expr"]
    assert "tieout_dlq_records_total" in rules["TieoutDeadLettersGrowing"]["expr"]
    assert 'tieout_transactions_total{outcome="committed"}' in rules["TieoutStageStoppedCommitting"]["expr"]
    for rule in rules.values():
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"]
    config = yaml.safe_load(PROMETHEUS.read_text(encoding="utf-8"))
    assert config["rule_files"] == [ALERTS.name]


def test_panels_have_unique_ids_and_the_datasource_variable() -> None:
    doc = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    ids = [p["id"] for p in doc["panels"]]
    assert len(ids) == len(set(ids))
    assert {v["name"] for v in doc["templating"]["list"]} == {"datasource", "service"}
    for panel in doc["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}" and panel["targets"], panel["title"]
