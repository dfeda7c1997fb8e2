"""The two model tiers served by infra/model.sh on CPU: distinct servers, and fallback when one is down.

The deep tier is reached through a switchable proxy (tests.support.proxy.Switch) in front of the real deep
server: switched off, its port refuses connections as a stopped server's does, without stopping the server
other tests use.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from urllib.parse import urlparse

import pytest
from pydantic import BaseModel

from adapters.model_client import Endpoint, ModelClient
from pipeline.model.ports import Answer
from tests.integration.conftest import MODEL_ENV, started
from tests.integration.model_fixtures import (  # noqa: F401 (servers_left_idle: autouse in this module)
    REQUEST_TIMEOUT_S,
    servers_left_idle,
)
from tests.support.proxy import Switch

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.model_servers]


class Reply(BaseModel):
    answer: str


@pytest.fixture(scope="module")
def tiers() -> dict[str, str]:
    return started(
        MODEL_ENV, "MODEL_DEEP_PORT", "two model tiers", "bash infra/model.sh up (MODEL_TIERS with deep)"
    )


def served(base_url: str) -> dict[str, object]:
    with urllib.request.urlopen(f"{base_url}/models", timeout=10) as resp:
        return dict(json.load(resp)["data"][0])


def test_each_tier_is_its_own_server_with_its_own_window(tiers: dict[str, str]) -> None:
    standard, deep = served(tiers["MODEL_STANDARD_URL"]), served(tiers["MODEL_DEEP_URL"])
    assert tiers["MODEL_STANDARD_URL"] != tiers["MODEL_DEEP_URL"]
    assert (standard["id"], deep["id"]) == (tiers["MODEL_STANDARD_NAME"], tiers["MODEL_DEEP_NAME"])
    assert standard["max_model_len"] == int(tiers["MODEL_MAX_LEN"])
    assert deep["max_model_len"] == int(tiers["MODEL_DEEP_MAX_LEN"]) > standard["max_model_len"]


def test_deep_down_means_standard_answers_and_the_answer_says_why(tiers: dict[str, str]) -> None:
    url = urlparse(tiers["MODEL_DEEP_URL"])
    switch = Switch(url.hostname or "127.0.0.1", url.port or 80)  # starts switched off: nothing listens

    async def main() -> tuple[Answer, Answer]:
        deep_url = f"http://127.0.0.1:{switch.port}/v1"
        client = ModelClient(
            {
                "standard": Endpoint(
                    tiers["MODEL_STANDARD_URL"], tiers["MODEL_STANDARD_NAME"], timeout_s=REQUEST_TIMEOUT_S
                ),
                "deep": Endpoint(deep_url, tiers["MODEL_DEEP_NAME"], timeout_s=REQUEST_TIMEOUT_S),
            }
        )
        messages = [{"role": "user", "content": 'Answer in JSON: {"answer": "yes"}'}]
        try:
            down = await client.structured(
                tier="deep", task="t", prompt_version="v1", messages=messages, schema=Reply, max_tokens=16
            )
            switch.turn_on()
            back = await client.structured(
                tier="deep", task="t", prompt_version="v1", messages=messages, schema=Reply, max_tokens=16
            )
            return down, back
        finally:
            await client.aclose()

    try:
        down, back = asyncio.run(main())
    finally:
        switch.close()
    assert down.tier == "standard" and down.call.model == tiers["MODEL_STANDARD_NAME"]
    assert down.route is not None and down.route.startswith("fallback from deep: deep endpoint unavailable")
    assert down.call.route == down.route and down.call.tokens_in > 0
    assert back.tier == "deep" and back.route is None and back.call.model == tiers["MODEL_DEEP_NAME"]
