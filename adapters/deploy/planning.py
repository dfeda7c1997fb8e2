"""Capacity planning: partitions per topic, replicas per stage and lag recovery, from measured costs.

Pure: the costs come in as values (:class:`Costs`, loaded from the benchmarks' result files by
``adapters.deploy.capacity``) and a :class:`Plan` comes out. Every rule is written once here and its wording
is
part of the plan's assumptions, so what ``tieout plan`` prints is what it computed.

The model, per stage (parse, verify, sink), each replica being one worker process handling one document
at a time:

* ``s`` = seconds one replica spends on one document (parse and verify: seconds per page × pages per
  document, plus a part per document where one was measured; the sink: seconds per document);
  ``λ`` = documents per second arriving.
* load = ``λ·s`` busy replicas; **minReplicas** = ``ceil(load / target utilisation)`` (at least 1).
* **lag recovery** after a burst of ``B`` documents at ``n`` replicas: the backlog drains at
  ``n/s − λ`` documents per second, so ``T = B / (n/s − λ)``; never when ``n/s ≤ λ``.
* **maxReplicas** = the larger of ``ceil(minReplicas × scale-out factor)`` and the fewest replicas that
  drain the burst within the recovery target.
* **partitions** of a stage's input topic = ``max(minimum, ceil(maxReplicas × partition headroom))``:
  a consumer group uses at most one replica per partition, and partitions cannot be removed later.
* **retention** of the pipeline's topics covers the longest outage to absorb plus the time the backlog
  it leaves takes to drain at maxReplicas: a message must still be there when its consumer comes back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from schemas.topology import TOPOLOGY, Stage, StageSpec

__all__ = [
    "TIERS",
    "Cost",
    "Costs",
    "Demand",
    "Plan",
    "PlanError",
    "Policy",
    "Source",
    "StagePlan",
    "Tier",
    "TopicPlan",
    "format_plan",
    "helm_values",
    "lag_recovery_s",
    "make_plan",
    "partitions_for",
    "plan_dict",
    "predicted_pages_per_s",
    "prediction_error_pct",
    "replicas_for",
    "replicas_to_recover",
]

TIERS = ("none", "standard", "deep")

Tier = Literal["none", "standard", "deep"]

_HUMAN_PACED = tuple(t.name.value for t in TOPOLOGY.topics if t.human_paced)
"""Review decisions and dead letters (:attr:`~schemas.topology.TopicSpec.human_paced`): minimum partitions."""


def _results(stage: StageSpec) -> tuple[str, ...]:
    """A stage's results that no stage consumes (the sink's): keyed like its input, so sized like it."""
    return tuple(
        o.value for o in stage.outputs if TOPOLOGY.consumer(o) is None and not TOPOLOGY.topic(o).human_paced
    )


class PlanError(ValueError):
    """A plan cannot be made from these inputs; the message says what to change."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a cost was measured: the result file, its date, commit and machine, and any caveat."""

    path: str
    date: str
    commit: str
    machine: str
    note: str = ""

    def describe(self) -> str:
        """One line for the assumptions."""
        if self.date:
            text = f"{self.path} (measured {self.date}, commit {self.commit}, on {self.machine})"
        else:
            text = f"{self.path} (no date, commit or machine recorded in the file)"
        return f"{text}: {self.note}" if self.note else text


@dataclass(frozen=True, slots=True)
class Cost:
    """Seconds one replica spends per unit of work, with what it is and where it was measured.

    A cost per page may carry a fixed part per document (``per_doc_seconds``: download, store, commit),
    measured apart (``per_doc_source``); a document then costs ``per_doc_seconds + seconds × pages``.
    """

    seconds: float
    per: Literal["page", "document"]
    what: str
    source: Source
    per_doc_seconds: float = 0.0
    per_doc_what: str = ""
    per_doc_source: Source | None = None

    def __post_init__(self) -> None:
        if not self.seconds > 0 or math.isinf(self.seconds):
            raise PlanError(f"{self.what}: a cost must be a positive number of seconds, got {self.seconds}")
        if self.per_doc_seconds < 0 or math.isinf(self.per_doc_seconds):
            raise PlanError(f"{self.what}: the per-document part must be >= 0, got {self.per_doc_seconds}")

    def per_document(self, pages_per_doc: float) -> float:
        """Seconds per document for documents of ``pages_per_doc`` pages."""
        if self.per == "document":
            return self.seconds
        return self.per_doc_seconds + self.seconds * pages_per_doc

    def describe(self, label: str, whose: str = "per replica") -> list[str]:
        """The assumption lines of this cost (``whose``: whose seconds they are)."""
        out = [f"{label}: {self.seconds:.4g} s per {self.per} {whose} ({self.what})"]
        out[0] += f"; from {self.source.describe()}"
        if self.per_doc_seconds:
            where = self.per_doc_source.describe() if self.per_doc_source else "the same file"
            out.append(
                f"{label}: + {self.per_doc_seconds:.4g} s per document ({self.per_doc_what}); from {where}"
            )
        return out


