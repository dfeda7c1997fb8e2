"""The model stage against the real vLLM OpenAI-compatible server on CPU (infra/model.sh).

The server serves SmolLM2-135M-Instruct: the tests assert structure and the pipeline's handling —
schema-valid answers merged and verified, pending while unreachable, completed when back, a request the
client gave up on aborted on the server — not the model's financial wisdom. Every request is bounded
(answers of tens of tokens, one short document, a client timeout), and after each test no request may still
run on either server (:mod:`tests.integration.model_fixtures`).
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

import pytest
from pydantic import BaseModel, Field

from adapters.model_client import Endpoint, ModelClient
from adapters.tokenizer import ServerTokenizer
from pipeline.engine import process_path
from pipeline.model.strategy import ModelStage, ModelStageConfig
from schemas.models import DocumentResult
from tests.integration.conftest import LIVENESS_S, MODEL_ENV, REPO, Isolated, started
from tests.integration.model_fixtures import (  # noqa: F401 (servers_left_idle: autouse in this module)
    ANSWER_TOKENS,
    REQUEST_TIMEOUT_S,
    Load,
    load,
    servers_left_idle,
    wait_idle,
)
from tests.support.give_up import HOW, give_up
from tests.support.proxy import Switch

pytestmark = [pytest.mark.integration, pytest.mark.model, pytest.mark.model_servers]
SAMPLE = REPO / "sample_docs" / "northwind_2025_annual_report.pdf"


@pytest.fixture(scope="session")
def model_env() -> dict[str, str]:
    return started(MODEL_ENV, "MODEL_BASE_URL", "model server", "bash infra/model.sh up")


MERGE_ANSWER_TOKENS = 2 * ANSWER_TOKENS
"""The merge test's answer budget: room for one bounded item of any task (a label mapping is up to ~240
characters, and SmolLM2 puts blank lines between JSON tokens); at 64 tokens the one schema-valid answer of
three had used every token."""


def test_schema_valid_answers_are_verified_and_merged(model_env: dict[str, str]) -> None:
    doc = process_path(SAMPLE)
    assert doc.flags, "the sample report has deterministic flags, which the merge must keep"

    async def main() -> DocumentResult:
        ep = Endpoint(
            model_env["MODEL_BASE_URL"], model_env.get("MODEL_NAME", "smollm2"), timeout_s=REQUEST_TIMEOUT_S
        )
        client = ModelClient({"standard": ep, "deep": ep})
        try:
            # The 8-page report whole in the 8k window: three calls (cross-page links first, which computes
            # the shared ~3k-token prefix, then label mapping of one label and narrative claims from the
            # server's prefix cache), each answer at most MERGE_ANSWER_TOKENS: seconds of CPU, where the
            # ledger over 1-page windows was 17 calls of up to 800 tokens. The model's answers still come
            # back schema-valid (or not) and go through verification. No deadline: what is under test is
            # the merge of real answers, not how fast 2 CPU cores are.
            config = ModelStageConfig(
                context_tokens=int(model_env.get("MODEL_MAX_LEN", "8192")),
                max_output_tokens=MERGE_ANSWER_TOKENS,
                max_labels=1,
                deadline_s=None,
            )
            return await ModelStage(client, config).run(doc)
        finally:
            await client.aclose()

    r = asyncio.run(main())
    report = r.model
    assert report is not None and report.status == "done"
    assert (report.reason or "").startswith("whole: 1 window"), report.reason
    assert {c.task for c in report.calls} == {"cross_page_links", "label_mapping", "narrative_claims"}
    assert all(c.model for c in report.calls)
    assert any(c.ok for c in report.calls), [c.error for c in report.calls]
    assert all(c.tokens_in > 0 and 0 < c.tokens_out <= MERGE_ANSWER_TOKENS for c in report.calls if c.ok)
    # Whatever the small model proposed was verified one by one; deterministic results are kept.
    assert all(o.reason for o in report.outcomes)
    assert {f.flag_id for f in doc.flags} <= {f.flag_id for f in r.flags}
    assert all(f.rule == "MOD001" for f in r.flags if f.flag_id not in {g.flag_id for g in doc.flags})


class Endless(BaseModel):
    """An answer the model cannot finish early: the grammar forces more numbers than ENDLESS_TOKENS hold."""

    numbers: list[int] = Field(min_length=2_500)


ENDLESS_TOKENS = 4_000
"""The runaway request's answer budget: a minute or more of decoding on 2 CPU cores if nobody stops it
(each number is at least two tokens, a digit and a comma, so it can only end by hitting this budget)."""


@pytest.mark.parametrize("how", HOW)
def test_a_request_the_client_gives_up_on_is_aborted_on_the_server(
    model_env: dict[str, str], how: str
) -> None:
    """Giving up closes the connection; vLLM's disconnect listener then aborts the request in the engine.

    Two ways a caller gives up: the client's own timeout (ModelClient's ``Endpoint.timeout_s``), and the
    caller cancelling the call (the model stage's deadline cancels the calls in flight). Either way the
    server must stop decoding: nothing running or waiting, fewer tokens decoded than the request's budget,
    and the request never counted as finished (vLLM counts stop and length, not a client's abort).
    """
    base_url = model_env["MODEL_BASE_URL"]
    root = base_url.removesuffix("/v1")
    before = wait_idle(root)
    assert before.idle, f"liveness bound: the server was busy before the test: {before}"
    messages = [{"role": "user", "content": "Count from 1 upwards, as a JSON list of integers."}]

    async def main() -> tuple[str, Load]:
        timeout = 1.0 if how == "client timeout" else REQUEST_TIMEOUT_S
        ep = Endpoint(base_url, model_env.get("MODEL_NAME", "smollm2"), timeout_s=timeout)
        client = ModelClient({"standard": ep}, retries=0)
        call = asyncio.create_task(
            client.structured(
                tier="standard", task="endless", prompt_version="t", messages=messages, schema=Endless,
                max_tokens=ENDLESS_TOKENS,
            )
        )  # fmt: skip

        async def decoding() -> None:
            """Until the server decodes this request (a liveness bound, not a measurement)."""
            deadline = asyncio.get_running_loop().time() + REQUEST_TIMEOUT_S
            while (await asyncio.to_thread(load, root)).generation_tokens == before.generation_tokens:
                assert not call.done(), call
                assert asyncio.get_running_loop().time() < deadline, "liveness bound: no token decoded"
                await asyncio.sleep(0.2)

        try:
            outcome = await give_up(call, how, decoding)
            # While the client lives on, as a service's does: closing it would close every connection
            # anyway, and hide one left open in its pool with the server still decoding for it.
            return outcome, await asyncio.to_thread(wait_idle, root)
        finally:
            await client.aclose()

    outcome, after = asyncio.run(main())
    if how == "client timeout":
        assert "Timeout" in outcome, outcome
    decoded = after.generation_tokens - before.generation_tokens
    assert after.idle, f"liveness bound: the server still decodes the abandoned request: {after}"
    assert after.finished == before.finished, "the request ran to its end instead of being aborted"
    assert decoded < ENDLESS_TOKENS, f"{decoded:g} tokens decoded: the request was not aborted"


def test_tokens_are_counted_by_the_served_model_s_tokenizer(model_env: dict[str, str]) -> None:
    async def main() -> tuple[list[int], str, int | None]:
        tok = ServerTokenizer(model_env["MODEL_BASE_URL"], model_env.get("MODEL_NAME", "smollm2"))
        try:
            counts = await tok.count(["Revenue", "Net revenue was $23,601 million in 2022 (842.1)", ""])
            return counts, tok.source, tok.max_model_len
        finally:
            await tok.aclose()

    counts, source, max_len = asyncio.run(main())
    assert source == "server" and counts[0] >= 1 and counts[1] > counts[0] and counts[2] == 0
    assert max_len == int(model_env.get("MODEL_MAX_LEN", "8192"))  # the window infra/model.sh serves


def test_pending_while_the_server_is_unreachable_then_completed(
    isolated: Isolated, model_env: dict[str, str]
) -> None:
    it = isolated
    url = urlparse(model_env["MODEL_BASE_URL"])
    switch = Switch(url.hostname or "127.0.0.1", url.port or 80)  # starts switched off: nothing listens
    try:
        it.services.env.update(
            {
                "MODEL_STANDARD_URL": f"http://127.0.0.1:{switch.port}/v1",
                # Both tiers behind the switch: a reachable deep tier would answer the standard tier's calls.
                "MODEL_DEEP_URL": f"http://127.0.0.1:{switch.port}/v1",
                "MODEL_NAME": model_env.get("MODEL_NAME", "smollm2"),
                # The verify service's calls as bounded as this module's own (pending → done is asserted,
                # not what the model answers).
                "MODEL_OUTPUT_TOKENS": str(ANSWER_TOKENS),
            }
        )
        it.services.start("parse", "w1")
        it.services.start("verify", "w1")
        it.services.start("sink", "w1")
        from tests.integration.test_services import _upload_boto3

        _upload_boto3(it, [SAMPLE], "model")
        first = it.read(it.topic("verified"), until=lambda r: len(r) >= 1, timeout_s=LIVENESS_S)
        assert first[0]["model_stage"] == "pending"
        # The deterministic results were published without waiting for the model.
        flags = it.read(
            # liveness bound: the sink publishes them after its own start-up and gate (30 s failed a fresh
            # run on a loaded machine, 2026-12-01)
            it.topic("flags"),
            until=lambda r: len(r) >= int(str(first[0]["flags"])),
            timeout_s=LIVENESS_S,
        )
        assert all(f["rule"] != "MOD001" for f in flags)
        switch.turn_on()  # the server is back
        done = it.read(
            it.topic("verified"),
            until=lambda r: any(v["model_stage"] == "done" for v in r),
            timeout_s=600,  # liveness bound
        )
        assert [v["model_stage"] for v in done] == ["pending", "done"]
        assert done[1]["doc_id"] == first[0]["doc_id"]
    finally:
        switch.close()
