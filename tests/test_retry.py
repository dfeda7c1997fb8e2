"""The one retry policy (adapters.retry) and the runner's outage wait built on it."""

from __future__ import annotations

import asyncio
import time

import pytest
from tenacity import RetryCallState

from adapters.retry import Backoff, retrying
from consumers.runner import RetryPolicy, TransientError, wait_out


class Flaky:
    """Fails ``failures`` times with ``error``, then returns the attempt number."""

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        self.failures = failures
        self.error = error or TransientError("s3 503")
        self.calls = 0

    async def __call__(self) -> int:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return self.calls


FAST = Backoff(base_s=0.001, max_s=0.004)


def test_the_backoff_is_capped_exponential_with_25_percent_jitter() -> None:
    b = Backoff(base_s=0.5, max_s=30.0)
    for attempt, nominal in [(0, 0.5), (1, 0.5), (2, 1.0), (3, 2.0), (6, 16.0), (7, 30.0), (50, 30.0)]:
        waits = [b.delay(attempt) for _ in range(200)]
        assert all(0.75 * nominal <= w <= 1.25 * nominal for w in waits), attempt
        assert max(waits) - min(waits) > 0.2 * nominal  # spread, so that clients do not retry in step


def test_errors_are_retried_until_success_and_each_wait_is_announced() -> None:
    flaky = Flaky(4)
    seen: list[tuple[int, float]] = []

    def before_sleep(state: RetryCallState) -> None:
        seen.append((state.attempt_number, state.upcoming_sleep))

    assert asyncio.run(retrying(flaky, FAST, on=(TransientError,), before_sleep=before_sleep)) == 5
    assert [n for n, _ in seen] == [1, 2, 3, 4] and all(0 < s <= 0.005 for _, s in seen)


def test_bounded_retries_raise_the_last_error_itself() -> None:
    flaky = Flaky(10)
    with pytest.raises(TransientError, match="s3 503"):
        asyncio.run(retrying(flaky, FAST, on=(TransientError,), attempts=3))
    assert flaky.calls == 3


def test_other_errors_are_not_retried() -> None:
    flaky = Flaky(10, ValueError("bug"))
    with pytest.raises(ValueError, match="bug"):
        asyncio.run(retrying(flaky, FAST, on=(TransientError,), attempts=3))
    assert flaky.calls == 1


def test_give_up_ends_the_retries_at_once() -> None:
    flaky = Flaky(10)
    with pytest.raises(TransientError):
        asyncio.run(retrying(flaky, FAST, on=(TransientError,), give_up=lambda exc: flaky.calls == 2))
    assert flaky.calls == 2


DAY = Backoff(base_s=86_400.0, max_s=86_400.0)
"""A wait no test lives to see the end of: a retry that returns at all had its wait cut short."""


def test_a_stop_request_cuts_the_wait_short_and_no_attempt_follows() -> None:
    flaky = Flaky(10)
    asked: list[float] = []

    async def main() -> None:
        stop = asyncio.Event()

        def waiting(state: RetryCallState) -> None:
            asked.append(state.upcoming_sleep)
            asyncio.get_running_loop().call_soon(stop.set)  # once the wait has begun

        with pytest.raises(TransientError):
            await retrying(flaky, DAY, on=(TransientError,), stop=stop, before_sleep=waiting)

    t0 = time.monotonic()
    asyncio.run(main())
    # A wait of at least 18 hours was begun, and the retry came back: the stop request cut it short.
    assert len(asked) == 1 and asked[0] >= 0.75 * DAY.base_s
    assert time.monotonic() - t0 < asked[0]  # not the wait asked for (the test would not live to see it)
    assert flaky.calls == 1


def test_a_stop_request_at_a_failure_gives_up_without_waiting() -> None:
    flaky = Flaky(10)
    slept: list[float] = []

    async def main() -> None:
        stop = asyncio.Event()
        stop.set()  # the first attempt is still made
        with pytest.raises(TransientError):
            await retrying(
                flaky, FAST, on=(TransientError,), stop=stop, before_sleep=lambda s: slept.append(1.0)
            )

    asyncio.run(main())
    assert flaky.calls == 1 and slept == []


def test_wait_out_waits_for_as_long_as_it_takes_counting_each_retry() -> None:
    flaky = Flaky(12, ConnectionResetError("connection reset by peer"))
    retries: list[int] = []

    async def main() -> int:
        return await wait_out(
            flaky,
            what="commit failed",
            stop=asyncio.Event(),
            policy=RetryPolicy(base_s=0.001, max_s=0.004),
            on_retry=lambda: retries.append(1),
        )

    assert asyncio.run(main()) == 13 and len(retries) == 12


def test_wait_out_ends_when_the_service_is_stopped() -> None:
    flaky = Flaky(10**6)
    retries: list[int] = []

    async def main() -> None:
        stop = asyncio.Event()

        def retry() -> None:
            retries.append(1)
            asyncio.get_running_loop().call_soon(stop.set)  # the service is stopped while it waits

        policy = RetryPolicy(base_s=DAY.base_s, max_s=DAY.max_s)
        with pytest.raises(TransientError):
            await wait_out(flaky, what="transport not ready", stop=stop, policy=policy, on_retry=retry)

    asyncio.run(main())
    # One attempt, one wait of a day begun, and wait_out returned: the stop ended the wait, not its end.
    assert flaky.calls == 1 and len(retries) == 1
