"""The engine's stages and the checks' rules are each listed once, and what documents them says the same.

The engine's module docstring names its chain of stages, :data:`pipeline.engine.STAGES` runs it, and
each stage takes the typed hand-off of the one before. The checks' docstring lists their rules as
:data:`pipeline.checks.CHECKS` runs them.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import re
import typing
from pathlib import Path

import pytest

import pipeline.checks
from pipeline import engine
from pipeline.checks import ACROSS_RULES, CHECKS, RULES
from pipeline.checks.stage import verify
from pipeline.engine import STAGES, PageTable, parse_path, process_path
from pipeline.parse.scales import ScaleResolution, resolve_group_scales
from pipeline.parse.table_types import RawCell, RawTable
from schemas.models import DocumentResult

SAMPLE = Path(__file__).resolve().parent.parent / "sample_docs" / "northwind_2025_annual_report.pdf"


def test_the_engine_docstring_names_exactly_the_stages_in_order() -> None:
    chain = re.search(r"\(([a-z_]+(?: → [a-z_]+)+)\)", engine.__doc__ or "")
    assert chain is not None, "the module docstring names no chain of stages"
    assert chain.group(1).split(" → ") == [stage.name for stage in STAGES]


def test_each_stage_takes_what_the_one_before_hands_on() -> None:
    parse = [s for s in STAGES if s.phase == "parse"]
    checks = [s for s in STAGES if s.phase == "checks"]
    assert (*parse, *checks) == STAGES  # the checks read the parse's result: they come last
    assert [s.name for s in checks] == ["checks"]
    hints = [typing.get_type_hints(s.run) for s in STAGES]
    inputs = [next(v for k, v in h.items() if k != "return") for h in hints]
    for k in range(1, len(parse)):
        assert inputs[k] is hints[k - 1]["return"], STAGES[k].name
    assert inputs[0] is engine.Opened
    assert hints[len(parse) - 1]["return"] is engine.Statements
    assert (
        inputs[len(parse)] is DocumentResult
    )  # assembled from the Statements, as the verify service loads it


@pytest.mark.parametrize(
    "kind",
    [
        *(engine.Run, engine.PageTable, engine.PageResult, engine.Stage, engine.Opened),
        *(engine.Pages, engine.Identified, engine.Tables, engine.Chunks, engine.Facts, engine.Statements),
    ],
)
def test_hand_offs_are_frozen(kind: type) -> None:
    params = kind.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen and "__slots__" in vars(kind)


def test_stage_timings_are_named_after_the_stages() -> None:
    parse_names = [s.name for s in STAGES if s.phase == "parse"]
    parsed = parse_path(SAMPLE)
    assert list(parsed.stats.stage_seconds) == parse_names
    checked = process_path(SAMPLE)
    assert list(checked.stats.stage_seconds) == [s.name for s in STAGES] + ["localize"]


def test_the_engine_checks_as_the_verify_service_does() -> None:
    def untimed(r: DocumentResult) -> dict[str, object]:
        out = r.model_dump(mode="json")
        del out["stats"]["stage_seconds"], out["stats"]["seconds"]
        return out

    assert untimed(process_path(SAMPLE)) == untimed(verify(parse_path(SAMPLE)))


def _raw(page: int, title: str) -> RawTable:
    cells = [
        [
            RawCell(0, 0, "Revenue", (10.0, 10.0, 90.0, 20.0)),
            RawCell(0, 1, "1,200", (90.0, 10.0, 200.0, 20.0)),
        ]
    ]
    return RawTable(
        page, (10.0, 10.0, 200.0, 40.0), 2, cells, 0, [(10.0, 90.0), (90.0, 200.0)], [], title, "x"
    )


def test_a_table_is_matched_to_its_page_context_by_identity_not_value() -> None:
    a, b = _raw(3, "Segments"), _raw(3, "Segments")
    assert a == b and a is not b  # printed alike
    millions = ScaleResolution(1_000_000, None, "caption", "in millions")
    on_page = (PageTable(a, None, "first"), PageTable(b, millions, "second"))
    assert engine._starting(b, on_page).heading == "second"
    assert engine._starting(a, on_page).heading == "first"


def test_group_scales_take_what_each_groups_page_states() -> None:
    thousands = ScaleResolution(1_000, None, "caption", "in thousands")
    first, second = _raw(1, "Revenue"), _raw(2, "Revenue")
    got = resolve_group_scales([[first], [second]], [thousands, None], {})
    # The second page's first table carries on the statement before it, scale and all.
    assert got == [thousands, ScaleResolution(1_000, None, "document", "in thousands")]
    with pytest.raises(ValueError):
        resolve_group_scales([[first]], [], {})


def _bullets() -> list[tuple[list[str], str]]:
    doc = pipeline.checks.__doc__ or ""
    found = re.findall(r"^\* ((?:``[A-Z]+\d+``/?)+) \(:mod:`\.(\w+)`\)", doc, re.MULTILINE)
    return [(re.findall(r"``([A-Z]+\d+)``", ids), module) for ids, module in found]


def _across_bullets() -> list[tuple[list[str], str]]:
    doc = pipeline.checks.__doc__ or ""
    found = re.findall(r"^- ((?:``[A-Z]+\d+``/?)+) \(:mod:`\.(\w+)`\)", doc, re.MULTILINE)
    return [(re.findall(r"``([A-Z]+\d+)``", ids), module) for ids, module in found]


def test_the_checks_docstring_lists_exactly_the_rules_as_they_run() -> None:
    bullets, across = _bullets(), _across_bullets()
    assert [ids for ids, _ in bullets] == [[r.id for r in check.rules] for check in CHECKS]
    assert [i for ids, _ in across for i in ids] == [r.id for r in ACROSS_RULES]
    assert [i for ids, _ in (*bullets, *across) for i in ids] == list(RULES)
    for ids, module in (*bullets, *across):
        declared = vars(importlib.import_module(f"pipeline.checks.{module}")).values()
        for rule_id in ids:
            assert any(v is RULES[rule_id] for v in declared), (rule_id, module)


def test_the_hand_offs_carry_what_the_stage_before_had() -> None:
    # Each hand-off is the one before plus its stage's fields: nothing is dropped along the chain.
    chain = [engine.Pages, engine.Tables, engine.Chunks, engine.Facts, engine.Statements]
    for before, after in itertools.pairwise(chain):
        names = [f.name for f in dataclasses.fields(before)]
        assert [f.name for f in dataclasses.fields(after)][: len(names)] == names, after.__name__
