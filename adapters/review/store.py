"""What every review store offers the console: the queue, one flag, decisions and their audit trail.

Two stores implement :class:`ReviewStore`: :class:`~adapters.review.sqlite.SqliteReviewStore` for the
embedded run (``tieout review --out DIR``; flags imported from ``flags.jsonl``) and
:class:`~adapters.review.postgres.PostgresReviewStore` for the services (flags read from the sink's
tables). They share the decision rules (:mod:`adapters.review.decision_rules`), the queue's SQL
(:func:`queue_sql`) and everything else they do alike (:class:`SqlReviewStore`, parameterised by the
dialect), so both answer alike.

Seams for what reads decisions later (the ``reviews`` topic, reward folding, ``tieout export reviews``):
:meth:`ReviewStore.decisions_since` is an outbox in commit order, :meth:`ReviewStore.cursor` and
:meth:`ReviewStore.advance_cursor` keep how far each reader has got (the last ``seq`` it durably
handled), and :meth:`ReviewStore.latest_decisions` gives each judged flag's standing decision.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal, Protocol, TypeVar, get_args

from adapters.review.decision_rules import DecisionRequest, ReviewError, StaleDecision, apply_decision
from adapters.review.logins import SessionStore, SqlSessionStore
from schemas.models import DocumentChanges, Fact, Flag
from schemas.reviews import REVIEW_STATUSES, FlagReview, ReviewDecision, ReviewStatus

__all__ = [
    "MAX_CURSOR_NAME",
    "MAX_PAGE_SIZE",
    "SEVERITY_RANK",
    "SORT_KEYS",
    "Columns",
    "DocumentRow",
    "FlagQuery",
    "QueuePage",
    "QueueRow",
    "ReviewStore",
    "SortKey",
    "SqlReviewStore",
    "VersionRow",
    "check_limit",
    "decode",
    "decode_cursor",
    "empty_counts",
    "encode_cursor",
    "page_of",
    "queue_row",
    "queue_sql",
    "sort_columns",
    "sort_values",
    "ts_key",
    "where_sql",
]

SortKey = Literal["severity", "confidence", "rule", "document", "updated"]
SORT_KEYS: tuple[SortKey, ...] = get_args(SortKey)

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}

MAX_PAGE_SIZE = 500


@dataclass(frozen=True)
class FlagQuery:
    """The queue's filters and order. ``None`` (or an empty tuple) means no filter on that field.

    ``assignee`` is a user name, or ``""`` for unassigned flags.
    """

    doc_id: str | None = None
    rule: str | None = None
    kind: str | None = None
    severity: str | None = None
    status: ReviewStatus | None = None
    min_confidence: float | None = None
    max_confidence: float | None = None
    assignee: str | None = None
    sort: SortKey = "severity"
    descending: bool = False

    def without_status(self) -> FlagQuery:
        """The same filters for every status (for counts per status)."""
        return replace(self, status=None)


@dataclass(frozen=True)
class QueueRow:
    """A flag with its review state."""

    flag: Flag
    review: FlagReview


@dataclass(frozen=True)
class QueuePage:
    """One page of the queue.

    Attributes:
        rows: The flags on this page, in queue order.
        counts: Flags matching the filters (status aside) per status.
        total: Flags matching all filters.
        next_cursor: Pass as ``after`` for the next page; None on the last one.
        prev_cursor: Pass as ``before`` for the previous page; None on the first one.
    """

    rows: list[QueueRow]
    counts: dict[str, int]
    total: int
    next_cursor: str | None
    prev_cursor: str | None


@dataclass(frozen=True)
class DocumentRow:
    """A document with flags, as the queue's document filter and the document page list it."""

    doc_id: str
    source: str
    flags: int
    open: int


@dataclass(frozen=True)
class VersionRow:
    """A document compared with its previous version: the two, as the documents page lists them."""

    doc_id: str
    source: str
    previous_id: str
    previous_source: str


@dataclass(frozen=True)
class Columns:
    """How a store's SQL names each queue field (a column or an expression)."""

    flag_id: str
    doc_id: str
    rule: str
    kind: str
    severity: str
    sev_rank: str
    confidence: str
    status: str
    assignee: str
    source: str
    first_page: str
    updated: str
    placeholder: str = "%s"

    @property
    def most_confident_first(self) -> str:
        """The confidence, negated: the key the queue's orders and the store's indexes hold."""
        return f"-({self.confidence})"


