"""The statements stage: the calculation tree of every table, and the facts annotated with it.

:func:`build_statements` runs steps 1-4 of :mod:`pipeline.statements` on each table and returns one
:class:`~schemas.models.Statement` per table with at least one value column; :func:`annotate_facts` gives
every fact its statement, role, parent and basis.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from pipeline.figures.grid import RowView
from pipeline.figures.taxonomy import Taxonomy, normalise_label
from pipeline.ids import stable_id
from pipeline.parse.stitch import says_continued
from pipeline.statements.column_sums import column_sums
from pipeline.statements.columns import statement_columns, statement_rows
from pipeline.statements.kinds import classify, entity_of
from pipeline.statements.labels import clean_label
from pipeline.statements.structures import Grid, TreeNode, grid_of
from pipeline.statements.totals import build_tree
from pipeline.statements.twins import Printing, with_twins
from schemas.models import (
    ColumnSum,
    Fact,
    LineItem,
    LineRole,
    Statement,
    StatementColumn,
    StatementKind,
    Table,
)

__all__ = ["annotate_facts", "build_statements", "maybe_partial", "with_tables"]


def _lines(
    rows: Sequence[RowView],
    nodes: Sequence[TreeNode],
    grid: Grid,
    taxonomy: Taxonomy,
    lent: Mapping[int, int],
) -> list[LineItem]:
    """Each row with figures as a line of the statement: its role, parent, sign, metric and children.

    ``lent``: total row → the page of the twin printing that proved it (:mod:`.twins`).
    """
    parents: dict[int, tuple[int, int]] = {}
    totals: dict[int, TreeNode] = {}
    split: dict[int, TreeNode] = {}
    for node in nodes:
        (split if node.below else totals)[node.structure.total] = node
        for r, sign in node.structure.components:
            parents[r] = (node.structure.total, sign)
    out: list[LineItem] = []
    for row in rows:
        if row.index not in grid:
            continue
        parent = parents.get(row.index)
        role: LineRole = "item"
        if row.index in totals or row.index in split:
            role = "subtotal" if parent is not None else "total"
        metric = taxonomy.match(row.label) if row.label.strip() else None
        own = totals.get(row.index)
        parts = split.get(row.index)
        # model_construct: every field is the builder's own typed value (tests/test_statements.py validates
        # every line of the sample documents), and validating thousands of lines costs more than building.
        out.append(
            LineItem.model_construct(
                row=row.index,
                label=clean_label(row.label),
                page=row.page,
                role=role,
                parent=parent[0] if parent else None,
                sign=1 if parent is None or parent[1] > 0 else -1,
                metric=metric.id if metric else None,
                children=[r for r, _ in own.structure.components] if own else [],
                proven=own.proven if own else False,
                twin_page=lent.get(row.index) if own else None,
                rollforward=own.structure.rollforward if own else False,
                parts=[r for r, _ in parts.structure.components] if parts else [],
            )
        )
    return out


def maybe_partial(table: Table, heading: str = "") -> bool:
    """Whether a table may be the rest of one begun on the page before, which the reader did not join.

    It prints no column heads and no title, or says it is "continued" yet starts on its own page (the
    part before it, a line or two at the foot of a page, was read as no table). A table that a lead-in on
    its own page introduces (``heading``, the text above it there, ends with ":", as in "future payments
    were as follows (in millions):") begins there, heads or not.
    """
    lines = [line.strip() for line in heading.splitlines() if line.strip()]
    if lines and lines[-1].endswith(":"):
        return False
    if not table.header_rows and not table.title:
        return True
    heads = [c.text for c in table.cells if c.row < table.header_rows]
    return len(table.pages) == 1 and any(says_continued(t) for t in [table.title or "", *heads])


@dataclass(frozen=True, slots=True)
class _Draft:
    """A table's statement before its tree meets its twins' (:mod:`.twins`)."""

    table: Table
    heading: str
    rows: list[RowView]
    columns: list[StatementColumn]
    grid: Grid
    kind: StatementKind
    nodes: list[TreeNode]

    def printing(self) -> Printing:
        order = tuple(row.index for row in self.rows if row.index in self.grid)
        labels = {row.index: normalise_label(row.label) for row in self.rows}
        return Printing(
            order,
            tuple(labels[r] for r in order),
            self.grid,
            tuple(c.col for c in self.columns),
            tuple(self.nodes),
            self.table.pages[0],
        )


def _draft(table: Table, heading: str, taxonomy: Taxonomy) -> _Draft | None:
    """Steps 1-3 of :mod:`pipeline.statements` on one table (None when it has no value columns)."""
    rows = statement_rows(table)
    columns = statement_columns(table, rows, heading)
    if not columns:
        return None
    cols = [c.col for c in columns]
    grid = grid_of(rows, cols)
    metrics = [m.id for row in rows if row.label.strip() and (m := taxonomy.match(row.label)) is not None]
    kind = classify(table, heading, metrics)
    above = [line for line in heading.splitlines() if line.strip()][-2:]
    nodes = build_tree(
        rows, grid, cols, taxonomy, kind, (table.title, *above), partial=maybe_partial(table, heading)
    )
    return _Draft(table, heading, rows, columns, grid, kind, nodes)


def _statement(
    draft: _Draft, taxonomy: Taxonomy, nodes: Sequence[TreeNode], lent: Mapping[int, int]
) -> Statement:
    """The statement of a drafted table, with its tree's final ``nodes`` and step 4's column sums."""
    table = draft.table
    sums = column_sums(table, draft.rows)
    return Statement(
        statement_id=stable_id(table.doc_id, "statement", table.table_id),
        doc_id=table.doc_id,
        source=table.source,
        table_id=table.table_id,
        kind=draft.kind,
        title=table.title,
        entity=entity_of(draft.heading, table.title),
        pages=table.pages,
        columns=draft.columns,
        lines=_lines(draft.rows, nodes, draft.grid, taxonomy, lent),
        column_sums=[ColumnSum(total=c.total, components=list(c.components)) for c in sums],
    )


def build_statements(
    tables: Sequence[Table], headings: Mapping[str, str], taxonomy: Taxonomy
) -> list[Statement]:
    """Stage: the calculation tree of every table of a document.

    Each table's tree is built on its own figures, then takes the totals a twin printing of the same lines
    proves (:mod:`.twins`).

    Args:
        tables: Typed tables.
        headings: Table id → the text above the table on its page (title lines, page heading).
        taxonomy: The metric taxonomy.

    Returns:
        One statement per table that has value columns, in table order.
    """
    drafts = [d for t in tables if (d := _draft(t, headings.get(t.table_id, ""), taxonomy)) is not None]
    twinned = with_twins([d.printing() for d in drafts])
    statements = [_statement(d, taxonomy, t.nodes, t.lent) for d, t in zip(drafts, twinned, strict=True)]
    return _carry_entities(statements, tables)


def _carry_entities(statements: Sequence[Statement], tables: Sequence[Table]) -> list[Statement]:
    """A table that carries on the previous page's table of an entity is that entity's.

    A REIT and its operating partnership print their selected data one after the other, each under the
    registrant's name: "Boston Properties, Inc." over the statement-of-operations lines on one page, the
    balance-sheet lines on the next page under the same year heads and no name. The second page's table
    names no entity of its own, so it was compared with the partnership's figures. A table first on its
    page, without a title, with as many value columns as the last table of the page before, which named
    its entity, takes that entity.
    """
    first_on_page: set[str] = set()
    last_on_page: dict[int, str] = {}
    seen: set[int] = set()
    for t in tables:
        if t.page not in seen:
            first_on_page.add(t.table_id)
            seen.add(t.page)
        last_on_page[t.page] = t.table_id
    by_table = {s.table_id: s for s in statements}
    out: list[Statement] = []
    for s in statements:
        before = by_table.get(last_on_page.get(s.pages[0] - 1, ""))
        if (
            s.entity is None
            and s.title is None
            and s.table_id in first_on_page
            and before is not None
            and before.entity is not None
            and before.pages[-1] == s.pages[0] - 1
            and len(before.columns) == len(s.columns)
        ):
            s = s.model_copy(update={"entity": before.entity})
        by_table[s.table_id] = s
        out.append(s)
    return out


def annotate_facts(facts: Sequence[Fact], statements: Sequence[Statement]) -> list[Fact]:
    """Give each table fact its statement kind, line role, parent and column basis.

    Args:
        facts: The document's facts.
        statements: Its statements.

    Returns:
        The facts, annotated where their table has a statement.
    """
    by_table = {s.table_id: s for s in statements}
    out: list[Fact] = []
    for fact in facts:
        statement = by_table.get(fact.table_id or "")
        if statement is None or fact.row is None:
            out.append(fact)
            continue
        lines = {line.row: line for line in statement.lines}
        line = lines.get(fact.row)
        column = next((c for c in statement.columns if c.col == fact.col), None)
        parent = lines.get(line.parent) if line is not None and line.parent is not None else None
        update: dict[str, object] = {"statement": statement.kind}
        if line is not None:
            update["role"] = line.role
            update["parent"] = parent.label if parent is not None else None
        if column is not None:
            update["basis"] = column.basis
        out.append(fact.model_copy(update=update))
    return out


def with_tables(
    statements: Sequence[Statement], tables: Sequence[Table]
) -> Iterator[tuple[Statement, Table]]:
    """Each statement with its table, in the statements' order (a statement without its table is skipped)."""
    by_id = {t.table_id: t for t in tables}
    for statement in statements:
        table = by_id.get(statement.table_id)
        if table is not None:
            yield statement, table
