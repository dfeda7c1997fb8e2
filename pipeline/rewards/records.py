"""Reward records: one scored example per extracted figure, for RL and reward-model training.

Each record pairs the text a figure was read from (``context``) with the extraction (``completion``)
and a reward built from what tieout knows about that figure: whether the consistency checks passed,
whether independent readers agree, whether it matches the document's checked value, and — once there is
one — the analyst's decision.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from pipeline.checks.tolerance import KnownFact, compare_values, known_facts
from pipeline.ids import stable_id
from pipeline.rewards.decisions import reviewed_flags
from pipeline.rewards.functions import sign_free
from pipeline.rewards.links import LINK_COMPONENTS
from pipeline.rewards.model_records import model_records
from schemas.models import BBox, DocumentResult, Fact, Flag, Table
from schemas.reviews import ReviewDecision
from schemas.rewards import RewardRecord

__all__ = [
    "RECORD_COMPONENTS",
    "RECORD_WEIGHTS",
    "RewardRecord",
    "agrees",
    "build_reward_records",
    "fact_key",
    "is_primary_statement",
    "reference_facts",
    "table_text",
    "touches",
]

RECORD_WEIGHTS: dict[str, float] = {"consistency": 0.4, "agreement": 0.2, "truth": 0.4}
"""Weights of the automatic components; a missing component's weight is shared among the others."""

RECORD_COMPONENTS: tuple[str, ...] = tuple(
    dict.fromkeys(("consistency", "agreement", "truth", "analyst", *LINK_COMPONENTS))
)
"""Every component a record may carry: a figure's (``agreement``, ``truth`` and ``analyst`` can be absent)
and a model proposal's (:mod:`pipeline.rewards.model_records`; ``agreement`` there is verification's)."""

_SEVERITY_CONSISTENCY: dict[str, float] = {"error": 0.0, "warning": 0.5, "info": 0.9}
"""Consistency of a figure touched by a flag of that severity; an untouched figure gets 1.0."""


# --- shared with the dataset builder --------------------------------------------------------------

_PRIMARY_TITLE = re.compile(
    r"statements?\b|balance sheets?|financial position|profit (?:and|or) loss|cash flows?|operations",
    re.IGNORECASE,
)
_SUMMARY_TITLE = re.compile(r"highlights|summary|key figures|selected|segment|business area", re.IGNORECASE)


def is_primary_statement(table: Table) -> bool:
    """Whether a table is a primary statement (income statement, balance sheet, cash-flow statement).

    The primary statement's figure is the reference when copies disagree, as an auditor would take it.

    Args:
        table: A logical table.

    Returns:
        True when the title names a statement and not a summary, highlights or segment table.
    """
    title = table.title or ""
    return bool(_PRIMARY_TITLE.search(title)) and not _SUMMARY_TITLE.search(title)


def fact_key(fact: Fact) -> tuple[str, str] | None:
    """``(metric, period key)`` of a whole-entity figure; None for a segment figure or no period."""
    if fact.period is None or fact.context is not None:
        return None
    return fact.metric, fact.period.key


def agrees(fact: KnownFact, reference: KnownFact) -> bool:
    """Whether two printed figures for the same thing agree within their rounding.

    Sign-free metrics (costs, tax, capex, liability totals) are compared by magnitude.
    """
    a, b = fact.value, reference.value
    if sign_free(fact.metric):
        a, b = abs(a), abs(b)
    return compare_values(a, fact.decimals, b, reference.decimals).ok


def reference_facts(result: DocumentResult) -> dict[tuple[str, str], KnownFact]:
    """The document's checked value of every whole-entity figure printed in a table.

    The reference is the primary statement's figure when one prints it, else the value printed most
    often (first in reading order on a tie). Narrative figures never set the reference: prose is what
    the checks test against the tables.

    Args:
        result: A processed document.

    Returns:
        ``(metric, period) → fact`` holding the reference figure.
    """
    tables = {t.table_id: t for t in result.tables}
    groups: dict[tuple[str, str], list[KnownFact]] = {}
    for fact in known_facts(result.facts):
        key = fact_key(fact)
        if key is not None and fact.origin == "table_cell":
            groups.setdefault(key, []).append(fact)
    out: dict[tuple[str, str], KnownFact] = {}
    for key, facts in groups.items():
        primary = [f for f in facts if f.table_id in tables and is_primary_statement(tables[f.table_id])]
        if primary:
            out[key] = primary[0]
            continue
        counts = Counter(round(f.value, 6) for f in facts)
        best = max(counts.values())
        out[key] = next(f for f in facts if counts[round(f.value, 6)] == best)
    return out


