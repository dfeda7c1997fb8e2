"""PRI001/PRI002: a figure against what the same issuer published for that period in an earlier document.

The rules compare two documents, so a single document never raises them: :mod:`pipeline.across.prior`
judges a document's figures against its issuer's history (``tieout run --history``) and raises them. They
are declared here, beside the other rules, so that :data:`pipeline.checks.RULES` lists them.
"""

from __future__ import annotations

from pipeline.checks.rule import Rule

__all__ = ["INCONSISTENCY_RULE", "RESTATEMENT_RULE"]

_REQUIRES = (
    "the same issuer, statement, line, period, unit, basis, dimension and reporting entity in an earlier "
    "document, in a table that agrees with this one on two thirds of the other lines both print (for a "
    "keying-error difference: a table that prints the same lines, or the same main primary statement)"
)

INCONSISTENCY_RULE = Rule(
    "PRI001",
    "prior_period_mismatch",
    "error",
    "A figure agrees with what the same issuer published for that period in an earlier document.",
    _REQUIRES,
)
RESTATEMENT_RULE = Rule(
    "PRI002",
    "prior_period_mismatch",
    "info",
    "A prior period's figure that differs from the earlier document where the document says why "
    "(restated, recast, reclassified): information, with the reason quoted.",
    _REQUIRES,
)
