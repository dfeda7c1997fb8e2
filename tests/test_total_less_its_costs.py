"""A total by its place that is the line above it less a cost (generated page).

3M's income statement prints "Income before income taxes", "Provision for income taxes", a rule, then
"Income of consolidated group": a line whose label does not say it is a total, made one by the rule over
its figures (a *placed* total). A placed total may add its lines as printed or signed by their labels,
never as "the first less the rest" (that agrees by identity under a balance sheet's totals). Here the two
are the same signs, and the run was dropped under the first name the candidates gave it: a provision
keyed wrong raised nothing. A run whose signs are its labels' is now kept, whatever its name.
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, titled_page, write_ruled_rows

_XS = (420.0, 500.0)
_RULED = ("Income of consolidated group", "Net income including noncontrolling interest")


@Keyed
def _income(provision: str = "1,285") -> DocumentResult:
    rows = page_rows(f"""
        Net sales                                                    | 35,355      | 32,184
        Operating expenses                                           | 28,151      | 25,389
        Income before income taxes                                   | 7,204       | 6,795
        Provision for income taxes                                   | {provision} | 1,337
        Income of consolidated group                                 | 5,919       | 5,458
        Income (loss) from unconsolidated subsidiaries, net of taxes | 10          | (5)
        Net income including noncontrolling interest                 | 5,929       | 5,453
    """)
    doc = pymupdf.open()
    page = titled_page(doc, "Consolidated Statement of Income (Millions)", ("2021", "2020"), _XS)
    write_ruled_rows(page, rows, _XS, lambda label: label in _RULED)
    return process_bytes(doc.tobytes(), source="income.pdf")


test_the_clean_statement_raises_nothing = _income.quiet_test()


test_a_provision_keyed_wrong_is_flagged = _income.flagged_test(
    "TOT001", "Income of consolidated group", provision="285"
)
