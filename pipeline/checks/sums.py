"""TOT001: totals and subtotals equal their components within a table.

The arithmetic structure of a table is not printed, so it is inferred. A row may be a total when its
label says so ("Total …", "Subtotal", "Net increase in cash"), when it is a known total metric ("Gross
profit", "Operating income"), or - weakly - when it is unlabelled or outdented after indented items.
Its candidate components are runs of rows directly above it that start at a natural boundary (the table
start, just after a section heading, or at an earlier total, whose own components are folded into it),
under two sign conventions (as printed, or first row less the others, for costs printed positive).

A structure is trusted only when it holds in another *period* column of the same table, with a non-zero
total, at least two non-zero components, and figures large enough that agreement is no coincidence;
weak candidates need two such columns, and a structure must hold in at least as many columns as it
fails in. A column is flagged only when the trusted structure fails there
and no other candidate explains it, and a total that fails only because a flagged subtotal feeds it is
not flagged again. Tables without period columns (share repurchases, roll-forwards by category) are not
checked. Ambiguity means silence: precision matters more than recall.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.checks.tolerance import (
    Comparison,
    compare_sum,
    fmt_amount,
    fmt_small,
    make_flag,
    period_text,
    printed_decimals,
)
from pipeline.facts import RowView, table_rows
from pipeline.taxonomy import Taxonomy, normalise_label
from schemas.models import Cell, Evidence, Flag, Period, Table

RULE = "TOT001"
IDENTITY_RULE = "TOT001"

_TOTAL_LABEL = re.compile(
    r"^(?:total|subtotal|sub total|net (?:increase|decrease|change)|net cash)\b|\btotal$"
)
_OUTDENT_POINTS = 2.0
"""A label this many points left of the previous row's label is outdented (a total under items)."""
_MAX_COMPONENTS = 40
"""Longest run of rows tried as components."""
_MIN_SIGNAL = 50.0
"""A supporting column's total must be at least this many tolerances away from zero: with figures of
two or three digits, a sum holding by coincidence is too likely to prove a structure."""


@dataclass(frozen=True, slots=True)
class _Value:
    value: float
    decimals: int
    cell: Cell


@dataclass(frozen=True, slots=True)
class Structure:
    """A candidate arithmetic structure: ``total = Σ sign·component``.

    Attributes:
        total: Row index of the total.
        components: ``(row index, sign)`` pairs, top to bottom.
        convention: ``"sum"`` (as printed) or ``"first_less_rest"``.
    """

    total: int
    components: tuple[tuple[int, int], ...]
    convention: str


@dataclass(frozen=True, slots=True)
class ColumnResult:
    """How a structure fares in one column."""

    col: int
    comparison: Comparison
    nonzero_components: int


def _grid(rows: Sequence[RowView]) -> dict[int, dict[int, _Value]]:
    """Row index → column → figure, leaving out percentages (ratios do not add up)."""
    grid: dict[int, dict[int, _Value]] = {}
    for row in rows:
        values: dict[int, _Value] = {}
        for col, cell in row.numbers.items():
            n = cell.number
            if n is None or n.unit == "percent":
                continue
            if n.base_value is None or n.decimals is None:
                # Scale unknown: compared as printed (one table's figures share whatever scale it is).
                values[col] = _Value(0.0 if n.is_dash else n.value, n.places, cell)
            else:
                values[col] = _Value(0.0 if n.is_dash else n.base_value, n.decimals, cell)
        if values:
            grid[row.index] = values
    return grid


def total_strength(row: RowView, previous: RowView | None, taxonomy: Taxonomy) -> int:
    """How strongly a row looks like a total of the rows above it.

    Args:
        row: The row.
        previous: The data row just above it, if any.
        taxonomy: To recognise total metrics ("Gross profit", "Operating income").

    Returns:
        2 for "Total …"/"Subtotal"/"Net increase in cash …" and total metrics; 1 (weak) for unlabelled
        rows and rows outdented relative to the row above; 0 otherwise.
    """
    label = normalise_label(row.label)
    if label and _TOTAL_LABEL.search(label):
        return 2
    metric = taxonomy.match(row.label) if label else None
    if metric is not None and metric.is_total:
        return 2
    if not label or label.startswith("net "):
        # "Net unrealized gains" is often a subtotal, but "Net sales" or "Net interest" are not.
        return 1
    outdented = (
        previous is not None
        and row.indent is not None
        and previous.indent is not None
        and row.indent < previous.indent - _OUTDENT_POINTS
    )
    return 1 if outdented else 0


