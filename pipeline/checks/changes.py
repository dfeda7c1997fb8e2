"""CHG001: columns of changes and of shares agree, row by row, with the figures they are computed from.

MD&A tables, earnings releases and the "analysis of changes" tables of many reports print, beside two
periods' figures, the change between them (``$ Change``, ``% Change``, ``Increase/(decrease)``,
``增减%``) or each line's share of a total (``% of revenue``). That is arithmetic the filing states once
per row; a keying error in either figure, or in the change, breaks it in that row and nowhere else.

No relation is assumed from a header. For each candidate column the table's own rows must prove which
relation it follows:

1. *Relative change*: ``c = (a − b) / |b| × 100`` for two value columns ``a`` and ``b``.
2. *Amount change*: ``c = a − b``; only for a column whose head names a change (a column that is the
   difference of two others in most rows may be a reconciliation that TOT002 reads as a total column).
3. *Share of a total*: ``c = a / B × 100`` for one base ``B`` common to the rows (the 100 % row, or the
   value that the rows' own rounding intervals agree on).

A relation holds for a column when it holds (rounding-aware, :mod:`pipeline.figures.rounding`) in at least
three rows and in three of every four rows where all its figures are printed; a change under a head that
names it ("% Change", "Change"), in two rows and two of every three. A table of two rows has too few
for that, but when it prints both an amount change and a percentage change of the same two columns, each
head naming a change, every row tests the pair twice: the two relations are proven together when they hold
in three of the four tests (or three of every four, in more rows) and each holds somewhere (an MD&A's
"Consolidated net revenues" and one line under it, with "Increase/(decrease)" and "% Change").

A row where a proven relation then fails is flagged unless another reading explains it — percentage points
or basis points between two rates, a favourable/unfavourable sign, a negative base taken as printed — and
only while the failures stay few (a column that fails in many rows follows some other rule). The failing
relations of one row between the same two figures give one flag.

A change on a constant-currency basis ("FX-Neutral % Change", "constant currency") is not checked: the
filer computes it from figures at the prior year's rates that the table prints only in part, by its own
definition (eBay's FX-neutral net revenues exclude hedging, stated in a footnote, so one row in four
differs from the printed figures by more than rounding). Its head may sit on a line of sub-heads that the
header finder left in the body, under the line of years: the head read here is every line printed above the
column's first figure (:func:`pipeline.figures.grid.column_headers` with ``above``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pipeline.checks.rule import Rule
from pipeline.figures.facts import is_change_column
from pipeline.figures.grid import RowView, column_headers, table_rows
from pipeline.figures.rounding import Comparison, compare_pct_change, compare_sum, half_unit
from pipeline.statements.columns import basis_of
from schemas.models import Cell, Evidence, Flag, Table

__all__ = ["RULE", "check_changes"]

RULE = Rule(
    "CHG001",
    "change_mismatch",
    "error",
    "A column of changes or of shares agrees, row by row, with the figures it is computed from.",
    (
        "the column's relation (relative change, amount change or share of a total) holds in at least "
        "three rows and three of every four"
    ),
)

_MIN_ROWS = 3
"""Rows a relation must hold in before a failure anywhere in its column means anything."""
_MIN_SHARE_ROWS = 4
"""Shares need one row more: their base is fitted to the rows, not read."""
_SHARE_MARGIN = 0.2
"""How far off, relative to itself, a share must be to count as wrong (see :func:`_share`)."""

# "(>100)%", "100+%", "<1%": a capped or floored change is no exact figure.
_BOUNDED = re.compile(r"[<>≥≤]|\d\s*\+")
# "Favorable/(Unfavorable)", "Better/(Worse)": heads that say a change's sign is a judgement, not a direction.
_CONVENTION_HEAD = re.compile(r"\b(?:un)?favou?rable\b|\bbetter\b|\bworse\b|\badverse\b", re.IGNORECASE)
# "2023", "2022(1)": a year head inside the body, not a figure.
_YEAR = re.compile(r"^\s*(?:19|20)\d\d\s*(?:\(\w\))?\s*$")
# "Percent of revenue", "% of total", "as a % of sales": the column is a share of a total.
_SHARE_HEAD = re.compile(r"%\s*of\b|\bper\s?cent(?:age)?\s+of\b|\bshare\b|\bmix\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Fig:
    """One printed figure, at the table's printed scale."""

    value: float
    places: int
    cell: Cell
    percent: bool
    scale: int | None


