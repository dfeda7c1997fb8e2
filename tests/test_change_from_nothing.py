"""An amount change from nothing is tested once the column's other rows prove it (generated page).

An MD&A table prints a line that did not exist the year before ("Restructuring | 828 | 0 | 828"): a change
from nothing proves nothing of the column's relation, so the row was never tested either, and a keying
error in its change went unflagged (Salesforce's operating expenses, a development file). Once the other
rows prove the column is the difference of the two years, the row is tested; a percentage change from
nothing stays undefined.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, only_flag, page_rows, table_result

_XS = (330.0, 410.0, 490.0)


@Keyed
def _expenses(
    restructuring: str = "828", change: str = "828", prior: str = "0", total: str = "21,962 | 18,918 | 3,044"
) -> DocumentResult:
    rows = page_rows(f"""
        Research and development   | 5,055            | 4,465    | 590
        Marketing and sales        | 13,526           | 11,855   | 1,671
        General and administrative | 2,553            | 2,598    | (45)
        Restructuring              | {restructuring}  | {prior}  | {change}
        Total operating expenses   | {total}
    """)
    heads = ("2023", "2022", "$ Change")
    return table_result("Operating Expenses (in millions)", heads, rows, _XS, source="opex.pdf")


test_the_clean_table_raises_nothing = _expenses.quiet_test()


def test_a_change_from_nothing_keyed_wrong_is_flagged() -> None:
    flag = only_flag(_expenses(change="8,288"), "CHG001")
    assert flag.message.startswith("Restructuring: $ Change printed 8,288")


def test_a_change_to_nothing_keyed_wrong_is_flagged() -> None:
    # the line ended this year: 0 against 828, a change of (828) keyed as (882)
    result = _expenses(restructuring="0", prior="828", change="(882)", total="21,134 | 19,746 | 1,388")
    assert only_flag(result, "CHG001").message.startswith("Restructuring: $ Change printed (882)")