def sort_columns(cols: Columns, sort: SortKey) -> list[str]:
    """The expressions a sort orders by, most significant first, ending with the flag id (unique)."""
    return {
        # most severe first, then the rule's most confident flags first
        "severity": [cols.sev_rank, cols.most_confident_first, cols.flag_id],
        "confidence": [cols.confidence, cols.flag_id],
        "rule": [cols.rule, cols.sev_rank, cols.most_confident_first, cols.flag_id],
        "document": [cols.source, cols.first_page, cols.flag_id],
        "updated": [cols.updated, cols.flag_id],
    }[sort]


def where_sql(cols: Columns, q: FlagQuery) -> tuple[str, list[object]]:
    """A WHERE clause (``1=1`` when unfiltered) and its parameters."""
    p = cols.placeholder
    parts: list[str] = []
    params: list[object] = []
    # severity is filtered by its rank: the rank leads the default order, so the indexes that serve a
    # filter followed by that order serve a severity filter too
    rank = SEVERITY_RANK.get(q.severity, -1) if q.severity is not None else None
    for column, value in (
        (cols.doc_id, q.doc_id),
        (cols.rule, q.rule),
        (cols.kind, q.kind),
        (cols.sev_rank, rank),
        (cols.status, q.status),
    ):
        if value is not None:
            parts.append(f"{column} = {p}")
            params.append(value)
    if q.assignee is not None:
        if q.assignee == "":
            parts.append(f"{cols.assignee} IS NULL")
        else:
            parts.append(f"{cols.assignee} = {p}")
            params.append(q.assignee)
    # The confidence range is written on the negated confidence, the expression every filter's index
    # holds (:attr:`Columns.most_confident_first`), so that a filtered count or page is checked from the
    # index alone: on the bare column each of 100,000 flags was read from the table to be counted.
    if q.min_confidence is not None:
        parts.append(f"{cols.most_confident_first} <= {p}")
        params.append(-q.min_confidence)
    if q.max_confidence is not None:
        parts.append(f"{cols.most_confident_first} >= {p}")
        params.append(-q.max_confidence)
    return (" AND ".join(parts) or "1=1"), params


def queue_sql(
    cols: Columns,
    q: FlagQuery,
    select: str,
    *,
    after: list[object] | None,
    before: list[object] | None,
    limit: int,
) -> tuple[str, list[object], bool]:
    """The SELECT of one queue page by keyset.

    Returns:
        The SQL (``select`` is the column list, ``{from}`` is left for the caller to fill), its
        parameters, and whether the rows come back reversed (paging backwards) and must be flipped.
    """
    p = cols.placeholder
    keys = sort_columns(cols, q.sort)
    where, params = where_sql(cols, q)
    backwards = before is not None
    # Paging backwards walks the order in reverse from the cursor, then the caller flips the rows.
    reverse = q.descending != backwards
    cursor = before if backwards else after
    if cursor is not None:
        if len(cursor) != len(keys):
            raise ReviewError("the paging cursor does not match the sort")
        op = "<" if reverse else ">"
        where += f" AND ({', '.join(keys)}) {op} ({', '.join([p] * len(keys))})"
        params.extend(cursor)
    direction = "DESC" if reverse else "ASC"
    order = ", ".join(f"{k} {direction}" for k in keys)
    sql = f"SELECT {select} FROM {{from}} WHERE {where} ORDER BY {order} LIMIT {int(limit) + 1}"
    return sql, params, backwards


