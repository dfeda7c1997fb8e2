"""A line of column heads whose last head is abbreviated with a period is no sentence's end.

Walking up from a table's first figures, the last line of a sentence ends the search for its column heads:
a line ending with a period, of four words or more. A line of heads standing apart over the columns may
end with one too: "Depr.", "Oper. Income", "$ Change 2021 vs." (the year on the line below). The heads
were lost, and with them the "Total" head that makes a column a sum, or the "% change" that makes one a
change (3M's segment tables, AES's MD&A, a real estate schedule's "Accumulated Depr."). Three heads or more
standing apart, the last a short one, are heads (:func:`pipeline.parse.table_grid._heads_and_caption`).
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("Land", "Buildings", "Improvements", "Total", "Depr.")
_XS = (300.0, 370.0, 440.0, 500.0, 550.0)


@Keyed
def _properties(total: str = "40,880") -> DocumentResult:
    rows = page_rows(f"""
        Overlook Park    | 16,456 | 66,192 | 22,385 | 105,033 | 37,165
        Discovery Square | 11,198 | 71,782 | 21,234 | 104,214 | 35,835
        Main Street      | 3,457  | 97,136 | 2,986  | 103,579 | 59,405
        Ravendale Drive  | 5,477  | 1,090  | 233    | 6,800   | 265
        Grainger Court   | 366    | 4,282  | 2,090  | 6,738   | 5,225
        Boston Boulevard | 138    | 3,749  | 36,993 | {total} | 4,399
    """)
    return table_result("Real estate and accumulated depreciation (in thousands)", _HEADS, rows, _XS)


test_the_clean_table_raises_nothing = _properties.quiet_test()

test_a_total_keyed_wrong_is_flagged = _properties.flagged_test("TOT002", "48,080", total="48,080")


def test_the_heads_are_read() -> None:
    (table,) = _properties().tables
    assert [c.text for c in table.cells if c.is_header and c.text] == list(_HEADS)
