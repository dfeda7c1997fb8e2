"""A roll-forward whose balances are named by their date alone: "Equity, December 31, 2012" (generated).

"Balance at December 31, 2013" says it is a closing balance; "Equity, December 31, 2013" says so only by
naming the balance of "Equity, December 31, 2012" above it at a later date. It was not read as a closing
balance, so in a table of one column the movements between were never checked against it and a movement
keyed wrong raised nothing (Boston Properties' equity statement). ``labels._named_moment`` now reads a
balance named by a full date after its name.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, table_result


@Keyed
def _rollforward(dividends: str = "(748,378)") -> DocumentResult:
    rows = [
        ("Equity, December 31, 2012", ("5,634,854",)),
        ("Redemption of partnership units", ("16,494",)),
        ("Allocated net income for the year", ("828,757",)),
        ("Dividends declared", (dividends,)),
        ("Equity, December 31, 2013", ("5,731,727",)),
    ]
    return table_result(
        "Changes in equity (in thousands)", ("Total",), rows, (480.0,), heads_y=90, source="equity.pdf"
    )


test_the_clean_rollforward_raises_nothing = _rollforward.quiet_test()


test_a_movement_keyed_wrong_is_flagged = _rollforward.flagged_test(
    "TOT001", "Equity, December 31, 2013", dividends="(784,378)"
)
