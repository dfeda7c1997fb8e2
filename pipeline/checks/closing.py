"""TOT003: in a column of balances, a period's total line prints the balance at the end of the period.

A 10-K's table of issuer purchases of equity securities (and a 10-Q's) lists each month of the quarter,
then "Total <quarter>", with a column of what "may yet be purchased under the plans": a balance, not an
amount. Its total line does not add the months up; it repeats the balance after the last month above it
(and the year's total repeats the last quarter's). The filing states that identity once per period, so a
keying error in the balance at a period's end, or in the total line, breaks it there.

1. A column whose head names a balance left ("may yet be purchased", "remaining", "yet to be").
2. Lines whose label begins "Total"; each is compared with the last line above it since the previous total
   that prints a figure in the column, or with that previous total when no line does. Every other line
   names a period (a month, a quarter, a date): lines of plans or classes add up instead.
3. The identity is proven only when it holds, with a figure other than nil, on another total line of the
   same column, and it fails on no more lines than it holds on.

Each failing pair is a flag; every pair is a relation for :mod:`.localize`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.checks.localize import Equation, RelationLog, cell_term
from pipeline.checks.rule import Rule
from pipeline.figures.grid import column_headers, table_rows
from pipeline.figures.rounding import Comparison, compare_values
from schemas.models import Cell, Evidence, Flag, Table

__all__ = ["RULE", "check_closing_balances"]

RULE = Rule(
    "TOT003",
    "sum_mismatch",
    "error",
    "In a column of balances, a period's total line prints the balance at the end of the period.",
    "a column headed as a balance left; the identity holds on another total line of the same column",
)

_BALANCE_HEAD = re.compile(
    r"\bmay yet\b|\byet to be\b|\bremaining\b|\bavailable for (?:future )?(?:re)?purchases?\b", re.IGNORECASE
)
_TOTAL = re.compile(r"^\s*total\b", re.IGNORECASE)
# The lines are periods (months, quarters), not plans or classes whose balances add up across lines.
_PERIOD_LINE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*\d|\bmonth\b|\bquarter\b|"
    r"\bperiod\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class _Pair:
    total: Cell
    total_label: str
    last: Cell
    last_label: str
    comparison: Comparison


def _pair(total: Cell, total_label: str, last: Cell, last_label: str) -> _Pair:
    a, b = total.number, last.number
    assert a is not None and b is not None
    return _Pair(total, total_label, last, last_label, compare_values(a.value, a.places, b.value, b.places))


def _pairs(table: Table, col: int) -> list[_Pair]:
    """Each total line of the column with the balance it must repeat (step 2)."""
    out: list[_Pair] = []
    last: tuple[Cell, str] | None = None
    previous_total: tuple[Cell, str] | None = None
    for row in table_rows(table):
        cell = row.numbers.get(col)
        if cell is None or cell.number is None:
            continue
        label = " ".join(row.label.split())
        if _TOTAL.match(label):
            before = last or previous_total
            if before is not None:
                out.append(_pair(cell, label, *before))
            previous_total, last = (cell, label), None
        elif _PERIOD_LINE.search(label):
            last = (cell, label)
        else:
            return []  # a line of another kind: the column adds up plans or classes, not periods
    return out


def _equation(pair: _Pair, holds: bool, flag_id: str | None = None) -> Equation:
    a, b = pair.total.number, pair.last.number
    assert a is not None and b is not None
    terms = (
        cell_term(pair.total, a.value, a.places, 1.0, pair.total_label),
        cell_term(pair.last, b.value, b.places, -1.0, pair.last_label),
    )
    name = f"{RULE.id} {pair.total_label} (page {pair.total.page})"
    return Equation(RULE.id, terms, pair.comparison.tolerance, holds, RULE.requires, name, flag_id)


def _flag(table: Table, pair: _Pair, head: str, holds: int) -> Flag:
    c = pair.comparison
    message = (
        f"{pair.total_label} prints {pair.total.text.strip()} under '{' '.join(head.split())}' but the "
        f"balance after {pair.last_label} is {pair.last.text.strip()}: a total line of balances repeats the "
        "last one."
    )

    def ev(cell: Cell, label: str, role: str, value: float) -> Evidence:
        return Evidence(
            page=cell.page, bbox=cell.bbox, text=f"{label}: {cell.text.strip()}", role=role, value=value
        )

    return RULE.flag(
        table,
        message=message,
        evidence=[
            ev(pair.total, pair.total_label, "total", c.actual),
            ev(pair.last, pair.last_label, "component", c.expected),
        ],
        comparison=c,
        confidence=min(0.85, 0.6 + 0.1 * holds),
        reasons=[f"the same column's other total lines repeat their last balance ({holds})"],
    )


def check_closing_balances(tables: Sequence[Table], relations: RelationLog | None = None) -> list[Flag]:
    """TOT003 over every column of balances.

    Args:
        tables: The document's tables.
        relations: Where every pair is recorded, for the localization.

    Returns:
        One flag per total line that does not repeat its period's closing balance.
    """
    flags: list[Flag] = []
    for table in tables:
        heads = column_headers(table)
        for col, head in sorted(heads.items()):
            if not _BALANCE_HEAD.search(head):
                continue
            pairs = _pairs(table, col)
            held = [p for p in pairs if p.comparison.ok and p.comparison.actual != 0.0]
            failed = [p for p in pairs if not p.comparison.ok]
            if not held or len(failed) > len(held):
                continue
            for pair in held:
                if relations is not None:
                    relations.add(_equation(pair, True))
            for pair in failed:
                flag = _flag(table, pair, head, len(held))
                flags.append(flag)
                if relations is not None:
                    relations.add(_equation(pair, False, flag.flag_id))
    return flags
