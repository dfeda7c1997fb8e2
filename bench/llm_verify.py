"""The model stage on the sample documents (whole against ledger mode) and on one real filing.

Needs a model server (``bash infra/model.sh up`` writes ``.tieout/model.env``). For each sample document
and each mode: requests, prompt and completion tokens, wall time, and the share of prompt tokens served
from vLLM's prefix cache — read from the server's Prometheus counters (``/metrics``) before and after,
and from ``usage.prompt_tokens_details.cached_tokens`` when the server reports it.

``--filing NAME`` runs instead one real filing of ``../shared/corpus/filings`` (100+ pages) with the budgets
the services use, sized for the server's window (``MODEL_MAX_LEN``), tokens counted by the server's own
tokenizer: it reports the mode (ledger), windows, calls, tokens, the prefix-cache share of the second and
later calls, the concurrency reached, wall time against the deadline, and a projection for one H200.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx2

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from adapters.model_client import Endpoint, ModelClient  # noqa: E402
from adapters.settings import Settings, read_env_file  # noqa: E402
from adapters.tokenizer import ServerTokenizer  # noqa: E402
from bench.gt import corpus_dir  # noqa: E402
from bench.meta import run_meta  # noqa: E402
from pipeline.engine import process_path  # noqa: E402
from pipeline.model.ports import Tier  # noqa: E402
from pipeline.model.strategy import ModelStage, ModelStageConfig, RunStats  # noqa: E402
from schemas.models import DocumentResult, ModelCall  # noqa: E402

_COUNTER = re.compile(r"^(vllm:prefix_cache_(?:hits|queries))(?:_total)?(?:\{[^}]*\})?\s+([0-9.eE+]+)$")


def prefix_counters(base_url: str) -> dict[str, float]:
    """The server's prefix-cache counters (tokens queried and hit), summed over label sets."""
    root = base_url.rstrip("/").removesuffix("/v1")
    text = httpx2.get(f"{root}/metrics", timeout=10).text
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = _COUNTER.match(line.strip())
        if m:
            out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(2))
    return out


async def run_one(
    client: ModelClient, doc_path: Path, config: ModelStageConfig, base_url: str
) -> dict[str, object]:
    doc = process_path(doc_path)
    before = prefix_counters(base_url)
    t0 = time.monotonic()
    result = await ModelStage(client, config).run(doc)
    wall = time.monotonic() - t0
    after = prefix_counters(base_url)
    assert result.model is not None
    calls = result.model.calls
    queries = after.get("vllm:prefix_cache_queries", 0) - before.get("vllm:prefix_cache_queries", 0)
    hits = after.get("vllm:prefix_cache_hits", 0) - before.get("vllm:prefix_cache_hits", 0)
    cached = sum(c.cached_tokens or 0 for c in calls)
    tokens_in = sum(c.tokens_in for c in calls)
    return {
        "doc": doc_path.name,
        "status": result.model.status,
        "requests": len(calls),
        "ok": sum(1 for c in calls if c.ok),
        "tokens_in": tokens_in,
        "tokens_out": sum(c.tokens_out for c in calls),
        "wall_s": round(wall, 2),
        "prefix_cache_share": round(hits / queries, 3) if queries else None,
        "usage_cached_share": round(cached / tokens_in, 3) if tokens_in else None,
        "accepted": sum(1 for o in result.model.outcomes if o.accepted),
        "rejected": sum(1 for o in result.model.outcomes if not o.accepted),
    }


def later_calls_cached_share(calls: list[ModelCall]) -> float | None:
    """Share of prompt tokens served from the prefix cache over the second and later calls (by call id)."""
    ordered = sorted(calls, key=lambda c: int((c.call_id or "c0")[1:]))[1:]
    tokens_in = sum(c.tokens_in for c in ordered)
    return round(sum(c.cached_tokens or 0 for c in ordered) / tokens_in, 3) if tokens_in else None


# A PROJECTION, not a measurement. Published vLLM figures (GPUStack Performance Lab, "Optimizing Qwen3-14B
# Throughput on NVIDIA H100 GPUs", https://docs.gpustack.ai/latest/performance-lab/qwen3-14b/h100, baseline
# "vLLM without any optimizations", vLLM v0.11.0): Long Prompt total 9,218.03 tok/s, mean TPOT 132.45 ms.
# No such table was found for Qwen2.5-14B on an H200: Qwen3-14B is a dense model of the same size, and an
# H200 has an H100's compute with more memory bandwidth (4.8 against 3.35 TB/s), so these H100 figures are
# taken as a floor for the deep tier (Qwen2.5-14B-Instruct) on one H200.
PUBLISHED_TOTAL_TOK_S = 9218.03
PUBLISHED_TPOT_S = 0.13245
DEEP_WINDOW = 131_072


