"""``bench/llm_verify.py --filing`` keeps the services' model budgets unless an option replaces one."""

from __future__ import annotations

import argparse
import dataclasses

from bench.llm_verify import FILING_OPTIONS, filing_overrides
from pipeline.model.strategy import ModelStageConfig


def _args(**given: object) -> argparse.Namespace:
    values: dict[str, object] = dict.fromkeys(FILING_OPTIONS)
    values.update(given)
    return argparse.Namespace(**values)


def test_no_option_keeps_every_budget() -> None:
    assert filing_overrides(_args()) == {}


def test_an_option_replaces_only_its_budget() -> None:
    services = ModelStageConfig(ledger_tokens=2_000, concurrency=4, deadline_s=240.0)
    config = dataclasses.replace(services, **filing_overrides(_args(concurrency=2)))
    assert config.concurrency == 2
    assert (config.ledger_tokens, config.deadline_s) == (2_000, 240.0)


def test_every_option_names_a_budget() -> None:
    fields = {f.name for f in dataclasses.fields(ModelStageConfig)}
    assert set(FILING_OPTIONS.values()) <= fields
