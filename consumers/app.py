"""Wiring of a service process: settings, object store, Kafka transport, signals."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Literal

import structlog

from consumers.kafka import KafkaTransport, ensure_topics
from consumers.runner import Handler, RetryPolicy, Runner
from consumers.services import ParseHandler, SinkHandler, VerifyHandler
from pipeline.config import EngineConfig
from pipeline.isolation import IsolatedEngine
from pipeline.settings import Settings
from pipeline.storage import ObjectStore
from schemas.events import TOPICS

log = structlog.get_logger(__name__)

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
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    store = ObjectStore(settings)
    await asyncio.to_thread(store.ensure_bucket, settings.artifact_bucket)
    await ensure_topics(settings.kafka_bootstrap, sorted({settings.topic(t) for t in TOPICS}))
    engine: IsolatedEngine | None = None
    handler: Handler
    if stage == "parse":
        engine = IsolatedEngine(cfg)
        handler = ParseHandler(settings, store, engine)
    elif stage == "verify":
        handler = VerifyHandler(settings, store)
    else:
        handler = SinkHandler(settings, store)
    idle = asyncio.Event()
    transport = KafkaTransport(
        bootstrap=settings.kafka_bootstrap,
        topics=[settings.topic(INPUT_TOPIC[stage])],
        group_id=f"{settings.topic_prefix}{stage}",
        transactional_id=f"{settings.topic_prefix}{stage}-{settings.worker_id}",
        idle=idle,
        max_processing_s=cfg.timeout_s + 60,
    )
    runner = Runner(handler, transport, dlq_topic=settings.topic("dlq"), retry=retry, idle=idle)
    structlog.contextvars.bind_contextvars(service=stage, worker=settings.worker_id)
    log.warning("service started", input=settings.topic(INPUT_TOPIC[stage]), kafka=settings.kafka_bootstrap)
    try:
        await runner.run(stop)
    finally:
        if engine is not None:
            await asyncio.to_thread(engine.close)
        log.warning(
            "service stopped", processed=runner.stats.processed, dead_lettered=runner.stats.dead_lettered
        )
    return runner
