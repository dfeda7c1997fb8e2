"""Tie-out across documents: against the issuer's earlier ones, and between two drafts of one.

A document against its issuer's earlier documents (:mod:`.prior`: PRI001, PRI002), and what changed
between two drafts of one document (:mod:`.diff`: VER001). Pure like the stages: documents' records in,
findings out, no I/O; the history of published figures is kept by :mod:`adapters.history`.
"""

from pipeline.across.diff import diff_documents

__all__ = ["diff_documents"]
