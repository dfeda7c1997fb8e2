"""XREF001 and XST001: a figure printed in several places must agree.

Every copy of a figure is collected: the facts (a taxonomy metric: "Net income" on the income statement,
the cash-flow statement's first line, the selected financial data) and every other labelled line of the
statements and notes ("Accrued payroll" on the balance sheet and in its note). Copies are grouped by what
they are — the metric, or the line's label when it names no metric — and by period, unit, currency, basis
(as reported, restated, pro forma, …) and reporting entity. Segment and dimension figures (a ``context``)
are left out. Within a group, copies that agree within rounding form a cluster; a group of exactly two
clusters printed in different tables is a disagreement.

A disagreement is flagged when the two copies are proven to be the same figure and the comparison is
anchored: the two tables agree elsewhere, so they are copies of the same thing on the same basis and at
the stated scales —

* the same two lines agree in another period (which also settles their sign convention and scale), or
* the two tables agree on another line;

a fact of a taxonomy metric needs no anchor for a digit slip. When the difference is how a keying error
looks (:func:`.tolerance.keying_relation`: two digits swapped, one digit wrong, one dropped or doubled, the
sign flipped, a power of a thousand) either anchor will do. Any other difference — a highlights page not
updated after a late adjustment, the classic tie-out failure, as much as two concepts sharing a label — is
flagged only on the stronger proof, the same two lines agreeing in another period, on different pages,
and never against a printed zero (a dash that means *not applicable*). :mod:`.localize` then says which
copy is wrong, when the document's other relations tell. Two tables that disagree on several lines and agree
on fewer are statements of different entities or bases: nothing between them is flagged.

A line printed on the cash-flow statement and on the statement of changes in equity is two measures — the
cash paid and the movement booked — that agree only while nothing is outstanding: between those two
statements only net income is one figure (:func:`one_measure`).

When the two copies sit in two different primary statements (net income on the income statement and the
cash-flow statement, cash on the balance sheet and at the end of the cash-flow statement, total equity on
the balance sheet and the statement of changes in equity), the finding is a broken identity between
statements: rule XST001.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.checks.localize import Equation, RelationLog, Term, base_term, connected
from pipeline.checks.rule import DocRef, Rule, printed_evidence
from pipeline.checks.tolerance import (
    Comparison,
    KnownFact,
    Relation,
    compare_values,
    fmt_small,
    keying_relation,
    period_text,
    printed_decimals,
    scale_note,
)
from pipeline.figures.facts import OTHER_FIGURES, PRIMARY_STATEMENTS, row_contexts, table_context
from pipeline.figures.taxonomy import Taxonomy, normalise_label
from pipeline.statements.build import with_tables
from pipeline.statements.columns import statement_rows
from pipeline.statements.labels import clean_label
from schemas.models import BBox, Flag, Period, Statement, StatementKind, Table

__all__ = [
    "PRIMARY",
    "RULE",
    "STATEMENT_RULE",
    "Copy",
    "GroupKey",
    "check_crossref",
    "cluster",
    "collect_copies",
    "group_copies",
    "line_key",
    "one_measure",
    "split_currencies",
]

RULE = Rule(
    "XREF001",
    "cross_reference_mismatch",
    "warning",
    "The same metric or line, period and basis printed in different tables agree.",
    (
        "the same metric or line, period, basis and entity in two tables that agree on another period of "
        "the same lines (or on another line, for a keying-error difference)"
    ),
)
STATEMENT_RULE = Rule(
    "XST001",
    "cross_reference_mismatch",
    "error",
    "The identities between the primary statements hold (net income, cash, equity).",
    "the same metric, period and basis on two primary statements that agree elsewhere",
)

PRIMARY: frozenset[StatementKind] = PRIMARY_STATEMENTS
_STATEMENT_NAMES: dict[str, str] = {
    "income": "income statement",
    "comprehensive_income": "statement of comprehensive income",
    "balance_sheet": "balance sheet",
    "cash_flow": "cash-flow statement",
    "equity": "statement of changes in equity",
}


@dataclass(frozen=True, slots=True)
class Copy:
    """One printed copy of a figure, with what makes two copies comparable.

    Attributes:
        key: The metric id, or ``line:`` and the normalised label of a line that names no metric.
        metric: The metric id when the key is one.
        label: The label as printed, cleaned.
        period: The period of its column (or the fact's, for metric copies).
        value: Base units.
        decimals: Precision in base units.
        scale: The scale it is printed in.
        magnitude_only: Compared by magnitude (costs printed with either sign).
    """

    key: str
    metric: str | None
    label: str
    period: Period
    unit: str
    currency: str | None
    basis: str
    entity: str | None
    statement: StatementKind | None
    value: float
    decimals: int
    scale: int
    table_id: str
    row: int
    col: int
    page: int
    bbox: BBox | None
    printed: str
    magnitude_only: bool

    @property
    def comparable(self) -> float:
        """The value as compared: its magnitude for sign-free metrics."""
        return abs(self.value) if self.magnitude_only else self.value

    @property
    def cell(self) -> tuple[str, int, int]:
        """Where it is printed."""
        return (self.table_id, self.row, self.col)


# Labels too generic to name a line across tables ("Total", "Other", "Balance at December 31, 2022").
_GENERIC = frozenset(
    {
        "total",
        "totals",
        "subtotal",
        "other",
        "others",
        "net",
        "all other",
        "other net",
        "total other",
        "other total",
        "other items",
        "other assets",
        "other liabilities",
        "other income",
        "other expense",
        "eliminations",
        "adjustments",
        "consolidated",
        "corporate",
        "unallocated",
        "corporate and other",
        "current",
        "noncurrent",
        "non current",
        "long term",
        "short term",
        "thereafter",
        "amount",
        "amounts",
    }
)
_NOT_A_LINE = re.compile(
    r"\b(?:balances?|beginning|ending|opening|closing|end of|as of|as at|at december|at june|at march|"
    r"at september|years? ended|months ended|quarter|fiscal|q[1-4]|19\d\d|20\d\d)\b"
)


def line_key(label: str) -> str | None:
    """The key a line that names no metric is compared under, or None when its label is too generic."""
    text = normalise_label(clean_label(label))
    if not text or text in _GENERIC or len(text) < 6 or len(text.split()) < 2:
        return None
    if _NOT_A_LINE.search(text) or not re.search(r"[a-z]{3}", text):
        return None
    return f"line:{text}"


def _fact_copies(
    facts: Sequence[KnownFact], taxonomy: Taxonomy, entities: Mapping[str, str | None]
) -> list[Copy]:
    out: list[Copy] = []
    for f in facts:
        if (
            f.origin != "table_cell"
            or f.context not in (None, OTHER_FIGURES)
            or f.period is None
            or f.period.kind == "unknown"
        ):
            continue
        if f.table_id is None or f.row is None or f.col is None:
            continue
        metric = taxonomy.get(f.metric)
        # A breakdown of another measure by statement line ("Cost of sales 47" of share-based pay) is
        # compared with its own other printings, as a line is, never with the statements' figure.
        other = f.context == OTHER_FIGURES
        out.append(
            Copy(
                key=f"{f.metric}|{OTHER_FIGURES}" if other else f.metric,
                metric=None if other else f.metric,
                label=clean_label(f.label),
                period=f.period,
                unit=f.unit,
                currency=f.currency,
                basis=f.basis,
                entity=entities.get(f.table_id),
                statement=f.statement,
                value=f.value,
                decimals=f.decimals,
                scale=f.scale,
                table_id=f.table_id,
                row=f.row,
                col=f.col,
                page=f.page,
                bbox=f.bbox,
                printed=f.printed,
                magnitude_only=metric.magnitude_only if metric else False,
            )
        )
    return out


def _line_copies(table: Table, statement: Statement, taxonomy: Taxonomy) -> list[Copy]:
    """Copies of the table's lines that name no taxonomy metric, in its period columns."""
    columns = {c.col: c for c in statement.columns if c.period is not None and c.period.kind != "unknown"}
    if not columns:
        return []
    rows = statement_rows(table)
    contexts = row_contexts(rows, taxonomy)
    if table_context(table) is not None:
        return []
    out: list[Copy] = []
    for row in rows:
        if contexts.get(row.index) is not None or not row.numbers or taxonomy.match(row.label) is not None:
            continue
        key = line_key(row.label)
        if key is None:
            continue
        for col, cell in row.numbers.items():
            column = columns.get(col)
            n = cell.number
            if column is None or column.period is None or n is None:
                continue
            if n.base_value is None or n.decimals is None or n.scale is None or n.is_dash:
                continue
            if n.unit in ("percent", "ratio"):
                continue
            # A plan's or a segment's column (its head's dimension) is compared only with the same one's.
            dimension = column.context
            out.append(
                Copy(
                    key=key if dimension is None else f"{key}|{dimension}",
                    metric=None,
                    label=clean_label(row.label),
                    period=column.period,
                    unit=n.unit,
                    currency=n.currency,
                    basis=column.basis,
                    entity=statement.entity,
                    statement=statement.kind,
                    value=n.base_value,
                    decimals=n.decimals,
                    scale=n.scale,
                    table_id=table.table_id,
                    row=row.index,
                    col=col,
                    page=cell.page,
                    bbox=cell.bbox,
                    printed=n.text or cell.text,
                    magnitude_only=False,
                )
            )
    return out


def collect_copies(
    facts: Sequence[KnownFact],
    tables: Sequence[Table],
    statements: Sequence[Statement],
    taxonomy: Taxonomy,
) -> list[Copy]:
    """Every comparable copy of every figure of a document (facts, then other labelled lines)."""
    entities = {s.table_id: s.entity for s in statements}
    copies = _fact_copies(facts, taxonomy, entities)
    for statement, table in with_tables(statements, tables):
        copies.extend(_line_copies(table, statement, taxonomy))
    return copies


GroupKey = tuple[str, str, str, str | None, str, str | None]
"""(key, period key, unit, currency, basis, entity)."""


def group_copies(copies: Iterable[Copy], *, repeated: bool = False) -> dict[GroupKey, list[Copy]]:
    """Copies grouped by what they are; only groups printed in at least two tables.

    ``repeated``: also the groups printed in one table only, on two lines of it.
    """
    copies = list(copies)
    several_entities = len({c.entity for c in copies if c.entity}) > 1
    groups: dict[GroupKey, list[Copy]] = {}
    for c in copies:
        unit = "money" if c.unit in ("currency", "number") else c.unit
        entity = c.entity if several_entities else None
        groups.setdefault((c.key, c.period.key, unit, c.currency, c.basis, entity), []).append(c)
    out: dict[GroupKey, list[Copy]] = {}
    for k, v in groups.items():
        # A fact and the line copy of the same cell are one copy.
        unique = list({c.cell: c for c in v}.values())
        if len({c.table_id for c in unique}) >= 2 or (repeated and len({c.row for c in unique}) >= 2):
            out[k] = unique
    return out


def split_currencies(copies: Sequence[Copy]) -> list[list[Copy]]:
    """Split a group by currency; a copy without a currency joins the group only if there is one."""
    known = {c.currency for c in copies if c.currency}
    if len(known) <= 1:
        return [list(copies)]
    return [[c for c in copies if c.currency == cur] for cur in sorted(known)]


def cluster(copies: Sequence[Copy]) -> list[list[Copy]] | None:
    """Cluster copies whose figures agree within rounding.

    Returns:
        Clusters, largest first; None when agreement is not transitive (a copy agrees with two clusters),
        which only happens with coarse roundings and is too ambiguous to flag.
    """
    clusters: list[list[Copy]] = []
    for c in sorted(copies, key=lambda x: -x.decimals):
        homes = [
            k
            for k in clusters
            if all(compare_values(c.comparable, c.decimals, o.comparable, o.decimals).ok for o in k)
        ]
        if len(homes) > 1:
            return None
        if homes:
            homes[0].append(c)
        else:
            clusters.append([c])
    return sorted(clusters, key=lambda k: (-len(k), min(x.page for x in k)))


_CASH_AND_BOOKED: frozenset[StatementKind | None] = frozenset({"cash_flow", "equity"})
_BOOKED_AS_PAID = frozenset({"net_income", "net_income_attributable_to_parent"})


def one_measure(a: Copy, b: Copy) -> bool:
    """Whether two copies of one line or metric measure one thing.

    The cash-flow statement counts the cash paid or received; the statement of changes in equity, the
    movement booked: shares bought back and not yet settled, the excise tax on them, dividends declared and
    not yet paid. A line of both ("Repurchases of common stock") is two figures that agree only while
    nothing is outstanding, so agreeing in another period proves nothing; the net income both start from
    is one figure.
    """
    if {a.statement, b.statement} != _CASH_AND_BOOKED:
        return True
    return a.metric is not None and a.metric == b.metric and a.metric in _BOOKED_AS_PAID


def _agree(a: Copy, b: Copy) -> bool:
    return compare_values(a.comparable, a.decimals, b.comparable, b.decimals).ok


@dataclass(slots=True)
class _Ledger:
    """How each pair of tables compares over all the lines and periods they share."""

    agree: dict[frozenset[str], int]
    disagree: dict[frozenset[str], int]
    cells: dict[tuple[str, int], dict[str, Copy]]  # (table, row) → period key → copy

    def _other_periods(self, a: Copy, b: Copy) -> Iterable[tuple[Copy, Copy]]:
        """The two lines' copies side by side in each other period both print."""
        theirs = self.cells.get((b.table_id, b.row), {})
        for p, ca in self.cells.get((a.table_id, a.row), {}).items():
            if p != a.period.key and (cb := theirs.get(p)) is not None:
                yield ca, cb

    def anchored_rows(self, a: Copy, b: Copy) -> bool:
        """The same two lines agree, signed, in another period."""
        return any(
            compare_values(ca.value, ca.decimals, cb.value, cb.decimals).ok
            for ca, cb in self._other_periods(a, b)
        )

    def anchored_figure(self, a: Copy, b: Copy) -> bool:
        """The same two lines agree, signed, in another period on a figure of three digits or more."""
        return any(
            abs(ca.value) >= 100.0 * 10.0**ca.scale
            and compare_values(ca.value, ca.decimals, cb.value, cb.decimals).ok
            for ca, cb in self._other_periods(a, b)
        )

    def contradicted_rows(self, a: Copy, b: Copy) -> bool:
        """The same two lines disagree in another period too: two concepts that share a label."""
        return any(
            not compare_values(ca.comparable, ca.decimals, cb.comparable, cb.decimals).ok
            for ca, cb in self._other_periods(a, b)
        )

    def anchored_tables(self, a: Copy, b: Copy) -> bool:
        """The two tables agree on another line or period."""
        pair = frozenset((a.table_id, b.table_id))
        return self.agree.get(pair, 0) >= 1

    def unrelated(self, a: Copy, b: Copy) -> bool:
        """The two tables disagree on several lines and agree on fewer: different entities or bases."""
        pair = frozenset((a.table_id, b.table_id))
        n = self.disagree.get(pair, 0)
        return n >= 2 and self.agree.get(pair, 0) < n


def _ledger(groups: Mapping[GroupKey, list[Copy]]) -> _Ledger:
    agree: dict[frozenset[str], int] = {}
    disagree: dict[frozenset[str], int] = {}
    cells: dict[tuple[str, int], dict[str, Copy]] = {}
    for copies in groups.values():
        first: dict[str, Copy] = {}
        for c in copies:
            first.setdefault(c.table_id, c)
            cells.setdefault((c.table_id, c.row), {})[c.period.key] = c
        per_table = sorted(first.items())
        for i, (ta, ca) in enumerate(per_table):
            for tb, cb in per_table[i + 1 :]:
                tally = agree if _agree(ca, cb) else disagree
                pair = frozenset((ta, tb))
                tally[pair] = tally.get(pair, 0) + 1
    return _Ledger(agree, disagree, cells)


def _representative(copies: Sequence[Copy]) -> Copy:
    """The most precise, earliest printed copy of a cluster."""
    return min(copies, key=lambda c: (-c.decimals, c.page, c.row))


def _worth_flagging(relation: Relation | None, a: Copy, b: Copy, ledger: _Ledger) -> tuple[bool, list[str]]:
    """Whether a disagreement is between two copies of one thing (proven), and why."""
    if ledger.contradicted_rows(a, b) or a.value == 0.0 or b.value == 0.0:
        return False, []
    rows = ledger.anchored_rows(a, b)
    tables = ledger.anchored_tables(a, b)
    reasons: list[str] = []
    if rows:
        reasons.append("the same two lines agree in another period")
    if tables:
        reasons.append("the two tables agree on other lines")
    if relation is None or relation == "near_miss":
        # No keying error looks like that: two concepts of one label (depreciation with and without
        # discontinued operations, a pension plan's assets beside another's) or a copy not updated. Only the
        # same two lines agreeing in another period prove they are one figure, and only across pages: a copy
        # left stale sits in another section (the highlights, a note), while two tables of one page that
        # share a label are two concepts side by side.
        ok = rows and a.page != b.page
    elif relation in ("sign", "scale"):
        # Only agreement in another period of the same lines settles sign convention and scale.
        ok = rows if relation == "sign" else rows or tables
    else:
        ok = rows or tables or (a.metric is not None and a.metric == b.metric)
        if ok and not reasons:
            reasons.append(f"the same metric ({a.metric}) and period")
    return ok, reasons


_RELATION_WORDS: dict[str, str] = {
    "swap": "two adjacent digits swapped",
    "digit": "one digit different",
    "digit_count": "a digit dropped or added",
    "sign": "the sign flipped",
    "scale": "a factor of a thousand",
    "near_miss": "a near miss",
    "other": "a difference no keying error explains (a copy not updated?)",
}


def _flag(
    doc_id: str,
    source: str,
    clusters: Sequence[Sequence[Copy]],
    relation: str,
    reasons: list[str],
    *,
    signed: bool = False,
) -> Flag:
    """The flag of two clusters of copies that disagree; ``signed``: compared with their signs."""
    main, other = _representative(clusters[0]), _representative(clusters[1])
    if len(clusters[0]) == len(clusters[1]):
        # No majority: report in reading order rather than pretending one side is right.
        main, other = sorted((main, other), key=lambda c: (c.page, c.row))
    mine, theirs = (main.value, other.value) if signed else (main.comparable, other.comparable)
    c = compare_values(theirs, other.decimals, mine, main.decimals)
    comparison = Comparison(False, mine, theirs, c.difference, c.tolerance)
    scale = main.scale
    places = printed_decimals(min(main.decimals, other.decimals), scale)
    main_pages = ", ".join(str(p) for p in sorted({x.page for x in clusters[0]}))
    other_pages = ", ".join(str(p) for p in sorted({x.page for x in clusters[1]}))
    kinds = {main.statement, other.statement}
    between_statements = len(kinds) == 2 and kinds <= PRIMARY
    where_main = _STATEMENT_NAMES.get(main.statement or "", "") if between_statements else ""
    where_other = _STATEMENT_NAMES.get(other.statement or "", "") if between_statements else ""
    message = (
        f"{main.label} {period_text(main.period)} is {main.printed} on page {main_pages}"
        f"{f' ({where_main})' if where_main else ''} but {other.printed} on page {other_pages}"
        f"{f' ({where_other})' if where_other else ''}: {_RELATION_WORDS[relation]} "
        f"(difference {fmt_small(abs(c.difference), scale, places)}, "
        f"tolerance {fmt_small(c.tolerance, scale, places)}{scale_note(scale)})."
    )
    evidence = [
        printed_evidence(x, "table" if i == 0 else "conflicting table")
        for i, group in enumerate(clusters[:2])
        for x in sorted(group, key=lambda x: (x.page, x.row))
    ]
    if relation == "other":
        confidence = 0.6  # no keying error looks like it: a stale copy, or two concepts after all
    elif len(reasons) >= 2:
        confidence = 0.9
    else:
        confidence = 0.8 if relation not in ("near_miss", "digit") else 0.7
    return (STATEMENT_RULE if between_statements else RULE).flag(
        DocRef(doc_id, source),
        message=message,
        evidence=evidence,
        metric=main.metric,
        period=main.period,
        comparison=comparison,
        confidence=confidence,
        reasons=[*reasons, f"basis {main.basis}", f"the figures differ by {_RELATION_WORDS[relation]}"],
        proof="; ".join(reasons) or "the same metric and period",
    )


def _term(c: Copy, coef: float, *, signed: bool = False) -> Term:
    where = (c.page, c.bbox, c.printed, c.label)
    return base_term((c.value, c.decimals, c.scale), coef, where, magnitude=c.magnitude_only and not signed)


def _copy_equation(
    a: Copy, b: Copy, holds: bool, proof: str, flag_id: str | None = None, *, signed: bool = False
) -> Equation:
    """``a - b == 0``: two copies of one figure (``signed``: a cost compared with its sign)."""
    tolerance = compare_values(a.comparable, a.decimals, b.comparable, b.decimals).tolerance
    name = f"{RULE.id} {a.label} {period_text(a.period)} (pages {a.page} and {b.page})"
    terms = (_term(a, 1.0, signed=signed), _term(b, -1.0, signed=signed))
    return Equation(RULE.id, terms, tolerance, holds, proof, name, flag_id)


def check_crossref(
    facts: Sequence[KnownFact],
    tables: Sequence[Table],
    statements: Sequence[Statement],
    taxonomy: Taxonomy,
    *,
    doc_id: str,
    source: str,
    relations: RelationLog | None = None,
) -> list[Flag]:
    """XREF001/XST001: copies of one figure that disagree the way keying errors do.

    Args:
        facts: Facts of one document whose scale is known (text facts are left to NAR001).
        tables: The document's tables.
        statements: Their calculation trees (kind, basis, entity of each table).
        taxonomy: For each metric's sign convention.
        doc_id: Document id.
        source: Source path.
        relations: Where the copies that agree (and the pairs flagged) are recorded, for the localization.

    Returns:
        One flag per disagreeing group.
    """
    log = relations if relations is not None else RelationLog()
    groups = group_copies(collect_copies(facts, tables, statements, taxonomy), repeated=True)
    ledger = _ledger(groups)
    flags: list[Flag] = []
    for _, group in sorted(groups.items(), key=lambda kv: kv[0][:2]):
        for part in split_currencies(group):
            clusters = cluster(part)
            if clusters is None:
                continue
            one_table = len({c.table_id for c in part}) == 1
            for k in [] if one_table else clusters:  # copies that agree: each pins the others
                head = _representative(k)
                for other in k:
                    if other.cell != head.cell and one_measure(head, other):
                        log.add(_copy_equation(head, other, True, "the same figure printed twice, agreeing"))
            for pos, neg in [] if one_table else _sign_slips(clusters, ledger):
                flag = _flag(
                    doc_id,
                    source,
                    [pos, neg],
                    "sign",
                    ["the same two lines agree, signed, in another period"],
                    signed=True,
                )
                flags.append(flag)
                a, b = _representative(pos), _representative(neg)
                log.add(_copy_equation(a, b, False, flag.proof or "", flag.flag_id, signed=True))
            if len(clusters) < 2:
                continue
            twins = one_table or not _two_sides(clusters)
            parts = _disagreeing(part, clusters, ledger, one_table=one_table, twins=twins)
            for sides in parts:
                a, b = _representative(sides[0]), _representative(sides[1])
                if ledger.unrelated(a, b) or not one_measure(a, b):
                    continue
                relation = keying_relation(a.comparable, a.decimals, b.comparable, b.decimals)
                if twins and relation in (None, "near_miss"):
                    # Told apart from its namesakes, a line proves less than a label of its own: only a
                    # keying error's difference counts.
                    continue
                ok, reasons = _worth_flagging(relation, a, b, ledger)
                if ok:
                    flag = _flag(doc_id, source, sides, relation or "other", reasons)
                    flags.append(flag)
                    log.add(_copy_equation(a, b, False, flag.proof or "", flag.flag_id))
    return flags


def _sign_slips(clusters: Sequence[Sequence[Copy]], ledger: _Ledger) -> list[tuple[list[Copy], list[Copy]]]:
    """Copies of a cost that agree in magnitude but not in sign, where the two tables print it alike.

    A cost is compared by magnitude, because tables print it with either sign; but two tables whose same
    lines agree, signed, in another period print it under one convention, and a copy in parentheses
    beside the other's plain figure is then a sign keyed wrong (a summary of the income statement that
    prints a year's research and development in parentheses, the statement and the other year plain).

    Returns:
        ``(majority, minority)`` pairs of copies.
    """
    out: list[tuple[list[Copy], list[Copy]]] = []
    for k in clusters:
        plus = [c for c in k if c.magnitude_only and c.value > 0]
        minus = [c for c in k if c.magnitude_only and c.value < 0]
        if not plus or not minus or {c.table_id for c in plus} & {c.table_id for c in minus}:
            continue
        a, b = _representative(plus), _representative(minus)
        if ledger.anchored_rows(a, b) and not ledger.unrelated(a, b) and one_measure(a, b):
            out.append((plus, minus) if len(plus) >= len(minus) else (minus, plus))
    return out


def _disagreeing(
    part: Sequence[Copy],
    clusters: Sequence[Sequence[Copy]],
    ledger: _Ledger,
    *,
    one_table: bool,
    twins: bool,
) -> list[Sequence[Sequence[Copy]]]:
    """The pairs of clusters of one group that are one figure and disagree, as two sides each."""
    if one_table:
        # One table's lines of one label: only a line printed twice, agreeing elsewhere, is one figure.
        return list(_repeated_lines(part, ledger))
    if twins:
        # Several concepts share the label ("Cost of revenues": the total, its stock-based compensation, its
        # amortization): the lines that are one figure are told apart by agreeing in the other periods, table
        # by table.
        found = [c for t in _twin_lines(part, ledger) if (c := cluster(t)) and _two_sides(c)]
        return [*found, *_repeated_lines(part, ledger)]
    return [clusters]


def _two_sides(clusters: Sequence[Sequence[Copy]]) -> bool:
    """Exactly two values, printed in different tables (one table printing both names two things)."""
    return len(clusters) == 2 and not {c.table_id for c in clusters[0]} & {c.table_id for c in clusters[1]}


def _twins(a: Copy, b: Copy, ledger: _Ledger) -> bool:
    """Whether two copies in different tables are twin lines: they agree in another period, differ in none."""
    return a.table_id != b.table_id and ledger.anchored_rows(a, b) and not ledger.contradicted_rows(a, b)


def _repeated_lines(copies: Sequence[Copy], ledger: _Ledger) -> list[list[list[Copy]]]:
    """Two lines of one table under one label that are one figure printed twice, and disagree here.

    A note prints the plan assets twice, once beside the accumulated and once beside the projected benefit
    obligation (Boeing's 10-Ks). One table naming two lines alike usually names two things ("Other" of the
    assets and of the liabilities), so the lines count as one figure only when they agree in another period
    on a figure of three digits or more and differ in no other.

    Returns:
        Each such pair as two one-copy clusters.
    """
    return [
        [[a], [b]]
        for i, a in enumerate(copies)
        for b in copies[i + 1 :]
        if a.table_id == b.table_id
        and a.row != b.row
        and a.label == b.label
        and not compare_values(a.comparable, a.decimals, b.comparable, b.decimals).ok
        and ledger.anchored_figure(a, b)
        and not ledger.contradicted_rows(a, b)
    ]


def _twin_lines(copies: Sequence[Copy], ledger: _Ledger) -> list[list[Copy]]:
    """The copies joined by twin lines: two tables' lines that agree in another period and differ in none.

    Returns:
        The connected sets of two copies or more (union-find over the twin pairs).
    """
    twins = (
        (i, j)
        for i, a in enumerate(copies)
        for j in range(i + 1, len(copies))
        if _twins(a, copies[j], ledger)
    )
    sets = [[copies[i] for i in group] for group in connected(len(copies), twins)]
    # A table with two copies in one set prints the line in two columns of one period (segments, plans):
    # which of them is the twin is not known.
    return [v for v in sets if len(v) >= 2 and len({c.table_id for c in v}) == len(v)]