_SCALE_WORDS = {3: "thousands", 6: "millions", 7: "crore (10^7)", 9: "billions"}


def table_text(table: Table, rows: Iterable[int] | None = None) -> str:
    """A table as text: title and scale, header lines, then rows, with ``[page N]`` markers.

    A marker (with the title repeated) starts the text and every change of page, so a model can cite
    the page of each row of a table that runs over a page break.

    Args:
        table: A logical table.
        rows: Body rows to include (grid indices); all rows when None.

    Returns:
        Lines with cells joined by " | ".
    """
    wanted = None if rows is None else set(rows)
    by_row: dict[int, list[tuple[int, str]]] = {}
    for cell in table.cells:
        by_row.setdefault(cell.row, []).append((cell.col, cell.text))
    scale = _SCALE_WORDS.get(table.scale, f"10^{table.scale}") if table.scale else ""
    unit = ", ".join(p for p in (table.currency, scale) if p)
    lines: list[str] = []
    page: int | None = None
    for r in sorted(by_row):
        header = r < table.header_rows
        if not header and wanted is not None and r not in wanted:
            continue
        row_page = table.row_pages[r] if r < len(table.row_pages) else table.page
        if row_page != page:
            page = row_page
            title = table.title or "Table"
            lines.append(f"[page {page}] {title}" + (f" ({unit})" if unit else ""))
        # Empty cells are kept so that every figure stays under its column header (a Notes column is
        # filled on some rows only).
        cells = dict(by_row[r])
        width = max(table.n_cols, max(cells) + 1)
        lines.append(" | ".join(cells.get(c, "").strip() for c in range(width)).strip())
    return "\n".join(lines)


# --- records --------------------------------------------------------------------------------------


def _overlaps(a: BBox | None, b: BBox | None) -> bool:
    if a is None or b is None:
        return False
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _same_value(a: float | None, b: float) -> bool:
    return a is not None and math.isclose(abs(a), abs(b), rel_tol=1e-9, abs_tol=1e-6)


def touches(flag: Flag, fact: KnownFact) -> bool:
    """Whether a flag's evidence is this figure.

    Evidence is a box on a page; a narrative box holds a whole paragraph with several figures, so the
    box must overlap the figure's AND either carry the same value or the flag be about the same metric
    and period.

    Args:
        flag: A finding.
        fact: An extracted figure.

    Returns:
        True when the finding involves the figure.
    """
    same_subject = (
        flag.metric == fact.metric
        and flag.period is not None
        and fact.period is not None
        and flag.period.key == fact.period.key
    )
    for ev in flag.evidence:
        if ev.page != fact.page or not _overlaps(ev.bbox, fact.bbox):
            continue
        if _same_value(ev.value, fact.value) or same_subject:
            return True
    return False


def _consistency(fact: KnownFact, flags: Sequence[Flag]) -> float:
    levels = [_SEVERITY_CONSISTENCY[f.severity] for f in flags if touches(f, fact)]
    return min(levels, default=1.0)


def _sentence(text: str, printed: str) -> str:
    """The sentence of a paragraph that holds the printed figure (the paragraph when not found)."""
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z(\"“‘$£€¥])", text):
        if printed in sentence:
            return sentence.strip()
    return text.strip()


def _context(fact: Fact, result: DocumentResult, tables: Mapping[str, Table]) -> str:
    table = tables.get(fact.table_id or "")
    if fact.origin == "table_cell" and table is not None and fact.row is not None:
        return table_text(table, rows=[fact.row])
    for block in result.blocks:
        if block.page == fact.page and fact.bbox is not None and block.bbox == fact.bbox:
            return f"[page {fact.page}] {_sentence(block.text, fact.printed)}"
    return f"[page {fact.page}] {fact.label}: {fact.printed}"


