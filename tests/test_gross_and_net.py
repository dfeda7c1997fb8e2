"""A line "X, net" under "X, gross" and the deduction between them (generated page).

AES prints "Regulated generation and distribution assets and other, gross", "Regulated accumulated
depreciation" and "…, net", then the same three lines for its non-regulated assets. "…, net" was a total
only when the line it is net of was printed bare above it, or the deduction started with "Less" or
"Accumulated", so a keying error in the deduction raised nothing. "X, gross" above now names it too.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result


@Keyed
def _assets(depreciation: str = "(3,655)") -> DocumentResult:
    rows = page_rows(f"""
        Regulated assets and other, gross  | 9,151          | 8,858
        Regulated accumulated depreciation | {depreciation} | (3,329)
        Regulated assets and other, net    | 5,496          | 5,529
    """)
    return table_result(
        "Property, plant and equipment (in millions)",
        ("December 31, 2021", "December 31, 2020"),
        rows,
        source="assets.pdf",
    )


test_the_clean_table_raises_nothing = _assets.quiet_test()


test_a_deduction_keyed_wrong_is_flagged = _assets.flagged_test(
    "TOT001", "Regulated assets and other, net", depreciation="(3,565)"
)
