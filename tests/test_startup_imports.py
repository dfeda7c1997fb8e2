"""Start-up of a service process: a stage does not import what only another stage (or option) needs.

A restarted worker is back on its partitions only after its Python start-up, so every library it imports
on the way is paid on every restart (``bench/recovery.py`` measures it). What one stage alone uses is
imported where that stage uses it: ``tieout consume parse`` must not load the sink's quality gate
(Great Expectations, pandas) or Parquet writer (pyarrow), nor the model client (openai).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SINK_ONLY = ["great_expectations", "pandas", "pyarrow", "numpy", "pipeline.rewards.records"]
VERIFY_ONLY = ["pipeline.checks.stage", "pipeline.model.strategy"]
WHEN_CONFIGURED = ["openai", "httpx2"]  # the model and schema registry clients
STAGE_OWN = {  # what each stage's handler factory imports (consumers/wiring.py HANDLERS)
    "parse": ["adapters.workers.isolation"],
    "verify": ["pipeline.model.strategy"],
    "sink": ["adapters.sinks.parquet", "adapters.sinks.xbrl"],
}
ABSENT = {
    "parse": [*SINK_ONLY, *VERIFY_ONLY, *WHEN_CONFIGURED, "pipeline.figures.taxonomy"],
    # pipeline.checks.stage is imported at the first message: the checks are not needed to join the group
    "verify": [*SINK_ONLY, "pipeline.checks.stage", *WHEN_CONFIGURED],
    # the gate imports Great Expectations and pandas at the first document it checks
    "sink": ["great_expectations", "pandas", *VERIFY_ONLY, *WHEN_CONFIGURED],
}


def _loaded_after(imports: list[str], watched: list[str]) -> list[str]:
    """The ``watched`` modules a fresh interpreter has loaded after importing ``imports``."""
    code = (
        f"import importlib, json, sys\nfor m in {imports!r}: importlib.import_module(m)\n"
        f"print(json.dumps(sorted(m for m in {watched!r} if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize("stage", ["parse", "verify", "sink"])
def test_a_service_starts_without_the_other_stages_libraries(stage: str) -> None:
    # Regression: consumers/wiring.py and services.py imported every stage's libraries at the top, so each
    # service spent ~3 CPU seconds of its start-up on pyarrow, numpy, openai and the checks.
    loaded = _loaded_after(["tieout.cli", "consumers.wiring", *STAGE_OWN[stage]], ABSENT[stage])
    assert loaded == [], f"`tieout consume {stage}` imports {loaded} before it needs them"
