"""QTR001: the four quarters of a year printed in one table add up to the year printed elsewhere.

Annual reports print unaudited quarterly results, the four quarters of each year side by side ("First
Quarter | Second Quarter | Third Quarter | Fourth Quarter"), and the year itself only on the statements.
A quarter keyed wrong breaks nothing inside its table (each quarter's lines add up in their own column,
with the signs their labels give), but the four quarters no longer add up to the year.

No line is assumed to add up: per-share figures and share counts never do, and a line may be defined
differently in the summary. The table's other lines must prove the relation: at least two of its lines add
up to their year, and at most one line in three fails, before a failing line is flagged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pipeline.checks.localize import Equation, Term, base_term
from pipeline.checks.rule import CheckedDocument, Located, Rule, printed_evidence
from pipeline.checks.tolerance import (
    KnownFact,
    fmt_amount,
    fmt_small,
    period_text,
    printed_decimals,
    scale_note,
)
from pipeline.figures.facts import PRIMARY_STATEMENTS
from pipeline.figures.rounding import Comparison, compare_sum
from pipeline.figures.taxonomy import Taxonomy
from schemas.models import Flag

__all__ = ["RULE", "check_quarters"]

RULE = Rule(
    "QTR001",
    "cross_reference_mismatch",
    "error",
    "The four quarters of a year printed in one table add up to the year's figure printed elsewhere.",
    "at least two other lines of the same table add up, quarter by quarter, to their years",
)

_MIN_LINES = 2
"""Lines of the quarterly table that must add up to their years before a failing line means anything."""

_Line = tuple[str, str, int, str, str | None]
"""(table id, metric, fiscal year, basis, currency): one line of a quarterly table, one year."""


def _quarter_lines(facts: Sequence[KnownFact], taxonomy: Taxonomy) -> dict[_Line, dict[int, list[KnownFact]]]:
    """Each quarterly table's amount lines: quarter → the facts printed for it."""
    out: dict[_Line, dict[int, list[KnownFact]]] = {}
    for f in facts:
        p = f.period
        metric = taxonomy.get(f.metric)
        if (
            f.origin != "table_cell"
            or f.context is not None
            or f.table_id is None
            or p is None
            or p.quarter is None
            or p.fiscal_year is None
            or p.months not in (None, 3)
            or metric is None
            or metric.unit != "currency"
        ):
            continue
        key = (f.table_id, f.metric, p.fiscal_year, f.basis, f.currency)
        out.setdefault(key, {}).setdefault(p.quarter, []).append(f)
    return out


def _years(facts: Sequence[KnownFact]) -> dict[tuple[str, int, str, str | None], list[KnownFact]]:
    """The year's figures: (metric, fiscal year, basis, currency) → its printings in tables."""
    out: dict[tuple[str, int, str, str | None], list[KnownFact]] = {}
    for f in facts:
        p = f.period
        if f.origin != "table_cell" or f.context is not None or p is None or p.fiscal_year is None:
            continue
        if p.kind == "duration" and p.quarter is None and p.months in (None, 12) and p.key.startswith("FY"):
            out.setdefault((f.metric, p.fiscal_year, f.basis, f.currency), []).append(f)
    return out


def _year_of(printings: Sequence[KnownFact]) -> KnownFact:
    """The year's figure most printings agree on, a primary statement's printing of it first."""
    common, _ = Counter(f.value for f in printings).most_common(1)[0]
    agreeing = [f for f in printings if f.value == common]
    return min(agreeing, key=lambda f: (f.statement not in PRIMARY_STATEMENTS, f.page))


def _term(f: KnownFact, coef: float, *, magnitude: bool = False, used: float | None = None) -> Term:
    where = (f.page, f.bbox, f.printed, f.label)
    return base_term((f.value, f.decimals, f.scale), coef, where, magnitude=magnitude, used=used)


def check_quarters(doc: CheckedDocument) -> list[Flag]:
    """QTR001 over a document's quarterly tables.

    Args:
        doc: The document: its facts whose scale is known, the taxonomy (each metric's unit and sign
            convention), and the log where each line's sum is recorded, for the localization.

    Returns:
        One flag per line whose quarters do not add up to its year.
    """
    facts, taxonomy, log = doc.facts, doc.taxonomy, doc.relations
    years = _years(facts)
    tests: dict[str, list[tuple[KnownFact, list[KnownFact], Comparison, bool]]] = {}
    for (table_id, metric, year, basis, currency), quarters in _quarter_lines(facts, taxonomy).items():
        printed = years.get((metric, year, basis, currency), [])
        others = [f for f in printed if f.table_id != table_id]
        if sorted(quarters) != [1, 2, 3, 4] or any(len(q) != 1 for q in quarters.values()) or not others:
            continue
        four = [quarters[q][0] for q in (1, 2, 3, 4)]
        total = _year_of(others)
        definition = taxonomy.get(metric)
        magnitude = definition is not None and definition.magnitude_only
        # A cost printed in parentheses in one table and plain in the other: the year by its magnitude,
        # the quarters with their signs (a quarter keyed with the other sign still breaks the sum).
        value = abs(total.value) if magnitude else total.value
        parts = [(q.value, q.decimals) for q in four]
        result = compare_sum(value, total.decimals, parts)
        if magnitude and not result.ok:
            result = min(result, compare_sum(-value, total.decimals, parts), key=lambda c: abs(c.difference))
        tests.setdefault(table_id, []).append((total, four, result, magnitude))
    flags: list[Flag] = []
    for lines in tests.values():
        held = sum(1 for *_, r, _ in lines if r.ok)
        failing = [line for line in lines if not line[2].ok]
        proven = held >= _MIN_LINES and len(failing) * 3 <= len(lines)
        for total, four, result, magnitude in lines:
            flag = _flag(doc, total, four, result, held) if proven and not result.ok else None
            if flag is not None:
                flags.append(flag)
            if proven or result.ok:
                terms = (
                    _term(total, 1.0, magnitude=magnitude, used=result.actual),
                    *(_term(q, -1.0) for q in four),
                )
                name = f"{RULE.id} {total.label} {period_text(total.period)} (page {four[0].page})"
                log.add(
                    Equation(
                        RULE.id,
                        terms,
                        result.tolerance,
                        result.ok,
                        RULE.requires,
                        name,
                        flag.flag_id if flag else None,
                    )
                )
    return flags


def _flag(doc: Located, total: KnownFact, four: Sequence[KnownFact], result: Comparison, held: int) -> Flag:
    scale = total.scale
    places = printed_decimals(min(f.decimals for f in (total, *four)), scale)
    difference, tolerance = (
        fmt_small(abs(result.difference), scale, places),
        fmt_small(result.tolerance, scale, places),
    )
    message = (
        f"{total.label}: the four quarters of {period_text(total.period)} on page {four[0].page} add up to "
        f"{fmt_amount(result.expected, scale, places)} but the year is {total.printed} on page {total.page} "
        f"(difference {difference}, tolerance {tolerance}{scale_note(scale)})."
    )
    evidence = [*(printed_evidence(f, "component") for f in four), printed_evidence(total, "total")]
    return RULE.flag(
        doc,
        message=message,
        evidence=evidence,
        metric=total.metric,
        period=total.period,
        comparison=result,
        confidence=min(0.9, 0.6 + 0.05 * held),
        reasons=[
            f"{held} other line(s) of the quarterly table add up to their years",
            f"basis {total.basis}",
        ],
        proof=f"{held} other line(s) of the same table add up, quarter by quarter, to their years",
    )
