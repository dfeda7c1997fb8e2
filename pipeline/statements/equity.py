"""Facts a statement of changes in equity prints: total equity at each balance date, the year's net income.

The statement is transposed: its rows are periods ("Balance at December 31, 2022", then the year's
movements) and its columns components, so the facts of its table (:mod:`pipeline.figures.facts`, read
column by column) miss them (:func:`equity_statement_facts`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from pipeline.figures.facts import cell_fact
from pipeline.figures.grid import column_headers
from pipeline.figures.periods import parse_period
from pipeline.figures.taxonomy import Taxonomy
from pipeline.statements.build import with_tables
from pipeline.statements.columns import statement_rows
from pipeline.statements.labels import clean_label
from pipeline.statements.settings import TREE_SETTINGS
from schemas.models import Fact, Period, Statement, Table

__all__ = ["equity_statement_facts"]


_BALANCE_LINE = re.compile(r"^balances?\b", re.IGNORECASE)
"""A line of balances ("Balance at December 31, 2022"): one of the transposed statement's dates."""
_TOTAL_COLUMN = re.compile(r"\btotal\b", re.IGNORECASE)
"""The head of the column of total equity."""


def _balance_period(label: str) -> Period | None:
    """The date a balance line is at ("Balance at December 31, 2022", "Balances, January 1, 2021")."""
    text = re.sub(r"^(balances?)\s*,\s*", r"\1 at ", label.strip(), flags=re.IGNORECASE)
    period = parse_period(text)
    return period if period is not None and period.kind == "instant" and period.end_date else None


def _months_between(start: str, end: str) -> int:
    """Whole months from one ISO date to another (days ignored)."""
    (y0, m0), (y1, m1) = (int(start[:4]), int(start[5:7])), (int(end[:4]), int(end[5:7]))
    return (y1 - y0) * 12 + (m1 - m0)


def equity_statement_facts(
    tables: Sequence[Table], statements: Sequence[Statement], taxonomy: Taxonomy
) -> list[Fact]:
    """Total equity and net income as a statement of changes in equity prints them.

    The statement is transposed: its rows are periods ("Balance at December 31, 2022", then the year's
    movements) and its columns components. Its total column gives total equity at each balance date, and
    its net income line the year's net income (between two balances a year apart), so that both can be
    tied to the balance sheet and the income statement (XST001).

    Args:
        tables: The document's tables.
        statements: Their statements.
        taxonomy: The metric taxonomy.

    Returns:
        Facts of ``total_equity`` (instants) and ``net_income`` (fiscal years), with ``statement`` equity.
    """
    equity, income = taxonomy.get("total_equity"), taxonomy.get("net_income")
    if equity is None or income is None:
        return []
    shortest, longest = TREE_SETTINGS.fiscal_year_months
    out: list[Fact] = []
    for statement, table in with_tables(statements, tables):
        if statement.kind != "equity":
            continue
        headers = column_headers(table)
        totals = [c.col for c in statement.columns if _TOTAL_COLUMN.search(headers.get(c.col, ""))]
        if not totals:
            continue
        col = totals[-1]
        rows = statement_rows(table)
        balances = [
            (row, p)
            for row in rows
            if _BALANCE_LINE.match(clean_label(row.label)) and col in row.numbers
            if (p := _balance_period(clean_label(row.label))) is not None
        ]
        for row, period in balances:
            number = row.numbers[col].number
            if number is not None and number.base_value is not None:
                out.append(cell_fact(table, row, row.numbers[col], number, equity, None, period))
        for before, after in itertools.pairwise(balances):
            start, end = before[1].end_date, after[1].end_date
            if start is None or end is None or not shortest <= _months_between(start, end) <= longest:
                continue
            for row in rows:
                if not before[0].index < row.index < after[0].index or col not in row.numbers:
                    continue
                metric = taxonomy.match(row.label)
                number = row.numbers[col].number
                if metric is None or metric.id != "net_income" or number is None or number.base_value is None:
                    continue
                year = int(end[:4])
                period = Period(
                    kind="duration",
                    key=f"FY{year}",
                    label=f"Year ended {end}",
                    fiscal_year=year,
                    months=12,
                    end_date=end,
                )
                out.append(cell_fact(table, row, row.numbers[col], number, income, None, period))
    return out
