"""Rewards for RL on financial extraction: reward records and TRL/verl reward functions.

See ``pipeline/rewards/README.md``. Datasets and their Parquet export are an adapter
(``adapters.rewards_dataset``); the record's schema is ``schemas.rewards.RewardRecord``.
"""

from pipeline.rewards.functions import grpo_reward, score_extraction
from pipeline.rewards.links import grpo_link_reward, score_links
from pipeline.rewards.records import RewardRecord, build_reward_records
from pipeline.rewards.verl_reward import compute_score

__all__ = [
    "RewardRecord",
    "build_reward_records",
    "compute_score",
    "grpo_link_reward",
    "grpo_reward",
    "score_extraction",
    "score_links",
]
