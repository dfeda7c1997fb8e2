"""Which version of a document a version is compared with: the rule the sink and the embedded run share.

Documents with the same :attr:`~schemas.models.DocumentIdentity.version_key` are versions of one document,
listed in the order they came (the sink's pointer, the embedded run's history). A document not yet listed
is compared with the latest version and joins the list; one already listed (a redelivery, a rerun) is
compared with the version listed before it, so it gives the same changes every time.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["previous_version"]


def previous_version(listed: Sequence[str], doc_id: str) -> tuple[int | None, bool]:
    """The version ``doc_id`` is compared with, and whether it joins the list.

    Args:
        listed: The doc ids of the document's versions so far, in the order they came.
        doc_id: The version in hand.

    Returns:
        The index in ``listed`` of the version to compare it with (None: a first version), and True when
        ``doc_id`` is not listed yet (it is to be appended once its results are kept).
    """
    if doc_id in listed:
        at = list(listed).index(doc_id)
        return (at - 1 if at else None), False
    return (len(listed) - 1 if listed else None), True
