"""What the model stage needs of a model server, as a protocol; the HTTP client is an adapter.

:class:`adapters.model_client.ModelClient` implements :class:`ModelPort` over an OpenAI-compatible API;
a port subclasses :class:`ModelPort` and answers a :class:`ModelRequest` (:meth:`ModelPort.ask`), so that the
stage's keyword call (:meth:`ModelPort.structured`) is written once, here, for the client, the wrapper
that observes it and the test doubles alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel

from schemas.models import ModelCall

__all__ = ["Answer", "ModelPort", "ModelRequest", "ModelUnavailable", "Tier", "TokenCounter", "other_tier"]

Tier = Literal["standard", "deep"]


def other_tier(tier: Tier) -> Tier:
    """The tier a call falls back to when ``tier`` is unreachable."""
    return "deep" if tier == "standard" else "standard"


class ModelUnavailable(Exception):
    """The endpoint is down (circuit open, connection refused, retries exhausted)."""


@dataclass
class Answer:
    """A validated answer (or None when the model's output broke the schema) and its accounting.

    Attributes:
        parsed: The answer validated against the schema; None when the model's output broke it.
        raw: The text the server returned.
        call: The call's accounting (its ``tier`` is the tier that answered).
        tier: The tier that answered (None: not said, e.g. a test double).
        route: None when the tier asked answered; else why another did:
            ``"fallback from <tier>: <why that tier was unreachable>"``.
    """

    parsed: BaseModel | None
    raw: str
    call: ModelCall
    tier: Tier | None = None
    route: str | None = None


@dataclass(frozen=True)
class ModelRequest:
    """One structured call: what to ask of which tier, and the schema its answer must follow.

    Attributes:
        tier: The tier asked (a client may fall back to the other one; the :class:`Answer` says).
        task: The task's name (also the name of the JSON Schema sent).
        prompt_version: The version of the task's prompt, for the call's accounting.
        messages: The chat messages.
        schema: The pydantic model whose JSON Schema constrains the answer.
        max_tokens: The most tokens the answer may take.
        mode: ``"whole"`` (the document in one window) or ``"ledger"`` (window by window).
    """

    tier: Tier
    task: str
    prompt_version: str
    messages: list[dict[str, str]]
    schema: type[BaseModel]
    max_tokens: int = 512
    mode: Literal["whole", "ledger"] = "whole"


class ModelPort(Protocol):
    """A model server with structured output.

    A port subclasses this protocol and implements :meth:`ask` and :meth:`healthy`; :meth:`structured`,
    the call the model stage makes, packs its keywords into a :class:`ModelRequest` for :meth:`ask`.
    """

    async def structured(
        self,
        *,
        tier: Tier,
        task: str,
        prompt_version: str,
        messages: list[dict[str, str]],
        schema: type[BaseModel],
        max_tokens: int = 512,
        mode: Literal["whole", "ledger"] = "whole",
    ) -> Answer:
        """An answer constrained to ``schema``'s JSON Schema, validated (``parsed`` None when it broke it).

        Raises:
            ModelUnavailable: The server cannot be reached.
        """
        request = ModelRequest(
            tier=tier, task=task, prompt_version=prompt_version, messages=messages, schema=schema,
            max_tokens=max_tokens, mode=mode,
        )  # fmt: skip
        return await self.ask(request)

    async def ask(self, request: ModelRequest) -> Answer:
        """The answer to ``request``, validated against its schema (``parsed`` None when it broke it).

        Raises:
            ModelUnavailable: The server cannot be reached.
        """
        ...

    async def healthy(self, tier: Tier, timeout_s: float = 5.0) -> bool:
        """Whether the tier's server answers."""
        ...


class TokenCounter(Protocol):
    """Counts tokens as the served model's tokenizer does (or estimates them when it cannot)."""

    @property
    def source(self) -> str:
        """Which counter answered: ``'server'`` (the model's own tokenizer) or ``'estimate'``."""
        ...

    async def count(self, texts: list[str]) -> list[int]:
        """Tokens of each text, in order."""
        ...
