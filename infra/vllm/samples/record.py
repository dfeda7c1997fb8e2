#!/usr/bin/env python3
"""Record the CPU vLLM server's request/response shapes into infra/vllm/samples/ (stdlib only).

Run against a server started by `bash infra/model.sh up`:

    set -a; . .tieout/model.env; set +a
    .venv/bin/python infra/vllm/samples/record.py            # writes the *.json files next to this script

It writes:
  structured_chat.json  a chat completion with response_format json_schema (strict), temperature 0,
                        max_tokens 100; the content is parsed and checked against the schema
  prefix_cache.json     the same ~3k-token prompt sent twice; the prefix-cache counters from /metrics
                        before and after each request, and both responses' usage
  metrics_names.json    every vllm:* metric family /metrics exposes, with its type and help text
  throughput.json       a 128-token generation (ignore_eos) timed end to end: tokens/s

With `--prefix-cache-only NAME` it runs only the prefix-cache pair and writes NAME (used for
prefix_cache_tokens_details.json, against a server started with
MODEL_EXTRA_ARGS=--enable-prompt-tokens-details, which adds usage.prompt_tokens_details.cached_tokens).

The script exits non-zero if the structured answer does not validate or the hit counter does not move.
Every request has a timeout; nothing is sent anywhere but MODEL_BASE_URL (loopback).
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BASE = os.environ.get("MODEL_BASE_URL", "").rstrip("/")
MODEL = os.environ.get("MODEL_NAME", "smollm2")
TIMEOUT = 300.0
PREFIX_METRICS = (
    "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_hits_total",
    "vllm:prompt_tokens_cached_total",
    "vllm:prompt_tokens_total",
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "maxLength": 40},
        "amount": {"type": "integer"},
    },
    "required": ["label", "amount"],
    "additionalProperties": False,
}


def post(path: str, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """POST JSON to BASE+path; return the decoded answer and the seconds it took."""
    req = urllib.request.Request(
        BASE + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
        answer: dict[str, Any] = json.load(resp)
    return answer, time.monotonic() - t0


def metrics_text() -> str:
    """The Prometheus text of /metrics (served at the root, not under /v1)."""
    root = BASE.removesuffix("/v1")
    with urllib.request.urlopen(root + "/metrics", timeout=30) as resp:
        text: str = resp.read().decode()
    return text


def metric_values(text: str, names: tuple[str, ...]) -> dict[str, float]:
    """Sum each named sample over its label sets."""
    out = dict.fromkeys(names, 0.0)
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name = line.split("{", 1)[0].split(" ", 1)[0]
        if name in out:
            out[name] += float(line.rsplit(" ", 1)[1])
    return out


def validate(value: Any, schema: dict[str, Any]) -> list[str]:
    """Check value against the small JSON Schema subset used here; return the errors."""
    errs: list[str] = []
    if not isinstance(value, dict):
        return [f"not an object: {value!r}"]
    props = schema["properties"]
    errs += [f"missing {k}" for k in schema.get("required", []) if k not in value]
    if schema.get("additionalProperties") is False:
        errs += [f"extra {k}" for k in value if k not in props]
    for key, sub in props.items():
        if key not in value:
            continue
        v = value[key]
        if sub["type"] == "string":
            if not isinstance(v, str):
                errs.append(f"{key} not a string")
            elif len(v) > sub.get("maxLength", len(v)):
                errs.append(f"{key} longer than {sub['maxLength']}")
        elif sub["type"] == "integer" and (not isinstance(v, int) or isinstance(v, bool)):
            errs.append(f"{key} not an integer")
    return errs


def write(name: str, data: Any) -> None:
    """Write one sample file (pretty JSON)."""
    (HERE / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {HERE / name}", file=sys.stderr)


def structured_chat() -> bool:
    """(a) json_schema structured output."""
    req = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "You extract figures from financial statements. Answer in JSON."},
            {
                "role": "user",
                "content": "Revenue for fiscal 2024 was $1,250 million, up from $1,100 million. "
                "Give the line item label and the 2024 amount in millions.",
            },
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "x", "strict": True, "schema": SCHEMA},
        },
        "temperature": 0,
        "max_tokens": 100,
    }
    resp, secs = post("/chat/completions", req)
    content = resp["choices"][0]["message"]["content"]
    try:
        parsed = json.loads(content)
        errors = validate(parsed, SCHEMA)
    except json.JSONDecodeError as exc:
        parsed, errors = None, [f"not JSON: {exc}"]
    write(
        "structured_chat.json",
        {
            "request": {"method": "POST", "path": "/v1/chat/completions", "body": req},
            "response": resp,
            "seconds": round(secs, 3),
            "content_parsed": parsed,
            "schema_errors": errors,
        },
    )
    return not errors


def long_prompt() -> str:
    """A deterministic ~3k-token statement-like text (same bytes every run)."""
    rows = []
    for i in range(120):
        rows.append(
            f"Note {i + 1}: segment {chr(65 + i % 26)} revenue {1000 + 37 * i:,} thousand, "
            f"cost of sales {600 + 23 * i:,} thousand, operating income {400 + 14 * i:,} thousand."
        )
    return "\n".join(rows)


def prefix_cache(out_name: str = "prefix_cache.json") -> bool:
    """(b)+(c) the same long prompt twice; prefix-cache counters move on the second request."""
    doc = long_prompt()
    req = {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "You read financial statements and answer briefly."},
            {"role": "user", "content": doc + "\n\nWhich note has the largest revenue?"},
        ],
        "temperature": 0,
        "max_tokens": 16,
    }
    before = metric_values(metrics_text(), PREFIX_METRICS)
    r1, s1 = post("/chat/completions", req)
    after1 = metric_values(metrics_text(), PREFIX_METRICS)
    r2, s2 = post("/chat/completions", req)
    after2 = metric_values(metrics_text(), PREFIX_METRICS)
    prefix_lines = [
        line
        for line in metrics_text().splitlines()
        if any(line.startswith(n) or line.startswith(f"# HELP {n}") for n in PREFIX_METRICS[:3])
    ]
    hits = after2["vllm:prefix_cache_hits_total"] - after1["vllm:prefix_cache_hits_total"]
    write(
        out_name,
        {
            "request": {
                "method": "POST",
                "path": "/v1/chat/completions",
                "body": {
                    **req,
                    "messages": [
                        req["messages"][0],
                        {"role": "user", "content": "<long_prompt() + question>"},
                    ],
                },
                "note": "user content is record.py's long_prompt() + a question; sent twice, identically",
            },
            "first": {"seconds": round(s1, 3), "usage": r1["usage"], "content": r1["choices"][0]["message"]},
            "second": {"seconds": round(s2, 3), "usage": r2["usage"], "content": r2["choices"][0]["message"]},
            "metrics_before": before,
            "metrics_after_first": after1,
            "metrics_after_second": after2,
            "hit_tokens_on_second": hits,
            "metrics_lines_after": prefix_lines,
        },
    )
    return hits > 0


def metric_names() -> None:
    """All vllm:* metric families with type and help."""
    fams: dict[str, dict[str, str]] = {}
    for line in metrics_text().splitlines():
        if line.startswith(("# HELP vllm:", "# TYPE vllm:")):
            _, kind, name, *rest = line.split(" ", 3)
            fams.setdefault(name, {})["help" if kind == "HELP" else "type"] = rest[0] if rest else ""
    write("metrics_names.json", fams)


def throughput() -> None:
    """128 generated tokens (ignore_eos) on a short prompt, timed end to end."""
    req = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Write about audit procedures."}],
        "temperature": 0,
        "max_tokens": 128,
        "ignore_eos": True,
    }
    resp, secs = post("/chat/completions", req)
    n = resp["usage"]["completion_tokens"]
    write(
        "throughput.json",
        {
            "request": req,
            "usage": resp["usage"],
            "seconds": round(secs, 3),
            "completion_tokens_per_second": round(n / secs, 1),
        },
    )


def main() -> int:
    """Record every sample; non-zero exit on a failed check."""
    if not BASE:
        print("MODEL_BASE_URL is not set (source .tieout/model.env)", file=sys.stderr)
        return 2
    if sys.argv[1:2] == ["--prefix-cache-only"]:
        return 0 if prefix_cache(sys.argv[2]) else 1
    ok_schema = structured_chat()
    ok_cache = prefix_cache()
    metric_names()
    throughput()
    print(f"structured output valid: {ok_schema}; prefix-cache hits moved: {ok_cache}", file=sys.stderr)
    return 0 if ok_schema and ok_cache else 1


if __name__ == "__main__":
    sys.exit(main())