def candidate_structures(total: int, visible: Sequence[int], starts: Sequence[int]) -> list[Structure]:
    """Runs of visible rows from each natural start to just above the total, under both conventions.

    Args:
        total: Row index of the candidate total.
        visible: Row indices above it still visible (not folded into a subtotal), top to bottom.
        starts: Positions in ``visible`` where a run may start (boundaries).

    Returns:
        Structures from the shortest run to the longest.
    """
    out: list[Structure] = []
    n = len(visible)
    for i in sorted(set(starts), reverse=True):
        run = visible[i:]
        if not 2 <= len(run) <= _MAX_COMPONENTS or i >= n:
            continue
        out.append(Structure(total, tuple((r, 1) for r in run), "sum"))
        out.append(Structure(total, ((run[0], 1), *((r, -1) for r in run[1:])), "first_less_rest"))
    return out


def evaluate(structure: Structure, grid: Mapping[int, Mapping[int, _Value]], col: int) -> ColumnResult | None:
    """Test a structure in one column; None when a row of it has no figure there."""
    total = grid.get(structure.total, {}).get(col)
    if total is None:
        return None
    parts: list[tuple[float, int]] = []
    for r, sign in structure.components:
        v = grid.get(r, {}).get(col)
        if v is None:
            return None
        parts.append((sign * v.value, v.decimals))
    comparison = compare_sum(total.value, total.decimals, parts)
    return ColumnResult(col, comparison, sum(1 for v, _ in parts if v != 0.0))


@dataclass(frozen=True, slots=True)
class _Finding:
    structure: Structure
    result: ColumnResult


def _supports(result: ColumnResult) -> bool:
    """A column proves a structure: it holds, with a real total and real components."""
    c = result.comparison
    return (
        c.ok
        and result.nonzero_components >= 2
        and c.actual != 0.0
        and abs(c.actual) >= _MIN_SIGNAL * max(c.tolerance, 1e-12)
    )


def _resolve_total(
    total: int,
    candidates: Sequence[Structure],
    grid: Mapping[int, Mapping[int, _Value]],
    columns: Sequence[int],
    min_support: int,
) -> tuple[Structure | None, list[_Finding]]:
    """Pick the structure of one total and the columns where it fails.

    Returns:
        The accepted structure (None when no candidate is supported) and the failing columns.
    """
    explained: set[int] = set()  # columns some candidate holds in
    scored: list[tuple[int, int, Structure, list[ColumnResult]]] = []
    for order, structure in enumerate(candidates):
        results = [r for c in columns if (r := evaluate(structure, grid, c)) is not None]
        holds = [r for r in results if r.comparison.ok]
        explained.update(r.col for r in holds)
        fails = [r for r in results if not r.comparison.ok]
        if not fails and len(holds) >= 2 and any(r.nonzero_components >= 2 for r in holds):
            # Holds in every column it can be evaluated in: the total is explained. Small figures are
            # fine here, because agreement in several columns at once is no coincidence.
            return structure, []
        support = sum(1 for r in holds if _supports(r))
        if support == 0:
            continue
        if not fails:
            return structure, []
        scored.append((support, order, structure, fails))
    if not scored:
        return None, []
    best_support = max(s for s, _, _, _ in scored)
    best = [item for item in scored if item[0] == best_support]
    chosen = min(best, key=lambda item: item[1])
    if best_support < max(min_support, len(chosen[3])):
        # A structure failing in as many columns as it holds in is more likely wrong than the figures.
        return chosen[2], []
    findings: list[_Finding] = []
    for fail in chosen[3]:
        if fail.col in explained:
            continue
        # Equally supported structures must agree on what the column should be, or it is ambiguous.
        expectations = {
            round(f.comparison.expected, 6) for _, _, _, fs in best for f in fs if f.col == fail.col
        }
        if len(expectations) == 1:
            findings.append(_Finding(chosen[2], fail))
    return chosen[2], findings


