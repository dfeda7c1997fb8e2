"""Training datasets from processed documents: prompts with checked ground truth, and reward exports.

``build_dataset`` makes one row per statement or summary table: the policy is shown the table as text
and asked for its key figures as JSON; :func:`pipeline.rewards.functions.score_extraction` scores the
answer against the figures tieout checked. The rows carry the columns both trainers read: TRL's
``GRPOTrainer`` passes ``ground_truth`` (and every other column) to the reward function, and verl reads
``data_source``, ``reward_model.ground_truth`` and ``extra_info``.

CLI: ``python -m adapters.rewards_dataset --out DIR`` builds the example from ``sample_docs/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.checks.tolerance import KnownFact, known_facts
from pipeline.rewards.records import (
    RECORD_COMPONENTS,
    RewardRecord,
    agrees,
    fact_key,
    reference_facts,
    table_text,
)
from pipeline.taxonomy import load_taxonomy
from schemas.models import DocumentResult, Table

__all__ = [
    "DATASET_SCHEMA",
    "REWARDS_SCHEMA",
    "SYSTEM_PROMPT",
    "build_dataset",
    "export_dataset",
    "export_rewards",
    "ground_truth_for",
]

_INSTRUCTION = (
    "Extract every key figure this table prints as JSON: a list of objects "
    '{"metric": <metric id>, "period": <period>, "value": <number>, "page": <page>}. '
    "Use the metric ids listed in the instructions only. The value is in base units: apply the table's "
    "scale (1,234.5 in millions is 1234500000) and keep the sign as printed (parentheses are negative). "
    'The period is "FY<year>" for a fiscal year (the year it ends) and "YYYY-MM-DD" for a balance at a '
    "date. The page is the [page N] the figure is printed on. Answer with the JSON only."
)


def _system_prompt() -> str:
    ids = ", ".join(load_taxonomy().ids())
    return (
        "You read financial statements and report their figures exactly as printed, as JSON. "
        f"Metric ids: {ids}."
    )


SYSTEM_PROMPT = _system_prompt()
"""The system message of every prompt (instructions and the taxonomy's metric ids)."""


DATASET_SCHEMA = pa.schema(
    [
        pa.field("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        pa.field("ground_truth", pa.string()),
        pa.field("data_source", pa.string()),
        pa.field(
            "extra_info",
            pa.struct([("doc_id", pa.string()), ("pages", pa.list_(pa.int64())), ("table_id", pa.string())]),
        ),
        pa.field("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
    ]
)
"""Arrow schema of ``dataset.parquet``."""

REWARDS_SCHEMA = pa.schema(
    [
        pa.field("record_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("task", pa.string(), nullable=False),
        pa.field("extractor", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("completion", pa.string(), nullable=False),
        pa.field("reward", pa.float64(), nullable=False),
        *(pa.field(name, pa.float64()) for name in RECORD_COMPONENTS),
        pa.field("label_reason", pa.string()),
        pa.field("pages", pa.list_(pa.int64()), nullable=False),
        pa.field("created_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("schema_version", pa.string(), nullable=False),
    ]
)
"""Arrow schema of ``rewards.parquet``: one column per component, null when the component is absent."""


# Segment tables break a total down by dimension; asked for "key figures", a model would report segment
# lines as whole-entity metrics, which the ground truth cannot hold.
_SEGMENT_TITLE = re.compile(r"segment|business area|by division|by region|by geograph", re.IGNORECASE)


def _json_value(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def ground_truth_for(table: Table, result: DocumentResult) -> dict[str, Any]:
    """The checked figures a table prints, as the scorer's ground truth.

    A figure is checked when the table's copy agrees, within rounding, with the document's reference
    (the primary statement's figure, see :func:`pipeline.rewards.records.reference_facts`); its
    ``value`` and ``decimals`` are the table's own copy, and ``pages`` every page that prints a copy
    agreeing with it. A copy that contradicts the reference (a mis-keyed highlights figure) is listed
    under ``disputed``: the page says one thing and the statements another, so neither answer is
    rewarded.

    Args:
        table: A statement or summary table of ``result``.
        result: The processed document.

    Returns:
        ``{"facts": [{"metric", "period", "value", "decimals", "pages"}], "disputed": [{"metric",
        "period"}]}``.
    """
    references = reference_facts(result)
    known = known_facts(result.facts)  # a figure of unknown scale is no ground truth
    copies: dict[tuple[str, str], list[KnownFact]] = {}
    for fact in known:
        key = fact_key(fact)
        if key is not None:
            copies.setdefault(key, []).append(fact)
    facts: list[dict[str, Any]] = []
    disputed: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for fact in known:
        key = fact_key(fact)
        if fact.table_id != table.table_id or key is None or key in seen or key not in references:
            continue
        seen.add(key)
        if not agrees(fact, references[key]):
            disputed.append({"metric": key[0], "period": key[1]})
            continue
        pages = sorted({c.page for c in copies[key] if agrees(c, fact)})
        facts.append(
            {
                "metric": key[0],
                "period": key[1],
                "value": _json_value(fact.value),
                "decimals": fact.decimals,
                "pages": pages,
            }
        )
    return {"facts": facts, "disputed": disputed}


def build_dataset(results: list[DocumentResult]) -> list[dict[str, Any]]:
    """One prompt per statement or summary table of each document.

    Segment tables and tables without a whole-entity figure of the taxonomy are left out, as are
    documents that failed.

    Args:
        results: Processed documents.

    Returns:
        Rows with ``prompt`` (conversational: system + user message holding the table text with
        ``[page N]`` markers and the instruction), ``ground_truth`` (JSON text, see
        :func:`ground_truth_for`), ``data_source`` (``tieout/<source>``), ``extra_info`` (``doc_id``,
        ``pages``, ``table_id``) and ``reward_model`` (``{"style": "rule", "ground_truth": …}``, where
        verl's reward managers read the ground truth).
    """
    rows: list[dict[str, Any]] = []
    for result in results:
        if result.failed:
            continue
        for table in result.tables:
            if _SEGMENT_TITLE.search(table.title or ""):
                continue
            truth = ground_truth_for(table, result)
            if not truth["facts"]:
                continue
            text = json.dumps(truth, ensure_ascii=False)
            rows.append(
                {
                    "prompt": [
                        {"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": f"{table_text(table)}\n\n{_INSTRUCTION}"},
                    ],
                    "ground_truth": text,
                    "data_source": f"tieout/{result.source}",
                    "extra_info": {
                        "doc_id": result.doc_id,
                        "pages": list(table.pages),
                        "table_id": table.table_id,
                    },
                    "reward_model": {"style": "rule", "ground_truth": text},
                }
            )
    return rows


def _write_jsonl(path: Path, lines: Sequence[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def export_rewards(records: Sequence[RewardRecord], out_dir: str | Path) -> list[Path]:
    """Write reward records as ``rewards.jsonl`` and ``rewards.parquet``.

    Args:
        records: Reward records.
        out_dir: Directory to write to (created when missing).

    Returns:
        The two paths, JSONL first.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl, parquet = out / "rewards.jsonl", out / "rewards.parquet"
    _write_jsonl(jsonl, [r.model_dump_json() for r in records])
    columns: dict[str, list[Any]] = {name: [] for name in REWARDS_SCHEMA.names}
    for r in records:
        row = r.model_dump(exclude={"components"})
        for name in RECORD_COMPONENTS:
            row[name] = r.components.get(name)
        for name in columns:
            columns[name].append(row[name])
    pq.write_table(pa.Table.from_pydict(columns, schema=REWARDS_SCHEMA), parquet)
    return [jsonl, parquet]


def export_dataset(rows: Sequence[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Write dataset rows as ``dataset.jsonl`` and ``dataset.parquet``.

    Args:
        rows: Rows from :func:`build_dataset`.
        out_dir: Directory to write to (created when missing).

    Returns:
        The two paths, JSONL first.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl, parquet = out / "dataset.jsonl", out / "dataset.parquet"
    _write_jsonl(jsonl, [json.dumps(row, ensure_ascii=False) for row in rows])
    pq.write_table(pa.Table.from_pylist(list(rows), schema=DATASET_SCHEMA), parquet)
    return [jsonl, parquet]
