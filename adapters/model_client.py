"""Async client for OpenAI-compatible model servers (vLLM), with structured output.

The transport is the ``openai`` SDK (``AsyncOpenAI`` over httpx2, one client per endpoint sharing one
connection pool), with the SDK's own retries off: when to try again is :mod:`adapters.retry`'s and the
circuit breaker's decision.

* ``response_format`` of type ``json_schema`` generated from a pydantic model; the answer is validated
  against the same model on return (a schema violation is a result, not an exception to retry);
* an explicit timeout on every request, bounded concurrency (a semaphore per endpoint);
* retries only on 429, 5xx and timeouts, with the services' one backoff (:mod:`adapters.retry`); never on
  4xx, refused connections or malformed answers;
* a circuit breaker per endpoint: after a run of failures the endpoint is considered down for a cooldown,
  calls fail fast, and the pipeline records the document as pending instead of waiting;
* fallback between the tiers: a call whose tier is unreachable (not configured, circuit open, connection
  refused, retries exhausted) goes to the other tier when that is a different server and its circuit is
  closed; the :class:`~pipeline.model.ports.Answer` names the tier that answered and why
  (``route="fallback from deep: …"``, also written to the call's ``route``). Only when both fail is
  :class:`~pipeline.model.ports.ModelUnavailable` raised;
* every call is accounted for (:class:`~schemas.models.ModelCall`): task, prompt version, model, tier,
  tokens in/out, tokens served from the prefix cache when the server reports them, latency.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, cast

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ValidationError

from adapters.retry import Backoff, retrying
from pipeline.model.ports import Answer, ModelPort, ModelRequest, ModelUnavailable, Tier, other_tier
from schemas.models import ModelCall

__all__ = ["BACKOFF", "NO_API_KEY", "CircuitBreaker", "Endpoint", "M", "ModelClient"]

M = TypeVar("M", bound=BaseModel)

BACKOFF = Backoff(base_s=0.5, max_s=8.0)
"""Between attempts at one call: about 0.5 s, then 1 s, 2 s, … at most 8 s (the breaker bounds the rest)."""


NO_API_KEY = "EMPTY"
"""Sent when no key is configured: the SDK insists on one (else it would send ``$OPENAI_API_KEY`` to our
server), and vLLM started without ``--api-key`` ignores it (vLLM's own examples use this value)."""


class _Failed(Exception):
    """An attempt the endpoint failed (timeout, dropped connection, 429, 5xx); its text is the reason."""

    def __init__(self, reason: str, *, refused: bool = False) -> None:
        super().__init__(reason)
        self.refused = refused  # nothing listens there: another attempt now would fail the same way

    @classmethod
    def of(cls, exc: openai.APIConnectionError | openai.APIStatusError) -> _Failed:
        """What the SDK raised, described as the HTTP layer saw it (``ConnectError: …``, ``HTTP 503: …``)."""
        if isinstance(exc, openai.APIStatusError):
            return cls(f"HTTP {exc.status_code}: {exc.response.text[:200]}")
        cause = exc.__cause__ or exc  # the SDK wraps httpx2's error (connection refused, read timeout, …)
        return cls(f"{type(cause).__name__}: {cause}", refused=isinstance(cause, httpx2.ConnectError))


def _outage(exc: openai.APIStatusError) -> bool:
    """Whether an HTTP error says the server is overloaded or broken (429, 5xx), not that we asked wrong."""
    return exc.status_code == 429 or exc.status_code >= 500


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One model server: base URL of the OpenAI-compatible API and the served model name."""

    base_url: str
    model: str
    api_key: str | None = None
    max_concurrency: int = 4
    timeout_s: float = 120.0


class CircuitBreaker:
    """Open after ``threshold`` consecutive failures; half-open (one probe) after ``cooldown_s``."""

    def __init__(self, threshold: int = 3, cooldown_s: float = 30.0) -> None:
        """Start closed."""
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self.failures = 0
        self.opened_at: float | None = None

    def allow(self) -> bool:
        """Whether a call may go out now."""
        if self.opened_at is None:
            return True
        return time.monotonic() - self.opened_at >= self.cooldown_s

    def success(self) -> None:
        """Close the circuit."""
        self.failures = 0
        self.opened_at = None

    def failure(self) -> None:
        """Count a failure; open (or re-open) past the threshold."""
        self.failures += 1
        if self.failures >= self.threshold:
            self.opened_at = time.monotonic()


@dataclass
class _State:
    semaphore: asyncio.Semaphore
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)


class ModelClient(ModelPort):
    """Talks to the ``standard`` and ``deep`` endpoints (which may be the same server)."""

    def __init__(
        self,
        endpoints: dict[Tier, Endpoint],
        *,
        retries: int = 2,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        """Configure the tiers; ``transport`` lets tests answer for the server (``httpx2.MockTransport``)."""
        self.endpoints = endpoints
        self.retries = retries
        self._states = {t: _State(asyncio.Semaphore(e.max_concurrency)) for t, e in endpoints.items()}
        self._http = openai.DefaultAsyncHttpx2Client(transport=transport)
        self._clients = {
            t: openai.AsyncOpenAI(
                base_url=e.base_url,
                api_key=e.api_key or NO_API_KEY,
                timeout=e.timeout_s,
                max_retries=0,  # adapters.retry and the circuit breaker decide when to try again
                http_client=self._http,
            )
            for t, e in endpoints.items()
        }

    async def aclose(self) -> None:
        """Close connections."""
        await self._http.aclose()

    def available(self, tier: Tier) -> bool:
        """False while the tier's circuit is open (or the tier is not configured)."""
        return tier in self.endpoints and self._states[tier].breaker.allow()

    async def healthy(self, tier: Tier, timeout_s: float = 5.0) -> bool:
        """A quick probe of ``/models`` (used to resume pending documents)."""
        client = self._clients.get(tier)
        if client is None:
            return False
        try:
            await client.models.list(timeout=timeout_s)
        except openai.APIError:
            return False
        return True

    def _can_fall_back(self, tier: Tier) -> bool:
        """Whether ``tier``'s calls may go to the other tier: configured, another server, circuit closed."""
        other = other_tier(tier)
        if other not in self.endpoints or not self.available(other):
            return False
        mine = self.endpoints.get(tier)
        # Both tiers on one server (MODEL_TIERS=standard, a single GPU box): that server is down for both.
        return mine is None or mine.base_url.rstrip("/") != self.endpoints[other].base_url.rstrip("/")

    async def ask(self, request: ModelRequest) -> Answer:
        """Ask ``request.tier`` (or, when it is unreachable, the other tier) for an answer to ``request``.

        Returns:
            The validated answer, with ``tier`` the tier that answered and ``route`` None when that is the
            tier asked, else ``"fallback from <tier>: <why it was unreachable>"``.

        Raises:
            ModelUnavailable: When both tiers are down or keep failing (the caller marks the document
                pending); a malformed answer is not an error here, it comes back with ``parsed=None``.
        """
        tier = request.tier
        try:
            return await self._ask(request, route=None)
        except ModelUnavailable as exc:
            if not self._can_fall_back(tier):
                raise
            fallback = replace(request, tier=other_tier(tier))
            try:
                return await self._ask(fallback, route=f"fallback from {tier}: {exc}")
            except ModelUnavailable as again:
                raise ModelUnavailable(f"{exc}; and {again}") from again

    async def _ask(self, request: ModelRequest, *, route: str | None) -> Answer:
        """One tier's answer (retried within the tier); ``route`` says why this tier is asked."""
        tier, task, prompt_version, mode = request.tier, request.task, request.prompt_version, request.mode
        messages, schema = request.messages, request.schema
        ep = self.endpoints.get(tier)
        if ep is None:
            raise ModelUnavailable(f"no {tier} model configured")
        client, state = self._clients[tier], self._states[tier]
        breaker = state.breaker
        if not breaker.allow():
            raise ModelUnavailable(f"{tier} endpoint circuit open after {breaker.failures} failures")
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {"name": task, "strict": True, "schema": schema.model_json_schema()},
        }
        started = 0.0

        async def attempt() -> ChatCompletion:
            nonlocal started
            started = time.monotonic()
            try:
                return await client.chat.completions.create(
                    model=ep.model,
                    messages=cast("list[ChatCompletionMessageParam]", messages),
                    temperature=0,
                    max_tokens=request.max_tokens,
                    response_format=response_format,
                )
            except openai.APIConnectionError as exc:  # refused, reset, timed out
                breaker.failure()
                raise _Failed.of(exc) from exc
            except openai.APIStatusError as exc:
                if not _outage(exc):
                    raise
                breaker.failure()
                raise _Failed.of(exc) from exc

        async with state.semaphore:
            try:
                completion = await retrying(
                    attempt,
                    BACKOFF,
                    on=(_Failed,),
                    attempts=self.retries + 1,
                    give_up=lambda exc: (isinstance(exc, _Failed) and exc.refused) or not breaker.allow(),
                )
            except _Failed as exc:
                raise ModelUnavailable(f"{tier} endpoint unavailable: {exc}") from exc
            except openai.APIStatusError as exc:
                # The server refused the request itself (bad schema, context too long): not retried.
                breaker.success()
                call = ModelCall(
                    task=task, prompt_version=prompt_version, model=ep.model, tier=tier, mode=mode,
                    route=route, latency_ms=(time.monotonic() - started) * 1000, ok=False,
                    error=f"HTTP {exc.status_code}: {exc.response.text[:300]}",
                )  # fmt: skip
                return Answer(None, "", call, tier=tier, route=route)
            latency = (time.monotonic() - started) * 1000
            breaker.success()
            answer = self._answer(completion, task, prompt_version, ep, tier, mode, latency, schema)
            answer.call = answer.call.model_copy(update={"route": route})
            answer.route = route
            return answer

    @staticmethod
    def _answer(
        completion: ChatCompletion,
        task: str,
        prompt_version: str,
        ep: Endpoint,
        tier: Tier,
        mode: Literal["whole", "ledger"],
        latency: float,
        schema: type[M],
    ) -> Answer:
        # The SDK builds its models without validation: a server's odd answer has fields missing or None.
        usage = getattr(completion, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None)
        try:
            raw = str(completion.choices[0].message.content or "")
        except (AttributeError, IndexError, TypeError):
            # No chat completion at all (the SDK hands back the body itself when it is not JSON).
            dump = completion.model_dump_json() if isinstance(completion, BaseModel) else str(completion)
            raw = dump[:500]
        call_kw: dict[str, Any] = {
            "task": task,
            "prompt_version": prompt_version,
            "model": str(getattr(completion, "model", None) or ep.model),
            "tier": tier,
            "mode": mode,
            "tokens_in": int(getattr(usage, "prompt_tokens", None) or 0),
            "tokens_out": int(getattr(usage, "completion_tokens", None) or 0),
            "cached_tokens": int(cached) if cached is not None else None,
            "latency_ms": round(latency, 1),
        }
        try:
            parsed: BaseModel | None = schema.model_validate_json(raw)
            return Answer(parsed, raw, ModelCall(**call_kw), tier=tier)
        except ValidationError as exc:
            call = ModelCall(**call_kw, ok=False, error=f"schema: {exc.errors()[0]['msg']}")
            return Answer(None, raw, call, tier=tier)
