"""Load tieout's ``compute_score`` through verl's own custom-reward loader and score dataset rows with it.

Run with the RL venv's python (``bash infra/rl.sh``) and the worktree on ``PYTHONPATH``::

    PYTHONPATH=. $(bash infra/rl.sh python) infra/rl/verl_reward.py --dataset rows.jsonl

Builds the trainer config's ``reward.custom_reward_function`` section (OmegaConf, as verl's Hydra config
gives it), loads the function with ``verl.trainer.ppo.reward.get_custom_reward_fn`` and calls it the way
verl's reward managers do: ``data_source``, ``solution_str``, ``ground_truth`` (the row's
``reward_model.ground_truth``), ``extra_info``, plus the config's ``reward_kwargs`` and the extra keywords
the reward loop passes. Each row is answered with its ``answer`` field. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from omegaconf import OmegaConf

REPO = Path(__file__).resolve().parents[2]


def main() -> int:
    """Load the reward through verl and score every row; print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", required=True, type=Path, help="JSONL rows with an 'answer' each")
    args = parser.parse_args()
    t0 = time.perf_counter()
    import verl
    from verl.trainer.ppo.reward import get_custom_reward_fn

    imported = time.perf_counter() - t0
    config = OmegaConf.create(
        {
            "reward": {
                "custom_reward_function": {
                    "path": str(REPO / "pipeline" / "rewards" / "verl_reward.py"),
                    "name": "compute_score",
                    "reward_kwargs": {"format_weight": 0.1},  # merged into every call by the loader
                }
            }
        }
    )
    fn = get_custom_reward_fn(config)
    if fn is None:
        raise SystemExit("verl found no custom reward function in the config")
    loaded = time.perf_counter() - t0
    results = []
    for line in args.dataset.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        results.append(
            fn(
                data_source=row["data_source"],
                solution_str=row["answer"],
                ground_truth=row["reward_model"]["ground_truth"],
                extra_info=row["extra_info"],
                num_turns=1,  # the agent loop's extra field
            )
        )
    print(
        json.dumps(
            {
                "verl": verl.__version__,
                "import_seconds": round(imported, 1),
                "load_seconds": round(loaded, 1),
                "results": results,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