@dataclass(frozen=True, slots=True)
class _Relation:
    """A relation one column follows: ``kind`` of columns ``a`` and ``b`` (``b`` unused by shares)."""

    kind: str  # "pct" | "diff" | "share"
    target: int
    a: int
    b: int
    base: tuple[float, float] = (0.0, 0.0)
    hits: int = 0
    seen: int = 0
    named: bool = False  # the column's head names a change ("% Change")
    signed: bool = False  # rows print both directions with their sign (:func:`_fit_pairs`)
    dated: bool = False  # ``a`` and ``b`` are two periods' columns (:func:`_two_periods`)


@dataclass(slots=True)
class _RowFailure:
    row: RowView
    a: _Fig
    b: _Fig | None
    failed: list[tuple[_Relation, _Fig, Comparison]] = field(default_factory=list)


def _figures(rows: Sequence[RowView]) -> dict[int, dict[int, _Fig]]:
    """Row → column → figure; dashes, capped changes and two-figure cells left out.

    A "%" printed on the first figure of a column within a section (rows after a heading) makes the
    column's figures in that section percentages, as typesetters print it on the first and total rows only.
    """
    out: dict[int, dict[int, _Fig]] = {}
    marks: dict[int, bool] = {}
    for row in rows:
        if not row.numbers:
            marks = {}  # a heading, or a repeated column head: a new section
        for col, cell in row.numbers.items():
            n = cell.number
            if n is None:
                continue
            percent = marks.setdefault(col, n.unit == "percent" or "%" in cell.text) or n.unit == "percent"
            if n.is_dash or n.unit == "ratio" or _BOUNDED.search(cell.text) or _YEAR.match(cell.text):
                continue
            out.setdefault(row.index, {})[col] = _Fig(n.value, n.places, cell, percent, n.scale)
    return out


def _nil_dashes(rows: Sequence[RowView]) -> dict[int, dict[int, _Fig]]:
    """Row → column → a dash read as nil, for a proven amount change beside it.

    "Goodwill impairment | — | 431 | — | (431) | 431": an amount change printed beside a dash is that
    figure less nil, so the dash is nil there; a dash that means "not applicable" has no change printed
    beside it. A change column's own dash is never read so ("—" for a percentage not meaningful).
    """
    out: dict[int, dict[int, _Fig]] = {}
    for row in rows:
        for col, cell in row.numbers.items():
            n = cell.number
            if n is not None and n.is_dash:
                out.setdefault(row.index, {})[col] = _Fig(0.0, n.places, cell, False, n.scale)
    return out


def _value_columns(figs: Mapping[int, Mapping[int, _Fig]]) -> list[int]:
    """Columns of amounts: a figure in every row or at least three, most of them not percentages."""
    counts: dict[int, int] = {}
    percents: dict[int, int] = {}
    for row in figs.values():
        for col, f in row.items():
            counts[col] = counts.get(col, 0) + 1
            percents[col] = percents.get(col, 0) + f.percent
    need = min(_MIN_ROWS, len(figs))
    return sorted(c for c, n in counts.items() if n >= need and percents[c] * 2 < n)


def _percent_column(figs: Mapping[int, Mapping[int, _Fig]], col: int) -> bool:
    cells = [row[col] for row in figs.values() if col in row]
    return bool(cells) and sum(f.percent for f in cells) * 2 >= len(cells)


def _pct(c: _Fig, a: _Fig, b: _Fig) -> Comparison | None:
    return compare_pct_change(c.value, c.places, a.value, a.places, b.value, b.places)


def _diff(c: _Fig, a: _Fig, b: _Fig) -> Comparison:
    return compare_sum(c.value, c.places, [(a.value, a.places), (-b.value, b.places)])


def _share_bounds(c: _Fig, a: _Fig) -> tuple[float, float] | None:
    """The base a row's figure and printed share allow: ``|a| / |c| × 100`` over both rounding intervals."""
    hc, ha, share = half_unit(c.places), half_unit(a.places), abs(c.value)
    if share - hc <= 0.0 or abs(a.value) - ha <= 0.0:
        return None
    return (abs(a.value) - ha) * 100.0 / (share + hc), (abs(a.value) + ha) * 100.0 / (share - hc)


