"""The verify service's model servers: their client and tokenizer, their health, and the resume loop.

A document whose model stage could not finish (the server was down, or the document's deadline passed) is
published as verified so far and marked pending; :func:`resume_loop` completes it once the server answers
again (:func:`consumers.services.resume_pending`). What only a configured model needs (the client's
openai, the model stage) is imported where it is used, so that the other stages never load it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

import structlog

from adapters.registry import TopicEncoder
from adapters.settings import Settings
from adapters.storage import Store
from consumers.kafka import TransactionalProducer, client_options
from consumers.runner import Outgoing, RetryPolicy, until_up
from consumers.services import resume_pending
from schemas.topology import Stage

if TYPE_CHECKING:
    from adapters.model_client import ModelClient
    from adapters.tokenizer import ServerTokenizer
    from pipeline.model.ports import Tier
    from pipeline.model.strategy import ModelStage

__all__ = ["TIERS", "model_answers", "model_client", "model_tokenizer", "resume_loop"]

log = structlog.get_logger(__name__)

TIERS: tuple[Tier, ...] = ("standard", "deep")
"""The model tiers a verify service may be configured with, in the order they are asked."""


def model_client(settings: Settings) -> ModelClient | None:
    """A client for the configured model tiers, or None when no model is configured."""
    eps = settings.model_endpoints()
    if not eps:
        return None
    from adapters.model_client import Endpoint, ModelClient

    endpoints: dict[Tier, Endpoint] = {}
    for tier in TIERS:
        if tier in eps:
            url, name = eps[tier]
            endpoints[tier] = Endpoint(url, name, api_key=settings.model_api_key)
    return ModelClient(endpoints)


def model_tokenizer(settings: Settings) -> ServerTokenizer | None:
    """The deep tier's own tokenizer (its server's ``/tokenize``), which sizes the model stage's windows."""
    deep = settings.model_endpoints().get("deep")
    if not deep:
        return None
    from adapters.tokenizer import ServerTokenizer

    return ServerTokenizer(*deep)


async def model_answers(client: ModelClient, timeout_s: float) -> bool:
    """Whether every configured tier's server answers (``/models``, bounded by ``timeout_s`` each)."""
    return all([await client.healthy(t, timeout_s) for t in TIERS if t in client.endpoints])


async def resume_loop(
    settings: Settings,
    store: Store,
    model: ModelStage,
    stop: asyncio.Event,
    interval_s: float = 10.0,
    *,
    encoder: TopicEncoder | None = None,
) -> None:
    """Every ``interval_s``: when the model server answers, complete documents left pending."""
    producer = TransactionalProducer(
        client_options(settings),
        f"{settings.topic_prefix}{Stage.VERIFY}-resume-{settings.worker}",
        encoder=encoder,
    )
    await until_up("kafka", producer.start, stop, RetryPolicy())

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
