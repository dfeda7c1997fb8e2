"""The verify stage: the deterministic checks over a parsed document.

Kept apart from the parsing engine so that the verify service, which loads parsed documents from storage,
never imports PyMuPDF (a test checks ``sys.modules``). The engine lists :func:`run_checks` among its
stages (``pipeline.engine.STAGES``) and times it as it times the others; :func:`verify` is the same stage
run on its own, timed here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.checks import Localized, check_document
from pipeline.checks.localize import RelationLog
from pipeline.memo import document_scope
from schemas.models import DocumentResult

__all__ = ["Checked", "flagged", "run_checks", "verify"]


@dataclass(frozen=True, slots=True)
class Checked:
    """The checks stage's output: the parsed document and what the checks found in it.

    Attributes:
        parsed: The document as parsed, without flags.
        found: The flags and structure questions, and how long their localization took.
    """

    parsed: DocumentResult
    found: Localized


def run_checks(parsed: DocumentResult, relations: RelationLog | None = None) -> Checked:
    """Stage ``checks``: run every rule over a parsed document that did not fail.

    Args:
        parsed: The parsed document (``parsed.failed`` is False).
        relations: Where every relation the checks evaluate is recorded (see
            :func:`pipeline.checks.check_document`); a new log by default.

    Returns:
        The document and the checks' findings, to be attached by :func:`flagged`.
    """
    with document_scope():
        found = check_document(
            parsed.tables,
            parsed.facts,
            parsed.blocks,
            doc_id=parsed.doc_id,
            source=parsed.source,
            statements=parsed.statements,
            relations=relations,
            chunks=parsed.chunks,
        )
    return Checked(parsed, found)


def flagged(checked: Checked, timings: Mapping[str, float]) -> DocumentResult:
    """The parsed document with the checks' findings attached.

    Args:
        checked: The checks stage's output.
        timings: The checks stages' wall times by name (``checks``), added to ``stats.stage_seconds``
            with the part of them the localization took (``localize``).

    Returns:
        The document with its flags, structure questions and their statistics.
    """
    result, found = checked.parsed, checked.found
    seconds = {**result.stats.stage_seconds, **timings, "localize": round(found.seconds, 4)}
    stats = result.stats.model_copy(update={"flags": len(found.flags), "stage_seconds": seconds})
    update = {"flags": found.flags, "structure_questions": found.structure_questions, "stats": stats}
    return result.model_copy(update=update)


def verify(result: DocumentResult) -> DocumentResult:
    """Run the checks stage over a parsed document, timed, and attach its flags.

    Pure in its input, so a verify service can run it on a parsed document loaded from storage; a document
    that failed is returned as it is.

    Args:
        result: The parsed document.

    Returns:
        The document with its flags.
    """
    if result.failed:
        return result
    t0 = time.monotonic()
    checked = run_checks(result)
    return flagged(checked, {"checks": round(time.monotonic() - t0, 4)})