def encode_cursor(values: Sequence[object]) -> str:
    """An opaque, URL-safe cursor for a row's sort key."""
    return base64.urlsafe_b64encode(json.dumps(list(values)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> list[object] | None:
    """The sort key in ``cursor``; :class:`ReviewError` if it is not one of ours."""
    if not cursor:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        values = json.loads(raw)
    except (binascii.Error, ValueError) as exc:
        raise ReviewError("the paging cursor is not valid") from exc
    if not isinstance(values, list) or not all(isinstance(v, str | int | float) for v in values):
        raise ReviewError("the paging cursor is not valid")
    return values


def sort_values(sort: SortKey, flag: Flag, review: FlagReview, source: str) -> list[object]:
    """A row's values of :func:`sort_columns`, in the same order, for its cursor."""
    rank = SEVERITY_RANK[flag.severity]
    updated = ts_key(review.updated_at)
    values: dict[SortKey, list[object]] = {
        "severity": [rank, -flag.confidence, flag.flag_id],
        "confidence": [flag.confidence, flag.flag_id],
        "rule": [flag.rule, rank, -flag.confidence, flag.flag_id],
        "document": [source, min(flag.pages) if flag.pages else 0, flag.flag_id],
        "updated": [updated, flag.flag_id],
    }
    return values[sort]


def page_of(
    rows: list[QueueRow], *, limit: int, backwards: bool, had_cursor: bool, q: FlagQuery
) -> tuple[list[QueueRow], str | None, str | None]:
    """Trim the ``limit + 1`` rows a keyset query returned and compute both cursors."""
    more = len(rows) > limit
    rows = rows[:limit]
    if backwards:
        rows.reverse()
    if not rows:
        return rows, None, None

    def cursor(r: QueueRow) -> str:
        return encode_cursor(sort_values(q.sort, r.flag, r.review, r.flag.source))

    next_cursor: str | None
    prev_cursor: str | None
    if backwards:
        next_cursor = cursor(rows[-1])
        prev_cursor = cursor(rows[0]) if more else None
    else:
        next_cursor = cursor(rows[-1]) if more else None
        prev_cursor = cursor(rows[0]) if had_cursor else None
    return rows, next_cursor, prev_cursor


def ts_key(at: datetime | None) -> str:
    """A time as the fixed-width UTC text both stores sort by (``''`` for never)."""
    if at is None:
        return ""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def check_limit(limit: int) -> int:
    """``limit`` if it is a sane page size."""
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise ReviewError(f"page size must be 1..{MAX_PAGE_SIZE}")
    return limit


class ReviewStore(SessionStore, Protocol):
    """Flags, their review state and the decisions about them (and the console's sessions and logins).

    Implementations are safe to call from several threads of one process, and from several processes on
    one database: :meth:`decide` compares and sets the version in one transaction.
    """

    def queue(
        self, q: FlagQuery, *, after: str | None = None, before: str | None = None, limit: int = 50
    ) -> QueuePage:
        """One page of flags matching ``q`` in its order, after or before a cursor."""
        ...

    def neighbours(self, q: FlagQuery, flag_id: str) -> tuple[str | None, str | None]:
        """The flags before and after ``flag_id`` in the queue ``q`` (None at either end)."""
        ...

    def get(self, flag_id: str) -> QueueRow | None:
        """A flag with its review state, or None."""
        ...

    def decide(self, req: DecisionRequest, *, users: Sequence[str] | None = None) -> ReviewDecision:
        """Apply a decision (see :func:`apply_decision`) and append it to the audit trail, atomically."""
        ...

    def history(self, flag_id: str) -> list[ReviewDecision]:
        """The flag's decisions, oldest first."""
        ...

    def decisions_since(self, seq: int = 0, limit: int = 1000) -> list[tuple[int, ReviewDecision]]:
        """Decisions after sequence number ``seq`` in commit order, with their sequence numbers.

        The outbox for a publisher (the ``reviews`` topic): it keeps the last ``seq`` it sent in its
        :meth:`cursor`.
        """
        ...

    def latest_decisions(self, status: ReviewStatus | None = None) -> list[ReviewDecision]:
        """Each judged flag's standing decision (the last one that set its status), optionally by status.

        What reward folding (confirmed: a positive label for the rule, dismissed: a negative one with its
        reason) and ``tieout export reviews`` (dismissed flags as regression cases) read.
        """
        ...

    def cursor(self, name: str) -> int:
        """The last decision sequence number a consumer named `name` has durably handled (0 if none)."""
        ...

    def advance_cursor(self, name: str, seq: int) -> None:
        """Record that `name` has handled every decision up to `seq`; never moves backwards.

        A lower `seq` is ignored. The outbox's other half: a publisher reads :meth:`decisions_since` its
        cursor, produces and flushes them, then advances its cursor to the last ``seq`` it sent.

        Raises:
            ReviewError: for an empty or over-long name, a negative ``seq``, or a ``seq`` beyond the newest
                decision (a cursor there would skip decisions not yet made).
        """
        ...

    def documents(self) -> list[DocumentRow]:
        """Documents with flags, by source."""
        ...

    def sources(self) -> list[tuple[str, str]]:
        """``(doc_id, source)`` of every document with flags or changes, by source.

        Cheap: the queue's filter list, and the documents whose pages the console shows (a previous
        version without flags among them).
        """
        ...

    def versions(self) -> list[VersionRow]:
        """Every document compared with its previous version (one per changes record), by source."""
        ...

    def changes_of(self, doc_id: str) -> DocumentChanges | None:
        """What changed in ``doc_id`` since its previous version; None when it was compared with none."""
        ...

    def options(self) -> dict[str, list[str]]:
        """Values present for the queue's filters: ``rule``, ``kind``, ``severity``, ``assignee``."""
        ...

    def facts_of_table(self, doc_id: str, table_id: str) -> list[Fact]:
        """Facts of one table, in row and column order."""
        ...

    def facts_near(self, doc_id: str, page: int) -> list[Fact]:
        """Facts printed on one page."""
        ...

    def facts_for(self, doc_id: str, metric: str, period_key: str | None) -> list[Fact]:
        """The document's facts for one metric (and period, when given), by page."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


def empty_counts() -> dict[str, int]:
    """A zero count for every status, in display order."""
    return dict.fromkeys(REVIEW_STATUSES, 0)


_M = TypeVar("_M", Flag, Fact, ReviewDecision, DocumentChanges)


def decode(model: type[_M], raw: Any) -> _M:
    """A record as a store keeps it: JSON text (SQLite) or already decoded (PostgreSQL's ``jsonb``)."""
    if isinstance(raw, str | bytes):
        return model.model_validate_json(raw)
    return model.model_validate(raw)


def queue_row(row: Sequence[Any]) -> QueueRow:
    """A flag and its review state from a row of :attr:`SqlReviewStore.ROW`'s columns.

    A flag never judged has no review values (PostgreSQL: no ``flag_reviews`` row): open, version 0.
    """
    flag = decode(Flag, row[0])
    status, assignee, reason, version, updated_at, updated_by = row[1:]
    if isinstance(updated_at, str):  # SQLite keeps ts_key's text ('' for never)
        updated_at = datetime.fromisoformat(updated_at) if updated_at else None
    review = FlagReview(
        flag_id=flag.flag_id,
        status=status or "open",
        assignee=assignee,
        reason=reason,
        version=version or 0,
        updated_at=updated_at,
        updated_by=updated_by,
    )
    return QueueRow(flag, review)


class SqlReviewStore(SqlSessionStore):
    """What the SQL stores do alike, written once: the queue, a flag, decisions and the audit trail.

    A store names its dialect in the class attributes (its SQL for the queue's fields, the flags with
    their review state, the audit trail's table; the placeholder is :attr:`Columns.placeholder`) and
    implements the few steps whose SQL differs: running a query, a decision's transaction, and writing a
    flag's new state and a decision.
    """

    COLUMNS: ClassVar[Columns]
    FLAGS: ClassVar[str]
    """The flags with their review state (a table, or a join), as a FROM clause."""
    ROW: ClassVar[str]
    """A queue row's columns: the flag's record, status, assignee, reason, version, updated_at, updated_by."""
    DECISIONS: ClassVar[str]
    """The audit trail: ``seq`` (commit order), ``flag_id``, ``action``, ``status`` and the ``record``."""
    CURSORS: ClassVar[str]
    """The readers' cursors: ``name``, ``seq`` (the last decision handled) and ``updated_at``."""
    LOCK_ROW: ClassVar[str] = ""
    """Appended to the SELECT of the flag a decision is about, to lock its row (where the dialect can)."""
    FACT_ORDER: ClassVar[str]
    """The order of the ``facts`` table's rows on one page (the facts of a table, or near a figure)."""

    # ------------------------------------------------------------------ the dialect's steps
    # (and running a query, :meth:`SqlSessionStore._query` and ``_execute``)

    @property
    def _placeholder(self) -> str:
        return self.COLUMNS.placeholder

    def _decision(self) -> AbstractContextManager[object]:
        """A transaction in which decisions are serialised: reading a flag's version, writing the next."""
        raise NotImplementedError

    def _save_state(self, flag: Flag, before: FlagReview, new: FlagReview) -> bool:
        """Write ``new`` if the stored state is still ``before``'s version; whether it was written."""
        raise NotImplementedError

    def _append(self, decision: ReviewDecision) -> None:
        """Append ``decision`` to the audit trail."""
        raise NotImplementedError

    # ------------------------------------------------------------------ queue

    def queue(
        self, q: FlagQuery, *, after: str | None = None, before: str | None = None, limit: int = 50
    ) -> QueuePage:
        """See :meth:`ReviewStore.queue`."""
        check_limit(limit)
        sql, params, backwards = queue_sql(
            self.COLUMNS, q, self.ROW, after=decode_cursor(after), before=decode_cursor(before), limit=limit
        )
        rows = [queue_row(r) for r in self._query(sql.replace("{from}", self.FLAGS), params)]
        rows, next_cursor, prev_cursor = page_of(
            rows, limit=limit, backwards=backwards, had_cursor=bool(after or before), q=q
        )
        counts = self._counts(q)
        total = counts.get(q.status, 0) if q.status else sum(counts.values())
        return QueuePage(rows, counts, total, next_cursor, prev_cursor)

    def _counts(self, q: FlagQuery) -> dict[str, int]:
        """Flags matching ``q`` (its status aside) per status."""
        where, params = where_sql(self.COLUMNS, q.without_status())
        counts = empty_counts()
        sql = f"SELECT {self.COLUMNS.status}, count(*) FROM {self.FLAGS} WHERE {where} GROUP BY 1"
        for status, n in self._query(sql, params):
            counts[str(status)] = int(n)
        return counts

    def neighbours(self, q: FlagQuery, flag_id: str) -> tuple[str | None, str | None]:
        """See :meth:`ReviewStore.neighbours`."""
        row = self.get(flag_id)
        if row is None:
            return None, None
        cursor = encode_cursor(sort_values(q.sort, row.flag, row.review, row.flag.source))
        before = self.queue(q, before=cursor, limit=1).rows
        after = self.queue(q, after=cursor, limit=1).rows
        return (before[0].flag.flag_id if before else None, after[0].flag.flag_id if after else None)

    def get(self, flag_id: str) -> QueueRow | None:
        """See :meth:`ReviewStore.get`."""
        return self._get(flag_id)

    def _get(self, flag_id: str, lock: str = "") -> QueueRow | None:
        where = f"{self.COLUMNS.flag_id} = {self.COLUMNS.placeholder}"
        rows = self._query(f"SELECT {self.ROW} FROM {self.FLAGS} WHERE {where}{lock}", (flag_id,))
        return queue_row(rows[0]) if rows else None

    # ------------------------------------------------------------------ decisions

    def decide(self, req: DecisionRequest, *, users: Sequence[str] | None = None) -> ReviewDecision:
        """See :meth:`ReviewStore.decide`."""
        with self._decision():
            current = self._get(req.flag_id, self.LOCK_ROW)
            if current is None:
                raise ReviewError(f"no flag {req.flag_id!r}")
            try:
                new, decision = apply_decision(current.flag, current.review, req, users=users)
            except StaleDecision as stale:
                raise StaleDecision(stale.current, self._last_state_change(req.flag_id)) from None
            changed = new.version != current.review.version
            if changed and not self._save_state(current.flag, current.review, new):
                # another writer got in first despite the transaction's lock: refuse rather than guess
                raise StaleDecision(current.review, None)
            self._append(decision)
        return decision

    def _last_state_change(self, flag_id: str) -> ReviewDecision | None:
        p = self.COLUMNS.placeholder
        rows = self._query(
            f"SELECT record FROM {self.DECISIONS} WHERE flag_id = {p} AND action <> 'comment' "
            "ORDER BY seq DESC LIMIT 1",
            (flag_id,),
        )
        return decode(ReviewDecision, rows[0][0]) if rows else None

    def history(self, flag_id: str) -> list[ReviewDecision]:
        """See :meth:`ReviewStore.history`."""
        sql = f"SELECT record FROM {self.DECISIONS} WHERE flag_id = {self.COLUMNS.placeholder} ORDER BY seq"
        rows = self._query(sql, (flag_id,))
        return [decode(ReviewDecision, r[0]) for r in rows]

    def decisions_since(self, seq: int = 0, limit: int = 1000) -> list[tuple[int, ReviewDecision]]:
        """See :meth:`ReviewStore.decisions_since`."""
        p = self.COLUMNS.placeholder
        rows = self._query(
            f"SELECT seq, record FROM {self.DECISIONS} WHERE seq > {p} ORDER BY seq LIMIT {p}", (seq, limit)
        )
        return [(int(s), decode(ReviewDecision, r)) for s, r in rows]

    def latest_decisions(self, status: ReviewStatus | None = None) -> list[ReviewDecision]:
        """See :meth:`ReviewStore.latest_decisions`."""
        sql = (
            f"SELECT d.record FROM {self.DECISIONS} d JOIN ("
            f"  SELECT flag_id, max(seq) AS seq FROM {self.DECISIONS}"
            "  WHERE action IN ('confirm', 'dismiss', 'reopen') GROUP BY flag_id"
            ") last ON d.seq = last.seq WHERE d.status <> 'open'"
        )
        params: list[object] = []
        if status is not None:
            sql += f" AND d.status = {self.COLUMNS.placeholder}"
            params.append(status)
        return [decode(ReviewDecision, r[0]) for r in self._query(sql + " ORDER BY d.seq", params)]

    # ------------------------------------------------------------------ cursors

    def cursor(self, name: str) -> int:
        """See :meth:`ReviewStore.cursor`."""
        rows = self._query(
            f"SELECT seq FROM {self.CURSORS} WHERE name = {self.COLUMNS.placeholder}", (_cursor_name(name),)
        )
        return int(rows[0][0]) if rows else 0

    def advance_cursor(self, name: str, seq: int) -> None:
        """See :meth:`ReviewStore.advance_cursor`."""
        name = _cursor_name(name)
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise ReviewError(f"a cursor is a decision's sequence number (an int >= 0), not {seq!r}")
        # The newest seq only grows (the trail is append-only), so a seq it covers now stays covered.
        newest = int(self._query(f"SELECT coalesce(max(seq), 0) FROM {self.DECISIONS}")[0][0])
        if seq > newest:
            raise ReviewError(f"there is no decision {seq} yet (the newest is {newest}): {name!r} not moved")
        p = self.COLUMNS.placeholder
        # One statement, so concurrent advances of one cursor cannot move it backwards: the row is
        # locked by the upsert and its WHERE compares with the stored seq.
        self._execute(
            f"INSERT INTO {self.CURSORS} (name, seq, updated_at) VALUES ({p}, {p}, CURRENT_TIMESTAMP)"
            f" ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at"
            f" WHERE excluded.seq > {self.CURSORS}.seq",
            (name, seq),
        )

    # ------------------------------------------------------------------ versions

    def versions(self) -> list[VersionRow]:
        """See :meth:`ReviewStore.versions` (both stores keep a ``changes`` table with these columns)."""
        rows = self._query(
            "SELECT new_doc_id, new_source, old_doc_id, old_source FROM changes"
            " ORDER BY new_source, new_doc_id"
        )
        return [VersionRow(*map(str, r)) for r in rows]

    # ------------------------------------------------------------------ facts

    def _facts(self, where: dict[str, object], order: str) -> list[Fact]:
        """The facts whose columns hold the values of ``where``, in ``order``."""
        p = self.COLUMNS.placeholder
        conditions = " AND ".join(f"{column} = {p}" for column in where)
        rows = self._query(
            f"SELECT record FROM facts WHERE {conditions} ORDER BY {order}", list(where.values())
        )
        return [decode(Fact, r[0]) for r in rows]

    def facts_of_table(self, doc_id: str, table_id: str) -> list[Fact]:
        """See :meth:`ReviewStore.facts_of_table`."""
        return self._facts({"doc_id": doc_id, "table_id": table_id}, self.FACT_ORDER)

    def facts_near(self, doc_id: str, page: int) -> list[Fact]:
        """See :meth:`ReviewStore.facts_near`."""
        return self._facts({"doc_id": doc_id, "page": page}, self.FACT_ORDER)

    def facts_for(self, doc_id: str, metric: str, period_key: str | None) -> list[Fact]:
        """See :meth:`ReviewStore.facts_for`."""
        where: dict[str, object] = {"doc_id": doc_id, "metric": metric}
        if period_key is not None:
            where["period_key"] = period_key
        return self._facts(where, f"page, {self.FACT_ORDER}")


MAX_CURSOR_NAME = 200


def _cursor_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_CURSOR_NAME:
        raise ReviewError(f"a cursor needs a name of 1..{MAX_CURSOR_NAME} characters, not {name!r}")
    return name
