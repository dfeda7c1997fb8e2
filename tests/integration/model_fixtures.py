"""What the model tests share: the CPU vLLM servers' load, read from their Prometheus ``/metrics``.

A request the client gave up on must not keep a CPU core decoding for minutes beside the rest of the suite.
:func:`servers_left_idle` (autouse in every model test module: import it there) checks after each test
that no request is running or waiting on either server of ``infra/model.sh``; a test that leaves the
server decoding fails there instead of slowing every test after it.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from adapters.settings import read_env_file
from tests.integration.conftest import MODEL_ENV

ANSWER_TOKENS = 64
"""The answer budget of every model test's calls: enough for a schema-valid JSON answer of a few items
(what the tests prove is the interface and the pipeline's handling of it), seconds of decoding on CPU."""

REQUEST_TIMEOUT_S = 120.0
"""Liveness bound of one request of these tests (the client's timeout, after which it closes the
connection and the server aborts the request): a bounded request takes seconds, minutes only when the
machine is badly overloaded."""

IDLE_BOUND_S = 180.0
"""Liveness bound: how long a server may take to drop a test's last requests (seconds, generous). A
bounded request (tens of tokens) finishes, and an abandoned one is aborted, in seconds even on a busy
machine; a request left decoding hundreds of tokens on 2 shared cores outlasts it."""


@dataclass(frozen=True, slots=True)
class Load:
    """One reading of a server's ``/metrics``: the scheduler's gauges and the counters the tests compare."""

    running: float
    waiting: float
    generation_tokens: float
    """Tokens decoded since start (every request, finished or aborted)."""
    finished: float
    """Requests that ended in the engine (stop, length, …) since start; an aborted one is not counted."""

    @property
    def idle(self) -> bool:
        """Nothing decoding and nothing queued."""
        return self.running == 0 and self.waiting == 0


def metric(text: str, name: str) -> float:
    """The sum of a Prometheus family's samples named exactly ``name`` (over their label sets)."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and line[len(name) : len(name) + 1] in ("{", " "):
            total += float(line.rsplit(" ", 1)[1])
    return total


def load(root: str) -> Load:
    """Read ``root``/metrics (``root`` is the server's address without ``/v1``)."""
    with urllib.request.urlopen(f"{root}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    return Load(
        running=metric(text, "vllm:num_requests_running"),
        waiting=metric(text, "vllm:num_requests_waiting"),
        generation_tokens=metric(text, "vllm:generation_tokens_total"),
        finished=metric(text, "vllm:request_success_total"),
    )


def servers() -> dict[str, str]:
    """``{tier: root URL}`` of the model servers ``infra/model.sh up`` wrote into model.env (none: {})."""
    env = read_env_file(MODEL_ENV)
    ports = {"standard": env.get("MODEL_PORT"), "deep": env.get("MODEL_DEEP_PORT")}
    return {tier: f"http://127.0.0.1:{port}" for tier, port in ports.items() if port}


def wait_idle(root: str, bound_s: float = IDLE_BOUND_S) -> Load:
    """Poll ``root``/metrics until nothing runs or waits; the last reading either way (caller asserts)."""
    deadline = time.monotonic() + bound_s
    reading = load(root)
    while not reading.idle and time.monotonic() < deadline:
        time.sleep(0.5)
        reading = load(root)
    return reading


@pytest.fixture(autouse=True)
def servers_left_idle() -> Iterator[None]:
    """After the test: every model server has dropped the test's requests (within a liveness bound)."""
    yield
    for tier, root in servers().items():
        try:
            reading = wait_idle(root)
        except OSError:
            continue  # the server is down (a test stopped it, or it never ran): nothing left decoding
        assert reading.idle, (
            f"liveness bound: the {tier} model server ({root}) still had {reading.running:g} request(s) "
            f"running and {reading.waiting:g} waiting {IDLE_BOUND_S:.0f} s after the test: a request was "
            "left decoding (unbounded max_tokens, or a client that gave up without closing its connection)"
        )
