"""Rewards for RL on financial extraction: reward records and TRL/verl reward functions.

See ``pipeline/rewards/README.md``. Datasets and their Parquet export are an adapter
(``adapters.rewards_dataset``); the record's schema is ``schemas.rewards.RewardRecord``.
"""

from pipeline.rewards.functions import compute_score, grpo_reward, score_extraction
from pipeline.rewards.records import RewardRecord, build_reward_records

__all__ = ["RewardRecord", "build_reward_records", "compute_score", "grpo_reward", "score_extraction"]
