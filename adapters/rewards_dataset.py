"""Training datasets from processed documents: prompts with checked ground truth, and reward exports.

``build_dataset`` makes one row per statement or summary table: the policy is shown the table as text
and asked for its key figures as JSON; :func:`pipeline.rewards.functions.score_extraction` scores the
answer against the figures tieout checked. The rows carry the columns both trainers read: TRL's
``GRPOTrainer`` passes ``ground_truth`` (and every other column) to the reward function, and verl reads
``data_source``, ``reward_model.ground_truth`` and ``extra_info``.

CLI: ``python -m adapters.rewards_dataset --out DIR`` builds the example from ``sample_docs/``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from adapters.files import private_file, write_private
from pipeline.checks.tolerance import KnownFact, known_facts
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.model.grounding import PageIndex
from pipeline.parse.chunks import count_tokens
from pipeline.rewards.links import page_index_json
from pipeline.rewards.records import (
    RECORD_COMPONENTS,
    RewardRecord,
    agrees,
    fact_key,
    reference_facts,
    table_text,
)
from pipeline.rewards.verl_reward import EXTRACT_TASK, LINKS_TASK
from schemas.models import DocumentResult, ModelCall, Table

__all__ = [
    "DATASET_SCHEMA",
    "REWARDS_SCHEMA",
    "SYSTEM_PROMPT",
    "build_dataset",
    "export_dataset",
    "export_rewards",
    "ground_truth_for",
    "link_row",
    "split_of",
]

TokenCounter = Callable[[str], int]
"""Counts a text's tokens; :func:`pipeline.parse.chunks.count_tokens` (a word-piece estimate) by default."""

SPLITS: tuple[tuple[str, int], ...] = (("train", 80), ("val", 90), ("test", 100))
"""Split of a document by the percentile of its id's hash: below 80 train, below 90 val, else test."""


