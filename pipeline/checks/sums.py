"""TOT001 and TOT002: the calculation trees hold in every column.

The structure of each table was rebuilt once, by :mod:`pipeline.statements`: which lines add up to which
total, with which signs, proven in other columns. Here every proven node is evaluated in every value
column; a column where its children do not add up to it (rounding-aware, as XBRL Calculations 1.1) is
flagged, once: a total that fails only because a flagged subtotal among its children feeds it is not
flagged again. TOT002 does the same across a row, for a "Total" column that adds up the others.

Known identities between metrics (gross profit = revenue − cost of sales, net income = profit before tax −
tax) are checked where the tree did not already cover the cells.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from pipeline.checks.localize import Equation, RelationLog, cell_term
from pipeline.checks.rule import Rule
from pipeline.checks.tolerance import (
    Comparison,
    compare_sum,
    fmt_amount,
    fmt_small,
    keying_relation,
    period_text,
    printed_decimals,
)
from pipeline.figures.grid import RowView
from pipeline.figures.taxonomy import Taxonomy
from pipeline.statements.build import with_tables
from pipeline.statements.column_sums import across_rows
from pipeline.statements.columns import statement_rows
from pipeline.statements.identities import IDENTITIES, Identity, Operand
from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import (
    ColumnResult,
    Figure,
    Grid,
    Structure,
    blanks_are_nil,
    evaluate,
    exact,
    grid_of,
    lone_dashes,
    prints_no_dash,
    supports,
)
from schemas.models import Evidence, Flag, LineItem, Period, Statement, Table

__all__ = [
    "ACROSS_RULE",
    "IDENTITY_RULE",
    "RULE",
    "check_identities",
    "check_sums",
    "check_tree",
    "proven_structures",
]

RULE = Rule(
    "TOT001",
    "sum_mismatch",
    "error",
    "Every proven node of a statement's calculation tree adds up in every column.",
    (
        "the node's lines add up in other columns of the statement (or its labels make it a total or "
        "roll-forward)"
    ),
)
IDENTITY_RULE = RULE  # the metric identities are nodes of the same trees
ACROSS_RULE = Rule(
    "TOT002",
    "sum_mismatch",
    "error",
    "A total column equals the sum of the component columns in every row.",
    (
        "a column headed Total or Consolidated adds up the other columns in at least three rows and all "
        "but this one"
    ),
)

_Value = Figure


@dataclass(frozen=True, slots=True)
class _Finding:
    structure: Structure
    result: ColumnResult
    support: list[ColumnResult]


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


def _label(line: LineItem | RowView | None) -> str:
    if line is not None and line.label.strip():
        return " ".join(line.label.split()).rstrip(":")
    if isinstance(line, LineItem) and not line.children:
        return f"unlabelled line (row {line.row})"
    return "Unlabelled total"


def _printed(v: _Value) -> tuple[int, int, Period | None]:
    """Scale, printed decimal places and period of a figure, for messages."""
    number = v.cell.number
    scale = (number.scale or 0) if number else 0
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


def _header(statement: Statement, col: int) -> str:
    column = next((c for c in statement.columns if c.col == col), None)
    if column is None:
        return f"column {col}"
    if column.period is not None:
        return column.period.label or column.period.key
    return column.header or f"column {col}"


def _confidence(support: int) -> float:
    """More columns proving the structure, more certainty that the failing one is misprinted."""
    return min(0.95, 0.7 + 0.1 * support)


def _sum_flag(
    table: Table,
    statement: Statement,
    finding: _Finding,
    grid: Grid,
    lines: Mapping[int, LineItem],
    proof: str,
) -> Flag:
    s, res = finding.structure, finding.result
    total = grid[s.total][res.col]
    scale, places, period = _printed(total)
    total_line = lines.get(s.total)
    label = _label(total_line)
    names = [_label(lines.get(r)) for r, _ in s.components]
    if all(sign > 0 for _, sign in s.components):
        how = "components sum to"
    else:
        how = " ".join(
            f"{'less ' if sign < 0 else 'plus ' if i else ''}{name}"
            for i, ((_, sign), name) in enumerate(zip(s.components, names, strict=True))
        )
        how = f"{how} gives"
    c = res.comparison
    message = _mismatch(label, period, c, scale, places, how) + f"; components: {', '.join(names)}."
    evidence = [_evidence(total, label, "total")]
    evidence += [
        _evidence(grid[r][res.col], name, "component" if sign > 0 else "subtracted component")
        for (r, sign), name in zip(s.components, names, strict=True)
        if r in grid and res.col in grid[r]
    ]
    held = ", ".join(_header(statement, r.col) for r in finding.support)
    reasons = [
        f"the same {len(s.components)} lines add up to {label} in {len(finding.support)} other "
        f"column(s): {held}",
        f"{statement.kind.replace('_', ' ')} table on page {statement.pages[0]}",
    ]
    if s.rollforward:
        reasons.append("a roll-forward: the closing balance is the opening balance plus the movements")
    if s.convention == "breakdown":
        reasons.append(f"the lines printed under {label} split it ('attributable to', 'of which')")
    return RULE.flag(
        table,
        message=message,
        evidence=evidence,
        metric=total_line.metric if total_line else None,
        period=period,
        comparison=c,
        confidence=_confidence(len(finding.support)),
        reasons=reasons,
        proof=proof,
    )


def _structure(line: LineItem, lines: Mapping[int, LineItem]) -> Structure:
    return Structure(
        total=line.row,
        components=tuple((r, lines[r].sign if r in lines else 1) for r in line.children),
        convention="tree",
        rollforward=line.rollforward,
    )


def _proof(line: LineItem, structure: Structure, label: str, support: int) -> str:
    """What proved a node: the columns it holds in, the twin printing that lends it, or its breakdown."""
    if structure.convention == "breakdown":
        return f"the lines printed under {label} split it"
    proof = f"its lines add up to {label} in {support} other column(s)"
    if line.twin_page is not None:
        proof += f" and in the same lines printed on page {line.twin_page}"
    return proof


def proven_structures(
    statement: Statement, lines: Mapping[int, LineItem]
) -> Iterator[tuple[LineItem, Structure]]:
    """Every proven node, top to bottom: a total with its children, then with its parts below it."""
    for line in sorted(statement.lines, key=lambda x: x.row):
        if line.children and line.proven:
            yield line, _structure(line, lines)
        if line.parts:
            yield line, Structure(line.row, tuple((r, 1) for r in line.parts), "breakdown")


def _with_blank_columns(
    structure: Structure,
    grid: Grid,
    results: Sequence[ColumnResult],
    reading: Mapping[int, ColumnResult],
    breaks: Mapping[int, int],
    columns: Sequence[int],
) -> list[ColumnResult]:
    """The results, with the columns a blank line kept out, in a statement that prints no dash.

    Such a statement may mean nil by a blank even where no sum of its shows it: a column with a blank line
    is then checked too (``reading``: the structure in each column, blank lines taken as nil), but a break
    in it counts only when one printed figure, re-keyed, explains it (a figure the reader lost would break
    it by an arbitrary amount) and it is the column's only break (``breaks``: a value-at-risk table's
    minimum and maximum columns, whose lines do not add up, break in every total).
    """
    done = {r.col for r in results}
    blank = [
        r
        for c, r in reading.items()
        if c not in done and (r.comparison.ok or (breaks.get(c, 0) <= 1 and _keyed_away(structure, grid, r)))
    ]
    return sorted([*results, *blank], key=lambda r: columns.index(r.col))


def _with_shown_blanks(
    structure: Structure, grid: Grid, results: Sequence[ColumnResult], columns: Sequence[int]
) -> list[ColumnResult]:
    """The results, with the columns where the node's own sums show its blank lines to be nil.

    A statement that prints dashes for nil may still leave a line blank in the columns it does not belong
    to: a fair-value hierarchy prints investments measured at net asset value in its total columns only
    (they sit in no level), a segment table prints a segment's own line under that segment only. Such a
    column was never checked. It is checked with its blank lines left out when another column with the
    same lines blank adds up without them, to the unit and at a size that proves it; a break in it then
    counts only when one printed figure, re-keyed, explains it (a figure the reader lost breaks it by an
    arbitrary amount).
    """
    done = {r.col for r in results}
    readings: dict[int, tuple[frozenset[int], ColumnResult]] = {}
    for c in columns:
        if c in done or (reading := evaluate(structure, grid, c, nil_blanks=True)) is None:
            continue
        blanks = frozenset(r for r, _ in structure.components if grid.get(r, {}).get(c) is None)
        readings[c] = (blanks, reading)
    shown = [
        (c, blanks)
        for c, (blanks, reading) in readings.items()
        if supports(reading, TREE_SETTINGS.min_signal_each) and exact(reading)
    ]
    added = [
        reading
        for c, (blanks, reading) in readings.items()
        if any(other != c and same == blanks for other, same in shown)
        and (reading.comparison.ok or _keyed_away(structure, grid, reading))
    ]
    return sorted([*results, *added], key=lambda r: columns.index(r.col))


def _keyed_away(structure: Structure, grid: Grid, result: ColumnResult) -> bool:
    """Whether one printed figure, re-keyed, would make a failing column hold.

    Re-keyed as :func:`.tolerance.keying_relation` sees it: a digit, two swapped, one dropped or doubled,
    the sign, a power of a thousand — where the figure as printed or as corrected has three digits or
    more: between figures of one or two digits one digit in two differs by chance (a bank's value-at-risk
    table leaves its diversification benefit blank in the minimum and maximum columns, whose lines do not
    add up, and 40 against 80 "looks like" a digit keyed wrong), while a total of 436 printed as 46 has
    lost a digit.
    """
    diff = result.comparison.difference  # printed total minus the sum of its lines
    fixes = [(structure.total, -diff)] + [(r, sign * diff) for r, sign in structure.components]
    for r, change in fixes:
        v = grid.get(r, {}).get(result.col)
        if v is None or (n := v.cell.number) is None or v.value == 0.0:
            continue
        corrected = n.value * (v.value + change) / v.value  # as it would be printed
        if max(abs(n.value), abs(corrected)) < 100.0:
            continue
        if keying_relation(v.value, v.decimals, v.value + change, v.decimals) not in (None, "near_miss"):
            return True
    return False


def blank_readings(
    structures: Sequence[Structure], grid: Grid, columns: Sequence[int]
) -> list[dict[int, ColumnResult]]:
    """Each structure in each column where it can be evaluated, blank lines taken as nil."""
    return [
        {c: r for c in columns if (r := evaluate(structure, grid, c, nil_blanks=True)) is not None}
        for structure in structures
    ]


def blanks_shown_nil(
    structures: Sequence[Structure], readings: Sequence[Mapping[int, ColumnResult]], grid: Grid
) -> bool:
    """Whether a statement that prints no dash shows by its own sums that a blank cell is nil.

    A cash-flow statement in millions that prints no dash leaves "Proceeds from sale of a business" blank
    in the years without one (Corning's 10-Ks); no column with a blank line was then checked, and a keying
    error in it went unflagged. A blank may also be a figure the reader lost, so it is taken as nil only
    when a proven total adds up, to the unit and at a size that proves it, in a column where one of its
    lines is blank: the statement's own arithmetic says what its blanks mean. ``readings``: each
    structure's :func:`blank_readings`.
    """
    for structure, reading in zip(structures, readings, strict=True):
        for col, result in reading.items():
            if all(grid.get(r, {}).get(col) is not None for r, _ in structure.components):
                continue
            if supports(result, TREE_SETTINGS.min_signal_each) and exact(result):
                return True
    return False


def _sum_equation(
    structure: Structure,
    grid: Grid,
    lines: Mapping[int, LineItem],
    result: ColumnResult,
    proof: str,
    name: str,
    flag_id: str | None = None,
) -> Equation:
    """The relation ``total - sum(sign * component) == 0`` of one column, as evaluated."""
    col = result.col
    total = grid[structure.total][col]
    terms = [cell_term(total.cell, total.value, total.decimals, 1.0, _label(lines.get(structure.total)))]
    for r, sign in structure.components:
        v = grid.get(r, {}).get(col)
        if v is not None:  # a blank here was nil (a roll-forward's, or a table that prints nil as blank)
            terms.append(cell_term(v.cell, v.value, v.decimals, -float(sign), _label(lines.get(r))))
    c = result.comparison
    return Equation(RULE.id, tuple(terms), c.tolerance, c.ok, proof, name, flag_id)


def check_tree(
    table: Table, statement: Statement, relations: RelationLog | None = None
) -> tuple[list[Flag], set[tuple[int, int]]]:
    """TOT001 over one statement: every proven node in every value column.

    Args:
        table: The statement's table.
        statement: Its calculation tree.
        relations: Where every evaluated node is recorded, holding or not, for the localization.

    Returns:
        The flags, and the ``(total row, column)`` pairs that were flagged (so identity checks on the
        same cells do not flag twice).
    """
    rows = statement_rows(table)
    columns = [c.col for c in statement.columns]
    grid = grid_of(rows, columns)
    lines = {line.row: line for line in statement.lines}
    flags: list[Flag] = []
    flagged: set[tuple[int, int]] = set()
    misprints: dict[tuple[int, int], float] = {}  # flagged (row, col) → printed minus expected
    across = _across_failures(statement, rows)
    nodes = list(proven_structures(statement, lines))
    structures = [structure for _, structure in nodes]
    nil = blanks_are_nil(grid)
    # A statement that prints no dash may leave nil blank: each node read once with blank lines as nil.
    readings = blank_readings(structures, grid, columns) if not nil and prints_no_dash(grid) else []
    nil = nil or (bool(readings) and blanks_shown_nil(structures, readings, grid))
    no_dash = bool(readings) and not nil
    breaks = Counter(c for reading in readings for c, r in reading.items() if not r.comparison.ok)
    lone = lone_dashes(grid)
    log = relations if relations is not None else RelationLog()
    blank_held = _held_with_blanks(structures, grid, columns)
    for k, (line, structure) in enumerate(nodes):
        results = [r for c in columns if (r := evaluate(structure, grid, c, nil_blanks=nil)) is not None]
        if no_dash:
            results = _with_blank_columns(structure, grid, results, readings[k], breaks, columns)
        elif not nil:
            results = _with_shown_blanks(structure, grid, results, columns)
        support = [r for r in results if supports(r, TREE_SETTINGS.min_signal_each)]
        label = _label(line)
        proof = _proof(line, structure, label, len(support))
        for result in results:
            page = grid[line.row][result.col].cell.page
            name = f"{RULE.id} {label}, {_header(statement, result.col)} (page {page})"
            if result.comparison.ok:
                log.add(_sum_equation(structure, grid, lines, result, proof, name))
                continue
            if (structure.total, result.col) in lone:
                continue  # a total printed as its column's only dash may be "not applicable", not nil
            # In a roll-forward a blank is nil, so a figure the reader lost breaks the sum: a failure
            # needs the lines complete in the failing column and in a column that proves them, or else
            # corroboration across the row.
            # (A roll-forward in a single column was taken on its labels with every line printed.)
            complete = _complete(structure, grid, result.col) and (
                len(columns) == 1 or any(_complete(structure, grid, r.col) for r in support)
            )
            if (
                structure.rollforward
                and not complete
                and not _corroborated(structure, statement, across, len(support))
                and blank_held[result.col] < _BLANK_SIBLINGS
            ):
                continue
            finding = _Finding(structure, result, support)
            if (line.row, result.col) in flagged or _explained_by_components(finding, misprints):
                # (a total that fails against its children and its parts is one misprint: its relation
                # still fails, and the localization repairs it with the same figure)
                log.add(_sum_equation(structure, grid, lines, result, proof, name))
                continue
            flag = _sum_flag(table, statement, finding, grid, lines, proof)
            flags.append(flag)
            log.add(_sum_equation(structure, grid, lines, result, proof, name, flag.flag_id))
            flagged.add((line.row, result.col))
            misprints[(line.row, result.col)] = result.comparison.difference
    flags.extend(_check_across(table, statement, rows, log))
    return flags, flagged


_BLANK_SIBLINGS = 2
"""Other periods of a roll-forward that must hold in a column with its movements left blank."""


def _held_with_blanks(structures: Sequence[Structure], grid: Grid, columns: Sequence[int]) -> Counter[int]:
    """Per column, the roll-forwards that hold there with a movement left blank (read as nil).

    A blank movement may be a figure the reader lost, so a roll-forward that fails in a column with a blank
    line is taken for a misread one (:func:`check_tree`) — unless the roll-forwards of two other periods
    hold in that column with their blanks: a class of shares none of whose years issues or buys any
    ("Common Stock" beside "Treasury Stock" in a count of shares) carries its balance unchanged, and a
    balance keyed wrong there is no lost figure.
    """
    held: Counter[int] = Counter()
    for structure in structures:
        if not structure.rollforward:
            continue
        for col in columns:
            result = evaluate(structure, grid, col)
            if result is not None and result.comparison.ok and not _complete(structure, grid, col):
                held[col] += 1
    return held


def _across_failures(statement: Statement, rows: Sequence[RowView]) -> set[int] | None:
    """Rows where a total column of the statement does not add up; None when it has no total column."""
    if not statement.column_sums:
        return None
    failing: set[int] = set()
    for s in statement.column_sums:
        grid = grid_of(rows, [s.total, *s.components])
        failing.update(r for r, c in across_rows(rows, grid, s.total, s.components).items() if not c.ok)
    return failing


def _complete(structure: Structure, grid: Grid, col: int) -> bool:
    """Every line of a roll-forward prints a figure in the column: no blank was read as nil."""
    return all(col in grid.get(r, {}) for r, _ in structure.components)


def _corroborated(structure: Structure, statement: Statement, across: set[int] | None, support: int) -> bool:
    """Whether a roll-forward's failure is more than a misread blank.

    In a roll-forward a blank movement is nil, so a figure lost or misplaced by the reader breaks the
    column. A misprint breaks its row too: where the statement has a total column, one of the
    roll-forward's rows must also fail across; where it has none, two other columns must hold.
    """
    if across is None:
        return support >= 2
    rows = {structure.total, *(r for r, _ in structure.components)}
    return bool(rows & across)


def _check_across(
    table: Table, statement: Statement, rows: Sequence[RowView], log: RelationLog
) -> list[Flag]:
    """TOT002: the row where a "Total" column is not the sum of its component columns."""
    flags: list[Flag] = []
    for s in statement.column_sums:
        flags.extend(_across_flags(table, statement, rows, s.total, s.components, log))
    return flags


def _across_flags(
    table: Table,
    statement: Statement,
    rows: Sequence[RowView],
    total_col: int,
    parts: Sequence[int],
    log: RelationLog,
) -> list[Flag]:
    grid = grid_of(rows, [total_col, *parts])
    by_index = {r.index: r for r in rows}
    flags: list[Flag] = []
    proof = (
        f"the total column ({_header(statement, total_col)}) adds up the other {len(parts)} columns "
        "in every other row of the table"
    )
    lone = lone_dashes(grid)
    for r, c in sorted(across_rows(rows, grid, total_col, parts).items()):
        t = grid[r][total_col]
        present = [(col, grid[r][col]) for col in parts if col in grid[r]]
        row = by_index.get(r)
        label = row.label.strip() if row is not None and row.label.strip() else f"row {r}"
        terms = [cell_term(t.cell, t.value, t.decimals, 1.0, f"{label} ({_header(statement, total_col)})")]
        terms += [
            cell_term(v.cell, v.value, v.decimals, -1.0, f"{label} ({_header(statement, col)})")
            for col, v in present
        ]
        equation = Equation(
            ACROSS_RULE.id,
            tuple(terms),
            c.tolerance,
            c.ok,
            proof,
            f"{ACROSS_RULE.id} {label} (page {t.cell.page})",
        )
        if c.ok:
            log.add(equation)
            continue
        if (r, total_col) in lone:
            continue  # a total printed as its column's only dash may be "not applicable", not nil
        scale, places, _ = _printed(t)
        diff, tol = fmt_small(abs(c.difference), scale, places), fmt_small(c.tolerance, scale, places)
        message = (
            f"{label}: the total column printed {fmt_amount(c.actual, scale, places)} but the columns add up "
            f"to {fmt_amount(c.expected, scale, places)} (difference {diff}, tolerance {tol})."
        )
        evidence = [_evidence(t, label, "total")]
        evidence += [_evidence(v, f"{label} ({_header(statement, col)})", "component") for col, v in present]
        flag = ACROSS_RULE.flag(
            table,
            message=message,
            evidence=evidence,
            comparison=c,
            confidence=0.8,
            reasons=[proof],
            proof=proof,
        )
        flags.append(flag)
        log.add(replace(equation, flag_id=flag.flag_id))
    return flags


# --- identities between known metrics --------------------------------------------------------------


def _metric_rows(rows: Sequence[RowView], taxonomy: Taxonomy) -> dict[str, list[RowView]]:
    out: dict[str, list[RowView]] = {}
    for row in rows:
        if row.numbers:
            metric = taxonomy.match(row.label)
            if metric is not None:
                out.setdefault(metric.id, []).append(row)
    return out


def _identity_result(
    terms: Sequence[tuple[Operand, int]],
    result_row: RowView,
    rows: Mapping[str, RowView],
    grid: Mapping[int, Mapping[int, Figure]],
    col: int,
) -> tuple[Comparison, list[tuple[RowView, _Value, int]]] | None:
    result = grid.get(result_row.index, {}).get(col)
    if result is None or not result.readable:
        return None
    parts: list[tuple[float, int]] = []
    used: list[tuple[RowView, _Value, int]] = []
    for operand, sign in terms:
        row = rows[operand.metric]
        v = grid.get(row.index, {}).get(col)
        if v is None or not v.readable:
            return None
        parts.append((sign * (abs(v.value) if operand.magnitude else v.value), v.decimals))
        used.append((row, v, sign))
    return compare_sum(result.value, result.decimals, parts), used


def check_identities(
    table: Table, statement: Statement, taxonomy: Taxonomy, already: set[tuple[int, int]]
) -> list[Flag]:
    """Known identities by metric (gross profit, net income) within one table.

    Each metric involved must appear exactly once in the table (no segment repeats), the identity must
    hold in another column, and a column is flagged only when no alternative sign convention holds.

    Args:
        table: A logical table.
        statement: Its calculation tree, for the value columns.
        taxonomy: To map row labels to metrics.
        already: ``(row, col)`` cells TOT001's structure search already flagged.

    Returns:
        Flags of kind ``sum_mismatch``.
    """
    rows = statement_rows(table)
    columns = [c.col for c in statement.columns if c.period is not None]
    grid = grid_of(rows, columns)
    # Where the tree found the line's own structure, it decides: an identity that leaves out a line the
    # tree adds in (discontinued operations, equity-method income) is not the statement's arithmetic.
    structured = {line.row for line in statement.lines if line.children}
    by_metric = _metric_rows(rows, taxonomy)
    flags: list[Flag] = []
    for identity in IDENTITIES:
        if not identity.within_table or any(len(by_metric.get(m, [])) != 1 for m in identity.metrics):
            continue
        single = {m: by_metric[m][0] for m in identity.metrics}
        result_row = single[identity.result]
        if result_row.index in structured:
            continue
        # Each way of fixing the free signs is an alternative: a column fails only when none holds there.
        per_col: dict[int, list[tuple[Comparison, list[tuple[RowView, _Value, int]]]]] = {}
        for col in columns:
            for terms in identity.sign_choices():
                got = _identity_result(terms, result_row, single, grid, col)
                if got is not None:
                    per_col.setdefault(col, []).append(got)
        holding = {col for col, items in per_col.items() if any(c.ok for c, _ in items)}
        for col, items in sorted(per_col.items()):
            if col in holding or not (holding - {col}) or (result_row.index, col) in already:
                continue
            comparison, used = min(items, key=lambda it: abs(it[0].difference))
            flags.append(_identity_flag(table, identity, result_row, grid, col, comparison, used))
    return flags


def _identity_flag(
    table: Table,
    identity: Identity,
    result_row: RowView,
    grid: Mapping[int, Mapping[int, Figure]],
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
    return IDENTITY_RULE.flag(
        table,
        message=message,
        evidence=evidence,
        metric=identity.result,
        period=period,
        comparison=c,
    )


def check_sums(
    tables: Sequence[Table],
    statements: Sequence[Statement],
    taxonomy: Taxonomy,
    relations: RelationLog | None = None,
) -> list[Flag]:
    """TOT001/TOT002 over every statement, then the known metric identities.

    Args:
        tables: Logical tables of one document.
        statements: Their calculation trees (:func:`pipeline.statements.build.build_statements`).
        taxonomy: The metric taxonomy.
        relations: Where every relation evaluated is recorded, for the localization.

    Returns:
        Flags of kind ``sum_mismatch``.
    """
    flags: list[Flag] = []
    for statement, table in with_tables(statements, tables):
        found, flagged = check_tree(table, statement, relations)
        flags.extend(found)
        flags.extend(check_identities(table, statement, taxonomy, flagged))
    return flags
