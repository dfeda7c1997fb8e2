"""A share count whose label names the company: "Weighted average 3M common shares outstanding" (generated).

A line's kind (amount, per-share amount, share count) is read from its label, and a label that prints a
figure is an amount described ("Dividends declared ($5.88 per share)"). 3M names itself in its share
lines, and the digit of its name made them amounts: the income statement then had no share count, EPS001
never tried it, and a diluted count keyed with a digit doubled raised nothing. A name's digits, glued to
its letters, are no figure, and the company's name may stand before "common shares".
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, titled_page, write_table


@Keyed
def _income(diluted: str = "585.3") -> DocumentResult:
    rows = page_rows(f"""
        Net sales                                                            | 35,355    | 32,184 | 32,136
        Operating expenses                                                   | 27,986    | 25,023 | 25,962
        Income before income taxes                                           | 7,369     | 7,161  | 6,174
        Provision for income taxes                                           | 1,448     | 1,712  | 1,645
        Net income attributable to A2Z                                       | 5,921     | 5,449  | 4,529
        Weighted average A2Z common shares outstanding - basic               | 579.0     | 577.6  | 577.0
        Earnings per share attributable to A2Z common shareholders - basic   | 10.23     | 9.43   | 7.85
        Weighted average A2Z common shares outstanding - diluted             | {diluted} | 582.2  | 585.1
        Earnings per share attributable to A2Z common shareholders - diluted | 10.12     | 9.36   | 7.74
    """)
    doc = pymupdf.open()
    xs = (380.0, 450.0, 520.0)
    page = titled_page(doc, "Consolidated Statement of Income (Millions, except per share amounts)", (), ())
    write_table(page, 84.0, ("2021", "2020", "2019"), rows, xs)
    return process_bytes(doc.tobytes(), source="income.pdf")


test_the_clean_statement_raises_nothing = _income.quiet_test()


test_a_diluted_count_keyed_with_a_digit_doubled_is_flagged = _income.flagged_test(
    "EPS001", "5,585.3", diluted="5,585.3"
)
