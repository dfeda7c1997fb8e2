"""A roll-forward whose movements add up to a "Change in …" line above the closing balance (generated).

A bank's capital roll-forward prints "Tier 1 capital at December 31, 2020", the movements, "Change in
Tier 1 capital" (their total) and "Tier 1 capital at March 31, 2021". The closing balance was read as the
opening plus every line between, the change line included, so the movements were counted twice and a
clean table raised a false TOT001 (JPMorgan's quarterly report, once its two-column pages were read a
column at a time). The change line is now the movements' total, and the closing balance the opening plus
it (``labels.named_change``); a keying error in either relation is still flagged.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result


@Keyed
def _rollforward(issuance: str = "1,500", closing: str = "237,333") -> DocumentResult:
    rows = page_rows(f"""
        Tier 1 capital at December 31, 2020 | 234,844
        Change in CET1 capital              | 1,000
        Net issuance of preferred stock     | {issuance}
        Other                               | (11)
        Change in Tier 1 capital            | 2,489
        Tier 1 capital at March 31, 2021    | {closing}
    """)
    return table_result(
        "Capital rollforward (in millions)",
        ("Three months ended March 31, 2021",),
        rows,
        (480.0,),
        heads_y=90,
        source="rollforward.pdf",
    )


test_the_clean_rollforward_raises_nothing = _rollforward.quiet_test()


test_a_movement_keyed_wrong_is_flagged = _rollforward.flagged_test(
    "TOT001", "Change in Tier 1 capital", issuance="1,050"
)


test_a_closing_balance_keyed_wrong_is_flagged = _rollforward.flagged_test(
    "TOT001", "components sum to 237,333", closing="273,333"
)
