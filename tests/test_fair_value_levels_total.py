"""A fair-value hierarchy whose total column is headed by the balance sheet's date, not "Total".

Fair-value tables print each asset's level 1, 2 and 3 amounts beside their total, and head that column
"Total", "Fair Value" or the date ("December 31, 2020 | Level 1 | Level 2 | Level 3", eBay). Unheaded as a
total, the column had to prove itself in five rows adding two figures or more; most assets sit in one
level, so it never did, and a total keyed 286 → 2,866 on a line that repeats one figure raised nothing
(development seeds 19-21; here a line outside the table's sums, 44 → 444). The column just before or
after a run of level columns is their total (:func:`pipeline.statements.column_sums.column_sums`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sample_docs.generate import winansi
from schemas.models import DocumentResult
from tests.support.pages import only_flag, table_result

_XS = (330.0, 400.0, 470.0, 540.0)
_NIL = winansi("—")


def _fair_values(
    heads: Sequence[str], liabilities: str = "44", *, total_last: bool = False
) -> DocumentResult:
    rows = [
        ("Cash equivalents", ("1,101", "890", "211", _NIL)),
        ("Corporate debt securities", ("2,255", _NIL, "2,255", _NIL)),
        ("Derivatives", ("1,113", _NIL, "62", "1,051")),
        ("Total long-term investments", ("286", _NIL, "286", _NIL)),
        ("Total financial assets", ("4,755", "890", "2,814", "1,051")),
        ("Derivative liabilities", (liabilities, _NIL, "44", _NIL)),
    ]
    xs = _XS
    if total_last:
        rows = [(label, (*figures[1:], figures[0])) for label, figures in rows]
        xs = (290.0, 360.0, 430.0, 540.0)  # room for the date after "Level 3"
    return table_result("Assets measured at fair value (In millions)", heads, rows, xs, source="levels.pdf")


_DATE_FIRST = ("December 31, 2020", "Level 1", "Level 2", "Level 3")
_DATE_LAST = ("Level 1", "Level 2", "Level 3", "December 31, 2020")


def test_the_clean_tables_raise_nothing() -> None:
    assert _fair_values(_DATE_FIRST).flags == []
    assert _fair_values(_DATE_LAST, total_last=True).flags == []


def test_a_total_keyed_wrong_in_the_date_column_is_flagged() -> None:
    assert "444" in only_flag(_fair_values(_DATE_FIRST, "444"), "TOT002").message


def test_the_date_column_printed_after_the_levels_is_their_total_too() -> None:
    assert "444" in only_flag(_fair_values(_DATE_LAST, "444", total_last=True), "TOT002").message


def test_a_column_beside_one_level_column_is_no_total() -> None:
    heads = ("December 31, 2020", "Level 1", "Other", "Level 3")
    assert _fair_values(heads, "444").flags == []
