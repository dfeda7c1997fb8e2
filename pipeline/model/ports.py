"""What the model stage needs of a model server, as a protocol; the HTTP client is an adapter.

:class:`adapters.model_client.ModelClient` implements :class:`ModelPort` over an OpenAI-compatible API;
tests may pass anything with the same two methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel

from schemas.models import ModelCall

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


class ModelPort(Protocol):
    """A model server with structured output."""

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