def h200_projection(
    document_tokens: int, windows_8k: int, calls_8k: int, out_per_call: float
) -> dict[str, object]:
    """The filing on the deep tier (128k window) from the published figures: GPU time and a latency bound.

    Whole when the document fits 128k (3 calls: the cross-page lead, then claims and labels on its cached
    prefix), else windows like the CPU run's. Throughput-bound time: uncached prompt tokens (the document
    once, plus ~1k of instructions per call) and answer tokens over the published total rate. Latency bound:
    the calls in sequence (lead then siblings: 2 stages when whole, 1 + windows otherwise) decoding the
    answer budget at the published mean TPOT (measured under saturation: an upper bound).
    """
    fits = document_tokens + 2_000 + 800 <= DEEP_WINDOW
    windows = 1 if fits else max(1, round(windows_8k * 8192 / DEEP_WINDOW + 0.5))
    calls = 3 if fits else round(calls_8k * windows / max(windows_8k, 1)) + 1
    prompt = document_tokens + 1_000 * calls
    answer = calls * out_per_call
    stages = 2 if fits else windows + 1
    return {
        "label": "PROJECTION from published vLLM figures (Qwen3-14B, H100, GPUStack), not measured",
        "mode": "whole" if fits else "ledger",
        "windows": windows,
        "calls": calls,
        "gpu_seconds_at_published_throughput": round((prompt + answer) / PUBLISHED_TOTAL_TOK_S, 1),
        "latency_upper_bound_s": round(stages * 800 * PUBLISHED_TPOT_S + prompt / PUBLISHED_TOTAL_TOK_S, 1),
        "documents_per_hour_at_published_throughput": round(3600 * PUBLISHED_TOTAL_TOK_S / (prompt + answer)),
    }


def pass_row(result: DocumentResult, stats: RunStats) -> dict[str, object]:
    """One pass over the filing: its status, wall time, calls so far and tasks left."""
    assert result.model is not None
    return {
        "status": result.model.status,
        "wall_s": stats.wall_s,
        "calls": len(result.model.calls),
        "left": len(stats.left),
        "concurrency": stats.peak_concurrency,
    }


# The filing run's options and the budget each replaces (each defaults to None: the services' setting).
FILING_OPTIONS = {
    "context_tokens_filing": "context_tokens",
    "max_tokens": "max_output_tokens",
    "ledger_tokens": "ledger_tokens",
    "concurrency": "concurrency",
    "ledger_lag": "ledger_lag",
    "deadline": "deadline_s",
}


