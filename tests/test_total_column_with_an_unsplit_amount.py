"""A "Total" column beside an amount the table does not split by period (generated page).

A table of contractual obligations prints each obligation's total and its payments by period. Uncertain
tax positions have a total only ("Uncertain tax positions (5) | 48 |  |  |  |"): when they will be paid
is not known, as the footnote says. The totals below them include the 48 that no period column holds,
so the total column failed in both total lines, two failures proved no column sum, and a payment keyed
wrong in any other line raised nothing (Corning's 2016 10-K, development seed 28). The total column was
the only relation those lines had: "Total debt", an obligation named as a total, is taken for the sum of
the lines above it (unproven), and the last line is then no total of the lines. A total line that adds up
once the amounts printed above it without a period are included is not compared.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("Total", "Less than 1 year", "1 to 3 years", "3 to 5 years", "Thereafter")
_XS = (250.0, 330.0, 400.0, 470.0, 540.0)


@Keyed
def _obligations(capex: str = "378", capex_first_year: str = "378") -> DocumentResult:
    rows = page_rows(f"""
        Purchase obligations            | 231   | 127                | 81  | 20  | 3
        Capital expenditure obligations | {capex} | {capex_first_year} |     |     |
        Total debt                      | 3,557 | 250                | 625 | 362 | 2,320
        Interest on long-term debt      | 2,222 | 162                | 299 | 259 | 1,502
        Minimum rental commitments      | 545   | 68                 | 111 | 76  | 290
        Uncertain tax positions         | 48    |                    |     |     |
        Total contractual obligations   | 6,981 | 985                | 1,116 | 717 | 4,115
    """)
    return table_result("Contractual obligations (in millions)", _HEADS, rows, _XS, source="obligations.pdf")


test_the_clean_table_raises_nothing = _obligations.quiet_test()
test_a_payment_keyed_ten_times_over_is_flagged = _obligations.flagged_test(
    "TOT002", "3,378", capex_first_year="3,378"
)
test_a_payment_with_a_digit_dropped_is_flagged = _obligations.flagged_test(
    "TOT002", "37", capex_first_year="37"
)
test_a_total_keyed_ten_times_over_is_flagged = _obligations.flagged_test("TOT002", "3,378", capex="3,378")


@Keyed
def _summed(first_year_total: str = "985") -> DocumentResult:
    rows = page_rows(f"""
        Purchase obligations            | 231   | 127   | 81    | 20  | 3
        Capital expenditure obligations | 378   | 378   |       |     |
        Long-term debt                  | 3,557 | 250   | 625   | 362 | 2,320
        Interest on long-term debt      | 2,222 | 162   | 299   | 259 | 1,502
        Minimum rental commitments      | 545   | 68    | 111   | 76  | 290
        Uncertain tax positions         | 48    |       |       |     |
        Total contractual obligations   | 6,981 | {first_year_total} | 1,116 | 717 | 4,115
    """)
    return table_result("Contractual obligations (in millions)", _HEADS, rows, _XS, source="obligations.pdf")


# The total line's own figure keyed wrong breaks its column's sum, which names it; the total column's sum of
# that line, which may or may not include the 48, is not compared (else no one correction mends both).
test_a_total_lines_year_keyed_wrong_is_flagged_in_its_column = _summed.flagged_test(
    "TOT001", "9,985", first_year_total="9,985"
)
test_the_summed_table_raises_nothing = _summed.quiet_test()