@dataclass(frozen=True, slots=True)
class Costs:
    """Per-replica costs of each stage; ``verify`` has one per model tier, ``none`` being checks only.

    ``model_server`` is the model servers' time per page for a tier whose servers are shared by the verify
    replicas (the deep tier on GPUs); a tier without one gets a server per verify replica.
    """

    parse: Cost
    verify: Mapping[str, Cost]
    sink: Cost
    model_server: Mapping[str, Cost] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Policy:
    """The planning rules' parameters (each printed with the plan)."""

    target_utilisation: float = 0.7
    """Share of a replica's time planned busy at the steady rate; the rest absorbs jitter."""
    scale_out_factor: float = 2.0
    """maxReplicas is at least this many times minReplicas."""
    recovery_target_s: float = 3600.0
    """maxReplicas drains the planned burst within this long."""
    partition_headroom: float = 2.0
    """Partitions per replica at maxReplicas, room to scale further without repartitioning."""
    min_partitions: int = 3
    lag_threshold_s: float = 60.0
    """The autoscaler's lagThreshold: the backlog one replica clears in this long."""
    outage_hours: float = 72.0
    """The longest outage of a stage's consumers the topics must absorb (a weekend)."""
    dlq_retention_hours: float = 14 * 24.0
    """Dead letters and review decisions wait for people: two weeks at least."""

    def __post_init__(self) -> None:
        if not 0 < self.target_utilisation <= 1:
            raise PlanError(f"target utilisation must be in (0, 1], got {self.target_utilisation}")
        if self.scale_out_factor < 1 or self.partition_headroom < 1:
            raise PlanError("the scale-out factor and the partition headroom must be at least 1")
        if self.min_partitions < 1 or self.recovery_target_s <= 0 or self.lag_threshold_s <= 0:
            raise PlanError("minimum partitions, recovery target and lag threshold must be positive")
        if self.outage_hours < 0:
            raise PlanError(f"outage hours must be >= 0, got {self.outage_hours}")


@dataclass(frozen=True, slots=True)
class Demand:
    """What the pipeline must carry."""

    docs_per_hour: float
    pages_per_doc: float
    tier: str = "none"
    burst_docs: int = 0

    def __post_init__(self) -> None:
        if not self.docs_per_hour > 0:
            raise PlanError(f"--docs-per-hour must be positive, got {self.docs_per_hour}")
        if not self.pages_per_doc > 0:
            raise PlanError(f"--pages-per-doc must be positive, got {self.pages_per_doc}")
        if self.burst_docs < 0:
            raise PlanError(f"--burst-docs must be >= 0, got {self.burst_docs}")
        if self.tier not in TIERS:
            raise PlanError(f"unknown model tier {self.tier!r}: choose one of {', '.join(TIERS)}")


@dataclass(frozen=True, slots=True)
class StagePlan:
    """Replicas of one stage and how fast it recovers from the burst."""

    stage: str
    input_topic: str
    seconds_per_doc: float
    load_replicas: float
    min_replicas: int
    max_replicas: int
    lag_threshold: int
    recovery_s_at_min: float | None
    recovery_s_at_max: float | None


@dataclass(frozen=True, slots=True)
class TopicPlan:
    """Partitions and retention of one topic."""

    name: str
    partitions: int
    retention_ms: int


@dataclass(frozen=True, slots=True)
class Plan:
    """The plan and everything it assumed."""

    demand: Demand
    stages: tuple[StagePlan, ...]
    topics: tuple[TopicPlan, ...]
    model_servers: int | None
    recovery_s_at_min: float | None
    recovery_s_at_max: float | None
    assumptions: tuple[str, ...]

    def stage(self, name: str) -> StagePlan:
        """The plan of stage ``name``."""
        return next(s for s in self.stages if s.stage == name)

    def topic(self, name: str) -> TopicPlan:
        """The plan of topic ``name``."""
        return next(t for t in self.topics if t.name == name)


