"""LED001: a ledger's or statement of account's running balance follows from its debits and credits.

Ledgers, statements of account and bank statements print, for every entry, the amount in a debit or a
credit column and the balance after it (``Dr.Amt | Cr.Amt | Balance``, ``Withdrawals | Deposits |
Balance``). Each balance is the one before it plus the debit less the credit (or, on a bank's statement
from the customer's side, plus the credit less the debit): the filing states that arithmetic once per
entry, and a keying error in an amount breaks it at that entry, in a balance at that entry and the next.

Preconditions, checked on the table itself, never assumed from a header alone:

1. One column whose head names debits (``Dr``, ``Debit``, ``Withdrawals``, ``Payments``), one naming
   credits (``Cr``, ``Credit``, ``Deposits``, ``Receipts``) and one naming the balance, each holding
   figures.
2. A balance's side is read where it is printed: ``1,207,631 Cr.`` is a credit balance, ``0 Dr.`` a debit
   one; debits count positive. A balance printed without a side may be either.
3. The direction (balance grows with debits, or with credits) is the one the entries themselves follow:
   it must hold, with figures, in at least two entries and in two of every three that can be evaluated;
   an entry whose movement was not read (both amounts blank, or one blank and the other nil) is skipped,
   its balance carried on.
4. The opening balance ("Opening Balance", "Balance b/f") printed in its side's amount column must equal
   the balance.

Consecutive failing entries give one flag (a misprinted balance breaks its own entry and the next).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.checks.rule import Rule
from pipeline.figures.grid import RowView, column_headers, table_rows
from pipeline.figures.numbers import parse_number
from pipeline.figures.rounding import Comparison, compare_sum
from schemas.models import Cell, Evidence, Flag, Table

__all__ = ["RULE", "check_ledgers"]

RULE = Rule(
    "LED001",
    "sum_mismatch",
    "error",
    "A ledger's running balance is the previous balance plus its debits less its credits.",
    (
        "debit, credit and balance columns named in the head, the direction holding in two of every three"
        " entries"
    ),
)

_DEBIT = re.compile(r"\b(?:dr|debits?|withdrawals?|payments?|paid out|money out)\b|借方", re.IGNORECASE)
_CREDIT = re.compile(r"\b(?:cr|credits?|deposits?|receipts?|paid in|money in)\b|贷方", re.IGNORECASE)
_BALANCE = re.compile(r"\bbalance\b|余额", re.IGNORECASE)
_SIDE = re.compile(r"^(?P<figure>.*?\d.*?)\s*(?P<side>cr|dr)\.?$", re.IGNORECASE)
_OPENING = re.compile(
    r"\bopening balance\b|\bbalance (?:b/?f|brought forward|forward)\b|\bbrought forward\b|期初余额|上年结转",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"\bclosing balance\b|\bbalance c/?[fd]\b|\bcarried forward\b|\btotals?\b", re.IGNORECASE
)

_MIN_HOLDS = 2
"""Entries (the opening balance included) where the direction must hold before a failure means anything."""


@dataclass(frozen=True, slots=True)
class _Balance:
    """A balance as printed: its magnitude, the signs it may carry (debit positive) and where it is."""

    magnitude: float
    signs: tuple[int, ...]
    places: int
    cell: Cell


@dataclass(frozen=True, slots=True)
class _Entry:
    """One entry: its row, movement (debit, credit; None when not read) and balance."""

    row: RowView
    debit: Cell | None
    credit: Cell | None
    balance: _Balance
    opening: bool


@dataclass(frozen=True, slots=True)
class _Result:
    entry: _Entry
    previous: _Balance | None
    comparison: Comparison
    trivial: bool


def _role_columns(table: Table, pattern: re.Pattern[str], others: Sequence[re.Pattern[str]]) -> list[int]:
    heads = column_headers(table)
    return [
        col for col, head in heads.items() if pattern.search(head) and not any(o.search(head) for o in others)
    ]


def _figures(table: Table, col: int) -> int:
    """How many body cells of a column read as figures (a balance's side suffix allowed)."""
    return sum(1 for c in table.cells if c.col == col and not c.is_header and _read(c) is not None)


def _read(cell: Cell) -> tuple[float, int, tuple[int, ...]] | None:
    """A cell's magnitude, printed places and possible signs (debit positive); None when no figure."""
    text = cell.text.strip()
    side = _SIDE.match(text)
    parsed = parse_number(side.group("figure") if side else text)
    if parsed is None or parsed.percent:
        return None
    magnitude = abs(parsed.value)
    if side:
        signs: tuple[int, ...] = (1,) if side.group("side").casefold() == "dr" else (-1,)
    elif parsed.negative:
        signs = (-1,)
    else:
        signs = (1, -1) if magnitude else (1,)
    return magnitude, parsed.decimals_printed, signs


def _columns(table: Table) -> tuple[int, int, int] | None:
    """The debit, credit and balance columns, when the heads name exactly one of each that holds figures."""
    found: list[int] = []
    for pattern, others in (
        (_DEBIT, (_CREDIT, _BALANCE)),
        (_CREDIT, (_DEBIT, _BALANCE)),
        (_BALANCE, (_DEBIT, _CREDIT)),
    ):
        cols = [c for c in _role_columns(table, pattern, others) if _figures(table, c) >= 2]
        if len(cols) != 1:
            return None
        found.append(cols[0])
    debit, credit, balance = found
    return (debit, credit, balance) if len(set(found)) == 3 else None


def _entries(table: Table, debit: int, credit: int, balance: int) -> list[_Entry]:
    cells = {(c.row, c.col): c for c in table.cells}
    out: list[_Entry] = []
    for row in table_rows(table):
        cell = cells.get((row.index, balance))
        read = _read(cell) if cell is not None else None
        if cell is None or read is None or _CLOSING.search(row.label):
            continue
        magnitude, places, signs = read
        d, c = cells.get((row.index, debit)), cells.get((row.index, credit))
        out.append(
            _Entry(
                row,
                d if d is not None and _read(d) is not None else None,
                c if c is not None and _read(c) is not None else None,
                _Balance(magnitude, signs, places, cell),
                bool(_OPENING.search(row.label)),
            )
        )
    return out


def _amount(cell: Cell | None) -> tuple[float, int] | None:
    read = _read(cell) if cell is not None else None
    if read is None:
        return None
    magnitude, places, signs = read
    return (magnitude if signs[0] > 0 else -magnitude), places


def _opening(entry: _Entry) -> _Result | None:
    """The opening balance printed in its side's column equals the balance."""
    d, c = _amount(entry.debit), _amount(entry.credit)
    printed = [(side, a) for side, a in ((1, d), (-1, c)) if a is not None and a[0] != 0.0]
    if len(printed) != 1:
        return None
    side, (value, places) = printed[0]
    b = entry.balance
    if side not in b.signs and b.magnitude:
        return _Result(entry, None, compare_sum(b.magnitude, b.places, [(-value, places)]), False)
    comparison = compare_sum(b.magnitude, b.places, [(value, places)])
    return _Result(entry, None, comparison, b.magnitude == 0.0)


def _movement(entry: _Entry, previous: _Balance, direction: int) -> _Result | None:
    """The entry's balance against the one before it plus the movement, under a direction."""
    d, c = _amount(entry.debit), _amount(entry.credit)
    if d is None and c is None:
        return None
    if d is None or c is None:
        known = d if d is not None else c
        if known is None or known[0] == 0.0:
            return None  # the other amount was not read: the movement is unknown
    parts = [a for a in ((d[0], d[1]) if d else None, (-c[0], c[1]) if c else None) if a is not None]
    move = [(direction * v, p) for v, p in parts]
    best: Comparison | None = None
    b = entry.balance
    for sign in b.signs:
        for before in previous.signs:
            comparison = compare_sum(
                sign * b.magnitude, b.places, [(before * previous.magnitude, previous.places), *move]
            )
            if comparison.ok:
                trivial = b.magnitude == 0.0 and previous.magnitude == 0.0
                return _Result(entry, previous, comparison, trivial)
            if best is None or abs(comparison.difference) < abs(best.difference):
                best = comparison
    return None if best is None else _Result(entry, previous, best, False)


def _walk(entries: Sequence[_Entry], direction: int) -> list[_Result]:
    out: list[_Result] = []
    previous: _Balance | None = None
    for entry in entries:
        if entry.opening:
            result = _opening(entry)
        elif previous is not None:
            result = _movement(entry, previous, direction)
        else:
            result = None
        if result is not None:
            out.append(result)
        previous = entry.balance
    return out


def _evidence(cell: Cell | None, name: str, role: str) -> list[Evidence]:
    read = _read(cell) if cell is not None else None
    if cell is None or read is None:
        return []
    return [
        Evidence(
            page=cell.page, bbox=cell.bbox, text=f"{name}: {cell.text.strip()}", role=role, value=read[0]
        )
    ]


def _flag(
    table: Table, run: Sequence[_Result], heads: Mapping[int, str], holds: int, cols: tuple[int, int, int]
) -> Flag:
    debit, credit, balance = cols
    evidence: list[Evidence] = []
    parts: list[str] = []
    for r in run:
        label = " ".join(r.entry.row.label.split())[:80] or f"row {r.entry.row.index}"
        if r.previous is not None and r is run[0]:
            evidence += _evidence(r.previous.cell, "balance before", "component")
        evidence += _evidence(r.entry.debit, f"{label} ({heads.get(debit, 'debit')})", "component")
        evidence += _evidence(r.entry.credit, f"{label} ({heads.get(credit, 'credit')})", "component")
        evidence += _evidence(r.entry.balance.cell, f"{label} ({heads.get(balance, 'balance')})", "total")
        what = "opening amount" if r.previous is None else "balance before plus debits less credits"
        parts.append(
            f"{label}: balance printed {r.entry.balance.cell.text.strip()}, "
            f"{what} gives {abs(r.comparison.expected):,.{r.entry.balance.places}f}"
        )
    return RULE.flag(
        table,
        message="; ".join(parts) + ".",
        evidence=evidence,
        comparison=run[0].comparison,
        confidence=min(0.9, 0.6 + 0.05 * holds),
        reasons=[
            f"the running balance follows from the entries in {holds} other entries of the ledger",
            f"table on page {table.pages[0] if table.pages else run[0].entry.row.page}",
        ],
    )


def check_ledgers(tables: Sequence[Table]) -> list[Flag]:
    """LED001 over every table with debit, credit and balance columns.

    Args:
        tables: The document's logical tables.

    Returns:
        One flag per run of consecutive entries whose balance does not follow.
    """
    flags: list[Flag] = []
    for table in tables:
        cols = _columns(table)
        if cols is None:
            continue
        entries = _entries(table, *cols)
        walks = [_walk(entries, direction) for direction in (1, -1)]
        results = max(walks, key=lambda w: sum(1 for r in w if r.comparison.ok and not r.trivial))
        holds = sum(1 for r in results if r.comparison.ok and not r.trivial)
        fails = [r for r in results if not r.comparison.ok]
        if not fails or holds < _MIN_HOLDS or holds < 2 * len(fails):
            continue
        heads = column_headers(table)
        run: list[_Result] = []
        for r in results:
            if not r.comparison.ok:
                run.append(r)
                continue
            if run:
                flags.append(_flag(table, run, heads, holds, cols))
                run = []
        if run:
            flags.append(_flag(table, run, heads, holds, cols))
    return flags
