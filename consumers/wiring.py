"""Wiring of a service process: settings, object store, Kafka transport, signals, metrics and traces."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, TypeVar

import structlog

from adapters.registry import RegistryUnavailable, TopicEncoder, TopicRegistration, topic_registration
from adapters.settings import Settings
from adapters.storage import ObjectStore
from consumers import tracing
from consumers.health import Check, Endpoint, Health
from consumers.identity import WorkerSlot, claim_slot
from consumers.kafka import KafkaTransport, TransactionalProducer, client_options, ensure_topics
from consumers.runner import Handler, Outgoing, RetryPolicy, Runner, wait_out
from consumers.services import (
    ParseHandler,
    SinkHandler,
    StoreClaims,
    VerifyHandler,
    model_client,
    model_tokenizer,
    resume_pending,
)
from consumers.telemetry import ObservedModel, sample_lag
from pipeline.config import EngineConfig
from schemas.topology import TOPOLOGY

# What only one stage uses is imported in that stage's branch of run_service, so a restarted worker does
# not spend its start-up importing the others' libraries (the model client's openai, the sink's pyarrow).
if TYPE_CHECKING:
    from adapters.model_client import ModelClient
    from adapters.sinks.base import Sink
    from adapters.workers.isolation import IsolatedEngine
    from pipeline.model.ports import Tier
    from pipeline.model.strategy import ModelStage

log = structlog.get_logger(__name__)
T = TypeVar("T")

Stage = Literal["parse", "verify", "sink"]
INPUT_TOPIC: dict[Stage, str] = {"parse": "landing", "verify": "parsed", "sink": "verified"}
PROBE_TIMEOUT_S = 5.0
"""Bound on each readiness probe's network call (a probe round runs every few seconds)."""


async def run_service(
    stage: Stage,
    settings: Settings,
    *,
    config: EngineConfig | None = None,
    stop: asyncio.Event | None = None,
    retry: RetryPolicy | None = None,
) -> Runner:
    """Run one service until SIGTERM/SIGINT (or ``stop``); the message in hand is finished first.

    Its HTTP endpoint (``/metrics``, ``/healthz``, ``/readyz``) serves from the start, while dependencies
    are still being waited for (not ready yet), until the service stops.

    Returns:
        The runner, whose ``stats`` say what was done.
    """
    cfg = config or EngineConfig()
    stop = stop or asyncio.Event()
    slot: WorkerSlot | None = None
    if settings.worker_id is None:
        slot = claim_slot(f"{settings.topic_prefix}{stage}")
        settings = settings.model_copy(update={"worker_id": slot.worker_id})
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    structlog.contextvars.bind_contextvars(service=stage, worker=settings.worker)
    tracing.setup(settings, stage)
    policy = retry or RetryPolicy()
    store = ObjectStore(settings)
    topics = sorted({settings.topic(t.name) for t in TOPOLOGY.topics})
    connection = client_options(settings)
    idle = asyncio.Event()
    member = f"{settings.topic_prefix}{stage}-{settings.worker}"
    transport = KafkaTransport(
        connection=connection,
        topics=[settings.topic(INPUT_TOPIC[stage])],
        group_id=f"{settings.topic_prefix}{stage}",
        transactional_id=member,
        # Static membership: a worker restarted within the session timeout gets its partitions back
        # without a rebalance of the whole group.
        group_instance_id=member,
        idle=idle,
        max_processing_s=cfg.timeout_s + 60,
    )
    # Kept registered from start-up on (None without SCHEMA_REGISTRY_URL); re-registered by the probe.
    registration = topic_registration(
        settings,
        timeout_s=PROBE_TIMEOUT_S,
        on_registered=lambda ids: log.warning(
            "topic schemas registered", registry=settings.schema_registry_url, ids=dict(ids)
        ),
    )
    health = Health(stage, _checks(settings, stage, transport, registration))
    endpoint = _serve(settings, health)
    background: list[asyncio.Task[None]] = [asyncio.create_task(health.run(stop))]
    engine: IsolatedEngine | None = None
    runner: Runner | None = None
    try:
        # A service started while a dependency is down waits for it instead of exiting.
        await _until_up(
            "object store",
            lambda: asyncio.to_thread(store.ensure_bucket, settings.artifact_bucket),
            stop,
            policy,
        )
        await _until_up("kafka", lambda: ensure_topics(connection, topics), stop, policy)
        encoder = await _registered(registration, stop, policy)
        transport.producer.encoder = encoder
        handler: Handler
        if stage == "parse":
            from adapters.workers.isolation import IsolatedEngine

            engine = IsolatedEngine(cfg)
            handler = ParseHandler(settings, store, engine)
        elif stage == "verify":
            from pipeline.model.strategy import ModelStage

            client = model_client(settings)
            model = ModelStage(
                ObservedModel(client) if client is not None else None,
                settings.model_stage_config(),
                tokenizer=model_tokenizer(settings),
            )
            handler = VerifyHandler(settings, store, model)
            if client is not None:
                health.add(Check("model", lambda: _model_answers(client)))
                background.append(
                    asyncio.create_task(_resume_loop(settings, store, model, stop, encoder=encoder))
                )
        else:
            from adapters.sinks.parquet import ParquetDatasets

            sinks: list[Sink] = [ParquetDatasets(store, settings.artifact_bucket)]
            if settings.pg_dsn:
                from adapters.sinks.postgres import PostgresTables

                sinks.append(PostgresTables.from_dsn(settings.pg_dsn))
            handler = SinkHandler(settings, store, committed=transport.committed, sinks=sinks)
        background.append(asyncio.create_task(sample_lag(stage, transport, stop)))
        claims = StoreClaims(store, settings.artifact_bucket, settings.max_record_bytes)
        runner = Runner(
            handler, transport, dlq_topic=settings.topic("dlq"), retry=retry, idle=idle, claims=claims
        )
        log.warning(
            "service started", input=settings.topic(INPUT_TOPIC[stage]), kafka=settings.kafka_bootstrap
        )
        await runner.run(stop)
    finally:
        stop.set()
        for task in background:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 30)
        if engine is not None:
            await asyncio.to_thread(engine.close)
        if slot is not None:
            slot.release()
        if endpoint is not None:
            await asyncio.to_thread(endpoint.close)
        if registration is not None:
            await registration.aclose()
        # Exports what is still queued (bounded by the exporter's timeout).
        await asyncio.to_thread(tracing.shutdown)
        if runner is not None:
            log.warning(
                "service stopped", processed=runner.stats.processed, dead_lettered=runner.stats.dead_lettered
            )
    assert runner is not None  # only an exception leaves the try block without one
    return runner


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
    settings: Settings, stage: Stage, transport: KafkaTransport, registration: TopicRegistration | None
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
    if stage == "sink" and dsn:
        from adapters.sinks.postgres import ping

        checks.append(Check("database", lambda: _answers(ping, dsn, PROBE_TIMEOUT_S)))
    if registration is not None:
        checks.append(Check("registry", registration.probe))
    return checks


