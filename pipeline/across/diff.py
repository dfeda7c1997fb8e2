"""The figures of two drafts, matched: what was added, removed and changed, and which ties broke or held.

Drafts reflow, so a figure is never matched by its page: it is the figure of one statement (its kind and
title), one line (its label, normalised as the taxonomy normalises labels) and one column (its period,
basis and dimension). Statements of the same kind and title are paired by the lines they have in common
(:func:`_pair_statements`); where a line or a column is printed twice under the same name in one
statement, the n-th of them in the earlier draft is matched with the n-th in the later.

Only figures of statements are compared; figures quoted in the narrative are left out (a sentence that is
reworded or moves has no key as stable as a statement's line and column).

The ties are the relations TOT001 and TOT002 evaluate (:func:`pipeline.checks.sums.check_tree`, run on
each draft as the checks run it): a total line in one column, keyed like a figure. A relation that held in
the earlier draft and fails in the later one is a VER001 flag in the later draft; one that failed and now
holds is reported as repaired. A total that changed with its components still holds: a change, no flag.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pipeline.checks.localize import Equation, FigureKey, RelationLog, Term, figure_key
from pipeline.checks.rule import DocRef
from pipeline.checks.sums import check_tree
from pipeline.checks.tolerance import fmt_amount, fmt_small, period_text
from pipeline.checks.versions import RULE
from pipeline.figures.rounding import Comparison
from pipeline.figures.taxonomy import normalise_label
from pipeline.statements.build import with_tables
from pipeline.statements.columns import statement_rows
from schemas.models import (
    Cell,
    DocumentChanges,
    DocumentResult,
    Evidence,
    FigureChange,
    FigurePlace,
    Flag,
    Period,
    Statement,
    Table,
    TieChange,
)

__all__ = ["diff_documents"]

Key = tuple[object, ...]
"""Statement, line and column keys, as matched across drafts (never a page)."""


@dataclass(frozen=True, slots=True)
class _Printed:
    """One statement figure of a draft."""

    key: Key
    place: FigurePlace
    cell: Cell


@dataclass(frozen=True, slots=True)
class _Tie:
    """One relation of a draft as the checks evaluated it."""

    key: Key
    place: FigurePlace
    equation: Equation
    period: Period | None
    metric: str | None
    scale: int  # of the total's figures as the relation holds them, and its printed places, for messages
    places: int


@dataclass(frozen=True, slots=True)
class _Draft:
    """What the diff reads of one draft: its statement figures and its relations, by key."""

    figures: dict[Key, _Printed]
    ties: dict[Key, _Tie]


def _numbered(names: Sequence[object]) -> list[Key]:
    """Each name with its occurrence among equal names before it: the n-th of a name matches the n-th."""
    seen: Counter[object] = Counter()
    out: list[Key] = []
    for name in names:
        out.append((name, seen[name]))
        seen[name] += 1
    return out


@dataclass(frozen=True, slots=True)
class _Sheet:
    """One statement of a draft: its name, its lines' labels, its figures and relations."""

    name: tuple[str, str]  # kind, normalised title
    labels: frozenset[object]
    figures: dict[Key, _Printed]  # (statement index, line key, column key)
    ties: dict[Key, _Tie]  # (statement index, rule, line key, column key, n-th)


def _read(result: DocumentResult) -> list[_Sheet]:
    """The statements of one draft, each with its figures and relations keyed by line and column."""
    sheets: list[_Sheet] = []
    for i, (statement, table) in enumerate(with_tables(result.statements, result.tables)):
        figures: dict[Key, _Printed] = {}
        ties: dict[Key, _Tie] = {}
        _read_statement(statement, table, i, figures, ties)
        name = (statement.kind, normalise_label(statement.title or ""))
        sheets.append(_Sheet(name, frozenset(_label_of(k) for k in figures), figures, ties))
    return sheets


