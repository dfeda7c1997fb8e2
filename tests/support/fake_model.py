"""A model port and a tokenizer for pure tests of the model stage's scheduling (no server).

:class:`SlowPort` answers every task with a valid, empty answer (a ledger step with a summary of each page
it was shown) after a delay, and counts the calls in flight; :class:`FakeTokenizer` counts about one token
per four characters. Neither claims anything about vLLM: the server's behaviour is tested in
``tests/integration`` and measured by ``bench/llm_verify.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from pipeline.model.ports import Answer, ModelPort, ModelRequest, Tier
from pipeline.model.proposals import LedgerUpdate, PageSummary
from schemas.models import ModelCall


def tokens(text: str) -> int:
    """The fake tokenizer: about one token per four characters (not the estimate the stage falls back to)."""
    return len(text) // 4 + 1


class FakeTokenizer:
    source = "server"

    def __init__(self) -> None:
        self.asked = 0
        self.max_model_len: int | None = None

    async def count(self, texts: list[str]) -> list[int]:
        self.asked += len(texts)
        return [tokens(t) for t in texts]


class SlowPort(ModelPort):
    """Answers every task with an empty (valid) answer after ``delay_s``; counts calls in flight."""

    def __init__(self, delay_s: float = 0.02) -> None:
        self.delay_s = delay_s
        self.in_flight = 0
        self.peak = 0
        self.asked: list[tuple[str, list[dict[str, str]]]] = []

    async def answering(self) -> None:
        """The time the answer to the call just asked takes."""
        await asyncio.sleep(self.delay_s)

    async def ask(self, request: ModelRequest) -> Answer:
        task, messages, schema = request.task, request.messages, request.schema
        self.asked.append((task, messages))
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await self.answering()
        finally:
            self.in_flight -= 1
        if schema is LedgerUpdate:
            pages = [
                int(line.split()[2]) for line in messages[1]["content"].splitlines() if line[:8] == "=== Page"
            ]
            summaries = [PageSummary(page=p, summary=f"page {p} words " * 5) for p in pages]
            text = LedgerUpdate(links=[], pages=summaries).model_dump_json()
        else:
            text = "{" + ", ".join(f'"{k}": []' for k in schema.model_fields) + "}"
        prompt = sum(tokens(m["content"]) for m in messages)
        call = ModelCall(
            task=task, prompt_version=request.prompt_version, model="fake", tier=request.tier,
            mode=request.mode, tokens_in=prompt,
        )  # fmt: skip
        return Answer(schema.model_validate_json(text), text, call)

    async def healthy(self, tier: Tier, timeout_s: float = 5.0) -> bool:
        return True


class JumpingLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock a test can move forward (``skip``): timers, ``asyncio.timeout`` included,
    fall due by the moved clock, so a deadline passes when the test says, not when the machine is slow."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped = 0.0

    def time(self) -> float:
        return super().time() + self.skipped

    def skip(self, seconds: float) -> None:
        self.skipped += seconds


class JumpingPolicy(asyncio.DefaultEventLoopPolicy):
    """Makes every new event loop (``asyncio.run``'s too) a :class:`JumpingLoop`."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        return JumpingLoop()


@contextlib.contextmanager
def jumping_loops() -> Iterator[None]:
    """Within: every new event loop is a :class:`JumpingLoop` (the default policy is restored after)."""
    asyncio.set_event_loop_policy(JumpingPolicy())
    try:
        yield
    finally:
        asyncio.set_event_loop_policy(None)


class StallingPort(SlowPort):
    """Answers the first ``answers`` tasks at once; every later one hangs, and first moves the loop's clock
    (a :class:`JumpingLoop`) a day ahead: any deadline has passed, exactly when the model stalled."""

    def __init__(self, answers: int) -> None:
        super().__init__(delay_s=0.0)
        self.answers = answers
        self.stalled = 0

    async def answering(self) -> None:
        if len(self.asked) <= self.answers:
            return
        self.stalled += 1
        loop = asyncio.get_running_loop()
        assert isinstance(loop, JumpingLoop), "a StallingPort needs a JumpingLoop (JumpingPolicy)"
        loop.skip(86_400.0)
        await asyncio.Event().wait()  # forever: only the deadline ends it
        raise AssertionError("unreachable")
