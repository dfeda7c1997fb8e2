"""Async client for OpenAI-compatible model servers (vLLM), with structured output.

* ``response_format`` of type ``json_schema`` generated from a pydantic model; the answer is validated
  against the same model on return (a schema violation is a result, not an exception to retry);
* explicit connect/read timeouts, bounded concurrency (a semaphore per endpoint);
* retries only on 429, 5xx and timeouts, with the services' one backoff (:mod:`adapters.retry`); never on
  4xx, refused connections or malformed answers;
* a circuit breaker per endpoint: after a run of failures the endpoint is considered down for a cooldown,
  calls fail fast, and the pipeline records the document as pending instead of waiting;
* every call is accounted for (:class:`~schemas.models.ModelCall`): task, prompt version, model, tier,
  tokens in/out, tokens served from the prefix cache when the server reports them, latency.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from adapters.retry import Backoff, retrying
from pipeline.model.ports import Answer, ModelUnavailable, Tier
from schemas.models import ModelCall

M = TypeVar("M", bound=BaseModel)

BACKOFF = Backoff(base_s=0.5, max_s=8.0)
"""Between attempts at one call: about 0.5 s, then 1 s, 2 s, … at most 8 s (the breaker bounds the rest)."""


class _Failed(Exception):
    """An attempt the endpoint failed (timeout, dropped connection, 429, 5xx); its text is the reason."""

    def __init__(self, reason: str, *, refused: bool = False) -> None:
        super().__init__(reason)
        self.refused = refused  # nothing listens there: another attempt now would fail the same way


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


class ModelClient:
    """Talks to the ``standard`` and ``deep`` endpoints (which may be the same server)."""

    def __init__(
        self,
        endpoints: dict[Tier, Endpoint],
        *,
        retries: int = 2,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Configure the tiers; ``transport`` lets tests speak to a local ASGI app or a real server."""
        self.endpoints = endpoints
        self.retries = retries
        self._states = {t: _State(asyncio.Semaphore(e.max_concurrency)) for t, e in endpoints.items()}
        self._client = httpx.AsyncClient(transport=transport, timeout=httpx.Timeout(120.0, connect=5.0))

    async def aclose(self) -> None:
        """Close connections."""
        await self._client.aclose()

    def available(self, tier: Tier) -> bool:
        """False while the tier's circuit is open (or the tier is not configured)."""
        return tier in self.endpoints and self._states[tier].breaker.allow()

    async def healthy(self, tier: Tier, timeout_s: float = 5.0) -> bool:
        """A quick probe of ``/models`` (used to resume pending documents)."""
        ep = self.endpoints.get(tier)
        if ep is None:
            return False
        try:
            r = await self._client.get(
                f"{ep.base_url.rstrip('/')}/models", headers=self._headers(ep), timeout=timeout_s
            )
            return r.status_code == 200
        except httpx.HTTPError:
            return False

    @staticmethod
    def _headers(ep: Endpoint) -> dict[str, str]:
        return {"Authorization": f"Bearer {ep.api_key}"} if ep.api_key else {}

    async def structured(
        self,
        *,
        tier: Tier,
        task: str,
        prompt_version: str,
        messages: list[dict[str, str]],
        schema: type[M],
        max_tokens: int = 512,
        mode: Literal["whole", "ledger"] = "whole",
    ) -> Answer:
        """Ask for an answer constrained to ``schema``'s JSON Schema and validate it.

        Raises:
            ModelUnavailable: When the endpoint is down or keeps failing (the caller marks the document
                pending); a malformed answer is not an error here, it comes back with ``parsed=None``.
        """
        ep = self.endpoints.get(tier)
        if ep is None:
            raise ModelUnavailable(f"no {tier} model configured")
        state = self._states[tier]
        if not state.breaker.allow():
            raise ModelUnavailable(f"{tier} endpoint circuit open after {state.breaker.failures} failures")
        body: dict[str, Any] = {
            "model": ep.model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": max_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": task, "strict": True, "schema": schema.model_json_schema()},
            },
        }
        url = f"{ep.base_url.rstrip('/')}/chat/completions"
        breaker = state.breaker

        async def attempt() -> tuple[httpx.Response, float]:
            t0 = time.monotonic()
            try:
                r = await self._client.post(url, json=body, headers=self._headers(ep), timeout=ep.timeout_s)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                breaker.failure()
                raise _Failed(
                    f"{type(exc).__name__}: {exc}", refused=isinstance(exc, httpx.ConnectError)
                ) from exc
            if r.status_code == 429 or r.status_code >= 500:
                breaker.failure()
                raise _Failed(f"HTTP {r.status_code}: {r.text[:200]}")
            return r, (time.monotonic() - t0) * 1000

        async with state.semaphore:
            try:
                r, latency = await retrying(
                    attempt,
                    BACKOFF,
                    on=(_Failed,),
                    attempts=self.retries + 1,
                    give_up=lambda exc: (isinstance(exc, _Failed) and exc.refused) or not breaker.allow(),
                )
            except _Failed as exc:
                raise ModelUnavailable(f"{tier} endpoint unavailable: {exc}") from exc
            breaker.success()
            if r.status_code >= 400:
                # The server refused the request itself (bad schema, context too long): not retried.
                call = ModelCall(
                    task=task, prompt_version=prompt_version, model=ep.model, tier=tier, mode=mode,
                    latency_ms=latency, ok=False, error=f"HTTP {r.status_code}: {r.text[:300]}",
                )  # fmt: skip
                return Answer(None, "", call)
            return self._answer(r.json(), task, prompt_version, ep, tier, mode, latency, schema)

    @staticmethod
    def _answer(
        payload: dict[str, Any],
        task: str,
        prompt_version: str,
        ep: Endpoint,
        tier: Tier,
        mode: Literal["whole", "ledger"],
        latency: float,
        schema: type[M],
    ) -> Answer:
        usage = payload.get("usage") or {}
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens") if isinstance(details, dict) else None
        raw = ""
        try:
            raw = str(payload["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError):
            raw = json.dumps(payload)[:500]
        call_kw: dict[str, Any] = {
            "task": task,
            "prompt_version": prompt_version,
            "model": str(payload.get("model") or ep.model),
            "tier": tier,
            "mode": mode,
            "tokens_in": int(usage.get("prompt_tokens") or 0),
            "tokens_out": int(usage.get("completion_tokens") or 0),
            "cached_tokens": int(cached) if cached is not None else None,
            "latency_ms": round(latency, 1),
        }
        try:
            parsed: BaseModel | None = schema.model_validate_json(raw)
            return Answer(parsed, raw, ModelCall(**call_kw))
        except ValidationError as exc:
            return Answer(
                None, raw, ModelCall(**call_kw, ok=False, error=f"schema: {exc.errors()[0]['msg']}")
            )
