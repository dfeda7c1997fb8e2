"""The statements' and the claim parser's settings objects: named knobs, frozen, unknown keys rejected."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from pipeline.figures.claims import CLAIM_SETTINGS, ClaimSettings
from pipeline.statements.settings import TREE_SETTINGS, TreeSettings

SETTINGS: list[tuple[type[BaseModel], BaseModel]] = [
    (TreeSettings, TREE_SETTINGS),
    (ClaimSettings, CLAIM_SETTINGS),
]


@pytest.mark.parametrize(("cls", "default"), SETTINGS)
def test_unknown_keys_are_rejected(cls: type[BaseModel], default: BaseModel) -> None:
    # A misspelt knob must raise, not be ignored while the default silently applies.
    with pytest.raises(ValidationError, match="extra"):
        cls(max_component=40)
    with pytest.raises(ValidationError, match="extra"):
        cls.model_validate({**default.model_dump(), "unknown_knob": 1})


@pytest.mark.parametrize(("cls", "default"), SETTINGS)
def test_settings_are_frozen_and_documented(cls: type[BaseModel], default: BaseModel) -> None:
    field = next(iter(cls.model_fields))
    with pytest.raises(ValidationError):
        setattr(default, field, 1)
    assert all(f.description for f in cls.model_fields.values())
    assert cls() == default


def test_a_knob_can_be_set_by_name() -> None:
    assert TreeSettings(max_components=40).max_components == 40
    assert ClaimSettings(change_window=20).change_window == 20


def test_defaults_are_the_tuned_values() -> None:
    # The values the constants had when they became fields: output is byte-identical with them.
    assert TREE_SETTINGS.model_dump() == {
        "max_components": 80,
        "max_unlabelled": 6,
        "outdent_points": 2.0,
        "min_schedule_years": 3,
        "breakdown_reach": 3,
        "min_signal": 50.0,
        "min_signal_each": 10.0,
        "min_sum_rows": 2,  # 3 until 3dd3d62: a "Total" head proves like a "Total" label
        "min_sum_rows_with_copies": 5,
        "min_sum_rows_unheaded": 5,
        "title_words": 10,
        "statement_title_words": 14,
        "entity_line_words": 8,
        "fiscal_year_months": (11, 13),
    }
    assert CLAIM_SETTINGS.model_dump() == {
        "change_window": 40,
        "amount_window": 60,
        "first_year": 1900,
        "last_year": 2100,
        "subject_passes": 3,
    }