def replicas_for(load_replicas: float, target_utilisation: float) -> int:
    """Replicas that carry ``load_replicas`` busy replicas at the target utilisation (at least 1)."""
    # The small tolerance keeps an exact fit (load 1.4 at 0.7) from rounding up to one replica too many.
    return max(1, math.ceil(load_replicas / target_utilisation - 1e-9))


def lag_recovery_s(
    burst_docs: float, replicas: int, seconds_per_doc: float, docs_per_hour: float
) -> float | None:
    """Seconds until a burst of ``burst_docs`` is drained while the steady arrivals continue.

    The backlog shrinks at ``replicas / seconds_per_doc − docs_per_hour / 3600`` documents per second.

    Returns:
        The seconds, 0 for no burst, or None when the replicas cannot even keep up with the arrivals.
    """
    spare = replicas / seconds_per_doc - docs_per_hour / 3600
    if spare <= 0:
        return None
    return burst_docs / spare


def replicas_to_recover(
    burst_docs: float, within_s: float, seconds_per_doc: float, docs_per_hour: float
) -> int:
    """The fewest replicas that drain ``burst_docs`` within ``within_s`` (inverse of lag_recovery_s)."""
    return max(1, math.ceil(seconds_per_doc * (burst_docs / within_s + docs_per_hour / 3600) - 1e-9))


def partitions_for(max_replicas: int, policy: Policy) -> int:
    """Partitions of a topic whose consumer group scales to ``max_replicas``."""
    return max(policy.min_partitions, math.ceil(max_replicas * policy.partition_headroom - 1e-9))


def predicted_pages_per_s(
    replicas: int, wall_s_per_page: float, *, cores: float | None = None, cpu_s_per_page: float | None = None
) -> float:
    """Pages per second of ``replicas`` parse workers.

    Each replica does ``1 / wall_s_per_page``; on a machine of ``cores`` cores shared by all of them, the
    CPU bounds the total at ``cores / cpu_s_per_page`` (CPU seconds per page of every process involved).
    A deployment that gives each replica its own core has no such bound (leave ``cores`` out).
    """
    if replicas < 1 or not wall_s_per_page > 0:
        raise PlanError("replicas and seconds per page must be positive")
    rate = replicas / wall_s_per_page
    if cores is not None and cpu_s_per_page:
        rate = min(rate, cores / cpu_s_per_page)
    return rate


def prediction_error_pct(predicted: float, measured: float) -> float:
    """Error of a prediction in per cent of the measured figure (positive: predicted too high)."""
    if measured == 0:
        return math.inf if predicted else 0.0
    return (predicted - measured) / measured * 100


def _stage_cost(costs: Costs, stage: Stage, tier: str) -> Cost:
    if stage == Stage.PARSE:
        return costs.parse
    if stage == Stage.SINK:
        return costs.sink
    if tier not in costs.verify:
        known = ", ".join(sorted(costs.verify)) or "none"
        raise PlanError(f"no measured verify cost for the model tier {tier!r} (costs known for: {known})")
    return costs.verify[tier]


