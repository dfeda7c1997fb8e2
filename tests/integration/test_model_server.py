"""The model stage against the real vLLM OpenAI-compatible server on CPU (infra/model.sh).

The server serves SmolLM2-135M-Instruct: the tests assert structure and the pipeline's handling —
schema-valid answers merged and verified, pending while unreachable, completed when back — not the
model's financial wisdom.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlparse

import pytest

from adapters.model_client import Endpoint, ModelClient
from adapters.tokenizer import ServerTokenizer
from pipeline.engine import process_path
from pipeline.model.strategy import ModelStage, ModelStageConfig
from schemas.models import DocumentResult
from tests.integration.conftest import MODEL_ENV, REPO, Isolated, started
from tests.support.proxy import Switch

pytestmark = [pytest.mark.integration, pytest.mark.model]
SAMPLE = REPO / "sample_docs" / "northwind_2025_annual_report.pdf"


@pytest.fixture(scope="session")
def model_env() -> dict[str, str]:
    return started(MODEL_ENV, "MODEL_BASE_URL", "model server", "bash infra/model.sh up")


# Every window's calls on a 135M model on 2 CPU cores beside the second tier's server: past the suite's
# 300 s default under load; what is asserted is the merge, not the speed (no deadline, as below).
@pytest.mark.timeout(900)
def test_schema_valid_answers_are_verified_and_merged(model_env: dict[str, str]) -> None:
    doc = process_path(SAMPLE)

    async def main() -> DocumentResult:
        ep = Endpoint(model_env["MODEL_BASE_URL"], model_env.get("MODEL_NAME", "smollm2"), timeout_s=300)
        client = ModelClient({"standard": ep, "deep": ep})
        try:
            # No deadline: what is under test is the merge of real answers, not how fast 2 CPU cores are.
            config = ModelStageConfig(context_tokens=3000, max_output_tokens=800, deadline_s=None)
            return await ModelStage(client, config).run(doc)
        finally:
            await client.aclose()

    r = asyncio.run(main())
    report = r.model
    assert report is not None and report.status == "done"
    assert report.calls and all(c.model for c in report.calls)
    assert any(c.ok for c in report.calls), [c.error for c in report.calls]
    assert all(c.tokens_in > 0 for c in report.calls if c.ok)
    # Whatever the small model proposed was verified one by one; deterministic results are kept.
    assert all(o.reason for o in report.outcomes)
    assert {f.flag_id for f in doc.flags} <= {f.flag_id for f in r.flags}
    assert all(f.rule == "MOD001" for f in r.flags if f.flag_id not in {g.flag_id for g in doc.flags})


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
            }
        )
        it.services.start("parse", "w1")
        it.services.start("verify", "w1")
        it.services.start("sink", "w1")
        from tests.integration.test_services import _upload_boto3

        _upload_boto3(it, [SAMPLE], "model")
        first = it.read(it.topic("verified"), until=lambda r: len(r) >= 1, timeout_s=120)
        assert first[0]["model_stage"] == "pending"
        # The deterministic results were published without waiting for the model.
        flags = it.read(
            it.topic("flags"), until=lambda r: len(r) >= int(str(first[0]["flags"])), timeout_s=30
        )
        assert all(f["rule"] != "MOD001" for f in flags)
        switch.turn_on()  # the server is back
        done = it.read(
            it.topic("verified"), until=lambda r: any(v["model_stage"] == "done" for v in r), timeout_s=600
        )
        assert [v["model_stage"] for v in done] == ["pending", "done"]
        assert done[1]["doc_id"] == first[0]["doc_id"]
    finally:
        switch.close()