def _explained_by_components(finding: _Finding, misprints: Mapping[tuple[int, int], float]) -> bool:
    """True when a total only fails because a subtotal among its components was already flagged.

    If "Total current assets" is misprinted, "Total assets" built from it fails by the same amount;
    one misprint should give one flag, on the subtotal.
    """
    col = finding.result.col
    shift = sum(
        sign * misprints[(r, col)] for r, sign in finding.structure.components if (r, col) in misprints
    )
    if shift == 0.0:
        return False
    c = finding.result.comparison
    return abs(c.actual - (c.expected - shift)) <= c.tolerance + 1e-9 * max(abs(c.actual), 1.0)


def _numeric_columns(grid: Mapping[int, Mapping[int, _Value]]) -> list[int]:
    """Period columns with figures in at least two rows.

    Only period columns are compared: columns of different kinds (shares and average price, a "Notes"
    column, categories of a roll-forward) do not share one arithmetic structure.
    """
    counts: dict[int, int] = {}
    for values in grid.values():
        for col, v in values.items():
            if v.cell.number is not None and v.cell.number.period is not None:
                counts[col] = counts.get(col, 0) + 1
    return sorted(c for c, n in counts.items() if n >= 2)


def _label(row: RowView | None) -> str:
    return " ".join(row.label.split()).rstrip(":") if row and row.label.strip() else "Unlabelled total"


def _printed(v: _Value) -> tuple[int, int, Period | None]:
    """Scale, printed decimal places and period of a figure, for messages."""
    number = v.cell.number
    scale = number.scale or 0 if number else 0
    return scale, printed_decimals(v.decimals, scale), number.period if number else None


def _mismatch(label: str, period: Period | None, c: Comparison, scale: int, places: int, claim: str) -> str:
    """The mismatch sentence, "<label> <period> printed X but <claim> Y (…)", in the table's own units."""
    return (
        f"{label} {period_text(period)} printed {fmt_amount(c.actual, scale, places)} but {claim} "
        f"{fmt_amount(c.expected, scale, places)} (difference {fmt_small(abs(c.difference), scale, places)}, "
        f"tolerance {fmt_small(c.tolerance, scale, places)})"
    )


def _evidence(v: _Value, name: str, role: str) -> Evidence:
    """Where a figure of the arithmetic is printed."""
    return Evidence(
        page=v.cell.page, bbox=v.cell.bbox, text=f"{name}: {v.cell.text}", role=role, value=v.value
    )


def _sum_flag(
    table: Table,
    finding: _Finding,
    grid: Mapping[int, Mapping[int, _Value]],
    by_index: Mapping[int, RowView],
    taxonomy: Taxonomy,
) -> Flag:
    s, res = finding.structure, finding.result
    total = grid[s.total][res.col]
    scale, places, period = _printed(total)
    total_row = by_index.get(s.total)
    label = _label(total_row)
    comp_labels = [_label(by_index.get(r)) for r, _ in s.components]
    how = "components sum" if s.convention == "sum" else f"{comp_labels[0]} less the items below it comes"
    c = res.comparison
    message = (
        _mismatch(label, period, c, scale, places, f"{how} to") + f"; components: {', '.join(comp_labels)}."
    )
    evidence = [_evidence(total, label, "total")]
    evidence += [
        _evidence(grid[r][res.col], name, "component" if sign > 0 else "subtracted component")
        for (r, sign), name in zip(s.components, comp_labels, strict=True)
    ]
    metric = taxonomy.match(total_row.label) if total_row else None
    return make_flag(
        rule=RULE,
        kind="sum_mismatch",
        severity="error",
        doc_id=table.doc_id,
        source=table.source,
        message=message,
        evidence=evidence,
        metric=metric.id if metric else None,
        period=period,
        comparison=c,
    )


