"""BAL001: the balance sheet balances.

Per table and period column: total assets = total liabilities and equity (both printed), or total
assets = |total liabilities| + total equity (UK balance sheets print liabilities in parentheses). The two
printed grand totals must always agree; the three-term identity is only trusted when it holds in another
period of the same table, because temporary (mezzanine) equity or a "Total equity" that excludes
non-controlling interests can legitimately sit between the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.checks.rule import DocRef, Rule, printed_evidence
from pipeline.checks.tolerance import (
    Comparison,
    KnownFact,
    compare_sum,
    compare_values,
    fmt_amount,
    fmt_small,
    period_text,
    printed_decimals,
)
from schemas.models import Flag

__all__ = ["RULE", "check_balance"]

RULE = Rule(
    "BAL001",
    "balance_identity",
    "error",
    "Total assets equal total liabilities plus equity.",
    (
        "the two printed grand totals of one balance sheet column; the three-term identity only where it "
        "holds in another period of the same table"
    ),
)
_METRICS = frozenset({"total_assets", "total_liabilities", "total_equity", "total_liabilities_and_equity"})


@dataclass(frozen=True, slots=True)
class _Column:
    """Balance-sheet totals printed in one table column for one period."""

    table_id: str
    period: str
    facts: dict[str, list[KnownFact]]

    def one(self, metric: str) -> KnownFact | None:
        found = self.facts.get(metric, [])
        return found[0] if len(found) == 1 else None

    def all(self, metric: str) -> list[KnownFact]:
        return self.facts.get(metric, [])


def _columns(facts: Sequence[KnownFact]) -> dict[str, list[_Column]]:
    """Table id → its period columns, each with the balance-sheet totals printed in it."""
    cells: dict[tuple[str, str], dict[str, list[KnownFact]]] = {}
    for f in facts:
        if f.metric not in _METRICS or f.context or f.period is None or f.table_id is None:
            continue
        if f.origin != "table_cell":
            continue
        cells.setdefault((f.table_id, f.period.key), {}).setdefault(f.metric, []).append(f)
    out: dict[str, list[_Column]] = {}
    for (table_id, period), by_metric in cells.items():
        out.setdefault(table_id, []).append(_Column(table_id, period, by_metric))
    return out


def _message(lhs: KnownFact, rhs_text: str, c: Comparison) -> str:
    scale, places = lhs.scale, printed_decimals(lhs.decimals, lhs.scale)
    return (
        f"{lhs.label} {period_text(lhs.period)} printed {lhs.printed} but {rhs_text} is "
        f"{fmt_amount(c.expected, scale, places)} (difference {fmt_small(abs(c.difference), scale, places)}, "
        f"tolerance {fmt_small(c.tolerance, scale, places)})."
    )


def _pair_flag(
    doc_id: str, source: str, lhs: KnownFact, lhs_role: str, rhs: KnownFact, rhs_role: str
) -> Flag | None:
    c = compare_values(lhs.value, lhs.decimals, rhs.value, rhs.decimals)
    if c.ok:
        return None
    return RULE.flag(
        DocRef(doc_id, source),
        message=_message(lhs, rhs.label, c),
        evidence=[printed_evidence(lhs, lhs_role), printed_evidence(rhs, rhs_role)],
        metric=lhs.metric,
        period=lhs.period,
        comparison=c,
        confidence=0.9,
        reasons=["both grand totals are printed in the same balance-sheet column, for the same date"],
    )


def _three_term(col: _Column) -> tuple[KnownFact, KnownFact, list[tuple[KnownFact, Comparison]]] | None:
    """Total assets vs total liabilities + each printed total-equity row of a column."""
    assets, liabilities = col.one("total_assets"), col.one("total_liabilities")
    equities = _distinct(col.all("total_equity"))
    if assets is None or liabilities is None or not equities:
        return None
    owed = (abs(liabilities.value), liabilities.decimals)
    results = [
        (e, compare_sum(assets.value, assets.decimals, [owed, (e.value, e.decimals)])) for e in equities
    ]
    return assets, liabilities, results


def _distinct(facts: Sequence[KnownFact]) -> list[KnownFact]:
    """Drop facts that repeat an earlier one's figure ("Net assets" and "Total equity" in a UK sheet)."""
    kept: list[KnownFact] = []
    for f in facts:
        if not any(compare_values(f.value, f.decimals, k.value, k.decimals).ok for k in kept):
            kept.append(f)
    return kept


def check_balance(facts: Sequence[KnownFact], *, doc_id: str, source: str) -> list[Flag]:
    """BAL001 over the balance-sheet totals of every table.

    Args:
        facts: Facts of one document.
        doc_id: Document id.
        source: Source path.

    Returns:
        Flags of kind ``balance_identity``.
    """
    flags: list[Flag] = []
    for _table_id, columns in sorted(_columns(facts).items()):
        three = {col.period: _three_term(col) for col in columns}
        holds_somewhere = {p for p, t in three.items() if t is not None and any(c.ok for _, c in t[2])}
        for col in sorted(columns, key=lambda c: c.period):
            assets, tle = col.one("total_assets"), col.one("total_liabilities_and_equity")
            if assets is not None and tle is not None:
                flag = _pair_flag(doc_id, source, assets, "assets", tle, "liabilities and equity")
                if flag is not None:
                    flags.append(flag)
                continue  # the printed grand totals settle it; the three-term sum adds nothing
            t = three.get(col.period)
            if t is None or col.period in holds_somewhere or not (holds_somewhere - {col.period}):
                continue
            a, liabilities, results = t
            if len(results) != 1:
                continue  # several "total equity" rows and none works: which one was meant is unclear
            equity_fact, c = results[0]
            flags.append(
                RULE.flag(
                    DocRef(doc_id, source),
                    message=_message(a, f"{liabilities.label} + {equity_fact.label}", c),
                    evidence=[
                        printed_evidence(a, "assets"),
                        printed_evidence(liabilities, "liabilities"),
                        printed_evidence(equity_fact, "equity"),
                    ],
                    metric="total_assets",
                    period=a.period,
                    comparison=c,
                    confidence=0.8,
                    reasons=[
                        "total assets equal total liabilities plus equity in another period of the same table"
                    ],
                )
            )
    return flags
