"""A total that loses a digit in a column checked with its blank lines left out (generated page).

A non-GAAP reconciliation prints EBITDA, EBIT and net income side by side for each period: depreciation is
blank under EBIT and net income, the amortization of acquired intangibles under EBITDA, the tax effect of
the adjustments under EBITDA and EBIT; a nil adjustment prints a dash. Such a column is checked with its
blank lines left out when another column with the same lines blank adds up (``sums._with_shown_blanks``),
and a break in it counts only when one printed figure, re-keyed, explains it — in a figure of three digits
or more, since between figures of one or two digits a digit differs by chance. An adjusted EBIT of 432
printed as 42 (a digit dropped) was not flagged: the printed total has two digits. The figure as corrected
counts too (Amcor's fourth-quarter release: 436 printed as 46).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import only_flag, write_table

_XS = (250.0, 300.0, 350.0, 420.0, 470.0, 520.0)


def _reconciliation(adjusted_ebit: str) -> DocumentResult:
    rows = [
        ("Net income attributable to shareholders", ("109", "109", "109", "181", "181", "181")),
        ("Income tax expense", ("103", "103", "", "68", "68", "")),
        ("Interest expense, net", ("35", "35", "", "70", "70", "")),
        ("Depreciation and amortization", ("145", "", "", "144", "", "")),
        ("EBITDA, EBIT and net income", ("392", "247", "109", "463", "319", "181")),
        ("Integration costs", ("11", "11", "11", "-", "-", "-")),
        ("Restructuring", ("206", "206", "206", "71", "71", "71")),
        ("Other", ("(10)", "(10)", "(10)", "2", "2", "2")),
        ("Amortization of acquired intangibles", ("", "42", "42", "", "40", "40")),
        ("Tax effect of above items", ("", "", "4", "", "", "(12)")),
        ("Adjusted EBITDA, EBIT and net income", ("599", "496", "362", "536", adjusted_ebit, "282")),
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Reconciliation of non-GAAP measures ($ million)", fontsize=9)
    write_table(page, 90, ("2022", "2022", "2022", "2023", "2023", "2023"), [], _XS)
    write_table(page, 104, ("EBITDA", "EBIT", "Net income", "EBITDA", "EBIT", "Net income"), rows, _XS)
    return process_bytes(doc.tobytes(), source="reconciliation.pdf")


def test_the_reconciliation_raises_nothing() -> None:
    assert _reconciliation("432").flags == []


def test_a_total_that_lost_a_digit_is_flagged() -> None:
    assert "printed 42 but components sum to 432" in only_flag(_reconciliation("42"), "TOT001").message
