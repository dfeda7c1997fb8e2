"""Wiring of a service process: settings, object store, Kafka transport, signals, metrics and traces.

:func:`run_service` runs one stage of :data:`schemas.topology.TOPOLOGY` in named steps: assemble the
process (worker slot, signals, logs and traces, transport, registry, HTTP endpoint), wait for the
dependencies, build the stage's handler (:data:`HANDLERS`), run it, and shut down in reverse order.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from adapters.registry import RegistryUnavailable, TopicEncoder, TopicRegistration, topic_registration
from adapters.settings import Settings
from adapters.storage import ObjectStore
from consumers import tracing
from consumers.artifacts import StoreClaims
from consumers.health import Check, Endpoint, Health
from consumers.identity import WorkerSlot, claim_slot
from consumers.kafka import KafkaTransport, client_options, ensure_topics
from consumers.model import model_answers, model_client, model_tokenizer, resume_loop
from consumers.runner import Handler, RetryPolicy, Runner, until_up, wait_out
from consumers.services import ParseHandler, SinkHandler, VerifyHandler
from consumers.telemetry import ObservedModel, sample_lag
from pipeline.config import EngineConfig
from schemas.topology import TOPOLOGY, Stage, StageSpec

# What only one stage uses is imported in that stage's handler factory, so a restarted worker does not
# spend its start-up importing the others' libraries (the model client's openai, the sink's pyarrow).
if TYPE_CHECKING:
    from adapters.sinks.base import Sink

__all__ = ["HANDLERS", "PROBE_TIMEOUT_S", "HandlerFactory", "run_service"]

log = structlog.get_logger(__name__)

PROBE_TIMEOUT_S = 5.0
"""Bound on each readiness probe's network call (a probe round runs every few seconds)."""


@dataclass
class _Service:
    """One service process's parts, shared by the steps of :func:`run_service`."""

    spec: StageSpec
    settings: Settings
    config: EngineConfig
    stop: asyncio.Event
    policy: RetryPolicy
    store: ObjectStore
    connection: dict[str, Any]
    """The aiokafka clients' connection options (:func:`consumers.kafka.client_options`)."""
    transport: KafkaTransport
    idle: asyncio.Event
    registration: TopicRegistration | None
    health: Health
    slot: WorkerSlot | None = None
    endpoint: Endpoint | None = None
    background: list[asyncio.Task[None]] = field(default_factory=list)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    """Called at shut-down once the background tasks are done (the parse stage's worker process)."""


HandlerFactory = Callable[[_Service, TopicEncoder | None], Handler]
"""Builds a stage's handler; may add health checks, background tasks and closers to the service."""


async def run_service(
    stage: str,
    settings: Settings,
    *,
    config: EngineConfig | None = None,
    stop: asyncio.Event | None = None,
    retry: RetryPolicy | None = None,
) -> Runner:
    """Run one stage's service until SIGTERM/SIGINT (or ``stop``); the message in hand is finished first.

    Its HTTP endpoint (``/metrics``, ``/healthz``, ``/readyz``) serves from the start, while dependencies
    are still being waited for (not ready yet), until the service stops.

    Args:
        stage: The stage's name (:class:`~schemas.topology.Stage`).
        settings: Where the broker, the store and the rest are.
        config: The engine's settings (the processing budget); defaults when None.
        stop: Set to stop the service; one of its own when None.
        retry: How outages are waited out; the runner's default when None.

    Returns:
        The runner, whose ``stats`` say what was done.

    Raises:
        KeyError: ``stage`` is not a stage of the topology.
    """
    service = _assemble(TOPOLOGY.stage(stage), settings, config or EngineConfig(), stop, retry)
    runner: Runner | None = None
    try:
        encoder = await _dependencies_up(service)
        handler = HANDLERS[service.spec.name](service, encoder)
        service.background.append(
            asyncio.create_task(sample_lag(service.spec.name, service.transport, service.stop))
        )
        runner = _runner(service, handler, retry)
        log.warning(
            "service started",
            input=service.settings.topic(service.spec.input),
            kafka=service.settings.kafka_bootstrap,
        )
        await runner.run(service.stop)
    finally:
        await _shut_down(service, runner)
    assert runner is not None  # only an exception leaves the try block without one
    return runner


