"""The per-replica costs ``tieout plan`` plans with, read from the benchmarks' committed result files.

Nothing here is typed by hand: each cost is a figure a benchmark measured (or, for the deep model tier,
projected and labelled so), carried with its file, date, commit and machine.

* parse: seconds per document of one ``tieout consume parse`` worker in steady state (``scaling.json``,
  ``bench/scaling.py``, small generated documents) plus the engine's seconds per page on the real filings
  (``parse_throughput_whole.json``, ``bench/parse_throughput.py --whole``);
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

from adapters.deploy.planning import Cost, Costs, PlanError, Source

__all__ = ["LLM_VERIFY", "LOAD", "RESULTS", "SCALING", "WHOLE", "load_costs"]

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
"""Where the benchmarks write their committed results (``bench/results/``)."""

SCALING = "scaling.json"
WHOLE = "parse_throughput_whole.json"
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
    if not meta:  # a file written before the benches recorded where they ran
        return Source(_shown(results / name), "", "", "", note)
    machine = meta.get("machine") or {}
    where = (
        f"{machine.get('cpu_count', '?')}-core {machine.get('cpu', 'machine')} ({machine.get('host', '?')}), "
        f"load average {meta.get('load_average_start', '?')}"
        if machine
        else "machine not recorded"
    )
    return Source(
        _shown(results / name), str(meta.get("date", "(no date)")), str(meta.get("commit", "?")), where, note
    )


def _shown(path: Path) -> str:
    """The path as a user reads it: relative to the working directory when it is under it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


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
    parse = _parse_cost(results)

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
        label = str(projection.get("label", ""))
        note = label if "PROJECTION" in label else f"PROJECTION, not a measurement {label}".strip()
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


def _parse_cost(results: Path) -> Cost:
    """Parse: a part per document (the service path) plus the engine's time per page on real filings.

    ``scaling.json`` times whole documents through the real service, but on small generated documents
    (7.7 pages), whose pages are cheap; ``parse_throughput_whole.json`` times the engine alone on the
    26 real filings (3,668 pages), a fresh process each. The plan takes the service's seconds per
    document as the fixed part (it includes the engine on those small pages: generous) and the engine's
    seconds per page on the filings as the part per page (process start included: generous too). Without
    the second file, the service's figure is spread over its pages.
    """
    scaling = _read(results, SCALING, "python -m bench.scaling")
    calib = scaling.get("calibration") or {}
    wall = _positive(calib.get("wall_s_per_page"), SCALING, "calibration.wall_s_per_page")
    mean_pages = _positive(calib.get("mean_pages_per_doc"), SCALING, "calibration.mean_pages_per_doc")
    service = _source(results, SCALING, scaling)
    if not (results / WHOLE).exists():
        return Cost(
            wall,
            "page",
            f"one `tieout consume parse` worker in steady state on documents of {mean_pages:g} pages, its "
            f"per-document overhead spread over their pages ({WHOLE} absent)",
            service,
        )
    whole = _read(
        results, WHOLE, "python -m bench.parse_throughput --whole --json " + f"bench/results/{WHOLE}"
    )
    docs = ((whole.get("docs") or {}).get("tieout") or {}).values()
    pages = sum(float(d.get("pages", 0)) for d in docs)
    seconds = sum(float(d.get("seconds", 0)) for d in docs)
    engine = _positive(seconds / pages if pages else 0, WHOLE, "docs.tieout seconds per page")
    return Cost(
        engine,
        "page",
        f"the engine alone on {len(docs)} real filings ({pages:,.0f} pages), a fresh process per document",
        _source(results, WHOLE, whole),
        per_doc_seconds=wall * mean_pages,
        per_doc_what=f"one `tieout consume parse` worker in steady state per document of {mean_pages:g} "
        "pages: download, engine, store, transaction",
        per_doc_source=service,
    )
