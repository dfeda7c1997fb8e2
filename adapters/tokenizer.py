"""Token counts from the served model's own tokenizer: vLLM's ``POST /tokenize``.

The model stage sizes its context (whole document or windows, the ledger's budget) in the served model's
tokens, because an estimate that is 15% short is a request the server refuses. vLLM's OpenAI-compatible
server answers ``POST /tokenize`` (beside ``/v1``, not under it) with ``{"count": n, "max_model_len": m,
"tokens": [...]}``. A server without it (404/405, or an answer without a count: not vLLM) falls back,
once and for good, to the word-piece estimate of :func:`pipeline.parse.chunks.count_tokens`;
:attr:`ServerTokenizer.source` says which answered. Counts are cached by text, so a document's pages are
sent once however many runs ask.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict

import httpx2

from pipeline.model.ports import ModelUnavailable
from pipeline.parse.chunks import count_tokens

__all__ = ["ServerTokenizer"]


class ServerTokenizer:
    """:class:`~pipeline.model.ports.TokenCounter` over a vLLM server's ``/tokenize``."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        timeout_s: float = 30.0,
        concurrency: int = 8,
        cache_size: int = 50_000,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        """Talk to the server whose OpenAI base URL (``…/v1``) is ``base_url``, serving ``model``."""
        self.url = base_url.rstrip("/").removesuffix("/v1") + "/tokenize"
        self.model = model
        self._http = httpx2.AsyncClient(timeout=timeout_s, transport=transport)
        self._gate = asyncio.Semaphore(concurrency)
        self._cache: OrderedDict[bytes, int] = OrderedDict()
        self._cache_size = cache_size
        self._server = True
        self.max_model_len: int | None = None

    @property
    def source(self) -> str:
        """``'server'`` while the server tokenizes, ``'estimate'`` once it turned out it cannot."""
        return "server" if self._server else "estimate"

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def count(self, texts: list[str]) -> list[int]:
        """Tokens of each text (without the chat template's special tokens).

        Raises:
            ModelUnavailable: The server cannot be reached or fails (the document is then pending, as when
                a call fails).
        """
        unique = list(dict.fromkeys(texts))  # a text asked twice at once is still sent once
        counts = dict(zip(unique, await asyncio.gather(*(self._one(t) for t in unique)), strict=True))
        return [counts[t] for t in texts]

    async def _one(self, text: str) -> int:
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        n = await self._ask(text) if self._server else None
        if n is None:
            n = count_tokens(text)
        self._cache[key] = n
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return n

    async def _ask(self, text: str) -> int | None:
        try:
            async with self._gate:
                r = await self._http.post(
                    self.url, json={"model": self.model, "prompt": text, "add_special_tokens": False}
                )
        except httpx2.TransportError as exc:
            raise ModelUnavailable(f"tokenizer unreachable: {type(exc).__name__}: {exc}") from exc
        if r.status_code in (404, 405):
            self._server = False
            return None
        if r.status_code >= 400:
            raise ModelUnavailable(f"tokenizer: HTTP {r.status_code}: {r.text[:200]}")
        try:
            body = r.json()
            count = int(body["count"])
        except (ValueError, TypeError, KeyError):
            # Something answers at /tokenize but not as vLLM does (another OpenAI-compatible server):
            # it is no tokenizer, so estimate from now on rather than fail the document.
            self._server = False
            return None
        self.max_model_len = body.get("max_model_len", self.max_model_len)
        return count