def _assemble(
    spec: StageSpec,
    settings: Settings,
    config: EngineConfig,
    stop: asyncio.Event | None,
    retry: RetryPolicy | None,
) -> _Service:
    """The process's parts, its HTTP endpoint serving and its health probed; nothing awaited yet."""
    stop = stop or asyncio.Event()
    slot: WorkerSlot | None = None
    if settings.worker_id is None:
        slot = claim_slot(f"{settings.topic_prefix}{spec.name}")
        settings = settings.model_copy(update={"worker_id": slot.worker_id})
    _stop_on_signals(stop)
    structlog.contextvars.bind_contextvars(service=spec.name, worker=settings.worker)
    tracing.setup(settings, spec.name)
    idle = asyncio.Event()
    connection = client_options(settings)
    transport = _transport(spec, settings, connection, config.timeout_s + 60, idle)
    # Kept registered from start-up on (None without SCHEMA_REGISTRY_URL); re-registered by the probe.
    registration = topic_registration(
        settings,
        timeout_s=PROBE_TIMEOUT_S,
        on_registered=lambda ids: log.warning(
            "topic schemas registered", registry=settings.schema_registry_url, ids=dict(ids)
        ),
    )
    health = Health(spec.name, _checks(settings, spec.name, transport, registration))
    service = _Service(
        spec=spec,
        settings=settings,
        config=config,
        stop=stop,
        policy=retry or RetryPolicy(),
        store=ObjectStore(settings),
        connection=connection,
        transport=transport,
        idle=idle,
        registration=registration,
        health=health,
        slot=slot,
    )
    service.endpoint = _serve(settings, health)
    service.background.append(asyncio.create_task(health.run(stop)))
    return service


def _stop_on_signals(stop: asyncio.Event) -> None:
    """SIGTERM and SIGINT set ``stop``."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)


def _transport(
    spec: StageSpec,
    settings: Settings,
    connection: dict[str, Any],
    max_processing_s: float,
    idle: asyncio.Event,
) -> KafkaTransport:
    """The stage's consumer group on its input topic, and its transactional producer.

    ``max_processing_s`` is the longest a message may be in hand (the engine's budget and a margin).
    """
    member = f"{settings.topic_prefix}{spec.group}-{settings.worker}"
    return KafkaTransport(
        connection=connection,
        topics=[settings.topic(spec.input)],
        group_id=f"{settings.topic_prefix}{spec.group}",
        transactional_id=member,
        # Static membership: a worker restarted within the session timeout gets its partitions back
        # without a rebalance of the whole group.
        group_instance_id=member,
        idle=idle,
        max_processing_s=max_processing_s,
    )


async def _dependencies_up(service: _Service) -> TopicEncoder | None:
    """Wait for the object store, the broker (every topic created) and the registry; the topics' encoder.

    A service started while a dependency is down waits for it instead of exiting.
    """
    settings, stop, policy = service.settings, service.stop, service.policy
    bucket = settings.artifact_bucket
    await until_up(
        "object store", lambda: asyncio.to_thread(service.store.ensure_bucket, bucket), stop, policy
    )
    topics = sorted({settings.topic(t.name) for t in TOPOLOGY.topics})
    await until_up("kafka", lambda: ensure_topics(service.connection, topics), stop, policy)
    encoder = await _registered(service.registration, stop, policy)
    service.transport.producer.encoder = encoder
    return encoder


def _runner(service: _Service, handler: Handler, retry: RetryPolicy | None) -> Runner:
    """The runner of ``handler`` over the service's transport, with claim checks in the artifact bucket."""
    settings = service.settings
    claims = StoreClaims(service.store, settings.artifact_bucket, settings.max_record_bytes)
    return Runner(
        handler,
        service.transport,
        dlq_topic=settings.topic(service.spec.dlq),
        retry=retry,
        idle=service.idle,
        claims=claims,
    )


async def _shut_down(service: _Service, runner: Runner | None) -> None:
    """Stop the background tasks, then release what the service holds, in reverse order of taking it."""
    service.stop.set()
    for task in service.background:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 30)
    for close in service.closers:
        await close()
    if service.slot is not None:
        service.slot.release()
    if service.endpoint is not None:
        await asyncio.to_thread(service.endpoint.close)
    if service.registration is not None:
        await service.registration.aclose()
    # Exports what is still queued (bounded by the exporter's timeout).
    await asyncio.to_thread(tracing.shutdown)
    if runner is not None:
        log.warning(
            "service stopped", processed=runner.stats.processed, dead_lettered=runner.stats.dead_lettered
        )


# ---------------------------------------------------------------------------------------------------------
# each stage's handler


def _parse_handler(service: _Service, encoder: TopicEncoder | None) -> Handler:
    """The parse stage's handler, parsing in a killable worker process (closed at shut-down)."""
    from adapters.workers.isolation import IsolatedEngine

    engine = IsolatedEngine(service.config)
    service.closers.append(lambda: asyncio.to_thread(engine.close))
    return ParseHandler(service.settings, service.store, engine)