def _completion(fact: KnownFact) -> str:
    period = fact.period.key if fact.period is not None else None
    value = int(fact.value) if float(fact.value).is_integer() else fact.value
    return json.dumps([{"metric": fact.metric, "period": period, "value": value, "page": fact.page}])


def _extractor(fact: Fact) -> str:
    return "pymupdf_tables" if fact.origin == "table_cell" else "pymupdf_text"


def _combine(components: Mapping[str, float]) -> float:
    if "analyst" in components:
        # A person's decision is the label: it replaces the automatic estimate.
        return components["analyst"]
    present = {k: w for k, w in RECORD_WEIGHTS.items() if k in components}
    total = math.fsum(present.values())
    return math.fsum(w * components[k] for k, w in present.items()) / total


def build_reward_records(
    result: DocumentResult,
    *,
    analyst: dict[str, bool] | None = None,
    reviews: Mapping[str, ReviewDecision] | None = None,
    created_at: datetime | None = None,
) -> list[RewardRecord]:
    """One reward record per table figure and per narrative figure of a document, then per model proposal.

    Components (each in [0, 1]):

    * ``consistency``: 1.0 when no flag's evidence is the figure; otherwise the lowest over the flags
      touching it of error 0.0, warning 0.5, info 0.9 — as the analysts left the flags (``reviews``): a
      dismissed flag does not count, a confirmed one counts as an error.
    * ``agreement``: for a table figure, the table's agreement with pdfplumber's independent reading
      (``Table.confidence``, 0.5 + 0.5·cell F1); absent when the table was not re-read. Narrative
      figures have no second reader, so it is absent for them.
    * ``truth``: 1.0 when the figure agrees, within rounding, with the document's checked value of the
      same metric and period (:func:`reference_facts`: the primary statement's figure), else 0.0;
      absent for segment figures and figures no table prints.
    * ``analyst``: 1.0 / 0.0 when ``analyst`` holds a decision for the figure, keyed by ``fact_id``
      (or by the record's ``record_id``); absent otherwise.

    Reward::

        reward = analyst                                    when there is a decision
               = Σ w_k·c_k / Σ w_k over the present k       otherwise,
                 w = {consistency: 0.4, agreement: 0.2, truth: 0.4}

    Args:
        result: A processed document (facts and flags).
        analyst: Decisions: ``True`` when the analyst accepted the extracted figure, ``False`` when
            they rejected it.
        reviews: The analysts' standing decisions on flags, by flag id
            (:func:`pipeline.rewards.decisions.standing`).
        created_at: Timestamp for the records (now, UTC, by default).

    The model stage's proposals follow, one record each (:func:`pipeline.rewards.model_records.
    model_records`: prompt messages, raw answer, verification stages passed).

    Returns:
        The records, in the document's fact order (facts whose scale is unknown get none), then the
        model stage's outcomes in their order.
    """
    decisions = analyst or {}
    stamp = created_at or datetime.now(UTC)
    tables = {t.table_id: t for t in result.tables}
    references = reference_facts(result)
    flags = reviewed_flags(result.flags, reviews or {})
    records: list[RewardRecord] = []
    # A figure whose scale is unknown has no value to reward an extraction against.
    for fact in known_facts(result.facts):
        extractor = _extractor(fact)
        record_id = stable_id("reward", result.doc_id, fact.fact_id, extractor)
        components: dict[str, float] = {"consistency": _consistency(fact, flags)}
        table = tables.get(fact.table_id or "")
        if fact.origin == "table_cell" and table is not None and table.confidence is not None:
            components["agreement"] = table.confidence
        key = fact_key(fact)
        if key is not None and key in references:
            components["truth"] = 1.0 if agrees(fact, references[key]) else 0.0
        decision = decisions.get(fact.fact_id, decisions.get(record_id))
        if decision is not None:
            components["analyst"] = 1.0 if decision else 0.0
        records.append(
            RewardRecord(
                record_id=record_id,
                doc_id=result.doc_id,
                source=result.source,
                task="table_fact" if fact.origin == "table_cell" else "narrative_claim",
                extractor=extractor,
                context=_context(fact, result, tables),
                completion=_completion(fact),
                reward=min(1.0, max(0.0, _combine(components))),
                components=components,
                pages=[fact.page],
                created_at=stamp,
            )
        )
    return records + model_records(result, stamp)
