"""Each document's xBRL report in object storage, beside the Parquet datasets.

Layout: ``xbrl/ingest_date=YYYY-MM-DD/<doc_id>/`` holds ``report.json``, ``tieout-ext.xsd``,
``tieout-ext-cal.xml`` and ``excluded.jsonl`` (:func:`adapters.storage.xbrl_key`): the folder
``tieout export xbrl`` writes, with the same bytes (:func:`adapters.xbrl.artifact.xbrl_artifact`), under
the datasets' ingest-date partition. Keyed by document id, and the bytes depend on the result alone, so a
replay overwrites each object with identical bytes. There is no ``schema=`` level as in the datasets: a
report is self-describing (its extension taxonomy travels beside it), not a row of a fixed schema.

The sink does not run Arelle: the check is optional (the ``xbrl`` extra) and heavy; ``tieout export xbrl``
checks a document's report offline.
"""

from __future__ import annotations

from adapters.sinks.base import BucketSink, SinkBatch, SinkRefused, store_errors
from adapters.storage import Store, xbrl_key
from adapters.xbrl.artifact import XbrlArtifact, content_type, xbrl_artifact

__all__ = ["XbrlReports", "put_artifact"]


def put_artifact(
    store: Store, bucket: str, ingest_date: str, doc_id: str, artifact: XbrlArtifact
) -> list[str]:
    """Write a document's xBRL artifact, one object per file with its media type; returns the URIs written.

    Raises:
        StorageError: The store failed a write.
    """
    return [
        store.put_bytes(bucket, xbrl_key(ingest_date, doc_id, name), data, content_type(name))
        for name, data in artifact.files.items()
    ]


class XbrlReports(BucketSink):
    """The xBRL reports as a :class:`~adapters.sinks.base.Sink`."""

    name = "xbrl"

    def write(self, batch: SinkBatch) -> list[str]:
        """One object per file of the document's report; returns their URIs.

        Raises:
            SinkOutage: The store is unreachable (the service retries).
            SinkRefused: The store refused a write (category ``storage``), or no report could be built for
                this document (category ``xbrl_report``: a bug of the export for that document, which no
                retry mends; the dead letter keeps the document for a replay once it is fixed).
        """
        doc_id = batch.result.doc_id
        try:
            artifact = xbrl_artifact(batch.result)
        except Exception as exc:
            raise SinkRefused(
                f"xbrl report of {doc_id}: {type(exc).__name__}: {exc}", category="xbrl_report"
            ) from exc
        with store_errors():
            return put_artifact(self.store, self.bucket, batch.ingest_date, doc_id, artifact)