def _pair_statements(old: Sequence[_Sheet], new: Sequence[_Sheet]) -> dict[int, int]:
    """Which statement of the later draft is which of the earlier one.

    Of the same kind and title, the two with the most line labels in common, then the nearest in order
    among their namesakes: a table inserted or dropped before them does not shift the others. A statement
    left without a partner then takes one of the same kind whose title was read differently (the heading
    above a table is reworded from one year to the next) when most of the smaller one's lines, three at
    least, are in both.
    """

    def ranks(sheets: Sequence[_Sheet]) -> list[int]:
        seen: Counter[tuple[str, str]] = Counter()
        out = []
        for sheet in sheets:
            out.append(seen[sheet.name])
            seen[sheet.name] += 1
        return out

    r_old, r_new = ranks(old), ranks(new)
    by_name: dict[tuple[str, str], list[int]] = {}
    for j, b in enumerate(new):
        by_name.setdefault(b.name, []).append(j)
    candidates = sorted(
        (-len(a.labels & new[j].labels), abs(r_old[i] - r_new[j]), i, j)
        for i, a in enumerate(old)
        for j in by_name.get(a.name, [])
    )
    pairs: dict[int, int] = {}
    used: set[int] = set()
    for common, _, i, j in candidates:
        if common < 0 and i not in pairs and j not in used:
            pairs[i] = j
            used.add(j)
    retitled = sorted(
        (-len(a.labels & b.labels), i, j)
        for i, a in enumerate(old)
        if i not in pairs
        for j, b in enumerate(new)
        if j not in used and a.name[0] == b.name[0]
    )
    for common, i, j in retitled:
        smaller = min(len(old[i].labels), len(new[j].labels))
        if -common >= max(3, smaller / 2) and i not in pairs and j not in used:
            pairs[i] = j
            used.add(j)
    return pairs


def _drafts(old: Sequence[_Sheet], new: Sequence[_Sheet]) -> tuple[_Draft, _Draft]:
    """Both drafts' figures and relations, a paired statement keyed alike in both."""
    partner = {j: i for i, j in _pair_statements(old, new).items()}

    def keyed(sheets: Sequence[_Sheet], sid: Callable[[int], object]) -> _Draft:
        figures = {
            (sid(i), *k[1:]): replace(f, key=(sid(i), *k[1:]))
            for i, sheet in enumerate(sheets)
            for k, f in sheet.figures.items()
        }
        ties = {(sid(i), *k[1:]): t for i, sheet in enumerate(sheets) for k, t in sheet.ties.items()}
        return _Draft(figures, ties)

    return keyed(old, lambda i: i), keyed(new, lambda j: partner.get(j, ("new", j)))


def _read_statement(
    statement: Statement,
    table: Table,
    skey: object,
    figures: dict[Key, _Printed],
    ties: dict[Key, _Tie],
) -> None:
    rows = {r.index: r for r in statement_rows(table)}
    lines = sorted(statement.lines, key=lambda x: x.row)
    line_keys = dict(
        zip([x.row for x in lines], _numbered([normalise_label(x.label) for x in lines]), strict=True)
    )
    columns = {c.col: c for c in statement.columns}
    column_keys = dict(
        zip(
            columns,
            _numbered(
                [
                    (c.period.key if c.period else normalise_label(c.header), c.basis, c.context or "")
                    for c in columns.values()
                ]
            ),
            strict=True,
        )
    )

    def place(row: int, col: int) -> FigurePlace:
        column = columns[col]
        return FigurePlace(
            statement=statement.kind,
            title=statement.title,
            line=next(x.label for x in lines if x.row == row),
            column=column.header,
            period=column.period.key if column.period else None,
            basis=column.basis,
            context=column.context,
        )

    where: dict[FigureKey, tuple[int, int, Cell]] = {}
    for line in lines:
        view = rows.get(line.row)
        if view is None:
            continue
        for col, cell in view.numbers.items():
            where[figure_key(cell.page, cell.bbox, cell.text)] = (line.row, col, cell)
            if col in columns and cell.number is not None:
                fkey: Key = (skey, line_keys[line.row], column_keys[col])
                figures[fkey] = _Printed(fkey, place(line.row, col), cell)
    log = RelationLog()
    check_tree(table, statement, log)
    metrics = {x.row: x.metric for x in lines}
    seen: Counter[Key] = Counter()
    for equation in log.equations:
        total = equation.terms[0]  # a relation's first term is its total
        at = where.get(total.key)
        if at is None or at[1] not in columns:
            continue
        row, col, cell = at
        base = (skey, equation.rule, line_keys[row], column_keys[col])
        tkey: Key = (*base, seen[base])
        seen[base] += 1
        n = cell.number
        # The relation holds base units when the table's scale is known, the figures as printed if not.
        scale = (n.scale or 0) if n is not None and n.base_value == total.value else 0
        places = n.places if n is not None else 0
        ties[tkey] = _Tie(
            tkey, place(row, col), equation, columns[col].period, metrics.get(row), scale, places
        )


def _same(a: Cell, b: Cell) -> bool:
    """The same figure printed: value with its sign, scale and nil-ness (spacing and markers aside)."""
    x, y = a.number, b.number
    assert x is not None and y is not None
    return (x.value, x.scale, x.is_dash, x.unit) == (y.value, y.scale, y.is_dash, y.unit)


def _evidence(cell: Cell, role: str) -> Evidence:
    number = cell.number
    return Evidence(
        page=cell.page,
        bbox=cell.bbox,
        text=cell.text,
        role=role,
        value=number.base_value if number is not None else None,
    )


