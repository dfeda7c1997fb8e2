"""Earnings per share over a numerator adjusted in another note are a structure question, not a misprint.

Filers with redeemable noncontrolling interests (or preferred dividends, or an accretion to redemption
value) print "Net income attributable to the Company" on the income statement and divide, for earnings per
share, that figure less an adjustment shown only in a note on another page. In the year of the adjustment
both the basic and the diluted figure fail against the printed line, and EPS001 raised two flags at
confidence 0.97 on figures that are right (a class found on 10-Ks outside the corpus, issue 23). A keying
error breaks both divisions only in the earnings line, and then a keyed variant of it is the figure both
per-share lines agree on; where none is, the break is the numerator's adjustment and goes to the structure
questions with its evidence. Generated page; the figures are no filing's.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import table_result

_XS = (400.0, 470.0, 540.0)


def _statement(basic_2023: str = "9.50", shares_2023: str = "100") -> DocumentResult:
    """An income statement's foot: 2023's per-share figures divide 950 (1,000 less 50 accreted elsewhere)."""
    rows = [
        ("Net income", ("1,100", "1,000", "950")),
        ("Net income attributable to noncontrolling interests", ("(100)", "(80)", "(70)")),
        ("Net income attributable to the Company", ("1,000", "920", "880")),
        ("Basic earnings per share", (basic_2023, "9.20", "8.80")),
        ("Diluted earnings per share", ("9.41", "9.11", "8.71")),
        ("Weighted-average shares outstanding - basic", (shares_2023, "100", "100")),
        ("Weighted-average shares outstanding - diluted", ("101", "101", "101")),
    ]
    return table_result(
        "(in millions, except per share amounts)", ("2023", "2022", "2021"), rows, _XS, source="eps.pdf"
    )


def test_both_divisions_agreeing_on_an_unprinted_numerator_are_a_structure_question() -> None:
    result = _statement()
    assert [f.rule for f in result.flags] == []
    questions = [q for q in result.structure_questions if q.rule == "EPS001"]
    assert len(questions) == 2, [q.message for q in result.structure_questions]
    assert all("numerator adjusted elsewhere" in " ".join(q.reasons) for q in questions)


def test_a_per_share_figure_keyed_wrong_in_that_column_is_still_flagged() -> None:
    result = _statement(basic_2023="5.90")  # two digits swapped: the divisions agree on no numerator
    assert any("printed 5.90" in f.message for f in result.flags), [f.message for f in result.flags]
    assert result.structure_questions == []


def test_a_share_count_keyed_wrong_is_no_adjusted_numerator() -> None:
    # 2023's basic count keyed 110: the two divisions no longer agree on one numerator.
    result = _statement(shares_2023="110")
    assert sorted(f.rule for f in result.flags) == ["EPS001", "EPS001"], [f.message for f in result.flags]
    assert result.structure_questions == []


def test_the_earnings_line_keyed_wrong_is_still_flagged() -> None:
    # Per-share figures of 1,000 (10.00 and 9.90) over an earnings line keyed 1,090: a digit changed.
    rows = [
        ("Net income attributable to the Company", ("1,090", "920", "880")),
        ("Basic earnings per share", ("10.00", "9.20", "8.80")),
        ("Diluted earnings per share", ("9.90", "9.11", "8.71")),
        ("Weighted-average shares outstanding - basic", ("100", "100", "100")),
        ("Weighted-average shares outstanding - diluted", ("101", "101", "101")),
    ]
    result = table_result("(in millions, except per share amounts)", ("2023", "2022", "2021"), rows, _XS)
    assert sorted(f.rule for f in result.flags) == ["EPS001", "EPS001"], [f.message for f in result.flags]
    assert [q.rule for q in result.structure_questions] == []
