"""The checked-in JSON Schemas must match the models, and records must be strict."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from schemas.export import SCHEMA_DIR, TOPIC_DIR, all_records, render
from schemas.models import SCHEMA_VERSION, Block, ErrorRecord, Fact
from schemas.topology import TOPOLOGY, TopicSpec
from tests.support.records import fact


@pytest.mark.parametrize("name", sorted(all_records()))
def test_checked_in_schema_matches_model(name: str) -> None:
    path = SCHEMA_DIR / f"{name}.schema.json"
    assert path.exists(), f"missing {path}; run `make schemas`"
    assert path.read_text(encoding="utf-8") == render(all_records()[name]), (
        f"{path} drifted from the model; run `make schemas` and review the diff"
    )


@pytest.mark.parametrize("topic", TOPOLOGY.topics, ids=lambda t: t.name)
def test_checked_in_topic_schema_matches_model(topic: TopicSpec) -> None:
    path = TOPIC_DIR / f"{topic.name}.schema.json"
    assert path.exists(), f"missing {path}; run `make schemas`"
    assert path.read_text(encoding="utf-8") == render(topic.record), f"{path} drifted; run `make schemas`"


def test_every_topic_schema_file_is_a_topic_of_the_topology() -> None:
    files = sorted(p.name.removesuffix(".schema.json") for p in TOPIC_DIR.glob("*.schema.json"))
    assert files == sorted(t.name for t in TOPOLOGY.topics)


def test_records_are_frozen_and_reject_unknown_fields() -> None:
    rec = ErrorRecord(doc_id="d", source="s.pdf", stage="open", category="corrupt", message="m", fatal=True)
    assert rec.schema_version == SCHEMA_VERSION
    with pytest.raises(ValidationError):
        rec.message = "changed"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        ErrorRecord.model_validate({**rec.model_dump(), "surprise": 1})


def test_pages_are_one_based() -> None:
    Fact.model_validate(fact().model_dump())
    with pytest.raises(ValidationError, match="page"):
        Fact.model_validate({**fact().model_dump(), "page": 0})


def test_blocks_stored_before_bold_was_dropped_still_load() -> None:
    # Parsed artifacts in object storage were written with "bold": false (the parser never set it);
    # a replay must read them, and nothing may claim a weight the parser did not read.
    legacy = {"page": 1, "bbox": [0, 0, 10, 10], "text": "Revenue", "font_size": 9.0, "bold": False}
    assert Block.model_validate(legacy) == Block(page=1, bbox=(0, 0, 10, 10), text="Revenue", font_size=9.0)
    with pytest.raises(ValidationError):
        Block.model_validate({**legacy, "bold": True})
