"""Every Prometheus metric of the services, defined here and only here.

One registry (:data:`REGISTRY`) holds them; the HTTP endpoint (:mod:`consumers.observe`) serves it, the
Grafana dashboard and the alert rules in ``infra/`` are built from these names, and a test checks that
every name they use is one this registry exposes. Each metric carries a ``service`` label (parse, verify,
sink) where more than one service records it, so that services run in one process (the in-memory tests)
keep their counts apart, and a dashboard can split by service without relying on scrape labels.

Where each is recorded: the runner (documents, errors, dead letters, retries, holds, transactions, in
flight), the handlers (pages, stage timings, sink writes), the model port wrapper
(:class:`consumers.observe.ObservedModel`: model calls and tokens), the lag sampler and the readiness
probes (:mod:`consumers.observe`).
"""

from __future__ import annotations

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Metric, ProcessCollector

__all__ = [
    "COMMIT_SECONDS",
    "CONSUMER_LAG",
    "DEPENDENCY_UP",
    "DLQ_RECORDS",
    "DOCUMENTS",
    "ERRORS",
    "IN_FLIGHT",
    "MESSAGE_SECONDS",
    "MODEL_CACHED_TOKENS",
    "MODEL_CALLS",
    "MODEL_CALL_SECONDS",
    "MODEL_TOKENS",
    "PAGES",
    "PAUSED_PARTITIONS",
    "READY",
    "REGISTRY",
    "RETRIES",
    "SECONDS",
    "SINK_WRITES",
    "SINK_WRITE_SECONDS",
    "STAGE_SECONDS",
    "TRANSACTIONS",
    "exposed_names",
    "series_names",
]

# The ``*_created`` series of every counter and histogram double the series count and no panel uses them.
prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]

REGISTRY = CollectorRegistry(auto_describe=True)
"""The services' registry (not prometheus_client's global one, so tests and tools see only these)."""

ProcessCollector(registry=REGISTRY)  # process_resident_memory_bytes, process_cpu_seconds_total, …

SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
"""Latency buckets from a marker write to a 600-page parse (the default buckets stop at 10 s)."""

DOCUMENTS = Counter(
    "tieout_documents",
    "Input messages handled, one document each (a landing event may announce several), by outcome: "
    "published (results committed), dead_lettered, or skipped (nothing new to publish; its offset rides "
    "along with the next commit).",
    ["service", "outcome"],
    registry=REGISTRY,
)
PAGES = Counter(
    "tieout_pages",
    "Pages of the documents the parse engine ran on (with or without a text layer).",
    ["service"],
    registry=REGISTRY,
)
MESSAGE_SECONDS = Histogram(
    "tieout_message_seconds",
    "Time to handle one input message, retries in place included, commit excluded.",
    ["service"],
    buckets=SECONDS,
    registry=REGISTRY,
)
STAGE_SECONDS = Histogram(
    "tieout_stage_seconds",
    "Time of one step of a service: parse's download, engine and each engine stage "
    "(DocumentStats.stage_seconds), verify's checks and model stage, the sink's quality gate.",
    ["service", "stage"],
    buckets=SECONDS,
    registry=REGISTRY,
)
MODEL_CALL_SECONDS = Histogram(
    "tieout_model_call_seconds",
    "Time of one model call, retries included, by tier and task.",
    ["tier", "task"],
    buckets=SECONDS,
    registry=REGISTRY,
)
MODEL_CALLS = Counter(
    "tieout_model_calls",
    "Model calls by tier and outcome: ok, invalid (answer broke the schema or the server refused the "
    "request), unavailable (server down or circuit open).",
    ["tier", "outcome"],
    registry=REGISTRY,
)
MODEL_TOKENS = Counter(
    "tieout_model_tokens",
    "Tokens of model calls by tier and direction (in: prompt, out: completion).",
    ["tier", "direction"],
    registry=REGISTRY,
)
MODEL_CACHED_TOKENS = Counter(
    "tieout_model_cached_tokens",
    "Prompt tokens the server served from its prefix cache, by tier (when the server reports them).",
    ["tier"],
    registry=REGISTRY,
)
SINK_WRITE_SECONDS = Histogram(
    "tieout_sink_write_seconds",
    "Time of one document's write to one sink.",
    ["sink"],
    buckets=SECONDS,
    registry=REGISTRY,
)
SINK_WRITES = Counter(
    "tieout_sink_writes",
    "Writes of a document to a sink by outcome: ok, outage (retried), refused (dead-lettered).",
    ["sink", "outcome"],
    registry=REGISTRY,
)
ERRORS = Counter(
    "tieout_errors",
    "Errors a message met, by exception class and category: every failed attempt during an outage "
    "(category outage) and every dead letter (its category: not_a_pdf, schema, quality_gate, internal, …).",
    ["service", "error_class", "category"],
    registry=REGISTRY,
)
DLQ_RECORDS = Counter(
    "tieout_dlq_records",
    "Dead letters committed to the DLQ topic, by category.",
    ["service", "category"],
    registry=REGISTRY,
)
RETRIES = Counter(
    "tieout_retries",
    "Attempts made again after an outage: in_place (handler or claim check, at once), commit (the "
    "transaction, after a backoff), hold (the message set aside on its paused partition, tried again "
    "after a backoff).",
    ["service", "kind"],
    registry=REGISTRY,
)
PAUSED_PARTITIONS = Gauge(
    "tieout_paused_partitions",
    "Partitions held (paused and rewound) while an outage is waited out.",
    ["service"],
    registry=REGISTRY,
)
TRANSACTIONS = Counter(
    "tieout_transactions",
    "Kafka transactions (results plus input offsets) by outcome: committed, aborted.",
    ["service", "outcome"],
    registry=REGISTRY,
)
COMMIT_SECONDS = Histogram(
    "tieout_commit_seconds",
    "Time of one transaction attempt: produce, await every delivery, add the offsets, commit.",
    ["service"],
    buckets=SECONDS,
    registry=REGISTRY,
)
CONSUMER_LAG = Gauge(
    "tieout_consumer_lag",
    "Records of an assigned input partition not yet handed to the service: the broker's end offset "
    "(last stable offset under read_committed) minus the consumer's position.",
    ["service", "topic", "partition"],
    registry=REGISTRY,
)
IN_FLIGHT = Gauge(
    "tieout_in_flight_documents",
    "Input messages being handled right now (at most one per service process).",
    ["service"],
    registry=REGISTRY,
)
DEPENDENCY_UP = Gauge(
    "tieout_dependency_up",
    "1 when the last readiness probe reached the dependency (broker, store, database, model), else 0.",
    ["service", "dependency"],
    registry=REGISTRY,
)
READY = Gauge(
    "tieout_ready",
    "1 when every dependency the service uses answered its last probe (what /readyz says), else 0.",
    ["service"],
    registry=REGISTRY,
)


_SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_count", "_sum"),
    "summary": ("_count", "_sum", ""),
    "info": ("_info",),
}


def series_names(family: Metric) -> list[str]:
    """The series names a metric family is exposed under (``*_total``, ``*_bucket``, …).

    Derived from the family's type, as the text format names them: a labelled metric with no child yet
    has no sample to read them from.
    """
    return [family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",))]


def exposed_names(registry: CollectorRegistry = REGISTRY) -> set[str]:
    """Every series name the registry can expose, whether it has samples yet or not."""
    return {name for family in registry.collect() for name in series_names(family)}
