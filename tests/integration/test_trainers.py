"""Trainers call tieout's reward functions: a GRPO step of TRL on CPU, and verl's custom-reward loader.

Both run in the RL venv that ``bash infra/rl.sh`` builds (TRL, verl's loader, on top of the CPU vLLM venv's
torch), as subprocesses with the worktree on ``PYTHONPATH``; the dataset rows are built here, by tieout.
The policy is the SmolLM2-135M-Instruct that ``bash infra/model.sh fetch`` converts.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from adapters.rewards_dataset import build_dataset, link_row
from pipeline.engine import process_path
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.model.grounding import PageIndex
from pipeline.rewards.links import page_index_json
from schemas.models import DocumentResult, ModelCall
from tests.integration.model_fixtures import servers_left_idle  # noqa: F401 (autouse in this module)

pytestmark = [pytest.mark.integration, pytest.mark.model]

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TIEOUT_CACHE", Path.home() / ".cache" / "tieout"))
MODEL_DIR = CACHE / "vllm" / "models" / "smollm2-135m-instruct"
SAMPLE = REPO / "sample_docs" / "northwind_2025_annual_report.pdf"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}
LINK_PROMPT = (
    "[page 2] Financial highlights (£ millions): Revenue FY2025 1,368.9\n"
    "[page 4] Consolidated income statement (£ millions): Revenue FY2025 1,368.9\n"
    'List figures printed on two pages as JSON: {"links": [{"metric", "period", "page_a", "value_a", '
    '"page_b", "value_b", "rationale"}]}.'
)
RIGHT_LINKS = json.dumps(
    {
        "links": [
            {"metric": "revenue", "period": "FY2025", "page_a": 2, "value_a": 1368.9, "page_b": 4,
             "value_b": 1368.9, "rationale": "highlights and income statement"}
        ]
    }
)  # fmt: skip


def _fail_or_skip(msg: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


@pytest.fixture(scope="module")
def rl_python() -> str:
    found = subprocess.run(
        ["bash", str(REPO / "infra" / "rl.sh"), "python"], capture_output=True, text=True, check=False
    )
    if found.returncode != 0:
        _fail_or_skip(f"RL venv not built: run `bash infra/rl.sh` ({found.stderr.strip()})")
    return found.stdout.strip()


@pytest.fixture(scope="module")
def northwind() -> DocumentResult:
    return process_path(SAMPLE)


def _rows(result: DocumentResult) -> tuple[dict[str, Any], dict[str, Any]]:
    """The shortest extraction prompt of the document and a cross-page-link prompt of its model stage."""
    extraction = min(build_dataset([result]), key=lambda r: r["extra_info"]["prompt_tokens"])
    call = ModelCall(
        task="cross_page_links", prompt_version="test", model="smollm2", tier="standard", call_id="c1",
        messages=[
            {"role": "system", "content": "Answer with JSON only."},
            {"role": "user", "content": LINK_PROMPT},
        ],
        answer=RIGHT_LINKS,
    )  # fmt: skip
    index = json.dumps(page_index_json(PageIndex.of(result, load_taxonomy())))
    return extraction, link_row(result, call, index)


def _run(python: str, args: list[str], timeout: float) -> tuple[dict[str, Any], float]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [python, *args],
        cwd=REPO,
        env={**os.environ, **OFFLINE, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    seconds = time.perf_counter() - t0
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), seconds


# Liveness bound, as the subprocess's own: one step took 154 s beside other suites on 2 cores (the 2-step
# version passed the suite's 300 s default only on a quiet machine).
@pytest.mark.timeout(1500)
def test_grpo_step_with_tieout_rewards(rl_python: str, northwind: DocumentResult, tmp_path: Path) -> None:
    if not (MODEL_DIR / "model.safetensors").is_file():
        _fail_or_skip(f"no converted model at {MODEL_DIR}: run `bash infra/model.sh fetch`")
    dataset = tmp_path / "dataset.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in _rows(northwind)), encoding="utf-8")
    script = str(REPO / "infra" / "rl" / "grpo_steps.py")
    args = [script, "--model", str(MODEL_DIR), "--dataset", str(dataset), "--out", str(tmp_path / "out")]
    # As small as proves the interface: one step of one batch holding both prompts (one per reward
    # function), the 2 completions each that GRPO's group advantage needs, 8 tokens each.
    args += ["--steps", "1", "--prompts", "2", "--generations", "2", "--max-completion-length", "8"]
    # The timeout is a liveness bound (most of the run is importing TRL and loading the model).
    report, seconds = _run(rl_python, args, timeout=1500)
    print(f"GRPO: {report['steps']} step in {report['seconds']} s of training, {seconds:.0f} s in all")
    assert report["steps"] == 1
    assert len(report["logs"]) == 1
    for log in report["logs"]:
        # Both reward functions scored their own rows in every step (each batch holds both prompts).
        for name in ("rewards/grpo_reward/mean", "rewards/grpo_link_reward/mean"):
            assert math.isfinite(float(log[name])) and 0.0 <= float(log[name]) <= 1.0, log


def test_verl_loads_compute_score(rl_python: str, northwind: DocumentResult, tmp_path: Path) -> None:
    extraction, link = _rows(northwind)
    truth = json.loads(extraction["ground_truth"])
    exact = json.dumps(
        [
            {"metric": f["metric"], "period": f["period"], "value": f["value"], "page": f["pages"][0]}
            for f in truth["facts"]
        ]
    )
    rows = [
        extraction | {"answer": exact},
        extraction | {"answer": "I cannot read this table."},
        link | {"answer": RIGHT_LINKS},
        link | {"answer": RIGHT_LINKS.replace('"page_b": 4', '"page_b": 6')},
    ]
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report, seconds = _run(
        rl_python, [str(REPO / "infra" / "rl" / "verl_reward.py"), "--dataset", str(dataset)], 600
    )
    print(f"verl {report['verl']}: loader imported in {report['import_seconds']} s, {seconds:.0f} s in all")
    scores = [r["score"] for r in report["results"]]
    assert scores[0] == 1.0 and scores[1] == 0.0 and scores[2] == 1.0
    assert scores[3] == pytest.approx(0.3)
    # Every result has the same keys, so verl's per-sample extra-info lists stay aligned in a mixed batch.
    assert len({tuple(sorted(r)) for r in report["results"]}) == 1
    assert report["results"][2]["agreement"] == 1.0 and report["results"][3]["values_printed"] == 0.0
