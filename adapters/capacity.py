"""The per-replica costs ``tieout plan`` plans with, read from the benchmarks' committed result files.

Nothing here is typed by hand: each cost is a figure a benchmark measured (or, for the deep model tier,
projected and labelled so), carried with its file, date, commit and machine.

* parse, seconds per page per worker: ``scaling.json`` (``bench/scaling.py``), the 1-worker run through the
  real ``tieout consume parse`` service in steady state;
* verify without a model and the sink: ``load.json`` (``bench/load.py``), the stages' busy time (handling
  plus commit) from their services' metrics;
* verify with a model tier: ``llm_verify_amd_2022.json`` (``bench/llm_verify.py``): ``standard`` is the
  measured wall time of the 122-page filing on the CPU model server; ``deep`` is the H200 projection's
  latency bound per document (one document in flight per replica) and its GPU seconds per document for
  the shared model servers — a PROJECTION from published figures, not a measurement.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pipeline.planning import Cost, Costs, PlanError, Source

RESULTS = Path(__file__).resolve().parent.parent / "bench" / "results"
"""Where the benchmarks write their committed results (``bench/results/``)."""

SCALING = "scaling.json"
LOAD = "load.json"
LLM_VERIFY = "llm_verify_amd_2022.json"


def _read(results: Path, name: str, how: str) -> dict[str, Any]:
    path = results / name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanError(f"{path} is missing: run `{how}` (from the repository root) to measure it") from None
    except json.JSONDecodeError as exc:
        raise PlanError(f"{path} is not valid JSON ({exc}): run `{how}` again") from exc
    if not isinstance(data, dict):
        raise PlanError(f"{path}: expected a JSON object")
    return data


def _source(results: Path, name: str, data: dict[str, Any], note: str = "") -> Source:
    meta = data.get("meta") or {}
    machine = meta.get("machine") or {}
    where = (
        f"{machine.get('cpu_count', '?')}-core {machine.get('cpu', 'machine')} ({machine.get('host', '?')}), "
        f"load average {meta.get('load_average_start', '?')}"
        if machine
        else "machine not recorded"
    )
    try:
        path = str((results / name).relative_to(Path.cwd()))
    except ValueError:
        path = str(results / name)
    return Source(path, str(meta.get("date", "date not recorded")), str(meta.get("commit", "?")), where, note)


def _positive(value: Any, path: str, key: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        raise PlanError(f"{path}: {key} must be a positive number, got {value!r}")
    return float(value)


def load_costs(results: Path = RESULTS) -> Costs:
    """Read the committed result files into :class:`Costs`.

    Args:
        results: The folder of result files (default ``bench/results/`` of this checkout).

    Raises:
        PlanError: A file is missing or lacks a figure; the message names the bench that writes it.
    """
    scaling = _read(results, SCALING, "python -m bench.scaling")
    calib = scaling.get("calibration") or {}
    parse = Cost(
        _positive(calib.get("wall_s_per_page"), SCALING, "calibration.wall_s_per_page"),
        "page",
        "one `tieout consume parse` worker in steady state, documents of "
        f"{calib.get('mean_pages_per_doc', '?')} pages on average (their per-document overhead is spread "
        "over those pages)",
        _source(results, SCALING, scaling),
    )

    load = _read(results, LOAD, "python -m bench.load --docs 150")
    load_costs_ = load.get("costs") or {}
    load_source = _source(results, LOAD, load, f"{load.get('docs_sent', '?')} documents, 1 worker per stage")
    verify = {
        "none": Cost(
            _positive(load_costs_.get("verify_s_per_page"), LOAD, "costs.verify_s_per_page"),
            "page",
            "deterministic checks: the verify service's busy time (handling + commit) per page",
            load_source,
        )
    }
    sink = Cost(
        _positive(load_costs_.get("sink_s_per_doc"), LOAD, "costs.sink_s_per_doc"),
        "document",
        "the sink service's busy time (handling + commit) per document, PostgreSQL "
        + ("on" if load.get("postgres") else "off"),
        load_source,
    )

    llm = _read(
        results, LLM_VERIFY, "python -m bench.llm_verify --filing financebench__AMD_2022_annualreport.pdf"
    )
    pages = _positive(llm.get("pages"), LLM_VERIFY, "pages")
    checks = verify["none"].seconds
    llm_meta = {"meta": llm.get("meta") or {}}
    verify["standard"] = Cost(
        checks + _positive(llm.get("wall_s"), LLM_VERIFY, "wall_s") / pages,
        "page",
        f"checks + the CPU model server's wall time on a {pages:g}-page filing "
        f"({llm.get('calls', '?')} calls, {len(llm.get('passes') or [])} passes), one server per replica",
        _source(results, LLM_VERIFY, llm_meta, "measured on the CPU vLLM server (SmolLM2-135M)"),
    )
    projection = llm.get("h200_projection") or {}
    if projection:
        note = f"PROJECTION, not a measurement ({projection.get('label', 'h200_projection')})"
        deep_source = _source(results, LLM_VERIFY, llm_meta, note)
        verify["deep"] = Cost(
            checks
            + _positive(projection.get("latency_upper_bound_s"), LLM_VERIFY, "latency_upper_bound_s") / pages,
            "page",
            "checks + the deep tier's latency bound per document on one H200 "
            "(one document in flight per replica)",
            deep_source,
        )
        gpu = _positive(
            projection.get("gpu_seconds_at_published_throughput"),
            LLM_VERIFY,
            "gpu_seconds_at_published_throughput",
        )
        return Costs(
            parse,
            verify,
            sink,
            {
                "deep": Cost(
                    gpu / pages, "page", "H200 GPU seconds per page at the published throughput", deep_source
                )
            },
        )
    return Costs(parse, verify, sink)
