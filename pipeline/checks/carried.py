"""TOT003 across columns: each period's opening balance is the previous period's closing balance.

A note that rolls a balance forward for several years side by side prints, in each year's group of columns,
the balance at the beginning of the year on its first line and at the end on its last: 3M's restricted stock
units, "Number of Shares | Weighted Average Grant Date Fair Value" for 2018, 2017 and 2016, from "Balance —
As of January 1" to "As of December 31". One year's opening is the next older year's closing, in every
column of the group, amounts and averages alike; a keying error in either breaks that identity, and a
weighted average enters no sum that would catch it.

1. The first line with figures names an opening balance ("beginning", "opening", "January 1") and the last
   a closing one ("end", "ending", "closing", a balance "as of" or "at" a date).
2. The value columns form groups of one width whose heads read alike once their years and dates are set
   aside (one column a year, or several).
3. Each group's opening is compared with the closing of the group beside it, in the direction (newer years
   first or last) in which more of them hold. The identity is proven when it holds in two places at least
   (a figure other than nil) and fails in one; that failure is flagged when the difference is how a keying
   error looks (:func:`pipeline.figures.keying.keying_relation`), since a balance restated at the start of
   a year ("as adjusted") differs by an amount of another kind.

Every compared pair is recorded for :mod:`.localize`, which says which of the two figures the other
relations side with.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pipeline.checks.closing import RULE
from pipeline.checks.localize import Equation, RelationLog
from pipeline.checks.rule import PrintedFigure
from pipeline.figures.grid import RowView, column_headers, row_labels, table_rows
from pipeline.figures.keying import keying_relation
from pipeline.figures.rounding import compare_values
from schemas.models import Flag, Table

__all__ = ["check_carried_balances"]

_OPENING = re.compile(r"\b(?:beginning|opening|begin)\b|\b(?:as of|at) january 1\b")
_CLOSING = re.compile(r"\bend of\b|\b(?:ending|closing)\b|\b(?:as of|at) [a-z]+ \d{1,2}\b")
_DATES = re.compile(
    r"\b(?:19|20)\d\d\b|\b(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december) \d{1,2},?",
    re.IGNORECASE,
)
"""What sets one year's group of heads apart from another's."""

Pair = tuple[PrintedFigure, PrintedFigure]


def _lower(label: str) -> str:
    return " ".join(label.lower().split())  # with its digits: "as of january 1"


def _balance_rows(rows: Sequence[RowView]) -> tuple[RowView, RowView] | None:
    """The opening and the closing line (step 1)."""
    valued = [r for r in rows if r.numbers]
    if len(valued) < 3:
        return None
    first, last = valued[0], valued[-1]
    if not _OPENING.search(_lower(first.label)) or not _CLOSING.search(_lower(last.label)):
        return None
    return first, last


def _groups(table: Table, columns: Sequence[int]) -> list[list[int]]:
    """The columns as groups of one width whose heads read alike without their dates (step 2)."""
    heads = column_headers(table)
    bare = [" ".join(_DATES.sub("", heads.get(c, "")).split()).lower() for c in columns]
    for width in range(1, len(columns) // 2 + 1):
        if len(columns) % width == 0 and all(bare[i] == bare[i + width] for i in range(len(columns) - width)):
            return [list(columns[i : i + width]) for i in range(0, len(columns), width)]
    return []


def _pairs(
    groups: Sequence[Sequence[int]], opening: RowView, closing: RowView, newer_first: bool
) -> list[Pair]:
    """Each group's opening beside the closing of the group of the year before it (step 3)."""
    out: list[Pair] = []
    for g in range(len(groups) - 1):
        later, earlier = (groups[g], groups[g + 1]) if newer_first else (groups[g + 1], groups[g])
        for a, b in zip(later, earlier, strict=True):
            o, c = PrintedFigure.of(opening.numbers.get(a)), PrintedFigure.of(closing.numbers.get(b))
            if o is not None and c is not None:
                out.append((o, c))
    return out


def _holds(pair: Pair) -> bool:
    return compare_values(pair[0].value, pair[0].places, pair[1].value, pair[1].places).ok


def _carried(pair: Pair, labels: Mapping[int, str], flag_id: str | None) -> Equation:
    o, c = pair
    name = f"{RULE.id} {labels[o.cell.row]}, carried forward (page {o.cell.page})"
    return RULE.copy_equation(o, c, (labels[o.cell.row], labels[c.cell.row]), name, flag_id is None, flag_id)


def _check_table(table: Table, relations: RelationLog | None) -> list[Flag]:
    rows = table_rows(table)
    found = _balance_rows(rows)
    if found is None:
        return []
    opening, closing = found
    columns = sorted(set(opening.numbers) & set(closing.numbers))
    groups = _groups(table, columns) if len(columns) >= 2 else []
    if len(groups) < 2:
        return []
    pairs = max(
        (_pairs(groups, opening, closing, first) for first in (True, False)),
        key=lambda ps: sum(map(_holds, ps)),
    )
    held = [p for p in pairs if _holds(p) and p[0].value != 0.0]
    failed = [p for p in pairs if not _holds(p)]
    if len(held) < 2 or len(failed) != 1:
        return []
    o, c = failed[0]
    if keying_relation(o.value, o.places, c.value, c.places) in (None, "near_miss"):
        return []
    labels = row_labels(rows)
    flag = RULE.copy_flag(
        table,
        o,
        c,
        message=(
            f"{labels[o.cell.row]} prints {o.cell.text.strip()} but the balance it carries forward, "
            f"{labels[c.cell.row]} of the year before, is {c.cell.text.strip()}."
        ),
        labels=labels,
        holds=len(held),
        reasons=[
            f"the other years' openings repeat the closing beside them ({len(held)})",
            f"table on page {table.pages[0] if table.pages else o.cell.page}",
        ],
    )
    if relations is not None:
        for p in pairs:
            relations.add(_carried(p, labels, flag.flag_id if p is failed[0] else None))
    return [flag]


def check_carried_balances(tables: Sequence[Table], relations: RelationLog | None = None) -> list[Flag]:
    """TOT003 over every table that rolls a balance forward for several periods side by side.

    Args:
        tables: The document's tables.
        relations: Where every compared pair is recorded, for the localization.

    Returns:
        One flag per table whose one opening balance disagrees with the closing it carries forward.
    """
    return [flag for table in tables for flag in _check_table(table, relations)]
