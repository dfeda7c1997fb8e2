"""The decision rules every review store applies alike: what an analyst may ask, and what it makes of a flag.

:func:`apply_decision` turns a :class:`DecisionRequest` and a flag's stored review state into the flag's
next state and the audit trail's record of the decision, or refuses it (:class:`ReviewError` for a
request that is incomplete or contradictory, :class:`StaleDecision` for one taken on a state that has
moved on). It reads and writes nothing: the stores (:class:`~adapters.review.store.SqlReviewStore`) call
it inside the transaction that reads the state and writes both.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from schemas.models import Flag
from schemas.reviews import DismissReason, FlagReview, ReviewAction, ReviewDecision, ReviewStatus

__all__ = [
    "MAX_NOTE_CHARS",
    "DecisionRequest",
    "ReviewError",
    "StaleDecision",
    "apply_decision",
]

MAX_NOTE_CHARS = 4000


class ReviewError(ValueError):
    """A decision that cannot be taken as asked (unknown flag, missing reason, bad assignee, …)."""


class StaleDecision(Exception):
    """The flag changed since the analyst loaded it; nothing was written.

    Attributes:
        current: The flag's review state now.
        latest: The decision that moved it on, when there is one.
    """

    def __init__(self, current: FlagReview, latest: ReviewDecision | None) -> None:
        self.current = current
        self.latest = latest
        who = f" by {latest.reviewer} at {latest.decided_at:%Y-%m-%d %H:%M:%S} UTC" if latest else ""
        super().__init__(
            f"this flag changed{who} after you opened it (it is now {current.status}, version "
            f"{current.version}); your decision was not saved: look at it again and decide"
        )


@dataclass(frozen=True)
class DecisionRequest:
    """What an analyst asks for.

    Attributes:
        flag_id: The flag.
        action: confirm, dismiss, reopen, reassign or comment.
        reviewer: The logged-in user.
        version: The review version the analyst saw (ignored for comments, which change no state).
        reason: Required to dismiss.
        note: Free text (required to comment; optional otherwise).
        assignee: The new assignee for reassign (``None`` unassigns).
    """

    flag_id: str
    action: ReviewAction
    reviewer: str
    version: int
    reason: DismissReason | None = None
    note: str | None = None
    assignee: str | None = None


def apply_decision(
    flag: Flag,
    current: FlagReview,
    req: DecisionRequest,
    *,
    users: Sequence[str] | None = None,
    now: datetime | None = None,
) -> tuple[FlagReview, ReviewDecision]:
    """The flag's next review state and the decision record, or why not.

    Args:
        flag: The flag judged.
        current: Its review state as stored now (read inside the writing transaction).
        req: What the analyst asked for.
        users: Known user names; a reassignment to anybody else is refused. None: not checked.
        now: The decision time (default: now, UTC).

    Returns:
        The new state (unchanged for a comment) and the decision to append to the audit trail.

    Raises:
        StaleDecision: if ``req.version`` is not the current version (comments excepted).
        ReviewError: if the request is incomplete or contradictory.
    """
    note = _checked_note(req.note)
    # A comment changes no state, so it is never stale; every other action must see the current version.
    if req.action != "comment" and req.version != current.version:
        raise StaleDecision(current, None)
    status, reason, assignee = _next_state(current, req, note, users)
    at = now or datetime.now(UTC)
    new = (
        FlagReview(
            flag_id=flag.flag_id,
            status=status,
            assignee=assignee,
            reason=reason,
            version=current.version + 1,
            updated_at=at,
            updated_by=req.reviewer,
        )
        if req.action != "comment"
        else current
    )
    return new, _decision_record(flag, current, new, req, note, at)


def _checked_note(text: str | None) -> str | None:
    """The request's note, stripped (None when blank); refused when longer than :data:`MAX_NOTE_CHARS`."""
    note = (text or "").strip() or None
    if note is not None and len(note) > MAX_NOTE_CHARS:
        raise ReviewError(f"a note holds at most {MAX_NOTE_CHARS} characters")
    return note


def _next_state(
    current: FlagReview, req: DecisionRequest, note: str | None, users: Sequence[str] | None
) -> tuple[ReviewStatus, DismissReason | None, str | None]:
    """Status, dismiss reason and assignee after the action, or the :class:`ReviewError` that refuses it."""
    status: ReviewStatus = current.status
    reason: DismissReason | None = current.reason
    assignee: str | None = current.assignee
    if req.action == "confirm":
        status, reason = "confirmed", None
    elif req.action == "dismiss":
        if req.reason is None:
            raise ReviewError("say why the flag is a false alarm: pick a dismiss reason")
        if req.reason == "other" and note is None:
            raise ReviewError("a dismissal for another reason needs a note saying what it is")
        status, reason = "dismissed", req.reason
    elif req.action == "reopen":
        status, reason = "open", None
    elif req.action == "reassign":
        target = (req.assignee or "").strip() or None
        if target is not None and users is not None and target not in users:
            raise ReviewError(f"there is no user {target!r} to assign the flag to")
        assignee = target
    elif req.action == "comment":
        if note is None:
            raise ReviewError("a comment needs some text")
    else:  # pragma: no cover - the Literal type rules it out; kept for callers without a type checker
        raise ReviewError(f"unknown action {req.action!r}")
    if req.action != "dismiss" and req.reason is not None:
        raise ReviewError("a reason goes with a dismissal only")
    return status, reason, assignee


def _decision_record(
    flag: Flag, current: FlagReview, new: FlagReview, req: DecisionRequest, note: str | None, at: datetime
) -> ReviewDecision:
    """The audit trail's record of one decision: the flag as judged, and its state before and after.

    For a comment ``new`` is ``current``, so the record shows the state unchanged.
    """
    return ReviewDecision(
        review_id=uuid.uuid4().hex,
        flag_id=flag.flag_id,
        doc_id=flag.doc_id,
        source=flag.source,
        rule=flag.rule,
        kind=flag.kind,
        severity=flag.severity,
        metric=flag.metric,
        period=flag.period.key if flag.period else None,
        pages=list(flag.pages),
        confidence=flag.confidence,
        action=req.action,
        status_before=current.status,
        status=new.status,
        reason=new.reason if req.action == "dismiss" else None,
        note=note,
        assignee_before=current.assignee,
        assignee=new.assignee,
        reviewer=req.reviewer,
        decided_at=at,
        version=new.version,
    )
