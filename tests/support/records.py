"""Whole records, valid as they stand, for the tests of what is done with one (rows, schemas, flags)."""

from __future__ import annotations

from schemas.models import Evidence, Fact, Flag, Period

__all__ = ["fact", "flag"]


def fact(**changes: object) -> Fact:
    """A table-cell fact of revenue on page 3, with ``changes`` applied (not validated again)."""
    base = Fact(
        fact_id="f1",
        doc_id="d" * 64,
        source="x.pdf",
        metric="revenue",
        label="Revenue",
        period=Period(kind="instant", key="2025-12-31", label="31 December 2025", end_date="2025-12-31"),
        value=2031700000.0000002,  # a product of floats: 2,031.7 × 10^6
        printed="2,031.7",
        printed_value=2031.7,
        decimals=-5,
        scale=6,
        scale_source="caption",
        page=3,
        bbox=(1.0, 2.0, 3.0, 4.0),
        origin="table_cell",
    )
    return base.model_copy(update=changes)


def flag(**changes: object) -> Flag:
    """A TOT001 sum mismatch on page 1 of document ``d`` with one line of evidence, with ``changes`` applied
    (validated as the flag's fields are)."""
    base: dict[str, object] = {
        "flag_id": "f",
        "doc_id": "d",
        "source": "d.pdf",
        "rule": "TOT001",
        "kind": "sum_mismatch",
        "severity": "error",
        "message": "m.",
        "pages": [1],
        "evidence": [Evidence(page=1, text="x", role="total")],
    }
    return Flag.model_validate(base | changes)
