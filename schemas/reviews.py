"""Analysts' decisions about flags: the review state of a flag and the append-only decision record.

A :class:`ReviewDecision` is written once per action an analyst takes in the review console (confirm,
dismiss with a reason, reassign, comment, reopen) and never changed afterwards: it is the audit trail, the
payload of the ``reviews`` topic and the label that reward folding and ``tieout export reviews`` read.
It repeats what it judged (document, rule, kind, pages, metric, period) so that a reader needs no join
with the flag, which a later run may replace.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from schemas.models import Evidence, FlagKind, PageNo, Record

__all__ = [
    "DISMISS_REASONS",
    "REVIEW_STATUSES",
    "DismissReason",
    "FlagReview",
    "RegressionCase",
    "ReviewAction",
    "ReviewDecision",
    "ReviewStatus",
]

ReviewStatus = Literal["open", "confirmed", "dismissed"]
"""Where a flag stands: not judged yet, a real inconsistency, or a false alarm."""

REVIEW_STATUSES: tuple[ReviewStatus, ...] = ("open", "confirmed", "dismissed")

DismissReason = Literal["wrong_pairing", "wrong_scale", "different_basis", "extraction_error", "other"]
"""Why a flag is a false alarm: the rule compared figures that do not belong together, read a scale wrong,
compared different bases (restated, pro forma, segment), the figure was misread, or something else (the
note says what)."""

DISMISS_REASONS: dict[DismissReason, str] = {
    "wrong_pairing": "Wrong pairing",
    "wrong_scale": "Wrong scale",
    "different_basis": "Different basis",
    "extraction_error": "Extraction error",
    "other": "Other",
}
"""Every dismiss reason with its label, in the order the console offers them (keys 1-5)."""

ReviewAction = Literal["confirm", "dismiss", "reopen", "reassign", "comment"]


class FlagReview(Record):
    """The current review state of one flag.

    ``version`` counts the state changes (0 before any): a decision names the version it was made on,
    and a decision made on an older version is refused instead of overwriting a colleague's.
    """

    flag_id: str
    status: ReviewStatus = "open"
    assignee: str | None = None
    reason: DismissReason | None = None
    version: int = Field(default=0, ge=0)
    updated_at: datetime | None = None
    updated_by: str | None = None


class ReviewDecision(Record):
    """One analyst action on one flag, as kept in the audit trail (never updated, never deleted)."""

    review_id: str = Field(description="Unique id of this decision (hex).")
    flag_id: str
    doc_id: str
    source: str = Field(description="The document as the run named it (file name or object key).")
    rule: str
    kind: FlagKind
    severity: Literal["error", "warning", "info"]
    metric: str | None = None
    period: str | None = Field(default=None, description="The flag's period key (FY2025, 2025-12-31, …).")
    pages: list[PageNo]
    confidence: float = Field(ge=0.0, le=1.0, description="The rule's confidence when it was judged.")
    action: ReviewAction
    status_before: ReviewStatus
    status: ReviewStatus = Field(description="The flag's status after this decision.")
    reason: DismissReason | None = Field(default=None, description="Why it was dismissed (dismiss only).")
    note: str | None = Field(default=None, description="The analyst's comment, as typed.")
    assignee_before: str | None = None
    assignee: str | None = Field(default=None, description="Who the flag is assigned to after this decision.")
    reviewer: str = Field(description="The user who decided.")
    decided_at: datetime
    version: int = Field(ge=0, description="The flag's review version after this decision.")


class RegressionCase(Record):
    """A flag an analyst dismissed as a false alarm, as a developer turns it into a test.

    Written by ``tieout export reviews``: the document and pages to cut a fixture from, the rule that
    should stay silent there, and why the analyst judged it a false alarm.
    """

    case_id: str = Field(description="Stable id (the dismissing decision's review id).")
    doc_id: str
    source: str = Field(description="The document as the run named it (file name or object key).")
    pages: list[PageNo] = Field(description="The smallest page set that shows the case: the flag's pages.")
    rule: str = Field(description="The rule that must not flag this again.")
    kind: FlagKind
    metric: str | None = None
    period: str | None = None
    reason: DismissReason
    note: str | None = Field(default=None, description="The analyst's words.")
    flag_id: str
    message: str | None = Field(default=None, description="What the rule said (None if the flag is gone).")
    evidence: list[Evidence] = Field(default_factory=list, description="The figures it compared.")
    reviewer: str
    decided_at: datetime