def _verify_handler(service: _Service, encoder: TopicEncoder | None) -> Handler:
    """The verify stage's handler; with a model, its servers are probed and pending documents resumed."""
    from pipeline.model.strategy import ModelStage

    settings = service.settings
    client = model_client(settings)
    model = ModelStage(
        ObservedModel(client) if client is not None else None,
        settings.model_stage_config(),
        tokenizer=model_tokenizer(settings),
    )
    if client is not None:
        service.health.add(Check("model", lambda: model_answers(client, PROBE_TIMEOUT_S)))
        service.background.append(
            asyncio.create_task(resume_loop(settings, service.store, model, service.stop, encoder=encoder))
        )
    return VerifyHandler(settings, service.store, model)


def _sink_handler(service: _Service, encoder: TopicEncoder | None) -> Handler:
    """The sink stage's handler: Parquet datasets, xBRL reports (``SINK_XBRL``), PostgreSQL (``PG_DSN``).

    With PostgreSQL, the history of published figures is there too (``SINK_HISTORY``; PRI001/PRI002).
    """
    from adapters.sinks.parquet import ParquetDatasets

    settings = service.settings
    sinks: list[Sink] = [ParquetDatasets(service.store, settings.artifact_bucket)]
    if settings.sink_xbrl:
        from adapters.sinks.xbrl import XbrlReports

        sinks.append(XbrlReports(service.store, settings.artifact_bucket))
    prior = None
    if settings.pg_dsn:
        from adapters.history.postgres import PostgresHistory
        from adapters.sinks.postgres import PostgresTables
        from consumers.prior import PriorPeriods

        sinks.append(PostgresTables.from_dsn(settings.pg_dsn))
        # The history of published figures lives beside the tables: one database to wait for, one probe.
        prior = PriorPeriods(PostgresHistory(settings.pg_dsn)) if settings.sink_history else None
    return SinkHandler(
        settings, service.store, committed=service.transport.committed, sinks=sinks, prior=prior
    )


HANDLERS: Mapping[Stage, HandlerFactory] = {
    Stage.PARSE: _parse_handler,
    Stage.VERIFY: _verify_handler,
    Stage.SINK: _sink_handler,
}
"""Each stage's handler factory."""


# ---------------------------------------------------------------------------------------------------------
# health


def _serve(settings: Settings, health: Health) -> Endpoint | None:
    """Start the HTTP endpoint as configured (``METRICS_PORT=-1``: none) and log where it listens."""
    if settings.metrics_port < 0:
        return None
    endpoint = Endpoint(health, settings.metrics_host, settings.metrics_port)
    log.warning(
        "metrics endpoint",
        url=endpoint.url,
        port=endpoint.port,
        paths=["/metrics", "/healthz", "/readyz"],
    )
    return endpoint


def _checks(
    settings: Settings, stage: str, transport: KafkaTransport, registration: TopicRegistration | None
) -> list[Check]:
    """What the service's readiness depends on: broker, store, the sink's database, the schema registry.

    The registry is checked when one is configured; its probe also registers the schemas again when the
    registry lost them (:meth:`~adapters.registry.TopicRegistration.probe`).

    The verify service's model server is added once its client exists. Each probe has its own client
    with short timeouts, so a probe never waits behind the service's own (longer) calls.
    """
    probe_store = ObjectStore(settings, timeout_s=PROBE_TIMEOUT_S)
    bucket = settings.artifact_bucket
    checks = [
        Check("broker", lambda: transport.reachable(PROBE_TIMEOUT_S)),
        Check("store", lambda: _answers(probe_store.ping, bucket)),
    ]
    dsn = settings.pg_dsn
    if stage == Stage.SINK and dsn:
        from adapters.sinks.postgres import ping

        checks.append(Check("database", lambda: _answers(ping, dsn, PROBE_TIMEOUT_S)))
    if registration is not None:
        checks.append(Check("registry", registration.probe))
    return checks


async def _answers(call: Callable[..., object], *args: object) -> bool:
    """Whether a blocking probe returns without raising (run in a thread)."""
    await asyncio.to_thread(call, *args)
    return True


async def _registered(
    registration: TopicRegistration | None, stop: asyncio.Event, policy: RetryPolicy
) -> TopicEncoder | None:
    """With a registry configured: the topics' schemas registered (idempotent, race-free) and their encoder.

    An unreachable registry is waited for like the other dependencies; a schema the registry refuses as
    incompatible stops the service at once (this version breaks the topics' contract: a deployment error).
    """
    if registration is None:
        return None
    return await wait_out(
        registration.register,
        what="schema registry not ready",
        stop=stop,
        policy=policy,
        retry_on=(RegistryUnavailable,),
    )