def filing_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The budgets given on the command line, by :class:`ModelStageConfig` field."""
    return {
        field: getattr(args, opt) for opt, field in FILING_OPTIONS.items() if getattr(args, opt) is not None
    }


async def run_filing(args: argparse.Namespace, env_path: Path) -> int:
    path = corpus_dir() / "filings" / args.filing
    meta = run_meta()  # when, at which commit, on which machine and under what load
    t0 = time.monotonic()
    doc = process_path(path)
    parse_s = time.monotonic() - t0
    # The services' own budgets and tiers (Settings from model.env): windows sized for the deep tier, the
    # standard tier's window beside it; tokens counted by the deep server, which sizes the windows.
    # An option given on the command line replaces that one budget; the others stay the services' own.
    settings = Settings(_env_file=env_path)
    config = dataclasses.replace(settings.model_stage_config(), **filing_overrides(args))
    window = config.context_tokens
    eps = settings.model_endpoints()
    tiers: tuple[Tier, ...] = ("standard", "deep")
    client = ModelClient(
        {t: Endpoint(*eps[t], timeout_s=600, max_concurrency=config.concurrency) for t in tiers if t in eps}
    )
    tokenizer = ServerTokenizer(*eps["deep"])
    servers = sorted({url for url, _ in eps.values()})
    passes: list[dict[str, object]] = []
    try:
        stage = ModelStage(client, config, tokenizer=tokenizer)
        before = [prefix_counters(u) for u in servers]
        result, stats = await stage.run_with_stats(doc)
        first = stats
        passes.append(pass_row(result, stats))
        # What the resume loop does with a partial document: finish the tasks left, pass after pass.
        while args.resume and stats.progress is not None and len(passes) <= args.resume:
            result, stats = await stage.run_with_stats(result, stats.progress, deadline_s=config.deadline_s)
            assert result.model is not None
            passes.append(pass_row(result, stats))
        after = [prefix_counters(u) for u in servers]
    finally:
        await client.aclose()
        await tokenizer.aclose()
    assert result.model is not None
    calls = result.model.calls

    def delta(key: str) -> float:
        return sum(a.get(key, 0) - b.get(key, 0) for a, b in zip(after, before, strict=True))

    queries, hits = delta("vllm:prefix_cache_queries"), delta("vllm:prefix_cache_hits")
    row: dict[str, object] = {
        "meta": meta,
        "doc": path.name,
        "pages": doc.stats.pages,
        "parse_s": round(parse_s, 1),
        "window_tokens": window,
        "standard_window_tokens": config.standard_context_tokens,
        "max_output_tokens": config.max_output_tokens,
        "ledger_tokens": config.ledger_tokens,
        "concurrency_bound": config.concurrency,
        "ledger_lag": config.ledger_lag,
        "deadline_s": config.deadline_s,
        "mode": first.mode,
        "token_source": first.token_source,
        "document_tokens": first.document_tokens,
        "windows": first.windows,
        "passes": passes,
        "status": result.model.status,
        "reason": result.model.reason,
        "calls": len(calls),
        "calls_ok": sum(1 for c in calls if c.ok),
        "calls_by_task": {t: sum(1 for c in calls if c.task == t) for t in sorted({c.task for c in calls})},
        "calls_by_tier": {t: sum(1 for c in calls if c.tier == t) for t in sorted({c.tier for c in calls})},
        "routes": sorted({(c.route or "").split(":")[0] for c in calls}),
        "tasks_left": len(stats.left),
        "tokens_in": sum(c.tokens_in for c in calls),
        "tokens_out": sum(c.tokens_out for c in calls),
        "cached_share_later_calls": later_calls_cached_share(calls),
        "prefix_cache_share_metrics": round(hits / queries, 3) if queries else None,
        "concurrency_reached": max(first.peak_concurrency, stats.peak_concurrency),
        "wall_s": round(sum(float(str(p["wall_s"])) for p in passes), 1),
        "accepted": sum(1 for o in result.model.outcomes if o.accepted),
        "rejected": sum(1 for o in result.model.outcomes if not o.accepted),
    }
    planned = len(calls) + len(stats.left)
    row["h200_projection"] = h200_projection(
        first.document_tokens,
        first.windows,
        planned,
        (int(str(row["tokens_out"])) / len(calls)) if calls else 800,
    )
    print(json.dumps(row, indent=2))
    if args.json:
        args.json.write_text(json.dumps(row, indent=2) + "\n")
    return 0


async def main_async(args: argparse.Namespace) -> int:
    env_path = Path(os.environ.get("TIEOUT_MODEL_ENV", REPO / ".tieout" / "model.env"))
    env = read_env_file(env_path)
    base = os.environ.get("MODEL_BASE_URL") or env.get("MODEL_BASE_URL")
    if not base:
        print("no model server: run `bash infra/model.sh up`", file=sys.stderr)
        return 2
    name = os.environ.get("MODEL_NAME") or env.get("MODEL_NAME", "smollm2")
    if args.filing:
        return await run_filing(args, env_path)
    ep = Endpoint(base, name, timeout_s=600)
    client = ModelClient({"standard": ep, "deep": ep})
    docs = sorted((REPO / "sample_docs").glob("*.pdf"))[: args.docs]
    window = int(env.get("MODEL_MAX_LEN", "8192"))
    answer = args.max_tokens or ModelStageConfig().max_output_tokens
    modes = {
        "whole": ModelStageConfig(
            context_tokens=args.context_tokens or window, max_output_tokens=answer, deadline_s=None
        ),
        # at most --window pages per window: the sample documents fit whole otherwise
        "ledger": ModelStageConfig(
            context_tokens=window,
            window_pages=args.window,
            max_output_tokens=answer,
            deadline_s=None,
        ),
    }
    rows = []
    try:
        for d in docs:
            for mode, cfg in modes.items():
                row = await run_one(client, d, cfg, base)
                row["mode"] = mode
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        await client.aclose()
    print()
    cols = ("req", "tok in", "tok out", "wall s", "cache")
    header = f"{'document':38s} {'mode':6s} " + " ".join(f"{c:>7s}" for c in cols)
    print(header)
    print("-" * len(header))
    for r in rows:
        share = r["prefix_cache_share"]
        print(
            f"{str(r['doc'])[:38]:38s} {r['mode']!s:6s} {r['requests']!s:>4s} {r['tokens_in']!s:>7s} "
            f"{r['tokens_out']!s:>7s} {r['wall_s']!s:>7s} {'-' if share is None else f'{share:.0%}':>7s}"
        )
    for mode in modes:
        sel = [r for r in rows if r["mode"] == mode]
        n = len(sel) or 1
        print(
            f"mean {mode:6s}: {sum(int(str(r['requests'])) for r in sel) / n:.1f} requests, "
            f"{sum(int(str(r['tokens_in'])) for r in sel) / n:.0f} prompt tokens, "
            f"{sum(float(str(r['wall_s'])) for r in sel) / n:.1f} s per document"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=6, help="how many sample documents")
    ap.add_argument(
        "--context-tokens", type=int, default=0, help="whole-document window (default MODEL_MAX_LEN)"
    )
    ap.add_argument("--window", type=int, default=3, help="pages per ledger step")
    ap.add_argument("--max-tokens", type=int, help="completion budget per request (default: the services')")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--filing", help="a PDF of <corpus>/filings to run instead of the sample documents")
    ap.add_argument(
        "--context-tokens-filing", type=int, help="the filing's window (default: the deep tier's, settings)"
    )
    # Filing-run budgets: unset, each is the services' own (Settings from model.env).
    ap.add_argument("--ledger-tokens", type=int, help="the ledger's budget (filing run)")
    ap.add_argument("--concurrency", type=int, help="calls in flight (filing run)")
    ap.add_argument("--ledger-lag", type=int, help="ledger steps at once (filing run)")
    ap.add_argument(
        "--resume", type=int, default=0, help="resume passes after a partial first pass (filing run)"
    )
    ap.add_argument("--deadline", type=float, help="seconds (filing run)")
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
