"""Fallback between the model tiers in the client, against answers made up per request (httpx2.MockTransport).

The transport answers per host: a host that "refuses" raises httpx2's ConnectError, which is what the SDK
sees from a closed port. What is pinned: which tier answers, what the answer and its call say about why.
"""

from __future__ import annotations

import asyncio

import httpx2
import pytest

import adapters.model_client as model_client
from adapters.model_client import Endpoint, ModelClient
from adapters.retry import Backoff
from pipeline.model.ports import Answer, ModelUnavailable, Tier
from tests.test_model_client import Links, ok

STANDARD = Endpoint("http://standard.test/v1", "smollm2")
DEEP = Endpoint("http://deep.test/v1", "smollm2-deep")


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_client, "BACKOFF", Backoff(base_s=0.001, max_s=0.002))


class Hosts:
    """Answers by host; ``down`` hosts refuse the connection. Records the hosts asked, in order."""

    def __init__(self, *down: str) -> None:
        self.down = set(down)
        self.asked: list[str] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.asked.append(request.url.host)
        if request.url.host in self.down:
            raise httpx2.ConnectError("connection refused")
        return ok()


def ask(hosts: Hosts, tier: Tier, endpoints: dict[Tier, Endpoint] | None = None) -> Answer:
    async def main() -> Answer:
        client = ModelClient(
            endpoints or {"standard": STANDARD, "deep": DEEP}, transport=httpx2.MockTransport(hosts)
        )
        try:
            return await client.structured(
                tier=tier, task="t", prompt_version="v1", messages=[], schema=Links
            )
        finally:
            await client.aclose()

    return asyncio.run(main())


def test_the_tier_asked_answers_when_it_is_up() -> None:
    answer = ask(Hosts(), "deep")
    assert (answer.tier, answer.route, answer.call.tier, answer.call.route) == ("deep", None, "deep", None)
    assert answer.parsed == Links(links=["a"])


@pytest.mark.parametrize(("asked", "down", "other"), [("standard", "standard.test", "deep"),
                                                      ("deep", "deep.test", "standard")])  # fmt: skip
def test_a_refused_tier_hands_the_call_to_the_other_and_says_so(asked: Tier, down: str, other: Tier) -> None:
    hosts = Hosts(down)
    answer = ask(hosts, asked)
    assert answer.parsed == Links(links=["a"])
    assert answer.tier == other and answer.call.tier == other
    assert answer.call.model == "smollm2"  # the model the server reported
    assert answer.route is not None and answer.route == answer.call.route
    assert answer.route.startswith(f"fallback from {asked}: {asked} endpoint unavailable: ConnectError")
    # A refused connection is not retried: one attempt at the refusing tier, then the other.
    assert hosts.asked == [down, f"{other}.test"]


def test_an_open_circuit_goes_to_the_other_tier_without_asking() -> None:
    hosts = Hosts("deep.test")

    async def main() -> tuple[Answer, list[str]]:
        client = ModelClient({"standard": STANDARD, "deep": DEEP}, transport=httpx2.MockTransport(hosts))
        try:
            # Three refusals open the deep circuit (each of these calls falls back to standard) ...
            for _ in range(3):
                await client.structured(tier="deep", task="t", prompt_version="v1", messages=[], schema=Links)
            hosts.asked.clear()
            # ... and the next call skips deep altogether.
            answer = await client.structured(
                tier="deep", task="t", prompt_version="v1", messages=[], schema=Links
            )
            return answer, list(hosts.asked)
        finally:
            await client.aclose()

    answer, asked = asyncio.run(main())
    assert asked == ["standard.test"]
    assert answer.tier == "standard" and answer.route is not None and "circuit open" in answer.route


def test_both_tiers_down_is_model_unavailable_naming_both() -> None:
    with pytest.raises(
        ModelUnavailable, match=r"standard endpoint unavailable.*; and deep endpoint unavailable"
    ):
        ask(Hosts("standard.test", "deep.test"), "standard")


def test_no_fallback_when_both_tiers_are_one_server() -> None:
    hosts = Hosts("standard.test")
    same: dict[Tier, Endpoint] = {"standard": STANDARD, "deep": Endpoint(STANDARD.base_url + "/", "smollm2")}
    with pytest.raises(ModelUnavailable, match=r"^deep endpoint unavailable: ConnectError"):
        ask(hosts, "deep", same)
    assert hosts.asked == ["standard.test"]


def test_an_unconfigured_tier_falls_back_to_the_configured_one() -> None:
    answer = ask(Hosts(), "deep", {"standard": STANDARD})
    assert answer.tier == "standard" and answer.route == "fallback from deep: no deep model configured"
