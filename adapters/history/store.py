"""What a history of published figures is, whichever database holds it (issue 27).

:class:`~adapters.history.sqlite.SqliteHistory` is the embedded run's (``tieout run --history``),
:class:`~adapters.history.postgres.PostgresHistory` the sink service's; both keep, per document, who
published it, when its period ends, what it says it restated, and its published figures.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pipeline.across.prior import Reason
from schemas.models import PublishedFigure

__all__ = ["HistoryStore", "StoredDocument", "dump_reasons", "load_reasons"]


@dataclass(frozen=True)
class StoredDocument:
    """A document of the history: who published it, when its period ends, and what it says it restated."""

    doc_id: str
    issuer_key: str
    period_end: str
    source: str
    reasons: tuple[Reason, ...] = ()


class HistoryStore(Protocol):
    """Published figures by issuer: writing a document again replaces its rows (keyed by doc id)."""

    def put(self, document: StoredDocument, figures: Sequence[PublishedFigure]) -> None:
        """Store a document's figures and reasons, replacing what was stored for it (one transaction)."""
        ...

    def document(self, doc_id: str) -> StoredDocument | None:
        """The stored document with this id, if any."""
        ...

    def figures(self, doc_id: str) -> list[PublishedFigure]:
        """The figures stored for one document."""
        ...

    def earlier(self, document: StoredDocument) -> list[PublishedFigure]:
        """The figures its issuer published in documents whose period ends before this one's."""
        ...

    def later(self, document: StoredDocument) -> list[StoredDocument]:
        """Its issuer's documents whose period ends after this one's (to check again when it lands late)."""
        ...


def dump_reasons(reasons: Sequence[Reason]) -> str:
    """A document's stated reasons as the stores keep them (JSON ``[[page, quote, kind], ...]``)."""
    return json.dumps([[r.page, r.quote, r.kind] for r in reasons])


def load_reasons(raw: str | list[list[object]]) -> tuple[Reason, ...]:
    """The reasons :func:`dump_reasons` wrote (its JSON text, or that text already decoded)."""
    rows = json.loads(raw) if isinstance(raw, str) else raw
    return tuple(Reason(int(str(page)), str(quote), str(kind)) for page, quote, kind in rows)