def make_plan(demand: Demand, costs: Costs, policy: Policy | None = None) -> Plan:
    """Plan partitions, replicas and retention for ``demand`` from measured ``costs``.

    Raises:
        PlanError: A cost the plan needs is missing (e.g. no figure for the requested model tier).
    """
    policy = policy or Policy()
    lam = demand.docs_per_hour / 3600
    stages: list[StagePlan] = []
    for spec in TOPOLOGY.stages:
        cost = _stage_cost(costs, spec.name, demand.tier)
        s = cost.per_document(demand.pages_per_doc)
        load = lam * s
        lo = replicas_for(load, policy.target_utilisation)
        hi = max(math.ceil(lo * policy.scale_out_factor - 1e-9), lo)
        if demand.burst_docs:
            hi = max(
                hi, replicas_to_recover(demand.burst_docs, policy.recovery_target_s, s, demand.docs_per_hour)
            )
        stages.append(
            StagePlan(
                # Plain strings: a plan is data, dumped as YAML (the chart's values) and JSON.
                stage=spec.name.value,
                input_topic=spec.input.value,
                seconds_per_doc=s,
                load_replicas=load,
                min_replicas=lo,
                max_replicas=hi,
                lag_threshold=max(1, math.floor(policy.lag_threshold_s / s)),
                recovery_s_at_min=lag_recovery_s(demand.burst_docs, lo, s, demand.docs_per_hour),
                recovery_s_at_max=lag_recovery_s(demand.burst_docs, hi, s, demand.docs_per_hour),
            )
        )
    topics = _topics(stages, demand, policy)
    servers = None
    if demand.tier != "none":
        server = costs.model_server.get(demand.tier)
        verify = next(s for s in stages if s.stage == Stage.VERIFY)
        servers = (
            replicas_for(lam * server.per_document(demand.pages_per_doc), policy.target_utilisation)
            if server is not None
            else verify.max_replicas
        )
    return Plan(
        demand=demand,
        stages=tuple(stages),
        topics=topics,
        model_servers=servers,
        # The stages run side by side on a stream: the pipeline drains when its slowest stage does.
        recovery_s_at_min=_slowest([s.recovery_s_at_min for s in stages]),
        recovery_s_at_max=_slowest([s.recovery_s_at_max for s in stages]),
        assumptions=_assumptions(costs, demand, policy),
    )


