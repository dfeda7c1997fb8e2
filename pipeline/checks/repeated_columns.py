"""XREF001 in one table: a period printed twice side by side agrees with itself.

An MD&A table comparing two pairs of years prints the middle year twice: "Year Ended December 31, 2021 |
2020 | % Change" beside "Year Ended December 31, 2020 | 2019 | % Change" (eBay's revenue tables). The two
2020 columns are one figure printed twice in every row, whatever the line; :mod:`.crossref` compares copies
across tables and lines with a label of their own only, so a keying error in one of them went unseen.

Two value columns of one table are one period printed twice when their heads read alike and name the period
in words ("Year Ended …", "As of …"; a bare year may have lost the entity printed over it), every figure in
each carries the same period, and they agree on every line both print but one, two lines at least. The
line where they then disagree is flagged when the difference is how a keying error looks (two digits
swapped, one wrong, one dropped or doubled, the sign, a power of a thousand): a difference of another kind
between columns headed alike is more likely a misread head than a misprint. Every line's pair is recorded
for the localization (:mod:`.localize`), which says which copy the table's other relations side with.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence

from pipeline.checks.crossref import RULE
from pipeline.checks.localize import Equation, RelationLog
from pipeline.checks.rule import PrintedFigure
from pipeline.figures.grid import RowView, column_headers, row_labels, table_rows
from pipeline.figures.keying import keying_relation
from pipeline.figures.rounding import compare_values
from schemas.models import Cell, Flag, Table

__all__ = ["check_repeated_columns"]

_PERIOD_PHRASE = re.compile(r"\b(?:ended|ending|as of|as at)\b", re.IGNORECASE)
"""A head that names its period in words ("Year Ended December 31, 2020"). A bare year ("2020") is no proof:
a table of two entities prints their names over the years, and the reader can lose one (PG&E's
"PG&E Corporation 2020 | 2020"), leaving two companies' columns headed alike."""
_MIN_AGREEING = 2
"""Lines the two columns must agree on before their one disagreement means anything."""


def _period(rows: Sequence[RowView], col: int) -> str | None:
    """The one period every figure of a column carries, or None."""
    keys: set[str | None] = set()
    for row in rows:
        cell = row.numbers.get(col)
        n = cell.number if cell is not None else None
        if n is not None and not n.is_dash:
            keys.add(n.period.key if n.period is not None else None)
    return keys.pop() if len(keys) == 1 else None


def _twin_columns(table: Table, rows: Sequence[RowView]) -> Iterator[tuple[int, int, str]]:
    """Pairs of columns headed alike whose figures all carry one period, with the head."""
    heads = {col: " ".join(text.split()) for col, text in column_headers(table).items()}
    columns = sorted({col for row in rows for col in row.numbers})
    periods = {col: _period(rows, col) for col in columns}
    for a, b in itertools.combinations(columns, 2):
        head = heads.get(a, "")
        if (
            _PERIOD_PHRASE.search(head)
            and head == heads.get(b)
            and periods[a] is not None
            and periods[a] == periods[b]
        ):
            yield a, b, head


def _figure(cell: Cell | None) -> PrintedFigure | None:
    """The cell's figure, when it is also known in base units (copies are compared at their scales)."""
    f = PrintedFigure.of(cell)
    n = f.cell.number if f is not None else None
    return f if n is not None and n.base_value is not None and n.decimals is not None else None


def _base(f: PrintedFigure) -> tuple[float, int]:
    """A figure of :func:`_figure` in base units, with its precision."""
    n = f.cell.number
    assert n is not None and n.base_value is not None and n.decimals is not None
    return n.base_value, n.decimals


def _same(a: PrintedFigure, b: PrintedFigure) -> bool:
    return compare_values(*_base(a), *_base(b)).ok


def _printed_twice(a: PrintedFigure, b: PrintedFigure, label: str, flag_id: str | None) -> Equation:
    name = f"{RULE.id} {label}, printed twice (page {a.cell.page})"
    return RULE.copy_equation(a, b, (label, label), name, flag_id is None, flag_id)


def check_repeated_columns(tables: Sequence[Table], relations: RelationLog | None = None) -> list[Flag]:
    """XREF001 over every pair of one table's columns that print one period twice.

    Args:
        tables: The document's tables.
        relations: Where every line's pair is recorded, holding or not, for the localization.

    Returns:
        One flag per line where the two columns disagree as a keying error would.
    """
    flags: list[Flag] = []
    for table in tables:
        rows = table_rows(table)
        labels = row_labels(rows)
        for a, b, head in _twin_columns(table, rows):
            pairs = [
                (row, fa, fb)
                for row in rows
                if (fa := _figure(row.numbers.get(a))) is not None
                and (fb := _figure(row.numbers.get(b))) is not None
            ]
            differ = [p for p in pairs if not _same(p[1], p[2])]
            if len(pairs) - len(differ) < _MIN_AGREEING or len(differ) != 1:
                continue
            row, fa, fb = differ[0]
            if keying_relation(*_base(fa), *_base(fb)) in (None, "near_miss"):
                continue
            flag = RULE.copy_flag(
                table,
                fb,
                fa,
                message=(
                    f"{labels[row.index]} is {fa.cell.text.strip()} in one column and {fb.cell.text.strip()} "
                    f"in another, both headed {head!r}: the table prints that period twice."
                ),
                labels=labels,
                holds=len(pairs) - 1,
                reasons=[
                    f"the two columns, headed alike, agree on the {len(pairs) - 1} other lines both print",
                    f"table on page {table.pages[0] if table.pages else fa.cell.page}",
                ],
            )
            flags.append(flag)
            if relations is not None:
                for r, x, y in pairs:
                    relations.add(_printed_twice(x, y, labels[r.index], flag.flag_id if r is row else None))
    return flags
