"""What the handlers and the service wiring record: timed steps, model calls, consumer lag.

The metrics are defined in :mod:`consumers.metrics`, the spans made with :mod:`consumers.tracing`; this
module holds the few helpers that do both at once, so that a step's span and its histogram can never
disagree about what was timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Mapping
from typing import Protocol

import structlog
from opentelemetry.trace import SpanKind

from consumers import metrics, tracing
from pipeline.model.ports import Answer, ModelPort, ModelRequest, ModelUnavailable, Tier
from schemas.models import DocumentStats

__all__ = ["LagSource", "ObservedModel", "engine_stages", "sample_lag", "step"]

log = structlog.get_logger(__name__)


@contextlib.contextmanager
def step(
    service: str, name: str, attributes: Mapping[str, str | int | float | bool] | None = None
) -> Iterator[None]:
    """A span named ``name`` around the block, and its time in ``tieout_stage_seconds`` when it succeeds.

    A step that fails (an outage, a bad document) is left out of the histogram, so an outage's timeouts
    do not pass for slow work; its span records the error.
    """
    with tracing.span(name, attributes={"tieout.service": service, **(attributes or {})}):
        t0 = time.monotonic()
        yield
        metrics.STAGE_SECONDS.labels(service, name).observe(time.monotonic() - t0)


def engine_stages(service: str, stats: DocumentStats, end_ns: int) -> None:
    """The parse engine's per-stage wall times (:attr:`DocumentStats.stage_seconds`) as metrics and spans.

    The engine runs in a worker process, where no span can be made; its stages run one after the other,
    so they are laid out back to back, ending when the engine's answer came back (``end_ns``), and marked
    as timed in the worker.
    """
    start = end_ns - int(sum(stats.stage_seconds.values()) * 1e9)
    for name, seconds in stats.stage_seconds.items():
        metrics.STAGE_SECONDS.labels(service, f"engine.{name}").observe(seconds)
        stop = start + int(seconds * 1e9)
        tracing.record_span(f"engine.{name}", start, stop, {"tieout.timed_in": "worker process"})
        start = stop
    metrics.PAGES.labels(service).inc(stats.pages)


class ObservedModel(ModelPort):
    """A :class:`~pipeline.model.ports.ModelPort` that times and counts every call of the one it wraps.

    Each call gets a span (tier, task, tokens) and feeds ``tieout_model_call_seconds``,
    ``tieout_model_calls_total``, ``tieout_model_tokens_total`` and ``tieout_model_cached_tokens_total``
    from the call's own accounting (:class:`~schemas.models.ModelCall`). Wrapping the port keeps the HTTP
    client (an adapter) free of any metrics library.
    """

    def __init__(self, inner: ModelPort) -> None:
        """Wrap ``inner``."""
        self.inner = inner

    async def ask(self, request: ModelRequest) -> Answer:
        """The wrapped port's answer, observed.

        Raises:
            ModelUnavailable: As the wrapped port does (counted as ``unavailable``).
        """
        tier, task = request.tier, request.task
        attributes = {"tieout.model.tier": tier, "tieout.model.task": task, "tieout.model.mode": request.mode}
        with tracing.span(f"model {task}", kind=SpanKind.CLIENT, attributes=attributes) as span:
            t0 = time.monotonic()
            try:
                answer = await self.inner.ask(request)
            except ModelUnavailable:
                metrics.MODEL_CALLS.labels(tier, "unavailable").inc()
                raise
            finally:
                metrics.MODEL_CALL_SECONDS.labels(tier, task).observe(time.monotonic() - t0)
            call = answer.call
            answered = answer.tier or tier
            if answered != tier:
                # The client fell back: the tier asked was unreachable, the other one answered.
                metrics.MODEL_CALLS.labels(tier, "unavailable").inc()
                span.set_attribute("tieout.model.answered_tier", answered)
                span.set_attribute("tieout.model.route", answer.route or "")
            metrics.MODEL_CALLS.labels(answered, "ok" if call.ok else "invalid").inc()
            metrics.MODEL_TOKENS.labels(answered, "in").inc(call.tokens_in)
            metrics.MODEL_TOKENS.labels(answered, "out").inc(call.tokens_out)
            metrics.MODEL_CACHED_TOKENS.labels(answered).inc(call.cached_tokens or 0)
            span.set_attribute("tieout.model.name", call.model)
            span.set_attribute("tieout.model.tokens_in", call.tokens_in)
            span.set_attribute("tieout.model.tokens_out", call.tokens_out)
            span.set_attribute("tieout.model.cached_tokens", call.cached_tokens or 0)
            span.set_attribute("tieout.model.ok", call.ok)
        return answer

    async def healthy(self, tier: Tier, timeout_s: float = 5.0) -> bool:
        """Whether the wrapped port's tier answers."""
        return await self.inner.healthy(tier, timeout_s)


class LagSource(Protocol):
    """What can tell the consumer lag of its partitions (:meth:`consumers.runner.Transport.lag`)."""

    async def lag(self) -> dict[tuple[str, int], int]:
        """Records of each assigned partition not yet handed out."""
        ...


async def sample_lag(
    service: str, source: LagSource, stop: asyncio.Event, *, interval_s: float = 5.0
) -> None:
    """Every ``interval_s`` until ``stop``: set ``tieout_consumer_lag`` for each assigned partition.

    Partitions no longer assigned lose their series (another worker reports them now). While the broker
    cannot be asked, the last figures stand.
    """
    while not stop.is_set():
        try:
            lags = await source.lag()
        except Exception as exc:  # the sampler must outlive an outage; the next round asks again
            log.debug("consumer lag not sampled", error=f"{type(exc).__name__}: {exc}")
        else:
            for topic, partition in _lag_series(service) - set(lags):
                with contextlib.suppress(KeyError):
                    metrics.CONSUMER_LAG.remove(service, topic, str(partition))
            for (topic, partition), lag in lags.items():
                metrics.CONSUMER_LAG.labels(service, topic, str(partition)).set(lag)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval_s)


def _lag_series(service: str) -> set[tuple[str, int]]:
    """The partitions whose lag the service shows now."""
    return {
        (sample.labels["topic"], int(sample.labels["partition"]))
        for family in metrics.CONSUMER_LAG.collect()
        for sample in family.samples
        if sample.labels.get("service") == service
    }