def _fold(visible: list[int], starts: list[int], structure: Structure) -> tuple[list[int], list[int]]:
    """Remove a recognised total's components from the visible rows, keeping the run starts aligned."""
    folded = {r for r, _ in structure.components}
    kept = [r for r in visible if r not in folded]
    # A start pointing at a folded row moves to the next kept row; positions are recomputed.
    new_starts = {0}
    for pos in starts:
        following = [r for r in visible[pos:] if r not in folded]
        new_starts.add(kept.index(following[0]) if following else len(kept))
    return kept, sorted(new_starts)


def check_table_sums(table: Table, taxonomy: Taxonomy) -> tuple[list[Flag], set[tuple[int, int]]]:
    """Infer the totals of one table and flag the columns where a trusted structure fails.

    Args:
        table: A logical table.
        taxonomy: To recognise total metrics.

    Returns:
        The flags, and the ``(total row, column)`` pairs that were flagged (so identity checks on the
        same cells do not flag twice).
    """
    rows = table_rows(table)
    grid = _grid(rows)
    columns = _numeric_columns(grid)
    if len(columns) < 2:
        return [], set()  # a structure must hold in another column before a failure is believed
    by_index = {r.index: r for r in rows}
    visible: list[int] = []
    starts: list[int] = [0]  # positions in ``visible`` where a run of components may begin
    previous: RowView | None = None
    flags: list[Flag] = []
    flagged: set[tuple[int, int]] = set()
    misprints: dict[tuple[int, int], float] = {}  # flagged (row, col) → printed minus expected
    for row in rows:
        if row.is_heading:
            starts.append(len(visible))
            continue
        if row.index not in grid:
            continue
        strength = total_strength(row, previous, taxonomy)
        if strength and len(visible) >= 2:
            candidates = candidate_structures(row.index, visible, starts)
            structure, findings = _resolve_total(
                row.index, candidates, grid, columns, 1 if strength == 2 else 2
            )
            if structure is not None:
                visible, starts = _fold(visible, starts, structure)
                strength = max(strength, 2)  # a recognised total starts the next run
            for finding in findings:
                if _explained_by_components(finding, misprints):
                    continue
                flags.append(_sum_flag(table, finding, grid, by_index, taxonomy))
                flagged.add((row.index, finding.result.col))
                misprints[(row.index, finding.result.col)] = finding.result.comparison.difference
        if strength:
            starts.append(len(visible))  # a total starts the next run (it may itself be a component)
        visible.append(row.index)
        previous = row
    return flags, flagged


# --- identities between known metrics --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Identity:
    """``result = Σ sign·operand`` between metric rows of one table, with magnitude handling.

    Attributes:
        id: Short name for messages.
        result: Metric id of the result row.
        operands: ``(metric id, sign, use magnitude)`` triples.
    """

    id: str
    result: str
    operands: tuple[tuple[str, int, bool], ...]


# Alternatives are tried together: a column fails only when none of them holds there.
IDENTITIES: tuple[tuple[Identity, ...], ...] = (
    (Identity("gross profit", "gross_profit", (("revenue", 1, False), ("cost_of_sales", -1, True))),),
    (
        Identity("net income", "net_income", (("profit_before_tax", 1, False), ("income_tax", -1, False))),
        Identity("net income", "net_income", (("profit_before_tax", 1, False), ("income_tax", 1, False))),
    ),
)


def _metric_rows(rows: Sequence[RowView], taxonomy: Taxonomy) -> dict[str, list[RowView]]:
    out: dict[str, list[RowView]] = {}
    for row in rows:
        if row.numbers:
            metric = taxonomy.match(row.label)
            if metric is not None:
                out.setdefault(metric.id, []).append(row)
    return out


