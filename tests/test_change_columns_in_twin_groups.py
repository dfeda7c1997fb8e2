"""A change column printed again for another group of columns is the same relation (generated layout).

Corning's 10-Q highlights print net sales and net income for the three months and for the six months, each
pair with its "% change" beside it: two lines a group. Two rows prove a named change, so a line keyed wrong
in one group left it one row of two, which proves nothing, and CHG001 said nothing (development seeds
33-34: the six months' 6,849 keyed 6,489 beside "(9)%"). The same change column at the same place after
its pair of columns is now proven by the rows of both groups together.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, table_result


@Keyed
def _highlights(six_months: str = "6,849") -> DocumentResult:
    rows = [
        ("Core net sales", ("3,482", "3,762", "(7)%", six_months, "7,506", "(9)%")),
        ("Core net income", ("388", "489", "(21)%", "738", "954", "(23)%")),
    ]
    return table_result(
        "Selected highlights, excluding certain items (in millions)",
        ("Q2 2023", "Q2 2022", "% change", "H1 2023", "H1 2022", "% change"),
        rows,
        (260.0, 310.0, 360.0, 420.0, 470.0, 520.0),
    )


test_the_clean_table_raises_nothing = _highlights.quiet_test()
test_a_figure_keyed_wrong_in_one_group_is_flagged = _highlights.flagged_test(
    "CHG001", "(9)%", six_months="6,489"
)