def _share(c: _Fig, a: _Fig, low: float, high: float) -> Comparison:
    """``|c|`` against ``|a| / base × 100`` for a base in ``[low, high]`` (shares print a cost unsigned).

    Shares are often forced to foot to 100 % and computed from unrounded figures, so a share counts as
    wrong only when it is off by more than a fifth of itself, and a share printed as the smallest
    non-zero step ("0.1 %") stands for anything smaller.
    """
    hc, ha = half_unit(c.places), half_unit(a.places)
    lo, hi = (abs(a.value) - ha) / high * 100.0, (abs(a.value) + ha) / low * 100.0
    expected = abs(a.value) / ((low + high) / 2.0) * 100.0
    printed = abs(c.value)
    ok = printed + hc >= lo - 1e-9 and printed - hc <= hi + 1e-9
    step = 2.0 * hc
    if not ok and abs(printed - step) <= 1e-9 * step and hi < printed:
        ok = True  # "0.1 %" for a share below it
    if not ok:
        ok = abs(printed - expected) <= _SHARE_MARGIN * max(printed, expected)
    return Comparison(ok, expected, printed, printed - expected, hc + (hi - lo) / 2.0)


def _comparable(*figs: _Fig) -> bool:
    """Figures printed at one scale (an unknown scale is the table's, hence common)."""
    scales = {f.scale for f in figs if f.scale is not None}
    return len(scales) <= 1


def _relation_result(rel: _Relation, row: Mapping[int, _Fig], *, proven: bool = False) -> Comparison | None:
    """The relation's comparison in one row; None when the row cannot test it.

    No change, or a change from or to nothing, proves nothing of a relation; once the other rows have proven
    it (``proven``), such a row is tested all the same where the change is defined: an amount change from
    nothing is the amount ("Restructuring | 828 | 0 | 828"), a percentage change from nothing is undefined.
    """
    c, a = row.get(rel.target), row.get(rel.a)
    if c is None or a is None:
        return None
    if rel.kind == "share":
        return _share(c, a, *rel.base) if not a.percent else None
    b = row.get(rel.b)
    if b is None or a.percent or b.percent or not _comparable(a, b):
        return None
    if (a.value == b.value or b.value == 0.0 or a.value == 0.0) and not (proven and rel.kind == "diff"):
        return None
    if rel.kind == "pct":
        return _pct(c, a, b)
    return _diff(c, a, b) if _comparable(a, b, c) else None


def _explained(rel: _Relation, row: Mapping[int, _Fig], others: Sequence[_Relation] = ()) -> bool:
    """Another reading under which a failing row holds: the change printed with the other sign.

    Costs shown as "favourable/(unfavourable)", and a change over a negative base divided by the base as
    printed rather than by its magnitude, both turn the sign of the change alone. A convention turns every
    change of the row, though: when ``others`` holds the other change of the same two columns (the
    amount beside the percentage) and it holds in this row with its sign as printed, the two changes
    disagree on the direction, and one of them is misprinted ("717" beside "9 %" prints as "(717)") —
    unless this one is a percentage over a negative base. So does a column whose other rows print the change
    with its sign, increases and decreases alike, and no other row with the other (``signed``): Boston
    Properties' "Change" column printing (29,214) for 30,561 less 1,347.
    """
    c, a, b = row[rel.target], row[rel.a], row.get(rel.b)
    if rel.kind == "share" or b is None:
        return False  # shares compare magnitudes already
    flipped = _Fig(-c.value, c.places, c.cell, c.percent, c.scale)
    res = _pct(flipped, a, b) if rel.kind == "pct" else _diff(flipped, a, b)
    if res is None or not res.ok:
        return False
    if rel.kind == "pct" and b.value < 0:
        return True
    if rel.signed:
        return False  # every other row prints the change with its sign, increases and decreases alike
    for other in others:
        if other.kind in (rel.kind, "share") or (other.a, other.b) != (rel.a, rel.b):
            continue
        held = _relation_result(other, row)
        if held is not None and held.ok and row[other.target].value != 0.0:
            return False
    return True


