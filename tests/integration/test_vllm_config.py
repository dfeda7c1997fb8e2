"""The GPU serve configs load with vLLM's own parser and engine-args class and resolve to their window.

Runs ``infra/vllm/check_serve.py`` in the CPU vLLM venv that ``infra/model.sh fetch`` installs (the same
vLLM version as the pinned GPU image): ``vllm serve --config FILE``'s parsing, its pre-load checks,
``AsyncEngineArgs.from_cli_args`` and ``create_model_config`` against the published ``config.json`` of the
file's model (vendored under ``infra/vllm/models/``, no weights). A removed or misspelt field fails here as
it would fail the container's start.
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.conftest import REPO
from tests.integration.model_fixtures import servers_left_idle  # noqa: F401 (autouse in this module)

pytestmark = [pytest.mark.integration, pytest.mark.model]

VLLM_DIR = REPO / "infra" / "vllm"
CHECK = VLLM_DIR / "check_serve.py"
CACHE = Path(os.environ.get("TIEOUT_CACHE", Path.home() / ".cache" / "tieout"))
VPY = CACHE / "vllm" / "venv" / "bin" / "python"
SERVE_FILES = sorted(VLLM_DIR.glob("serve*.yaml"))
# The vendored config.json of each model a serve file names (its Hugging Face repo id, lower-cased name).
MODELS = VLLM_DIR / "models"


def model_dir(config: Path) -> Path:
    """The vendored folder of the model the serve file names."""
    repo_id = str(yaml.safe_load(config.read_text(encoding="utf-8"))["model"])
    return MODELS / repo_id.split("/")[-1].lower()


@cache
def _run(cases_json: str) -> tuple[dict[str, Any], ...]:
    if not VPY.exists():
        msg = f"no vLLM venv at {VPY}: run `bash infra/model.sh fetch`"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    proc = subprocess.run(
        [str(VPY), str(CHECK), cases_json], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tuple(json.loads(proc.stdout.strip().splitlines()[-1]))


def checked() -> dict[str, dict[str, Any]]:
    """Every case of this module in one vLLM process (its import alone takes ~15 s on 2 cores)."""
    deep = VLLM_DIR / "serve-deep.yaml"
    cases: list[dict[str, Any]] = [
        {"name": f.name, "config": str(f), "model_dir": str(model_dir(f))} for f in SERVE_FILES
    ]
    if deep.exists():
        cases += [
            # The checkpoint's own positions only: no RoPE override at all.
            {"name": "no-override", "config": str(deep), "model_dir": str(model_dir(deep)),
             "extra": ["--hf-overrides", "{}"]},
            # YaRN alone: vLLM 0.32 follows Transformers, for which max_position_embeddings is already the
            # scaled length, and does not multiply it by the factor.
            {"name": "yarn-without-positions", "config": str(deep), "model_dir": str(model_dir(deep)),
             "extra": ["--hf-overrides", json.dumps({"rope_parameters": _rope(deep)})]},
        ]  # fmt: skip
    return {r["name"]: r for r in _run(json.dumps(cases))}


def _rope(config: Path) -> dict[str, Any]:
    return dict(yaml.safe_load(config.read_text(encoding="utf-8"))["hf-overrides"]["rope_parameters"])


@pytest.mark.parametrize("config", SERVE_FILES, ids=lambda p: p.name)
def test_serve_file_loads_with_vllms_parser_and_resolves_its_model(config: Path) -> None:
    declared = yaml.safe_load(config.read_text(encoding="utf-8"))
    result = checked()[config.name]
    assert result["ok"], f"{config.name} refused at {result['stage']}: {result['error']}"
    assert result["model"] == declared["model"]
    assert result["served_model_name"] == [declared["served-model-name"]]
    assert result["max_model_len"] == declared["max-model-len"]
    assert "xgrammar" in result["structured_outputs"]


def test_deep_tier_resolves_to_131072_tokens_with_yarn() -> None:
    result = checked()["serve-deep.yaml"]
    assert result["ok"], result["error"]
    assert result["max_model_len"] == 131072
    assert result["max_position_embeddings"] == 131072
    rope = result["rope_parameters"]
    assert rope["rope_type"] == "yarn"
    assert rope["factor"] * rope["original_max_position_embeddings"] == 131072


@pytest.mark.parametrize("case", ["no-override", "yarn-without-positions"])
def test_131072_tokens_are_refused_without_the_full_override(case: str) -> None:
    result = checked()[case]
    assert not result["ok"] and result["stage"] == "model-config"
    refused = "User-specified max_model_len (131072) is greater than the derived max_model_len"
    assert refused in result["error"]
    assert "max_position_embeddings=32768" in result["error"]