async def _answers(call: Callable[..., object], *args: object) -> bool:
    """Whether a blocking probe returns without raising (run in a thread)."""
    await asyncio.to_thread(call, *args)
    return True


async def _model_answers(client: ModelClient) -> bool:
    """Whether every configured tier's server answers (``/models``, bounded)."""
    tiers: tuple[Tier, ...] = ("standard", "deep")
    return all([await client.healthy(t, PROBE_TIMEOUT_S) for t in tiers if t in client.endpoints])


async def _until_up(
    what: str, call: Callable[[], Awaitable[T]], stop: asyncio.Event, policy: RetryPolicy
) -> T:
    """A start-up call, waited out like an outage; at start-up any failure to reach a dependency counts."""
    return await wait_out(call, what=f"{what} not ready", stop=stop, policy=policy, retry_on=(Exception,))


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


async def _resume_loop(
    settings: Settings,
    store: ObjectStore,
    model: ModelStage,
    stop: asyncio.Event,
    interval_s: float = 10.0,
    *,
    encoder: TopicEncoder | None = None,
) -> None:
    """Every ``interval_s``: when the model server answers, complete documents left pending."""
    producer = TransactionalProducer(
        client_options(settings), f"{settings.topic_prefix}verify-resume-{settings.worker}", encoder=encoder
    )
    await _until_up("kafka", producer.start, stop, RetryPolicy())

    async def publish(out: list[Outgoing]) -> None:
        await producer.publish(out)

    try:
        while not stop.is_set():
            try:
                await resume_pending(settings, store, model, publish)
            except Exception as exc:  # the loop must outlive a bad round; the next one retries
                log.warning("resuming pending documents failed", error=f"{type(exc).__name__}: {exc}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval_s)
    finally:
        await producer.stop()
