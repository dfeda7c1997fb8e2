"""Prior periods in the services: the sink records each document in its issuer's history and flags it.

Parse → verify → sink on the in-memory broker and store, the SQLite history behind the store protocol (the
same behaviour on PostgreSQL, Kafka and the object store is in ``tests/integration``).
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from adapters.history.sqlite import SqliteHistory
from adapters.history.store import HistoryStore
from consumers.prior import PriorPeriods
from consumers.runner import Handler
from consumers.services import SinkHandler
from sample_docs.generate import Injection
from sample_docs.years import consecutive_years
from tests.test_services_memory import World

MISTYPED: dict[int, tuple[Injection, ...]] = {2025: (Injection("sum_mismatch", "recv", 2024),)}
"""This year's report prints last year's receivables with two digits swapped."""


class HistoryWorld(World):
    """The in-memory services, the sink with a history of published figures."""

    def __init__(self, history: HistoryStore) -> None:
        super().__init__()
        self.history = history

    def handlers(self) -> dict[str, Handler]:
        handlers = super().handlers()
        sink = handlers["sink"]
        assert isinstance(sink, SinkHandler)
        sink.prior = PriorPeriods(self.history)
        return handlers

    def prior_flags(self) -> list[dict[str, object]]:
        return [f for f in self.values("flags") if str(f["rule"]).startswith("PRI")]

    def land(self, name: str, data: bytes) -> list[dict[str, object]]:
        """Upload a document, run the services until they are idle; the prior-period flags so far."""
        self.upload(name, data)
        self.run()
        return self.prior_flags()


def _years(injections: dict[int, tuple[Injection, ...]] | None = None) -> list[tuple[str, bytes]]:
    return [(name, data) for name, data, _ in consecutive_years(2025, 2, injections=injections)]


def test_a_mistyped_comparative_is_flagged_on_the_flags_topic_for_the_later_year(tmp_path: Path) -> None:
    (earlier, first), (later, second) = _years(MISTYPED)
    with closing(SqliteHistory(tmp_path)) as history:
        world = HistoryWorld(history)
        assert world.land(earlier, first) == []
        flags = world.land(later, second)
        assert flags and {f["rule"] for f in flags} == {"PRI001"}
        assert {f["source"] for f in flags} == {later}
        assert all(f["evidence"][1]["source"] == earlier for f in flags)  # type: ignore[index]
        assert world.values("dlq") == []


def test_consistent_years_raise_no_prior_period_flag(tmp_path: Path) -> None:
    with closing(SqliteHistory(tmp_path)) as history:
        world = HistoryWorld(history)
        for name, data in _years():
            world.upload(name, data)
        world.run()
        assert len(world.values("summaries")) == 2
        assert world.prior_flags() == []
        # Both documents are in the history, under their own ids.
        for summary in world.values("summaries"):
            stored = history.document(str(summary["doc_id"]))
            assert stored is not None and stored.source == summary["source"]


def test_the_earlier_year_landing_second_still_flags_the_later_year(tmp_path: Path) -> None:
    (earlier, first), (later, second) = _years(MISTYPED)
    with closing(SqliteHistory(tmp_path)) as history:
        world = HistoryWorld(history)
        assert world.land(later, second) == []  # nothing earlier to compare with yet
        flags = world.land(earlier, first)
        assert flags and {f["rule"] for f in flags} == {"PRI001"}
        # Keyed by and about the later document, though the earlier one's landing raised them.
        assert {f["source"] for f in flags} == {later}
        later_id = {s["doc_id"] for s in world.values("summaries") if s["source"] == later}
        assert {f["doc_id"] for f in flags} == later_id
        # ... and added to the later document's rows in PostgreSQL before they were published.
        assert {f["flag_id"] for f in flags} <= set(world.pg_flags)
        # Landing again (a redelivery) publishes the same flags: stable ids, nothing new.
        ids = {f["flag_id"] for f in flags}
        assert {f["flag_id"] for f in world.land(earlier, first)} == ids
