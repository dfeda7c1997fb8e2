"""VER001: a change between two drafts of a document breaks a tie that held in the earlier draft.

The rule compares two documents, so a single document never raises it: :func:`pipeline.across.diff`
evaluates every relation of TOT001 and TOT002 in both drafts and flags, in the later draft, each one that
held before and fails after. A total that changed with its components still holds: a change, no flag.
"""

from __future__ import annotations

from pipeline.checks.rule import Rule

__all__ = ["RULE"]

RULE = Rule(
    "VER001",
    "sum_mismatch",
    "error",
    "A relation that held in the previous draft of the document still holds in this draft.",
    "the relation held in the previous draft, where the same lines add up in the same column",
)
