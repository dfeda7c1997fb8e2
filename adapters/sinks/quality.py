"""Data-quality gate (Great Expectations, GX Core) in front of every sink.

The suites live in the repository (``adapters/sinks/expectations/*.json``) and are applied to each
document's facts and tables as a batch: types, required fields, periods, plausible ranges, known units and
metrics, uniqueness of (doc, metric, period, location). A batch that fails reaches no sink; the caller turns
the failed expectations into a dead-letter record.

GX takes seconds to import, so it is imported here only, lazily, where the gate runs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from adapters.sinks.rows import FACTS, plain
from pipeline.figures.taxonomy import load_taxonomy
from schemas.models import DocumentResult

__all__ = [
    "GateResult",
    "QualityGate",
    "default_gate",
    "facts_frame_rows",
    "load_suite_spec",
    "tables_frame_rows",
]

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")


@dataclass(frozen=True, slots=True)
class GateResult:
    """Outcome of the gate: ``failed`` names each failed expectation as ``suite:type(column)``."""

    success: bool
    failed: list[str] = field(default_factory=list)
    evaluated: int = 0


def load_suite_spec(name: str) -> dict[str, Any]:
    """A suite from the repository, with ``$taxonomy_ids`` resolved."""
    raw = (resources.files("adapters.sinks") / "expectations" / f"{name}.json").read_text(encoding="utf-8")
    spec: dict[str, Any] = json.loads(raw)
    ids = load_taxonomy().ids()
    for e in spec["expectations"]:
        if e["kwargs"].get("value_set") == "$taxonomy_ids":
            e["kwargs"]["value_set"] = ids
    return spec


def facts_frame_rows(result: DocumentResult) -> list[dict[str, Any]]:
    """One row per fact: the sinks' columns (:data:`~adapters.sinks.rows.FACTS`) and its location."""
    return [
        {
            **plain(FACTS.row(f)),
            "location": f"{f.table_id}:{f.row}:{f.col}" if f.table_id else f"text:{f.fact_id}",
        }
        for f in result.facts
    ]


def tables_frame_rows(result: DocumentResult) -> list[dict[str, Any]]:
    """One row per table."""
    return [
        {
            "table_id": t.table_id,
            "n_rows": t.n_rows,
            "n_cols": t.n_cols,
            "page": t.page,
            "n_cells": len(t.cells),
        }
        for t in result.tables
    ]


class QualityGate:
    """Validates a document's facts and tables against the repository's suites."""

    def __init__(self) -> None:
        """Build an ephemeral GX context with the suites (imports GX)."""
        import great_expectations as gx
        from great_expectations.data_context.types.base import ProgressBarsConfig

        self._gx = gx
        self.context = gx.get_context(mode="ephemeral")
        self.context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        source = self.context.data_sources.add_pandas("tieout")
        self._batches: dict[str, Any] = {}
        self._suites: dict[str, Any] = {}
        for name in ("facts", "tables"):
            asset = source.add_dataframe_asset(name=name)
            self._batches[name] = asset.add_batch_definition_whole_dataframe(f"{name}_batch")
            spec = load_suite_spec(name)
            self._suites[name] = self.context.suites.add(
                gx.ExpectationSuite(name=spec["name"], expectations=spec["expectations"])
            )

    def check(self, result: DocumentResult) -> GateResult:
        """Run both suites; empty batches pass (a document without tables has nothing to gate)."""
        import pandas as pd

        failed: list[str] = []
        evaluated = 0
        for name, rows in (("facts", facts_frame_rows(result)), ("tables", tables_frame_rows(result))):
            if not rows:
                continue
            batch = self._batches[name].get_batch(batch_parameters={"dataframe": pd.DataFrame(rows)})
            res = batch.validate(self._suites[name])
            for r in res.results:
                evaluated += 1
                cfg = r.expectation_config
                if not r.success and cfg is not None:
                    kwargs = cfg.kwargs
                    col = kwargs.get("column") or ",".join(kwargs.get("column_list", []))
                    failed.append(f"{name}:{cfg.type}({col})")
        return GateResult(success=not failed, failed=failed, evaluated=evaluated)


@cache
def default_gate() -> QualityGate:
    """A process-wide gate (building the GX context takes a moment)."""
    return QualityGate()
