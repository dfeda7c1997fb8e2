"""What a document publishes into its issuer's history: the figures of its XBRL report.

The history keeps the figures the XBRL report would publish (:func:`adapters.xbrl.figures.select`): scale,
period and unit established, one figure a cell, no conflicting copies. A figure an open flag touches is kept
and marked ``flagged``, as the report marks it.
"""

from __future__ import annotations

from adapters.history.store import HistoryStore, StoredDocument
from adapters.xbrl.figures import select
from pipeline.across.prior import (
    PriorReport,
    compare_with_history,
    figure_key,
    prior_flags,
    restatement_reasons,
)
from schemas.models import DocumentResult, Flag, PublishedFigure, StatementColumn, StatementKind

__all__ = ["check_against_history", "published_figures", "record_document"]


def published_figures(
    result: DocumentResult, issuer_key: str, period_end: str | None
) -> list[PublishedFigure]:
    """The figures ``result`` publishes, keyed for comparison with its issuer's other documents.

    Args:
        result: A processed document.
        issuer_key: Who published it (``DocumentIdentity.issuer_key``).
        period_end: The document's period end (ISO date), which orders the issuer's documents.

    Returns:
        One record a published figure, in the report's order.
    """
    kinds: dict[str, StatementKind] = {s.table_id: s.kind for s in result.statements}
    entities = {s.table_id: s.entity for s in result.statements}
    lines = {(s.table_id, line.row): line for s in result.statements for line in s.lines}
    columns: dict[tuple[str, int], StatementColumn] = {
        (s.table_id, c.col): c for s in result.statements for c in s.columns
    }
    out: list[PublishedFigure] = []
    for figure in select(result).figures:
        fact = figure.fact
        table_id = fact.table_id or ""
        kind = kinds.get(table_id, fact.statement)
        column = columns.get((table_id, fact.col)) if fact.col is not None else None
        line = lines.get((table_id, fact.row)) if fact.row is not None else None
        parent = lines.get((table_id, line.parent)) if line is not None and line.parent is not None else None
        entity = entities.get(table_id)
        # The line's key and its total's: one statement, column and period, two labels.
        where = (figure.period, figure.unit, fact.basis, fact.context, entity)
        out.append(
            PublishedFigure(
                issuer_key=issuer_key,
                doc_id=result.doc_id,
                source=result.source,
                period_end=period_end,
                key=figure_key(kind, fact.label, *where),
                table_id=table_id,
                statement=kind,
                label=fact.label,
                column=column.header if column else None,
                period=figure.period,
                unit=figure.unit,
                basis=fact.basis,
                dimension=fact.context,
                entity=entity,
                parent_key=figure_key(kind, parent.label, *where) if parent is not None else None,
                value=fact.value,
                decimals=fact.decimals,
                printed=fact.printed,
                page=fact.page,
                bbox=fact.bbox,
                flagged=bool(figure.flags),
            )
        )
    return out


def record_document(history: HistoryStore, result: DocumentResult) -> StoredDocument | None:
    """Put a processed document's published figures and stated restatements in its issuer's history.

    Args:
        history: The store.
        result: A processed document.

    Returns:
        The stored document (replacing an earlier copy of the same bytes), or None when its issuer or its
        period end is not printed: a document nobody can place in time ties out across nothing.
    """
    identity = result.identity
    if identity is None or identity.issuer_key is None or identity.period_end.value is None:
        return None
    period_end = identity.period_end.value
    document = StoredDocument(
        result.doc_id,
        identity.issuer_key,
        period_end,
        result.source,
        tuple(restatement_reasons(result.blocks)),
    )
    history.put(document, published_figures(result, identity.issuer_key, period_end))
    return document


def check_against_history(history: HistoryStore, document: StoredDocument) -> tuple[PriorReport, list[Flag]]:
    """Compare a stored document with the documents of its issuer whose period ends earlier.

    Args:
        history: The store that holds it.
        document: The document under check (:func:`record_document`).

    Returns:
        The comparison and its PRI001/PRI002 flags.
    """
    report = compare_with_history(
        history.figures(document.doc_id), history.earlier(document), document.reasons
    )
    return report, prior_flags(report, document)