def _fit_pairs(
    figs: Mapping[int, Mapping[int, _Fig]], target: int, values: Sequence[int], kinds: Iterable[str]
) -> _Relation | None:
    """The pair of value columns whose change the target column prints in the most rows.

    A row counts when the change holds with either sign (costs in parentheses whose increase prints
    positive); among pairs that hold as often, the one holding with the printed sign in more rows, then
    the one nearest the change column (its own period pair), wins.
    """
    best: tuple[tuple[int, int, int], _Relation] | None = None
    for kind in kinds:
        for a in values:
            for b in values:
                if target in (a, b) or a == b:
                    continue
                rel = _Relation(kind, target, a, b)
                hits = exact = seen = 0
                directions: set[bool] = set()
                for row in figs.values():
                    res = _relation_result(rel, row)
                    if res is None:
                        continue
                    seen += 1
                    exact += res.ok
                    hits += res.ok or _explained(rel, row)
                    if res.ok and res.actual != 0.0:
                        directions.add(res.actual > 0)
                key = (hits, exact, -abs(target - a) - abs(target - b))
                if best is None or key > best[0]:
                    signed = len(directions) == 2 and hits - exact <= 1
                    best = (key, _Relation(kind, target, a, b, hits=hits, seen=seen, signed=signed))
    return best[1] if best else None


def _fit_share(
    figs: Mapping[int, Mapping[int, _Fig]], target: int, values: Sequence[int]
) -> _Relation | None:
    """The value column and base that the target column's percentages are shares of.

    Each row's figure and share, with their rounding, bound the base to an interval; the base is where the
    most intervals meet. Only rows that bound it tightly (within a tenth) count towards the proof: "1 %"
    of anything is compatible with almost any base.
    """
    best: _Relation | None = None
    for a in values:
        if a == target:
            continue
        bounds = [
            b
            for row in figs.values()
            if (c := row.get(target)) is not None and (v := row.get(a)) is not None and not v.percent
            if (b := _share_bounds(c, v)) is not None and b[1] - b[0] <= 0.1 * b[0]
        ]
        if len(bounds) < _MIN_SHARE_ROWS:
            continue
        # The deepest point of the intervals: sweep their ends (a start before an end at the same x).
        events = sorted(
            [(lo, 1) for lo, _ in bounds] + [(hi, -1) for _, hi in bounds], key=lambda e: (e[0], -e[1])
        )
        depth = top = 0
        point = 0.0
        for x, step in events:
            depth += step
            if depth > top:
                top, point = depth, x
        covering = [(lo, hi) for lo, hi in bounds if lo <= point + 1e-9 * point and hi >= point]
        base = (max(lo for lo, _ in covering), min(hi for _, hi in covering))
        hits = len(covering)
        if best is None or (hits, -abs(target - a)) > (best.hits, -abs(target - best.a)):
            best = _Relation("share", target, a, a, base=base, hits=hits, seen=len(bounds))
    return best


def _holds(rel: _Relation | None) -> bool:
    """Whether a fitted relation is proven by the rows it holds in.

    A change under a head that names it ("% Change", "Change") needs two rows of every three: the head
    states the relation, and a change printed to the percent or its tenth lands on the computed one by
    chance about once in a hundred rows (an amount printed to the unit, on the difference of two others,
    more rarely still), so two rows that hold prove it (a table of three lines, one of them keyed wrong).
    An amount change so proven must be between two periods' columns: a sensitivity table heads its
    columns "Increase" and "Decrease", and its small effects, the same with either sign, differ by one
    another often enough. Without such a head a column proves its relation in three rows and three of four.
    """
    if rel is None:
        return False
    if rel.named and (rel.kind == "pct" or (rel.kind == "diff" and rel.dated)):
        return rel.hits >= _MIN_ROWS - 1 and rel.hits * 3 >= rel.seen * 2
    need = _MIN_SHARE_ROWS if rel.kind == "share" else _MIN_ROWS
    return rel.hits >= need and rel.hits * 4 >= rel.seen * 3


