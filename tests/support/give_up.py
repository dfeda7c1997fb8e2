"""The two ways a caller gives up on a model call, for the tests that check the server hears of it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from pipeline.model.ports import ModelUnavailable

HOW = ("client timeout", "caller cancels")
"""Parameter values of :func:`give_up` (test ids)."""


async def give_up(
    call: asyncio.Task[Any],
    how: str,
    started: Callable[[], Awaitable[object]],
) -> str:
    """Let ``call`` hit its client's timeout (it must fail with ModelUnavailable), or cancel it once
    ``started()`` returns (as the model stage's deadline cancels the calls in flight).

    Returns:
        The ModelUnavailable message, or ``"cancelled"``.
    """
    if how == "client timeout":
        with pytest.raises(ModelUnavailable) as raised:
            await call
        return str(raised.value)
    await started()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    return "cancelled"
