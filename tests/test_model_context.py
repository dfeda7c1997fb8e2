"""Long context that fits: whole or windowed with a bounded ledger, concurrency, deadline and resume.

Pure: a fake model port that answers slowly and a fake tokenizer stand in for the server, because what is
under test is the planning and scheduling of the calls (the client against the real vLLM server is tested
under ``integration``, the figures on a real filing are ``bench/llm_verify.py``'s).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import httpx2

from adapters.tokenizer import ServerTokenizer
from pipeline.engine import process_path
from pipeline.model.ports import Answer
from pipeline.model.strategy import (
    SHARED_SYSTEM,
    ModelStage,
    ModelStageConfig,
    RunStats,
    fit_ledger,
    render_pages,
)
from pipeline.parse.chunks import count_tokens
from schemas.models import DocumentResult
from tests.support.fake_model import FakeTokenizer, SlowPort, StallingPort, jumping_loops, tokens

DOC = Path(__file__).resolve().parent.parent / "sample_docs" / "halvorsen_2025_form_10k.pdf"


@cache
def doc() -> DocumentResult:
    return process_path(DOC)


def run(
    config: ModelStageConfig, port: SlowPort | None = None, d: DocumentResult | None = None
) -> tuple[DocumentResult, RunStats, SlowPort]:
    port = port or SlowPort()
    stage = ModelStage(port, config, tokenizer=FakeTokenizer())
    result, stats = asyncio.run(stage.run_with_stats(d or doc()))
    return result, stats, port


def test_a_document_that_fits_goes_whole_and_every_task_shares_its_prefix() -> None:
    r, stats, port = run(ModelStageConfig(context_tokens=32_000, deadline_s=None))
    assert stats.mode == "whole" and stats.windows == 1 and stats.token_source == "server"
    assert r.model is not None and r.model.status == "done"
    prefixes = {(m[0]["content"], m[1]["content"]) for _, m in port.asked}
    assert len(prefixes) == 1 and next(iter(prefixes))[0] == SHARED_SYSTEM
    assert port.asked[0][0] == "cross_page_links"  # the lead warms the prefix before the others start
    # the task's own instruction is last, after the pages
    assert all(
        m[-1]["content"] != m[1]["content"] and "=== Page 1 ===" not in m[-1]["content"]
        for _, m in port.asked
    )
    calls = r.model.calls
    assert [c.call_id for c in calls] and len({c.call_id for c in calls}) == len(calls)
    assert all(c.messages and c.answer and c.route == f"task {c.task} → {c.tier}" for c in calls)


def test_a_document_that_does_not_fit_goes_in_windows_that_each_fit() -> None:
    whole_tokens = sum(tokens(t) for t in render_pages(doc()).values())
    window = whole_tokens // 2 + 1500  # about half the document, beside instructions and the answer
    cfg = ModelStageConfig(context_tokens=window, max_output_tokens=300, ledger_tokens=400, deadline_s=None)
    r, stats, port = run(cfg)
    assert stats.mode == "ledger" and stats.windows >= 2
    assert r.model is not None and r.model.status == "done"
    for _, messages in port.asked:
        assert sum(tokens(m["content"]) for m in messages) + cfg.max_output_tokens <= cfg.context_tokens
    ledger_steps = [m for t, m in port.asked if t == "ledger_step"]
    assert len(ledger_steps) == stats.windows
    # the ledger carries the earlier windows' summaries forward
    assert "page 1: page 1 words" in ledger_steps[-1][-1]["content"]


def test_a_standard_task_too_large_for_the_standard_window_goes_deep_and_says_why() -> None:
    whole_tokens = sum(tokens(t) for t in render_pages(doc()).values())
    # the deep window holds the whole document; the standard one a fraction of it
    cfg = ModelStageConfig(
        context_tokens=whole_tokens + 4000, standard_context_tokens=whole_tokens // 3, deadline_s=None
    )
    r, stats, _ = run(cfg)
    assert stats.mode == "whole" and r.model is not None
    claims = [c for c in r.model.calls if c.task == "narrative_claims"]
    assert claims and all(c.tier == "deep" for c in claims)
    assert all(
        c.route is not None
        and c.route.startswith("task narrative_claims → deep: ")
        and f"exceed the standard tier's {whole_tokens // 3:,}" in c.route
        for c in claims
    )
    # a standard window that holds the prompt keeps the task on its own tier
    r, _, _ = run(dataclasses.replace(cfg, standard_context_tokens=whole_tokens + 4000))
    assert r.model is not None
    assert {c.tier for c in r.model.calls if c.task == "narrative_claims"} == {"standard"}


def test_the_ledger_stays_within_its_budget_oldest_summaries_compressed_then_dropped() -> None:
    figures = [f"revenue FY{y} 1,{y}.0 (page {y % 7 + 1})" for y in range(2000, 2040)]
    summaries = {
        p: f"page {p} holds the segment note with revenue by region and margins" for p in range(1, 200)
    }
    for budget in (50, 200, 800):
        ledger = fit_ledger(figures, summaries, budget, count_tokens)
        assert sum(count_tokens(line) + 1 for line in ledger.splitlines()) <= budget
        assert ledger == fit_ledger(figures, summaries, budget, count_tokens)  # deterministic
    ledger = fit_ledger(figures, summaries, 800, count_tokens)
    assert "page 199: page 199 holds the segment note" in ledger  # the newest summary kept whole
    assert "page 1:" not in ledger and "summaries dropped" in ledger  # the oldest dropped, and said so
    assert " …" in ledger  # older ones compressed before they are dropped


def test_concurrency_is_bounded_and_recorded() -> None:
    cfg = ModelStageConfig(window_pages=2, concurrency=2, deadline_s=None)
    r, stats, port = run(cfg, SlowPort(delay_s=0.05))
    assert r.model is not None and r.model.status == "done"
    assert port.peak <= 2 and stats.peak_concurrency == port.peak == 2
    cfg3 = ModelStageConfig(window_pages=2, concurrency=3, deadline_s=None)
    _, stats3, port3 = run(cfg3, SlowPort(delay_s=0.05))
    assert port3.peak <= 3 and stats3.peak_concurrency == port3.peak
    assert len(port3.asked) == len(port.asked)  # the same calls, whatever the bound


def test_a_deadline_leaves_the_document_partial_and_a_resume_completes_it() -> None:
    _, _, full_port = run(ModelStageConfig(window_pages=2, deadline_s=None))
    # The model answers three tasks, then stalls; the deadline (a minute, never reached by the work) passes
    # at the stall, on the loop's clock the stalled call moves a day ahead, not by the machine's speed.
    cfg = ModelStageConfig(window_pages=2, concurrency=2, deadline_s=60.0)
    stalling = StallingPort(answers=3)
    with jumping_loops():
        partial, stats, _ = run(cfg, stalling)
    assert stalling.stalled >= 1
    assert partial.model is not None and partial.model.status == "partial"
    assert stats.progress is not None and stats.left and "tasks left" in (partial.model.reason or "")
    assert partial.flags[: len(doc().flags)] == doc().flags  # deterministic results kept and published
    done_before = len(partial.model.calls)
    assert 0 < done_before <= stalling.answers < len(full_port.asked)
    # Resumed later (the resume loop), from the progress the marker carries, with no deadline left to hit.
    port = SlowPort(delay_s=0.01)
    stage = ModelStage(port, cfg, tokenizer=FakeTokenizer())
    progress = type(stats.progress).model_validate_json(stats.progress.model_dump_json())  # via the marker
    resumed, rstats = asyncio.run(stage.run_with_stats(partial, progress, deadline_s=None))
    assert resumed.model is not None and resumed.model.status == "done" and not rstats.left
    assert len(port.asked) == len(stats.left)  # only what was left was asked
    assert len(resumed.model.calls) == len(full_port.asked)
    ids = [c.call_id for c in resumed.model.calls]
    assert len(set(ids)) == len(ids) and ids[done_before] == f"c{done_before + 1}"
    assert {o.call_id for o in resumed.model.outcomes} <= set(ids)


def test_the_served_window_wins_over_a_larger_configured_one() -> None:
    tokenizer = FakeTokenizer()
    tokenizer.max_model_len = 2_000  # what vLLM's /tokenize reports with each count
    stage = ModelStage(SlowPort(), ModelStageConfig(deadline_s=None), tokenizer=tokenizer)
    _, stats = asyncio.run(stage.run_with_stats(doc()))
    assert stats.mode == "ledger" and stats.windows >= 2


def test_the_tokenizer_asks_the_server_once_per_text_and_falls_back_without_tokenize() -> None:
    asked: list[str] = []

    def vllm(request: httpx2.Request) -> httpx2.Response:
        # shaped as vLLM 0.32's POST /tokenize answers (recorded from the CPU server)
        asked.append(request.url.path)
        n = len(json.loads(request.content)["prompt"].split())
        return httpx2.Response(
            200, json={"count": n, "max_model_len": 8192, "tokens": list(range(n)), "token_strs": None}
        )

    def not_vllm(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(404, json={"detail": "Not Found"})

    async def main(
        handler: Callable[[httpx2.Request], httpx2.Response],
    ) -> tuple[list[int], str, int | None]:
        tok = ServerTokenizer("http://m.test/v1", "m", transport=httpx2.MockTransport(handler))
        try:
            counts = await tok.count(["a b c", "a b c", "d e"])
            counts += await tok.count(["a b c"])
            return counts, tok.source, tok.max_model_len
        finally:
            await tok.aclose()

    assert asyncio.run(main(vllm)) == ([3, 3, 2, 3], "server", 8192)
    assert asked == ["/tokenize", "/tokenize"]  # beside /v1, once per distinct text
    counts, source, _ = asyncio.run(main(not_vllm))
    assert source == "estimate" and counts == [count_tokens("a b c")] * 2 + [count_tokens("d e")] + [3]


def test_a_tokenize_answer_without_a_count_means_no_tokenizer_not_a_dead_letter() -> None:
    # Regression: an OpenAI-compatible server that is not vLLM answered POST /tokenize with 200 and a
    # body of its own; the KeyError on "count" dead-lettered every document at the verify service.
    def other(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"id": "c1", "object": "chat.completion", "choices": []})

    async def main() -> tuple[list[int], str]:
        tok = ServerTokenizer("http://m.test/v1", "m", transport=httpx2.MockTransport(other))
        try:
            return await tok.count(["a b c", "d e"]), tok.source
        finally:
            await tok.aclose()

    assert asyncio.run(main()) == ([count_tokens("a b c"), count_tokens("d e")], "estimate")


def test_a_ledger_lag_runs_steps_at_once_with_the_same_ledger_however_calls_finish() -> None:
    class Jittery(SlowPort):
        async def structured(self, **kw: Any) -> Answer:
            self.delay_s = 0.005 * (len(self.asked) % 3)  # finishing order varies with the call number
            return await super().structured(**kw)

    def ledgers(port: SlowPort) -> dict[str, str]:
        return {m[1]["content"][:20]: m[-1]["content"] for t, m in port.asked if t == "ledger_step"}

    cfg = ModelStageConfig(window_pages=2, concurrency=4, ledger_lag=2, deadline_s=None)
    _, stats, port = run(cfg, Jittery())
    _, _, again = run(cfg, SlowPort(delay_s=0.02))
    assert ledgers(port) == ledgers(again)  # deterministic
    steps = [m[-1]["content"] for t, m in port.asked if t == "ledger_step"]
    assert stats.windows == len(steps) >= 3
    firsts = sorted(ledgers(port).items())
    assert "page 1: " not in firsts[1][1]  # window 2 runs beside window 1: no summaries of it
    assert "page 1: " in firsts[2][1] and "page 3: " not in firsts[2][1]  # window 3 reads window 1 only
