"""The analysts' decisions in the tick-and-tie PDF: how a confirmed or dismissed break is worded.

The tick-and-tie builder takes each flag's standing decision (flag id → the
:class:`~schemas.reviews.ReviewDecision` that set its status, as
:func:`pipeline.rewards.regressions.standing` picks it from a store's decisions), never the store itself.
A dismissed break is drawn as *cleared* (its own colour, the reason on its label), a confirmed one as
*confirmed*; the summary names the reviewer and the time of each. The words are written here once, for
the labels (:mod:`adapters.review.tick_placing`), the boxes' notes (:mod:`adapters.review.tick_drawing`)
and the summary (:mod:`adapters.review.tick_summary`).

A copy made with some decisions differs from one made with others: :func:`decisions_digest` names the set,
for a cache to key its copies by (:mod:`adapters.review.annotated`), and :func:`dump_decisions` /
:func:`load_decisions` carry them to the worker process that draws the copy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import TypeAdapter

from schemas.reviews import DISMISS_REASONS, ReviewDecision

__all__ = [
    "Decisions",
    "decided_line",
    "decision_words",
    "decisions_digest",
    "dump_decisions",
    "load_decisions",
]

Decisions = Mapping[str, ReviewDecision]
"""Flag id → its standing decision (confirmed or dismissed; an open flag has none)."""

_LIST = TypeAdapter(list[ReviewDecision])
_LABEL_NOTE_CHARS = 40  # of an analyst's note on a label: the box's note and the summary hold all of it


def _reason(decision: ReviewDecision, limit: int) -> str:
    """Why a flag was dismissed: the reason's label, or the analyst's note for the reason "other"."""
    label = DISMISS_REASONS.get(decision.reason, "") if decision.reason else ""
    note = " ".join((decision.note or "").split())
    if (decision.reason in (None, "other")) and note:
        return note if len(note) <= limit else note[: limit - 1] + "…"
    return label or "no reason given"


def decision_words(decision: ReviewDecision | None) -> str:
    """A label's words for a decision: ``confirmed``, ``cleared, Wrong scale``, or nothing (open)."""
    if decision is None:
        return ""
    if decision.status == "dismissed":
        return f"cleared, {_reason(decision, _LABEL_NOTE_CHARS)}"
    return "confirmed" if decision.status == "confirmed" else ""


def _when(at: datetime) -> str:
    aware = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def decided_line(decision: ReviewDecision) -> str:
    """Who decided what and when, for a box's note and the summary (the whole note of the analyst)."""
    who = f"by {decision.reviewer}, {_when(decision.decided_at)}"
    if decision.status == "dismissed":
        line = f"Dismissed (cleared) {who}: {_reason(decision, 10_000)}"
        note = " ".join((decision.note or "").split())
        if note and decision.reason not in (None, "other"):
            line += f" - {note}"
        return line
    return f"Confirmed {who}"


def decisions_digest(decisions: Decisions) -> str:
    """A short name of a set of standing decisions ("" for none): it changes whenever one of them does.

    Each standing decision is a record of its own (a later decision is another record), so its id is
    enough to tell the sets apart.
    """
    if not decisions:
        return ""
    ids = sorted(f"{flag_id}:{d.review_id}" for flag_id, d in decisions.items())
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]


def dump_decisions(decisions: Decisions) -> str:
    """The decisions as JSON, for the worker process (:func:`load_decisions` reads them back)."""
    return _LIST.dump_json(list(decisions.values())).decode()


def load_decisions(text: str) -> dict[str, ReviewDecision]:
    """Decisions written by :func:`dump_decisions`, by flag id."""
    return {d.flag_id: d for d in _LIST.validate_json(text)}
