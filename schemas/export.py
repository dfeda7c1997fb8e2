"""JSON Schema of every record, as checked in under ``schemas/json/``."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from schemas.events import ClaimCheck
from schemas.models import OUTPUT_RECORDS, DocumentResult, Record
from schemas.reviews import RegressionCase, ReviewDecision
from schemas.topology import TOPOLOGY

__all__ = ["SCHEMA_DIR", "TOPIC_DIR", "all_records", "render", "write_json_schemas"]

SCHEMA_DIR = Path(__file__).parent / "json"
TOPIC_DIR = SCHEMA_DIR / "topics"


def all_records() -> dict[str, type[Record]]:
    """Every record with a checked-in schema, by file stem."""
    records: dict[str, type[Record]] = {name: model for name, model in OUTPUT_RECORDS.items()}
    records["document_result"] = DocumentResult
    records["review_decision"] = ReviewDecision
    records["regression_case"] = RegressionCase
    return records


def render(model: type[BaseModel]) -> str:
    """A model's JSON Schema as stable, pretty-printed text."""
    schema = model.model_json_schema(mode="serialization")
    schema["$id"] = f"https://tieout.dev/schemas/{model.__name__}.json"
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_json_schemas(out_dir: Path = SCHEMA_DIR) -> list[Path]:
    """Write ``<name>.schema.json`` for every record, and ``topics/<topic>.schema.json`` for every topic.

    A topic's schema is its record's (:data:`schemas.topology.TOPOLOGY`).
    """
    written = []
    targets: list[tuple[Path, type[BaseModel]]] = [
        (out_dir / f"{name}.schema.json", model) for name, model in all_records().items()
    ]
    targets.append((out_dir / "claim_check.schema.json", ClaimCheck))
    targets += [(out_dir / "topics" / f"{t.name}.schema.json", t.record) for t in TOPOLOGY.topics]
    for path, model in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(model), encoding="utf-8")
        written.append(path)
    return written
