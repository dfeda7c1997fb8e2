"""The model stage on recorded model responses: well-formed, malformed and adversarial proposals.

The server is replaced by recorded answers (httpx2.MockTransport) because what is under test here is the
propose-then-verify strategy; the client against the real vLLM server is tested under `integration`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import httpx2

from adapters.model_client import Endpoint, ModelClient
from pipeline.engine import process_path
from pipeline.model.strategy import ModelStage, load_prompt, route
from schemas.models import DocumentResult

DOC = Path(__file__).resolve().parent.parent / "sample_docs" / "halvorsen_2025_form_10k.pdf"


@cache
def doc() -> DocumentResult:
    return process_path(DOC)


def answer(content: object, prompt_tokens: int = 900, cached: int | None = 0) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": 60}
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    text = content if isinstance(content, str) else json.dumps(content)
    return {
        "model": "smollm2",
        "choices": [{"message": {"role": "assistant", "content": text}}],
        "usage": usage,
    }


# Each task's answer: an object with one list, of the proposals under this key.
PROPOSALS = {"cross_page_links": "links", "label_mapping": "mappings", "narrative_claims": "claims"}
EMPTY: dict[str, object] = {task: {key: []} for task, key in PROPOSALS.items()}


def recorded(by_task: dict[str, object]) -> Callable[[httpx2.Request], httpx2.Response]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        assert body["temperature"] == 0 and body["response_format"]["type"] == "json_schema"
        task = body["response_format"]["json_schema"]["name"]
        content = by_task.get(task, EMPTY.get(task, {}))
        if task == "narrative_claims" and "=== Page 3 ===" not in body["messages"][1]["content"]:
            content = EMPTY[task]  # the recorded claims belong to the call that showed page 3
        return httpx2.Response(200, json=answer(content))

    return handler


def run_stage(
    handler: Callable[[httpx2.Request], httpx2.Response], document: DocumentResult | None = None
) -> DocumentResult:
    """The model stage on ``document`` (the sample's result by default), the server answering ``handler``."""

    async def main() -> DocumentResult:
        ep = Endpoint("http://model.test/v1", "smollm2")
        client = ModelClient({"standard": ep, "deep": ep}, transport=httpx2.MockTransport(handler), retries=1)
        try:
            return await ModelStage(client).run(doc() if document is None else document)
        finally:
            await client.aclose()

    return asyncio.run(main())


def link(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "metric": "revenue", "period": "FY2025", "page_a": 2, "value_a": 1321.2, "page_b": 4,
        "value_b": 1321213, "rationale": "summary vs statement",
    }  # fmt: skip
    base.update(kw)
    return base


def mapping(label: str, metric: str, rationale: str) -> dict[str, object]:
    return {"label": label, "metric": metric, "rationale": rationale}


def claim(quote: str, value: float, rationale: str) -> dict[str, object]:
    """A claim of FY2025 revenue quoted from page 3."""
    fields = {"page": 3, "quote": quote, "metric": "revenue", "period": "FY2025"}
    return {**fields, "value": value, "rationale": rationale}


def reasons(r: DocumentResult, task: str) -> list[str]:
    assert r.model is not None
    return [o.reason for o in r.model.outcomes if o.task == task]


def verdicts(task: str, cases: Sequence[tuple[object, str]]) -> DocumentResult:
    """The stage run on a recorded answer to ``task`` that proposes each case's item: each must get the
    case's reason, in order."""
    r = run_stage(recorded({task: {PROPOSALS[task]: [item for item, _ in cases]}}))
    assert reasons(r, task) == [reason for _, reason in cases]
    return r


def test_links_are_verified_against_printed_numbers() -> None:
    ocf = link(metric="operating_cash_flow", page_a=2, value_a=129.2, page_b=7, value_b=192186)
    r = verdicts(
        "cross_page_links",
        [
            (link(), "verified_consistent"),  # true and consistent: 1,321.2 $m on p2, 1,321,213 $k on p4
            (ocf, "already_flagged"),  # XREF001 has it
            (link(page_a=99), "page_out_of_range"),  # invented page
            (link(value_a=777.7), "number_not_on_page"),  # a number that is not on the page
            (link(value_b=1238412), "period_mismatch"),  # the FY2024 figure linked as FY2025
            (link(metric="ebitda_after_magic"), "unknown_metric"),  # not a metric the taxonomy knows
        ],
    )
    assert [f.rule for f in r.flags] == [f.rule for f in doc().flags]  # nothing unverified became a flag
    assert r.model is not None and r.model.status == "done"


def test_a_verified_disagreement_the_rules_missed_becomes_a_flag() -> None:
    # Revenue FY2025 on p2 (1,321.2 $m) against operating cash flow's cell on p7 read as "revenue" is refused
    # (metric mismatch); but two real figures of one metric that disagree are flagged with both pages.
    clean = doc().model_copy(update={"flags": []})  # pretend XREF001 had not fired
    ocf = link(metric="operating_cash_flow", page_a=2, value_a=129.2, page_b=7, value_b=192186)
    r = run_stage(recorded({"cross_page_links": {"links": [ocf]}}), clean)
    assert reasons(r, "cross_page_links") == ["verified_mismatch"]
    (flag,) = r.flags
    assert flag.kind == "model_finding" and flag.rule == "MOD001" and flag.pages == [2, 7]
    assert flag.metric == "operating_cash_flow" and "summary vs statement" in flag.message
    assert {e.page for e in flag.evidence} == {2, 7} and all(e.bbox for e in flag.evidence)


def test_malformed_answers_are_recorded_not_trusted() -> None:
    r = run_stage(
        recorded({"cross_page_links": '{"links": "all of them"}', "label_mapping": "not json at all"})
    )
    assert r.model is not None
    bad = [c for c in r.model.calls if not c.ok]
    assert {c.task for c in bad} == {"cross_page_links", "label_mapping"}
    assert all(c.error and c.error.startswith("schema") for c in bad)
    assert r.flags == doc().flags and r.facts == doc().facts


def test_label_mappings_need_a_real_label_a_real_metric_and_no_contradiction() -> None:
    goodwill = "Goodwill and intangible assets, net"
    payables = "Accounts payable and accrued expenses"
    r = verdicts(
        "label_mapping",
        [
            (mapping(goodwill, "goodwill", "same line"), "unrefuted"),
            (mapping(payables, "total_current_liabilities", "x"), "contradicts_facts"),
            (mapping("Widgets sold in Atlantis", "revenue", "invented label"), "label_not_found"),
            (mapping(goodwill, "made_up_metric", "invented id"), "unknown_metric"),
            (mapping("Net sales", "revenue", "already known"), "already_known"),
        ],
    )
    new = [f for f in r.facts if f.metric == "goodwill"]
    assert {f.period.key for f in new if f.period} == {"2025-12-31", "2024-12-31"}
    assert all(f.label == "Goodwill and intangible assets, net" and f.page == 5 for f in new)


def test_narrative_claims_must_quote_the_page() -> None:
    printed = "Net sales increased by 6.7% to $1.32 billion"
    verdicts(
        "narrative_claims",
        [
            (claim(printed, 1.32, "headline"), "verified_consistent"),
            (claim("Net sales soared to $9.99 billion", 9.99, "hallucinated"), "quote_not_found"),
            (claim(printed, 4.5, "number not in the quote"), "number_not_in_quote"),
        ],
    )


def test_accounting_and_routing() -> None:
    r = run_stage(recorded({}))
    assert r.model is not None
    tasks = {c.task for c in r.model.calls}
    assert {"cross_page_links", "label_mapping", "narrative_claims"} <= tasks
    for c in r.model.calls:
        assert c.tier == route(c.task) and c.prompt_version == load_prompt(c.task).version
        assert c.tokens_in == 900 and c.tokens_out == 60 and c.cached_tokens == 0 and c.model == "smollm2"
    assert route("label_mapping") == "standard" and route("cross_page_links") == "deep"


def test_server_down_leaves_deterministic_results_and_marks_pending() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    r = run_stage(refuse)
    assert r.model is not None and r.model.status == "pending"
    assert r.flags == doc().flags and r.facts == doc().facts


def test_server_errors_open_the_circuit() -> None:
    calls = 0

    def flaky(request: httpx2.Request) -> httpx2.Response:
        nonlocal calls
        calls += 1
        return httpx2.Response(503, text="overloaded")

    r = run_stage(flaky)
    assert r.model is not None and r.model.status == "pending" and "HTTP 503" in (r.model.reason or "")
    assert calls <= 3  # bounded retries, then the breaker stops calling


def test_no_model_configured_is_skipped() -> None:
    r = asyncio.run(ModelStage(None).run(doc()))
    assert r.model is not None and r.model.status == "skipped"


def test_long_documents_use_the_ledger() -> None:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        task = body["response_format"]["json_schema"]["name"]
        seen.append(task)
        if task == "ledger_step":
            # The window's pages come before the task (a prefix shared with the window's other tasks).
            pages, task_text = body["messages"][1]["content"], body["messages"][-1]["content"]
            assert pages.startswith("=== Page ") and "LEDGER\nrevenue FY2025" in task_text
            return httpx2.Response(
                200, json=answer({"links": [], "pages": [{"page": 2, "summary": "highlights"}]})
            )
        return httpx2.Response(200, json=answer({"links": [], "mappings": [], "claims": []}))

    async def main() -> DocumentResult:
        from pipeline.model.strategy import ModelStageConfig

        ep = Endpoint("http://model.test/v1", "smollm2")
        client = ModelClient({"standard": ep, "deep": ep}, transport=httpx2.MockTransport(handler))
        try:
            return await ModelStage(client, ModelStageConfig(window_pages=3)).run(doc())
        finally:
            await client.aclose()

    r = asyncio.run(main())
    assert seen.count("ledger_step") == 3  # 8 pages in windows of 3
    assert r.model is not None and all(c.mode == "ledger" for c in r.model.calls if c.task == "ledger_step")