def _hold_together(rels: Sequence[_Relation]) -> list[_Relation]:
    """Named amount and percentage changes of one pair of columns, proven by their tests pooled.

    Each relation must hold in some row; together they must pass the test one relation passes alone.
    """
    proven: list[_Relation] = []
    for amount in (r for r in rels if r.kind == "diff" and not _holds(r)):
        for pct in (r for r in rels if r.kind == "pct" and (r.a, r.b) == (amount.a, amount.b)):
            hits, seen = amount.hits + pct.hits, amount.seen + pct.seen
            if amount.hits and pct.hits and hits >= _MIN_ROWS and hits * 4 >= seen * 3:
                proven += [amount] + ([] if _holds(pct) else [pct])
    return proven


def _hold_as_twins(rels: Sequence[_Relation]) -> list[_Relation]:
    """Named changes that repeat one layout across groups of columns, proven by their tests pooled.

    A 10-Q prints the three months' figures and the six months', each pair with its "% change" beside it,
    over two lines: one line keyed wrong leaves a group one row of two, which proves nothing alone. A
    change column at the same place after the same two columns, its head naming a change too, is the same
    relation printed again: pooled with its twins it must pass the test one relation passes alone, and it
    must hold in some row of its own.
    """

    def shape(rel: _Relation) -> tuple[str, int, int]:
        return rel.kind, rel.a - rel.target, rel.b - rel.target

    proven: list[_Relation] = []
    for rel in (r for r in rels if r.hits and not _holds(r)):
        twins = [t for t in rels if t is not rel and t.hits and shape(t) == shape(rel)]
        pooled = replace(
            rel, hits=rel.hits + sum(t.hits for t in twins), seen=rel.seen + sum(t.seen for t in twins)
        )
        if twins and _holds(pooled):
            proven.append(rel)
    return proven


def _two_periods(figs: Mapping[int, Mapping[int, _Fig]], a: int, b: int) -> bool:
    """Whether columns ``a`` and ``b`` are dated, and at two periods."""
    keys = [
        {
            p.key
            for row in figs.values()
            if (f := row.get(col)) is not None
            if (p := f.cell.number and f.cell.number.period)
        }
        for col in (a, b)
    ]
    return all(len(k) == 1 for k in keys) and keys[0] != keys[1]


def _first_rows(figs: Mapping[int, Mapping[int, _Fig]]) -> dict[int, int]:
    """Each column's first row with a figure."""
    first: dict[int, int] = {}
    for r in sorted(figs):
        for col in figs[r]:
            first.setdefault(col, r)
    return first


def _relations(table: Table, figs: Mapping[int, Mapping[int, _Fig]]) -> list[_Relation]:
    """Every column's proven relation; none for a change on a constant-currency basis."""
    headers = column_headers(table)
    stacked = column_headers(table, above=_first_rows(figs))  # with sub-heads left in the body
    values = _value_columns(figs)
    columns = sorted({col for row in figs.values() for col in row})
    out: list[_Relation] = []
    named: list[_Relation] = []  # the fitted changes of columns whose heads name a change
    for col in columns:
        if basis_of(stacked.get(col, "")) == "constant_currency":
            continue
        head = headers.get(col, "")
        percent = _percent_column(figs, col)
        named_change = is_change_column(head) and not _SHARE_HEAD.search(head)
        kinds = (["pct"] if percent or named_change else []) + (
            ["diff"] if named_change and not percent else []
        )
        rel = _fit_pairs(figs, col, values, kinds) if kinds else None
        if rel is not None and named_change:
            rel = replace(rel, named=True, dated=_two_periods(figs, rel.a, rel.b))
            named.append(rel)
        if not _holds(rel) and percent and not named_change:
            rel = _fit_share(figs, col, values)
        if _holds(rel):
            assert rel is not None
            out.append(rel)
    out += _hold_together(named)
    return out + [rel for rel in _hold_as_twins(named) if rel not in out]


def _label(row: RowView) -> str:
    return " ".join(row.label.split()).rstrip(":") or f"row {row.index}"


def _evidence(f: _Fig, name: str, role: str) -> Evidence:
    n = f.cell.number
    value = n.base_value if n is not None and n.base_value is not None and not f.percent else f.value
    return Evidence(page=f.cell.page, bbox=f.cell.bbox, text=f"{name}: {f.cell.text}", role=role, value=value)


def _head(headers: Mapping[int, str], col: int) -> str:
    return " ".join(headers.get(col, "").split()) or f"column {col}"