def _term_evidence(term: Term, role: str) -> Evidence:
    return Evidence(
        page=term.page, bbox=term.bbox, text=f"{term.label}: {term.text}", role=role, value=term.value
    )


def _label_of(key: Key) -> str:
    """The normalised label of a figure's line (its key's line part: label, occurrence)."""
    line = key[1]
    assert isinstance(line, tuple)
    return str(line[0])


def _partners(old: _Draft, new: _Draft) -> dict[Key, Key]:
    """Each figure of the earlier draft → its partner in the later one, by statement, line and column.

    Where a line's label was read with the heading above it in one draft only ("Non-current liabilities
    Borrowings" at the top of a continued page), its figures keep no key in common; such a figure is
    paired with one of the same statement and column, printed alike, whose label is the other's without
    the words before it. A figure that also changed stays a removal and an addition: never a silent match.
    """
    partners = {k: k for k in old.figures if k in new.figures}
    taken = set(partners.values())
    spare: dict[Key, list[_Printed]] = {}
    for key, now in new.figures.items():
        if key not in taken:
            spare.setdefault((key[0], key[2]), []).append(now)
    for key, was in old.figures.items():
        if key in partners:
            continue
        label = _label_of(key)
        candidates = spare.get((key[0], key[2]), [])
        for now in candidates:
            other = _label_of(now.key)
            glued = label.endswith(f" {other}") or other.endswith(f" {label}")
            if glued and _same(was.cell, now.cell):
                partners[key] = now.key
                candidates.remove(now)
                break
    return partners


def _changes(old: _Draft, new: _Draft, partners: dict[Key, Key]) -> Iterator[FigureChange]:
    for key, was in old.figures.items():
        now = new.figures[partners[key]] if key in partners else None
        if now is None:
            yield FigureChange(kind="removed", place=was.place, old=_evidence(was.cell, "old"))
        elif not _same(was.cell, now.cell):
            yield FigureChange(
                kind="changed",
                place=now.place,
                old=_evidence(was.cell, "old"),
                new=_evidence(now.cell, "new"),
            )
    paired = set(partners.values())
    for key, now in new.figures.items():
        if key not in paired:
            yield FigureChange(kind="added", place=now.place, new=_evidence(now.cell, "new"))


TieStatus = Literal["held", "broke", "repaired", "still_broken", "old_only", "new_only"]


def _status(before: bool | None, after: bool | None) -> TieStatus:
    if before is None:
        return "new_only"
    if after is None:
        return "old_only"
    if before and after:
        return "held"
    if before or after:
        return "broke" if before else "repaired"
    return "still_broken"


def _comparison(equation: Equation) -> Comparison:
    """Printed total against what its other terms give, from the relation as the rule evaluated it."""
    total, *rest = equation.terms
    expected = -sum(t.coef * t.used for t in rest) / total.coef
    return Comparison(False, expected, total.used, total.used - expected, equation.tolerance)


def _flag(
    old: DocumentResult, new: DocumentResult, tie: _Tie, before: _Tie, moved: Sequence[FigureChange]
) -> Flag:
    """VER001 on a relation that held in the earlier draft and fails in this one.

    The earlier draft's printings are cited with its ``source``: a page of another document, which the
    console shows beside this one's rather than on it.
    """
    eq, c = tie.equation, _comparison(tie.equation)
    name = f"{tie.place.line or 'Unlabelled total'} {period_text(tie.period) or tie.place.column}".strip()
    what = "; ".join(
        f"{ch.place.line} {ch.old.text if ch.old else 'absent'} → {ch.new.text if ch.new else 'absent'}"
        for ch in moved
    )
    scale, places = tie.scale, tie.places
    message = (
        f"{name}: held in the previous draft, fails in this one: printed {eq.terms[0].text} but its "
        f"{'lines' if eq.rule != 'TOT002' else 'columns'} add up to {fmt_amount(c.expected, scale, places)} "
        f"(difference {fmt_small(abs(c.difference), scale, places)}, "
        f"tolerance {fmt_small(c.tolerance, scale, places)})"
        + (
            f"; changed since: {what}."
            if what
            else "; no figure of it changed (its structure was read anew)."
        )
    )
    evidence = [_term_evidence(t, "total" if i == 0 else "component") for i, t in enumerate(eq.terms)]
    evidence += [
        Evidence(
            page=ch.old.page,
            bbox=ch.old.bbox,
            text=f"{ch.place.line}: {ch.old.text}",
            role="previous draft",
            source=old.source,
        )
        for ch in moved
        if ch.old is not None
    ]
    flag = RULE.flag(
        DocRef(new.doc_id, new.source),
        message=message,
        evidence=evidence,
        metric=tie.metric,
        period=tie.period,
        comparison=c,
        confidence=0.9,
        reasons=[
            f"the same relation held in the previous draft ({before.equation.name})",
            f"{tie.place.statement.replace('_', ' ')} table, evaluated by {eq.rule}",
        ],
    )
    # The earlier draft's pages are not pages of this document: its printings are evidence, not places.
    return flag.model_copy(update={"pages": sorted({t.page for t in eq.terms})})


