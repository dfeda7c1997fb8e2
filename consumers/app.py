"""Wiring of a service process: settings, object store, Kafka transport, signals."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import structlog

from adapters.settings import Settings
from adapters.sinks.base import Sink
from adapters.sinks.parquet import ParquetDatasets
from adapters.storage import ObjectStore
from consumers.identity import WorkerSlot, claim_slot
from consumers.kafka import KafkaTransport, TransactionalProducer, client_options, ensure_topics
from consumers.runner import Handler, Outgoing, RetryPolicy, Runner, wait_out
from consumers.services import (
    ParseHandler,
    SinkHandler,
    StoreClaims,
    VerifyHandler,
    model_client,
    resume_pending,
)
from pipeline.config import EngineConfig
from pipeline.isolation import IsolatedEngine
from pipeline.model.strategy import ModelStage
from schemas.events import TOPICS

log = structlog.get_logger(__name__)
T = TypeVar("T")

Stage = Literal["parse", "verify", "sink"]
INPUT_TOPIC: dict[Stage, str] = {"parse": "landing", "verify": "parsed", "sink": "verified"}


async def run_service(
    stage: Stage,
    settings: Settings,
    *,
    config: EngineConfig | None = None,
    stop: asyncio.Event | None = None,
    retry: RetryPolicy | None = None,
) -> Runner:
    """Run one service until SIGTERM/SIGINT (or ``stop``); the message in hand is finished first.

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
    policy = retry or RetryPolicy()
    store = ObjectStore(settings)
    # A service started while a dependency is down waits for it instead of exiting.
    await _until_up(
        "object store", lambda: asyncio.to_thread(store.ensure_bucket, settings.artifact_bucket), stop, policy
    )
    topics = sorted({settings.topic(t) for t in TOPICS})
    connection = client_options(settings)
    await _until_up("kafka", lambda: ensure_topics(connection, topics), stop, policy)
    engine: IsolatedEngine | None = None
    background: list[asyncio.Task[None]] = []
    handler: Handler
    if stage == "parse":
        engine = IsolatedEngine(cfg)
        handler = ParseHandler(settings, store, engine)
    elif stage == "verify":
        model = ModelStage(model_client(settings))
        handler = VerifyHandler(settings, store, model)
        if model.client is not None:
            background.append(asyncio.create_task(_resume_loop(settings, store, model, stop)))
    else:
        sinks: list[Sink] = [ParquetDatasets(store, settings.artifact_bucket)]
        if settings.pg_dsn:
            from adapters.sinks.postgres import PostgresTables

            sinks.append(PostgresTables.from_dsn(settings.pg_dsn))
        handler = SinkHandler(settings, store, sinks=sinks)
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
    claims = StoreClaims(store, settings.artifact_bucket, settings.max_record_bytes)
    runner = Runner(
        handler, transport, dlq_topic=settings.topic("dlq"), retry=retry, idle=idle, claims=claims
    )
    structlog.contextvars.bind_contextvars(service=stage, worker=settings.worker)
    log.warning("service started", input=settings.topic(INPUT_TOPIC[stage]), kafka=settings.kafka_bootstrap)
    try:
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
        log.warning(
            "service stopped", processed=runner.stats.processed, dead_lettered=runner.stats.dead_lettered
        )
    return runner


async def _until_up(
    what: str, call: Callable[[], Awaitable[T]], stop: asyncio.Event, policy: RetryPolicy
) -> T:
    """A start-up call, waited out like an outage; at start-up any failure to reach a dependency counts."""
    return await wait_out(call, what=f"{what} not ready", stop=stop, policy=policy, retry_on=(Exception,))


async def _resume_loop(
    settings: Settings, store: ObjectStore, model: ModelStage, stop: asyncio.Event, interval_s: float = 10.0
) -> None:
    """Every ``interval_s``: when the model server answers, complete documents left pending."""
    producer = TransactionalProducer(
        client_options(settings), f"{settings.topic_prefix}verify-resume-{settings.worker}"
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
