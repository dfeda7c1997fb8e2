"""Rewards for RL on financial extraction: reward records, TRL/verl reward functions, datasets.

See ``pipeline/rewards/README.md``. ``pipeline.rewards.dataset`` (datasets and Parquet export) is not
imported here, so that loading a reward function does not pull in pyarrow.
"""

from pipeline.rewards.functions import compute_score, grpo_reward, score_extraction
from pipeline.rewards.records import RewardRecord, build_reward_records

__all__ = ["RewardRecord", "build_reward_records", "compute_score", "grpo_reward", "score_extraction"]
