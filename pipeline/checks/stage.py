"""The verify stage: the deterministic checks over a parsed document.

Kept apart from the parsing engine so that the verify service, which loads parsed documents from storage,
never imports PyMuPDF (a test checks ``sys.modules``).
"""

from __future__ import annotations

import time

from pipeline.checks import check_document
from pipeline.figures.claims import claims_cache
from schemas.models import DocumentResult


def verify(result: DocumentResult) -> DocumentResult:
    """Stage: run the deterministic checks over a parsed document and attach their flags.

    Pure in its input, so a verify service can run it on a parsed document loaded from storage.
    """
    if result.failed:
        return result
    t0 = time.monotonic()
    with claims_cache():
        checked = check_document(
            result.tables,
            result.facts,
            result.blocks,
            doc_id=result.doc_id,
            source=result.source,
            statements=result.statements,
        )
    timings = {
        **result.stats.stage_seconds,
        "checks": round(time.monotonic() - t0, 4),
        "localize": round(checked.seconds, 4),  # part of "checks"
    }
    stats = result.stats.model_copy(update={"flags": len(checked.flags), "stage_seconds": timings})
    update = {"flags": checked.flags, "structure_questions": checked.structure_questions, "stats": stats}
    return result.model_copy(update=update)