def _positions(changes: Sequence[FigureChange], side: Literal["old", "new"]) -> dict[FigureKey, int]:
    """Each change's printing on one side (its page, box and text) → its index among the changes."""
    out: dict[FigureKey, int] = {}
    for i, ch in enumerate(changes):
        ev = ch.old if side == "old" else ch.new
        if ev is not None:
            out[figure_key(ev.page, ev.bbox, ev.text)] = i
    return out


def _terms_changed(
    before: _Tie | None, at_old: dict[FigureKey, int], after: _Tie | None, at_new: dict[FigureKey, int]
) -> list[int]:
    """The changes among a relation's figures in either draft, as indices of the changes, in order."""
    found = {at_old[t.key] for t in (before.equation.terms if before else ()) if t.key in at_old}
    found |= {at_new[t.key] for t in (after.equation.terms if after else ()) if t.key in at_new}
    return sorted(found)


def _renamed(ties: dict[Key, _Tie], partners: dict[Key, Key]) -> dict[Key, _Tie]:
    """The earlier draft's relations keyed by the later draft's line keys where a line was paired by label."""
    lines = {(k[0], k[1]): p[1] for k, p in partners.items() if k != p}
    out: dict[Key, _Tie] = {}
    for key, tie in ties.items():
        statement, rule, line, *rest = key
        out[(statement, rule, lines.get((statement, line), line), *rest)] = tie
    return out


def diff_documents(old: DocumentResult, new: DocumentResult) -> DocumentChanges:
    """What changed from one draft of a document to the next.

    Args:
        old: The earlier draft, as the engine read it (with its statements and tables).
        new: The later draft.

    Returns:
        The figures added, removed and changed (both printings, pages and boxes), how many of the earlier
        draft's statement figures found a partner, every relation of TOT001/TOT002 with whether it held
        before and after, and a VER001 flag (in the later draft) for each relation the changes broke; a
        broken relation that shares a changed figure with one already flagged points at that flag.
    """
    a, b = _drafts(_read(old), _read(new))
    partners = _partners(a, b)
    changes = list(_changes(a, b, partners))
    old_ties = _renamed(a.ties, partners)
    by_new_cell = {
        figure_key(ch.new.page, ch.new.bbox, ch.new.text): ch for ch in changes if ch.new is not None
    }
    at_old, at_new = _positions(changes, "old"), _positions(changes, "new")
    ties: list[TieChange] = []
    flags: list[Flag] = []
    flagged: dict[FigureKey, str] = {}  # a changed figure → the flag of the first relation it broke
    for key in [*old_ties, *(k for k in b.ties if k not in old_ties)]:
        before, after = old_ties.get(key), b.ties.get(key)
        status = _status(before.equation.holds if before else None, after.equation.holds if after else None)
        flag_id = None
        if status == "broke" and before is not None and after is not None:
            moved = [by_new_cell[t.key] for t in after.equation.terms if t.key in by_new_cell]
            flag_id = next(
                (flagged[ch_key] for t in after.equation.terms if (ch_key := t.key) in flagged), None
            )
            if flag_id is None:
                flag = _flag(old, new, after, before, moved)
                flags.append(flag)
                flag_id = flag.flag_id
                flagged.update(
                    dict.fromkeys((t.key for t in after.equation.terms if t.key in by_new_cell), flag_id)
                )
        tie = after or before
        assert tie is not None
        ties.append(
            TieChange(
                rule=tie.equation.rule,
                place=tie.place,
                held_before=before.equation.holds if before else None,
                held_after=after.equation.holds if after else None,
                status=status,
                flag_id=flag_id,
                changed=_terms_changed(before, at_old, after, at_new),
            )
        )
    matched = len(partners)
    return DocumentChanges(
        old_doc_id=old.doc_id,
        old_source=old.source,
        new_doc_id=new.doc_id,
        new_source=new.source,
        old_figures=len(a.figures),
        new_figures=len(b.figures),
        matched=matched,
        matched_share=matched / len(a.figures) if a.figures else 0.0,
        changes=changes,
        ties=ties,
        flags=flags,
    )