def _slowest(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else max(v for v in values if v is not None)


def _topics(stages: list[StagePlan], demand: Demand, policy: Policy) -> tuple[TopicPlan, ...]:
    partitions = {s.input_topic: partitions_for(s.max_replicas, policy) for s in stages}
    for spec in TOPOLOGY.stages:
        for name in _results(spec):
            partitions[name] = partitions[spec.input]
    for name in _HUMAN_PACED:
        partitions[name] = policy.min_partitions
    # What piles up during the outage must still be there when it has drained at maxReplicas.
    backlog = demand.docs_per_hour * policy.outage_hours
    drain = [lag_recovery_s(backlog, s.max_replicas, s.seconds_per_doc, demand.docs_per_hour) for s in stages]
    if any(d is None for d in drain):  # cannot happen: maxReplicas >= minReplicas > load
        raise PlanError("maxReplicas cannot keep up with the arrivals")
    hours = policy.outage_hours + max(d for d in drain if d is not None) / 3600
    stream_ms = math.ceil(hours) * 3_600_000
    human_ms = math.ceil(max(hours, policy.dlq_retention_hours)) * 3_600_000
    return tuple(
        TopicPlan(t.name.value, partitions[t.name], human_ms if t.human_paced else stream_ms)
        for t in TOPOLOGY.topics
    )


def _assumptions(costs: Costs, demand: Demand, policy: Policy) -> tuple[str, ...]:
    verify = costs.verify[demand.tier]
    used = [
        (Stage.PARSE.value, costs.parse),
        (f"{Stage.VERIFY} ({demand.tier})", verify),
        (Stage.SINK.value, costs.sink),
    ]
    out = [line for label, c in used for line in c.describe(label)]
    if demand.tier != "none" and demand.tier in costs.model_server:
        server = costs.model_server[demand.tier]
        out += server.describe(f"model servers ({demand.tier})", "of server time")
    sized_as_input = "; ".join(
        f"{', '.join(results)} as {s.input}" for s in TOPOLOGY.stages if (results := _results(s))
    )
    out += [
        "a replica is one worker process handling one document at a time, with a core of its own "
        "(costs measured on a shared machine include its contention)",
        f"target utilisation {policy.target_utilisation:.0%}: minReplicas = ceil(docs/s × s per doc / "
        f"{policy.target_utilisation})",
        f"maxReplicas = max(ceil(minReplicas × {policy.scale_out_factor:g}), the fewest replicas that drain "
        f"the burst within {policy.recovery_target_s / 60:g} min)",
        f"partitions = max({policy.min_partitions}, ceil(maxReplicas of the consuming stage × "
        f"{policy.partition_headroom:g})); {sized_as_input}; "
        f"{', '.join(_HUMAN_PACED)} {policy.min_partitions}",
        "lag recovery after a burst of B documents at n replicas: B / (n / s − docs/s), s = seconds per "
        "document of one replica; the pipeline's is its slowest stage's (the stages run side by side)",
        f"lagThreshold = the backlog one replica clears in {policy.lag_threshold_s:g} s",
        f"retention covers a {policy.outage_hours:g} h outage plus the time its backlog takes to drain at "
        f"maxReplicas; {' and '.join(_HUMAN_PACED)} at least {policy.dlq_retention_hours / 24:g} days",
    ]
    if demand.tier != "none" and demand.tier not in costs.model_server:
        out.append(f"model servers ({demand.tier}): one per verify replica at maxReplicas")
    return tuple(out)


def helm_values(plan: Plan) -> dict[str, Any]:
    """The Helm chart's values fragment, with exactly the chart's keys.

    ``topics.<name>.{partitions,retentionMs}`` and
    ``stages.<stage>.autoscaling.{minReplicas,maxReplicas,lagThreshold}``, nothing else.
    """
    return {
        "topics": {t.name: {"partitions": t.partitions, "retentionMs": t.retention_ms} for t in plan.topics},
        "stages": {
            s.stage: {
                "autoscaling": {
                    "minReplicas": s.min_replicas,
                    "maxReplicas": s.max_replicas,
                    "lagThreshold": s.lag_threshold,
                }
            }
            for s in plan.stages
        },
    }


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "never (the replicas do not keep up with the arrivals)"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def plan_dict(plan: Plan) -> dict[str, Any]:
    """The plan as JSON-ready data (``tieout plan --json``)."""
    d = plan.demand
    return {
        "demand": {
            "docs_per_hour": d.docs_per_hour,
            "pages_per_doc": d.pages_per_doc,
            "model_tier": d.tier,
            "burst_docs": d.burst_docs,
        },
        "stages": {
            s.stage: {
                "input_topic": s.input_topic,
                "seconds_per_doc": round(s.seconds_per_doc, 4),
                "load_replicas": round(s.load_replicas, 3),
                "min_replicas": s.min_replicas,
                "max_replicas": s.max_replicas,
                "lag_threshold": s.lag_threshold,
                "lag_recovery_s_at_min": None
                if s.recovery_s_at_min is None
                else round(s.recovery_s_at_min, 1),
                "lag_recovery_s_at_max": None
                if s.recovery_s_at_max is None
                else round(s.recovery_s_at_max, 1),
            }
            for s in plan.stages
        },
        "topics": {t.name: {"partitions": t.partitions, "retention_ms": t.retention_ms} for t in plan.topics},
        "model_servers": plan.model_servers,
        "lag_recovery_s": {
            "at_min_replicas": None if plan.recovery_s_at_min is None else round(plan.recovery_s_at_min, 1),
            "at_max_replicas": None if plan.recovery_s_at_max is None else round(plan.recovery_s_at_max, 1),
        },
        "assumptions": list(plan.assumptions),
    }


def format_plan(plan: Plan) -> list[str]:
    """The plan as the lines ``tieout plan`` prints."""
    d = plan.demand
    lines = [
        f"Plan for {d.docs_per_hour:g} documents/hour of {d.pages_per_doc:g} pages, model tier {d.tier}, "
        f"burst {d.burst_docs} documents",
        "",
        f"{'stage':<7} {'input':<9} {'s/doc':>8} {'load':>6} {'min':>4} {'max':>4} {'lagThreshold':>12}  "
        "burst drained (min / max replicas)",
    ]
    for s in plan.stages:
        lines.append(
            f"{s.stage:<7} {s.input_topic:<9} {s.seconds_per_doc:>8.3f} {s.load_replicas:>6.2f} "
            f"{s.min_replicas:>4} {s.max_replicas:>4} {s.lag_threshold:>12}  "
            + (
                f"{_duration(s.recovery_s_at_min)} / {_duration(s.recovery_s_at_max)}"
                if d.burst_docs
                else "-"
            )
        )
    lines += ["", f"{'topic':<10} {'partitions':>10} {'retention':>10}"]
    for t in plan.topics:
        lines.append(f"{t.name:<10} {t.partitions:>10} {t.retention_ms / 3_600_000:>8g} h")
    lines.append("")
    if d.burst_docs:
        lines.append(
            f"Lag recovery after a burst of {d.burst_docs} documents: "
            f"{_duration(plan.recovery_s_at_min)} at minReplicas, {_duration(plan.recovery_s_at_max)} "
            "at maxReplicas"
        )
    if plan.model_servers is not None:
        lines.append(f"Model servers ({d.tier} tier): {plan.model_servers}")
    lines += ["", "Assumptions:", *(f"  - {a}" for a in plan.assumptions)]
    return lines