def split_of(doc_id: str) -> str:
    """The split a document belongs to, from a stable hash of its id.

    Every row and record of a document lands in one split, so no document is seen in training and in
    evaluation; the hash (SHA-256, not Python's salted ``hash``) gives the same split on every run.

    Args:
        doc_id: The document's id.

    Returns:
        ``"train"``, ``"val"`` or ``"test"`` (about 80/10/10 over many documents).
    """
    percentile = int.from_bytes(hashlib.sha256(doc_id.encode("utf-8")).digest()[:8], "big") % 100
    return next(name for name, below in SPLITS if percentile < below)


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
        pa.field("page_index", pa.string()),
        pa.field(
            "extra_info",
            pa.struct(
                [
                    ("doc_id", pa.string()),
                    ("pages", pa.list_(pa.int64())),
                    ("table_id", pa.string()),
                    ("task", pa.string()),
                    ("split", pa.string()),
                    ("call_id", pa.string()),
                    ("prompt_tokens", pa.int64()),
                    ("answer_tokens", pa.int64()),
                    ("token_counter", pa.string()),
                ]
            ),
        ),
        pa.field("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        pa.field("split", pa.string()),
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
        pa.field("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        pa.field("call_id", pa.string()),
        pa.field("outcome", pa.string()),
        pa.field("proposal", pa.string()),
        pa.field("created_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("schema_version", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("prompt_tokens", pa.int64(), nullable=False),
        pa.field("answer_tokens", pa.int64(), nullable=False),
    ]
)
"""Arrow schema of ``rewards.parquet``: one column per component, null when the component is absent; the
document's split and the token lengths of the prompt (the messages, else the context) and the completion."""


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


def _reference_answer(truth: dict[str, Any]) -> str:
    """The answer the ground truth itself gives (each figure on its first page): a length to expect."""
    facts = [
        {"metric": f["metric"], "period": f["period"], "value": f["value"], "page": f["pages"][0]}
        for f in truth["facts"]
    ]
    return json.dumps(facts, ensure_ascii=False)


def _prompt_tokens(messages: Sequence[dict[str, str]], count: TokenCounter) -> int:
    return sum(count(m.get("content", "")) for m in messages)


def _lengths(
    messages: Sequence[dict[str, str]], answer: str, count: TokenCounter, counter_name: str
) -> dict[str, Any]:
    return {
        "prompt_tokens": _prompt_tokens(messages, count),
        "answer_tokens": count(answer),
        "token_counter": counter_name,
    }


def link_row(
    result: DocumentResult,
    call: ModelCall,
    page_index: str,
    *,
    count: TokenCounter = count_tokens,
    counter_name: str = "estimate",
) -> dict[str, Any]:
    """A cross-page-link prompt of the model stage, with the document's printed numbers as ground truth.

    Args:
        result: The document.
        call: A ``cross_page_links`` call of its model stage (its ``messages`` are the prompt).
        page_index: :func:`pipeline.rewards.links.page_index_json` of the document, as JSON text.
        count: Token counter for the lengths.
        counter_name: What ``count`` is, recorded with the lengths.

    Returns:
        A dataset row (see :func:`build_dataset`) whose ``page_index`` is set and ``ground_truth`` is
        None; ``answer_tokens`` is the length of the answer the model gave.
    """
    split = split_of(result.doc_id)
    return {
        "prompt": [dict(m) for m in call.messages],
        "ground_truth": None,
        "page_index": page_index,
        "data_source": f"tieout/{result.source}",
        "extra_info": {
            "doc_id": result.doc_id,
            "pages": [],
            "table_id": None,
            "task": LINKS_TASK,
            "split": split,
            "call_id": call.call_id,
            **_lengths(call.messages, call.answer or "", count, counter_name),
        },
        "reward_model": {"style": "rule", "ground_truth": page_index},
        "split": split,
    }


def build_dataset(
    results: list[DocumentResult], *, count: TokenCounter = count_tokens, counter_name: str = "estimate"
) -> list[dict[str, Any]]:
    """One prompt per statement or summary table of each document, and one per cross-page-link call.

    Segment tables and tables without a whole-entity figure of the taxonomy are left out, as are
    documents that failed. A document whose model stage ran also gives its ``cross_page_links`` calls
    as prompts (:func:`link_row`), scored against its printed numbers.

    Args:
        results: Processed documents.
        count: Token counter for the recorded lengths (the word-piece estimate by default; pass the
            policy's tokenizer where it is installed).
        counter_name: What ``count`` is (``"estimate"`` or the tokenizer's name), recorded per row.

    Returns:
        Rows with ``prompt`` (conversational: system + user message holding the table text with
        ``[page N]`` markers and the instruction), ``ground_truth`` (JSON text, see
        :func:`ground_truth_for`; None for a link row), ``page_index`` (JSON text for a link row, else
        None), ``data_source`` (``tieout/<source>``), ``extra_info`` (``doc_id``, ``pages``,
        ``table_id``, ``task``, ``split``, ``call_id``, ``prompt_tokens``, ``answer_tokens`` — of the
        reference answer, or of the model's answer for a link row — and ``token_counter``),
        ``reward_model`` (``{"style": "rule", "ground_truth": …}``, where verl's reward managers read the
        ground truth) and ``split`` (:func:`split_of` the document: every row of a document in one split).
    """
    rows: list[dict[str, Any]] = []
    taxonomy = load_taxonomy()
    for result in results:
        if result.failed:
            continue
        split = split_of(result.doc_id)
        for table in result.tables:
            if _SEGMENT_TITLE.search(table.title or ""):
                continue
            truth = ground_truth_for(table, result)
            if not truth["facts"]:
                continue
            text = json.dumps(truth, ensure_ascii=False)
            prompt = [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"{table_text(table)}\n\n{_INSTRUCTION}"},
            ]
            rows.append(
                {
                    "prompt": prompt,
                    "ground_truth": text,
                    "page_index": None,
                    "data_source": f"tieout/{result.source}",
                    "extra_info": {
                        "doc_id": result.doc_id,
                        "pages": list(table.pages),
                        "table_id": table.table_id,
                        "task": EXTRACT_TASK,
                        "split": split,
                        "call_id": None,
                        **_lengths(prompt, _reference_answer(truth), count, counter_name),
                    },
                    "reward_model": {"style": "rule", "ground_truth": text},
                    "split": split,
                }
            )
        link_calls = [
            c
            for c in (result.model.calls if result.model else [])
            if c.task == LINKS_TASK and c.ok and c.messages
        ]
        if link_calls:
            index = json.dumps(page_index_json(PageIndex.of(result, taxonomy)), ensure_ascii=False)
            rows.extend(
                link_row(result, c, index, count=count, counter_name=counter_name) for c in link_calls
            )
    return rows


