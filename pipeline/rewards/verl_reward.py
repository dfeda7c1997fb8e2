"""verl's custom reward function: ``compute_score`` for every task of tieout's datasets.

Point verl at this file::

    reward.custom_reward_function.path=<repo>/pipeline/rewards/verl_reward.py
    reward.custom_reward_function.name=compute_score

(``custom_reward_function.path/name`` at the top level in verl releases before 0.6.) verl loads the file
with ``verl.utils.import_utils.load_extern_object`` (``verl.trainer.ppo.reward.get_custom_reward_fn``) and
its reward managers (``verl/experimental/reward_loop/reward_manager/naive.py``) call it as
``compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=..., **reward_kwargs)``,
with ``ground_truth`` read from the row's ``reward_model.ground_truth``, ``reward_kwargs`` from the config
and, depending on the manager and version, further keywords; they accept a float or a dict whose
``"score"`` is the reward and whose other keys are logged per sample. The repository must be importable
(``PYTHONPATH``), as the file imports ``pipeline``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.rewards.functions import COMPONENTS, score_extraction
from pipeline.rewards.links import LINK_COMPONENTS, score_links

__all__ = ["EXTRACT_TASK", "LINKS_TASK", "compute_score"]

EXTRACT_TASK = "extract_figures"
"""``extra_info.task`` of a row that asks for a table's figures (the default)."""

LINKS_TASK = "cross_page_links"
"""``extra_info.task`` of a row that asks for figures printed on two pages (ground truth: a page index)."""


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: str | Mapping[str, Any],
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """Score one response, by the task its row names.

    Args:
        data_source: The row's ``data_source`` (``tieout/<source>``); not needed for scoring.
        solution_str: The decoded response.
        ground_truth: The row's ``reward_model.ground_truth``: JSON text or a dict — the checked facts
            (:func:`pipeline.rewards.functions.score_extraction`) or a page index
            (:func:`pipeline.rewards.links.score_links`).
        extra_info: The row's ``extra_info``; its ``task`` picks the scorer (``extract_figures`` when
            absent).
        **kwargs: Whatever else verl passes (``reward_kwargs`` of the config, ``num_turns``, …); ignored.

    Returns:
        ``{"score": total, **components}``, all in [0, 1]. Every row carries the components of both tasks
        so that verl's per-sample lists stay aligned in a mixed batch; those of the other task are 0.0.
    """
    del data_source, kwargs
    task = (extra_info or {}).get("task") or EXTRACT_TASK
    if task == LINKS_TASK:
        total, components = score_links(solution_str, ground_truth)
    else:
        total, components = score_extraction(solution_str, ground_truth)
    every = dict.fromkeys((*COMPONENTS, *LINK_COMPONENTS), 0.0) | components
    return {"score": total, **every}