def _identity_result(
    identity: Identity, rows: Mapping[str, RowView], grid: Mapping[int, Mapping[int, _Value]], col: int
) -> tuple[Comparison, list[tuple[RowView, _Value, int]]] | None:
    result_row = rows[identity.result]
    result = grid.get(result_row.index, {}).get(col)
    if result is None:
        return None
    parts: list[tuple[float, int]] = []
    used: list[tuple[RowView, _Value, int]] = []
    for metric, sign, magnitude in identity.operands:
        row = rows[metric]
        v = grid.get(row.index, {}).get(col)
        if v is None:
            return None
        parts.append((sign * (abs(v.value) if magnitude else v.value), v.decimals))
        used.append((row, v, sign))
    return compare_sum(result.value, result.decimals, parts), used


def check_identities(table: Table, taxonomy: Taxonomy, already: set[tuple[int, int]]) -> list[Flag]:
    """Known identities by metric (gross profit, net income) within one table.

    Each metric involved must appear exactly once in the table (no segment repeats), the identity must
    hold in another column, and a column is flagged only when no alternative sign convention holds.

    Args:
        table: A logical table.
        taxonomy: To map row labels to metrics.
        already: ``(row, col)`` cells TOT001's structure search already flagged.

    Returns:
        Flags of kind ``sum_mismatch``.
    """
    rows = table_rows(table)
    grid = _grid(rows)
    by_metric = _metric_rows(rows, taxonomy)
    columns = _numeric_columns(grid)
    flags: list[Flag] = []
    for alternatives in IDENTITIES:
        needed = {alternatives[0].result, *(m for m, _, _ in alternatives[0].operands)}
        if any(len(by_metric.get(m, [])) != 1 for m in needed):
            continue
        single = {m: by_metric[m][0] for m in needed}
        per_col: dict[int, list[tuple[Identity, Comparison, list[tuple[RowView, _Value, int]]]]] = {}
        for col in columns:
            for identity in alternatives:
                got = _identity_result(identity, single, grid, col)
                if got is not None:
                    per_col.setdefault(col, []).append((identity, got[0], got[1]))
        holding = {col for col, items in per_col.items() if any(c.ok for _, c, _ in items)}
        for col, items in sorted(per_col.items()):
            if col in holding or not (holding - {col}):
                continue
            if (single[alternatives[0].result].index, col) in already:
                continue
            identity, comparison, used = min(items, key=lambda it: abs(it[1].difference))
            flags.append(
                _identity_flag(table, identity, single[identity.result], grid, col, comparison, used)
            )
    return flags


def _identity_flag(
    table: Table,
    identity: Identity,
    result_row: RowView,
    grid: Mapping[int, Mapping[int, _Value]],
    col: int,
    c: Comparison,
    used: Sequence[tuple[RowView, _Value, int]],
) -> Flag:
    result = grid[result_row.index][col]
    scale, places, period = _printed(result)
    formula = " ".join(
        f"{'+' if sign > 0 and i else '-' if sign < 0 else ''} {_label(row)}".strip()
        for i, (row, _, sign) in enumerate(used)
    )
    label = _label(result_row)
    message = _mismatch(label, period, c, scale, places, f"{formula} gives") + "."
    evidence = [_evidence(result, label, "total")]
    evidence += [_evidence(v, _label(row), "component") for row, v, _ in used]
    return make_flag(
        rule=IDENTITY_RULE,
        kind="sum_mismatch",
        severity="error",
        doc_id=table.doc_id,
        source=table.source,
        message=message,
        evidence=evidence,
        metric=identity.result,
        period=period,
        comparison=c,
    )


def check_sums(tables: Sequence[Table], taxonomy: Taxonomy) -> list[Flag]:
    """TOT001 over every table: inferred totals, then the known metric identities.

    Args:
        tables: Logical tables of one document.
        taxonomy: The metric taxonomy.

    Returns:
        Flags of kind ``sum_mismatch``.
    """
    flags: list[Flag] = []
    for table in tables:
        found, flagged = check_table_sums(table, taxonomy)
        flags.extend(found)
        flags.extend(check_identities(table, taxonomy, flagged))
    return flags