def _write_jsonl(path: Path, lines: Sequence[str]) -> None:
    write_private(path, "".join(line + "\n" for line in lines).encode("utf-8"))


def _write_parquet(path: Path, table: pa.Table) -> None:
    with private_file(path) as fh:
        pq.write_table(table, fh)


def export_rewards(
    records: Sequence[RewardRecord],
    out_dir: str | Path,
    *,
    count: TokenCounter = count_tokens,
) -> list[Path]:
    """Write reward records as ``rewards.jsonl`` and ``rewards.parquet``.

    The Parquet file adds each record's ``split`` (:func:`split_of` its document) and token lengths:
    ``prompt_tokens`` of its messages (a model proposal) or its context, ``answer_tokens`` of its
    completion.

    Args:
        records: Reward records.
        out_dir: Directory to write to (created 0700 when missing; the files are private, 0600).
        count: Token counter (the word-piece estimate by default).

    Returns:
        The two paths, JSONL first.
    """
    out = Path(out_dir)
    jsonl, parquet = out / "rewards.jsonl", out / "rewards.parquet"
    _write_jsonl(jsonl, [r.model_dump_json() for r in records])
    columns: dict[str, list[Any]] = {name: [] for name in REWARDS_SCHEMA.names}
    for r in records:
        row = r.model_dump(exclude={"components"})
        for name in RECORD_COMPONENTS:
            row[name] = r.components.get(name)
        row["split"] = split_of(r.doc_id)
        row["prompt_tokens"] = _prompt_tokens(r.messages, count) if r.messages else count(r.context)
        row["answer_tokens"] = count(r.completion)
        for name in columns:
            columns[name].append(row[name])
    _write_parquet(parquet, pa.Table.from_pydict(columns, schema=REWARDS_SCHEMA))
    return [jsonl, parquet]


def export_dataset(rows: Sequence[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Write dataset rows as ``dataset.jsonl`` and ``dataset.parquet``, and one Parquet file per split.

    ``train.parquet``, ``val.parquet`` and ``test.parquet`` hold the rows of each split (verl's
    ``data.train_files`` / ``data.val_files``); a split without rows gets no file.

    Args:
        rows: Rows from :func:`build_dataset`.
        out_dir: Directory to write to (created 0700 when missing; the files are private, 0600).

    Returns:
        The paths written: JSONL, the whole Parquet file, then the splits'.
    """
    out = Path(out_dir)
    jsonl, parquet = out / "dataset.jsonl", out / "dataset.parquet"
    _write_jsonl(jsonl, [json.dumps(row, ensure_ascii=False) for row in rows])
    _write_parquet(parquet, pa.Table.from_pylist(list(rows), schema=DATASET_SCHEMA))
    written = [jsonl, parquet]
    for name, _ in SPLITS:
        part = [row for row in rows if row["split"] == name]
        if part:
            path = out / f"{name}.parquet"
            _write_parquet(path, pa.Table.from_pylist(part, schema=DATASET_SCHEMA))
            written.append(path)
    return written
