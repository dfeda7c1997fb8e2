"""The one retry policy of the services' I/O: capped exponential backoff with ±25 % jitter, run by tenacity.

Every caller retries through :func:`retrying` with a :class:`Backoff`: the model client (a few attempts,
given up at once when the endpoint refuses connections or its circuit opens), the runner's in-place
retries (a few attempts), and the runner's outage wait (no limit, ended by a stop request).

Why tenacity and not stamina: stamina is an opinionated front end to tenacity, and its opinions do not fit
the outage wait. It stops only after a number of attempts or a deadline, sleeps with a plain
``asyncio.sleep`` that nothing can cut short, and has no place for a condition such as "the circuit
opened". The runner must wait out an outage for as long as it lasts and stop waiting the moment the service
is asked to stop; tenacity takes the stop condition, the wait and the sleep as arguments, so each of those
is declared here instead of being looped by hand at every call site.

The wait formula stays our own (:meth:`Backoff.delay`): tenacity's jittered waits are either "full
jitter" (``wait_random_exponential``, anywhere from zero to the backoff) or additive
(``wait_exponential_jitter``, a fixed random amount on top); ±25 % around the capped exponential keeps a
floor under every wait and spreads clients retrying the same outage, as the services always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type

__all__ = ["Backoff", "T", "retrying"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped exponential backoff with ±25 % jitter; a tenacity wait strategy (call it with the state)."""

    base_s: float = 0.5
    max_s: float = 30.0

    def delay(self, attempt: int) -> float:
        """Seconds after failed attempt ``attempt`` (from 1): ``base_s·2^(attempt−1)``, capped, ±25 %.

        Also for waits no loop runs (the runner holds a partition that long).
        """
        return float(min(self.max_s, self.base_s * 2 ** (max(1, attempt) - 1)) * random.uniform(0.75, 1.25))

    def __call__(self, state: RetryCallState) -> float:
        """The delay after the attempt that just failed (tenacity's wait protocol)."""
        return self.delay(state.attempt_number)


async def retrying(
    call: Callable[[], Awaitable[T]],
    backoff: Backoff,
    *,
    on: tuple[type[BaseException], ...],
    attempts: int | None = None,
    give_up: Callable[[BaseException], bool] | None = None,
    stop: asyncio.Event | None = None,
    before_sleep: Callable[[RetryCallState], None] | None = None,
) -> T:
    """``call`` until it succeeds, waiting :class:`Backoff` delays between attempts that failed with ``on``.

    Args:
        call: The attempt.
        backoff: The waits between attempts.
        on: The errors worth another attempt; any other error propagates at once.
        attempts: How many attempts at most (None: no limit).
        give_up: Called with each retried error; True ends the retries there.
        stop: A stop request: once set, at a failure or during the wait after one (which it cuts short),
            no further attempt is made.
        before_sleep: Called before each wait (``state.upcoming_sleep`` is its length), for logs and counts.

    Returns:
        What the first successful attempt returned.

    Raises:
        BaseException: The last error itself (never wrapped) when the retries end without a success.
    """
    failed: BaseException | None = None

    async def attempt() -> T:
        nonlocal failed
        if failed is not None and stop is not None and stop.is_set():
            raise failed  # the stop request cut the wait short: give up with the error that was waited out
        try:
            return await call()
        except on as exc:
            failed = exc
            raise

    def stopping(state: RetryCallState) -> bool:
        error = state.outcome.exception() if state.outcome is not None else None
        return (
            (attempts is not None and state.attempt_number >= attempts)
            or (give_up is not None and error is not None and give_up(error))
            or (stop is not None and stop.is_set())
        )

    async def sleep(seconds: float) -> None:
        if stop is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), seconds)

    policy = AsyncRetrying(
        retry=retry_if_exception_type(on),
        stop=stopping,
        wait=backoff,
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )
    result: T = await policy(attempt)
    return result
