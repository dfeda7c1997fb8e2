"""The model client over the openai SDK, against answers made up per request (httpx2.MockTransport).

What is pinned: the request vLLM receives, which failures are retried (by our policy, never by the SDK),
how each outcome maps to an answer or to ModelUnavailable, the accounting, and the health probe.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from pydantic import BaseModel

import adapters.model_client as model_client
from adapters.model_client import Endpoint, ModelClient
from adapters.retry import Backoff
from pipeline.model.ports import Answer, ModelUnavailable
from tests.support.give_up import HOW, give_up

Handler = Callable[[httpx2.Request], httpx2.Response]


class Links(BaseModel):
    links: list[str]


def ok(content: object = None, *, usage: dict[str, Any] | None = None) -> httpx2.Response:
    text = json.dumps({"links": ["a"]} if content is None else content)
    body = {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "smollm2",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": usage if usage is not None else {"prompt_tokens": 900, "completion_tokens": 60},
    }
    return httpx2.Response(200, json=body)


class Server:
    """Answers each request with the next of ``replies`` (the last one repeats), recording the requests."""

    def __init__(self, *replies: httpx2.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_client, "BACKOFF", Backoff(base_s=0.001, max_s=0.002))


def ask(server: Server, *, retries: int = 2, api_key: str | None = None) -> Answer:
    async def main() -> Answer:
        ep = Endpoint("http://model.test/v1", "smollm2", api_key=api_key, timeout_s=7.0)
        client = ModelClient({"standard": ep}, retries=retries, transport=httpx2.MockTransport(server))
        try:
            return await client.structured(
                tier="standard",
                task="cross_page_links",
                prompt_version="v3",
                messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
                schema=Links,
                max_tokens=99,
            )
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_the_request_is_the_structured_output_request_vllm_expects(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-our-server")
    server = Server(ok())
    a = ask(server)
    (req,) = server.requests
    assert req.method == "POST" and str(req.url) == "http://model.test/v1/chat/completions"
    assert json.loads(req.content) == {
        "model": "smollm2",
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        "temperature": 0,
        "max_tokens": 99,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "cross_page_links", "strict": True, "schema": Links.model_json_schema()},
        },
    }
    # No key configured: a placeholder, never the environment's OpenAI key; the timeout is the endpoint's.
    assert req.headers["authorization"] == "Bearer EMPTY"
    assert req.extensions["timeout"] == {"connect": 7.0, "read": 7.0, "write": 7.0, "pool": 7.0}
    assert a.parsed == Links(links=["a"]) and a.call.ok and a.call.tier == "standard"
    assert (a.call.tokens_in, a.call.tokens_out, a.call.cached_tokens) == (900, 60, None)
    assert a.call.model == "smollm2" and a.call.task == "cross_page_links" and a.call.prompt_version == "v3"


def test_a_configured_key_is_sent_and_cached_tokens_are_counted() -> None:
    usage = {"prompt_tokens": 900, "completion_tokens": 60, "prompt_tokens_details": {"cached_tokens": 512}}
    server = Server(ok(usage=usage))
    a = ask(server, api_key="k-123")
    assert server.requests[0].headers["authorization"] == "Bearer k-123"
    assert a.call.cached_tokens == 512


@pytest.mark.parametrize("status", [429, 500, 503])
def test_overload_and_server_errors_are_retried_by_our_policy(status: int) -> None:
    server = Server(httpx2.Response(status, text="busy"), ok())
    a = ask(server, retries=1)
    assert len(server.requests) == 2 and a.call.ok  # one request per attempt: the SDK retries nothing


def test_a_timeout_is_retried_then_the_endpoint_is_unavailable() -> None:
    server = Server(httpx2.ReadTimeout("timed out"))
    with pytest.raises(ModelUnavailable, match="standard endpoint unavailable: ReadTimeout"):
        ask(server, retries=1)
    assert len(server.requests) == 2


def test_a_refused_connection_is_not_tried_again() -> None:
    server = Server(httpx2.ConnectError("connection refused"))
    with pytest.raises(ModelUnavailable, match="ConnectError: connection refused"):
        ask(server, retries=2)
    assert len(server.requests) == 1


def test_a_request_the_server_refuses_is_an_answer_not_an_outage() -> None:
    server = Server(httpx2.Response(400, json={"error": {"message": "context too long"}}))
    a = ask(server, retries=2)
    assert len(server.requests) == 1
    assert a.parsed is None and not a.call.ok and (a.call.error or "").startswith("HTTP 400: ")
    assert "context too long" in (a.call.error or "")


def test_a_malformed_answer_is_recorded_not_trusted() -> None:
    a = ask(Server(ok({"links": "not a list"})))
    assert a.parsed is None and not a.call.ok and (a.call.error or "").startswith("schema: ")
    assert a.raw == '{"links": "not a list"}' and a.call.tokens_in == 900


def test_the_circuit_opens_after_repeated_failures_and_fails_fast() -> None:
    server = Server(httpx2.Response(503, text="overloaded"))

    async def main() -> list[str]:
        ep = Endpoint("http://model.test/v1", "smollm2")
        client = ModelClient({"standard": ep}, retries=1, transport=httpx2.MockTransport(server))
        errors = []
        try:
            for _ in range(3):
                try:
                    await client.structured(
                        tier="standard", task="t", prompt_version="v", messages=[], schema=Links
                    )
                except ModelUnavailable as exc:
                    errors.append(str(exc))
            assert not client.available("standard")
        finally:
            await client.aclose()
        return errors

    errors = asyncio.run(main())
    assert len(server.requests) == 3  # 2 attempts, then 1 that opens the circuit, then none
    assert "HTTP 503: overloaded" in errors[0] and "circuit open" in errors[2]


@pytest.mark.parametrize(
    ("reply", "healthy"),
    [
        (httpx2.Response(200, json={"object": "list", "data": [{"id": "smollm2", "object": "model"}]}), True),
        (httpx2.Response(503, text="loading"), False),
        (httpx2.ConnectError("connection refused"), False),
    ],
)
def test_the_health_probe_lists_the_models(reply: httpx2.Response | Exception, healthy: bool) -> None:
    server = Server(reply)

    async def main() -> tuple[bool, bool]:
        ep = Endpoint("http://model.test/v1", "smollm2")
        client = ModelClient({"standard": ep}, transport=httpx2.MockTransport(server))
        try:
            return await client.healthy("standard", timeout_s=3.0), await client.healthy("deep")
        finally:
            await client.aclose()

    assert asyncio.run(main()) == (healthy, False)
    (req,) = server.requests
    assert req.method == "GET" and str(req.url) == "http://model.test/v1/models"
    assert req.extensions["timeout"]["read"] == 3.0


class Hanging:
    """A real TCP server that reads each request and never answers (a deliberately hanging model server).

    It records each connection's request and whether the client closed it: what vLLM's disconnect listener
    sees, and what makes it abort the request instead of decoding on for nobody.
    """

    def __init__(self) -> None:
        self.received = asyncio.Event()
        self.closed = asyncio.Event()
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.requests.append(await reader.readuntil(b"\r\n\r\n"))
        self.received.set()
        while await reader.read(65536):  # the body, then nothing until the client hangs up (EOF)
            pass
        self.closed.set()
        writer.close()

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()


@pytest.mark.parametrize("how", HOW)
def test_a_call_given_up_on_closes_its_connection_so_the_server_can_abort_it(how: str) -> None:
    hanging = Hanging()

    async def main() -> str:
        async with hanging as base_url:
            timeout = 0.2 if how == "client timeout" else 60.0
            client = ModelClient({"standard": Endpoint(base_url, "smollm2", timeout_s=timeout)}, retries=0)
            call = asyncio.create_task(
                client.structured(
                    tier="standard", task="t", prompt_version="v", messages=[], schema=Links, max_tokens=9
                )
            )
            try:
                outcome = await give_up(call, how, lambda: asyncio.wait_for(hanging.received.wait(), 60))
                # Before the client is closed: the connection itself went, not pooled for reuse.
                await asyncio.wait_for(hanging.closed.wait(), 60)  # liveness bound
            finally:
                await client.aclose()
            return outcome

    outcome = asyncio.run(main())
    assert len(hanging.requests) == 1 and hanging.requests[0].startswith(b"POST /v1/chat/completions ")
    if how == "client timeout":
        assert "endpoint unavailable: ReadTimeout" in outcome, outcome
