"""Run GRPO steps of TRL's ``GRPOTrainer`` on CPU with tieout's reward functions (one step by default).

Run with the RL venv's python (``bash infra/rl.sh``) and the worktree on ``PYTHONPATH``::

    PYTHONPATH=. $(bash infra/rl.sh python) infra/rl/grpo_steps.py \
        --model ~/.cache/tieout/vllm/models/smollm2-135m-instruct --dataset dataset.jsonl --out OUT

The dataset is tieout's (``tieout export rewards`` / :mod:`adapters.rewards_dataset`): conversational
``prompt`` plus the ground-truth columns that each reward function reads (``ground_truth`` for the
extraction scorer, ``page_index`` for the cross-page-link scorer); a row one function cannot score gets
None from it, which TRL ignores for that row. Prints one JSON object: steps done, seconds, and the
rewards TRL logged per step.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer

from pipeline.rewards.functions import grpo_reward
from pipeline.rewards.links import grpo_link_reward


def main() -> int:
    """Train, then print the report; the exit status is 0 when training finished."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--dataset", required=True, type=Path, help="JSONL rows: prompt + ground truth")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--prompts", type=int, default=2, help="prompts per step")
    parser.add_argument("--generations", type=int, default=2, help="completions per prompt")
    parser.add_argument("--max-completion-length", type=int, default=8)
    # One thread: on a shared, oversubscribed CPU, OpenMP threads spin at every barrier and a step takes
    # minutes instead of seconds; a 135M model gains little from a second thread anyway.
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    rows = [json.loads(line) for line in args.dataset.read_text(encoding="utf-8").splitlines() if line]
    # Columns absent from a row (a link row has no extraction ground truth) are null, not missing.
    columns = sorted({k for r in rows for k in r})
    dataset = Dataset.from_list([{k: r.get(k) for k in columns} for r in rows])

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    config = GRPOConfig(
        output_dir=str(args.out),
        use_cpu=True,
        bf16=False,
        max_steps=args.steps,
        per_device_train_batch_size=args.prompts * args.generations,
        num_generations=args.generations,
        max_completion_length=args.max_completion_length,
        learning_rate=1e-6,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        seed=0,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[grpo_reward, grpo_link_reward],
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    t0 = time.perf_counter()
    trainer.train()
    seconds = time.perf_counter() - t0
    logs = [h for h in trainer.state.log_history if "reward" in h]
    print(
        json.dumps(
            {
                "steps": trainer.state.global_step,
                "seconds": round(seconds, 1),
                "rows": len(rows),
                "logs": [
                    {k: v for k, v in h.items() if k.startswith(("reward", "rewards/", "step"))} for h in logs
                ],
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
