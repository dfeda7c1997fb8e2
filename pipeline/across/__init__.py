"""Across documents: what changed between two drafts of one document (:mod:`.diff`).

Pure like the stages: two :class:`~schemas.models.DocumentResult` in, one record out, no I/O.
"""

from pipeline.across.diff import diff_documents

__all__ = ["diff_documents"]