def _claim(rel: _Relation, res: Comparison, headers: Mapping[int, str], places: int) -> str:
    if rel.kind == "share":
        return f"{_head(headers, rel.a)} is {res.expected:.{places + 1}f}% of the base the other rows share"
    what = "change" if rel.kind == "diff" else "percentage change"
    unit = "%" if rel.kind == "pct" else ""
    return (
        f"the {what} from {_head(headers, rel.b)} to {_head(headers, rel.a)} is "
        f"{res.expected:,.{places + 1}f}{unit}"
    )


def _flag(table: Table, failure: _RowFailure, headers: Mapping[int, str]) -> Flag:
    label = _label(failure.row)
    parts = []
    evidence = [_evidence(failure.a, f"{label} ({_head(headers, failure.failed[0][0].a)})", "component")]
    if failure.b is not None:
        evidence.append(
            _evidence(failure.b, f"{label} ({_head(headers, failure.failed[0][0].b)})", "component")
        )
    reasons = []
    for rel, c, res in failure.failed:
        claim = _claim(rel, res, headers, c.places)
        parts.append(f"{_head(headers, rel.target)} printed {c.cell.text.strip()} but {claim}")
        evidence.append(_evidence(c, f"{label} ({_head(headers, rel.target)})", "total"))
        how = {"pct": "percentage change", "diff": "change", "share": "share of one base"}[rel.kind]
        reasons.append(
            f"{_head(headers, rel.target)} is the {how} of the row's figures in {rel.hits} of {rel.seen} rows"
        )
    if len(failure.failed) > 1:
        reasons.append("every change column of the row fails: one of its figures is misprinted")
    reasons.append(f"table on page {table.pages[0] if table.pages else failure.row.page}")
    first = failure.failed[0]
    hits = min(rel.hits for rel, _, _ in failure.failed)
    return RULE.flag(
        table,
        message=f"{label}: " + "; ".join(parts) + ".",
        evidence=evidence,
        period=first[1].cell.number.period if first[1].cell.number else None,
        comparison=first[2],
        confidence=min(0.9, 0.55 + 0.05 * hits + 0.1 * (len(failure.failed) - 1)),
        reasons=reasons,
    )


def check_table_changes(table: Table) -> list[Flag]:
    """CHG001 over one table.

    Args:
        table: The table.

    Returns:
        One flag per row and pair of figures whose change or share columns fail.
    """
    rows = table_rows(table)
    figs = _figures(rows)
    if len(figs) < _MIN_ROWS - 1:  # two rows: only a pair of changes proven together (_hold_together)
        return []
    by_index = {row.index: row for row in rows}
    failures: dict[tuple[int, int, int], _RowFailure] = {}
    relations = _relations(table, figs)
    headers = column_headers(table)
    # Heads that name the sign convention ("Favorable/(Unfavorable)") may apply it to one column only.
    others = () if any(_CONVENTION_HEAD.search(h) for h in headers.values()) else relations
    dashes = _nil_dashes(rows)
    for rel in relations:
        failing: list[tuple[int, Comparison]] = []
        for r, printed in figs.items():
            # (the row as an amount change printed in it reads it: its dashes nil)
            nil = rel.kind == "diff" and rel.target in printed
            row = {**dashes.get(r, {}), **printed} if nil else printed
            res = _relation_result(rel, row, proven=True)
            if res is None or res.ok or _explained(rel, row, others):
                continue
            failing.append((r, res))
        # A column that fails in many rows follows some rule the fit did not find.
        if len(failing) > max(1, rel.seen // 5):
            continue
        for r, res in failing:
            row = {**dashes.get(r, {}), **figs[r]}
            key = (r, rel.a, rel.b)
            entry = failures.setdefault(
                key, _RowFailure(by_index[r], row[rel.a], row.get(rel.b) if rel.kind != "share" else None)
            )
            entry.failed.append((rel, row[rel.target], res))
    return [_flag(table, f, headers) for f in failures.values()]


def check_changes(tables: Sequence[Table]) -> list[Flag]:
    """CHG001 over every table of a document.

    Args:
        tables: Logical tables.

    Returns:
        Flags of kind ``change_mismatch``.
    """
    return [flag for table in tables for flag in check_table_changes(table)]
