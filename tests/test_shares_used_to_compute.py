"""Share counts labelled by the calculation they are used in are share counts.

An earnings-per-share note labels its counts "Shares used to compute basic net income per share" or
"Shares used in computing diluted net income per share". The clause naming the calculation is dropped to
read a numerator's line ("Net income used in computing basic earnings per share" is earnings), and with it
went what made these lines share counts: read as amounts, the note had no shares to divide by and EPS001
checked nothing, so six months' net income keyed 2,444 → 22,444 raised nothing (Adobe's 2022 10-Q,
development seeds 25-26). A line is a share count by its whole label as well; a line that names both
calculations is the first it names (a wrapped label's next line, "Dilutive potential common shares", read
onto the basic count, does not make it the diluted one).
"""

from __future__ import annotations

import pytest

from pipeline.checks.per_share import _flavour
from pipeline.figures.line_kinds import _line_kind
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("2023", "2022", "2021", "2020")
_XS = (360.0, 420.0, 480.0, 540.0)


@Keyed
def _note(net_2020: str = "2,444", basic_2021: str = "458.4") -> DocumentResult:
    rows = page_rows(f"""
        Net income                                          | 1,295 | 1,178 | 2,542        | {net_2020}
        Shares used to compute basic net income per share   | 457.8 | 472.1 | {basic_2021} | 472.3
        Dilutive potential common shares from stock plans   | 0.9   | 1.2   | 0.7          | 2.0
        Shares used to compute diluted net income per share | 458.7 | 473.3 | 459.1        | 474.3
        Basic net income per share                          | 2.83  | 2.50  | 5.55         | 5.17
        Diluted net income per share                        | 2.82  | 2.49  | 5.54         | 5.15
    """)
    title = "Net income per share (in millions, except per share data)"
    return table_result(title, _HEADS, rows, _XS, source="eps.pdf")


test_the_clean_note_raises_nothing = _note.quiet_test()


def test_a_net_income_keyed_wrong_breaks_both_quotients() -> None:
    flags = _note(net_2020="22,444").flags
    assert [f.rule for f in flags] == ["EPS001", "EPS001"], [f.message for f in flags]
    assert all("22,444" in f.message for f in flags)


def test_a_basic_count_keyed_wrong_breaks_its_quotient_and_the_diluted_count() -> None:
    """The diluted count adds the dilutive shares to the basic count (TOT001) as well."""
    flags = _note(basic_2021="548.4").flags
    assert sorted(f.rule for f in flags) == ["EPS001", "TOT001"], [f.message for f in flags]
    assert all("548.4" in f.message for f in flags)


@pytest.mark.parametrize(
    "label",
    [
        "Shares used to compute basic net income per share",
        "Shares used in computing diluted net income per share",
        "Weighted-average shares used in computing diluted earnings per share",
    ],
)
def test_a_count_named_by_its_calculation_is_a_share_count(label: str) -> None:
    assert _line_kind(label) == "shares"


def test_a_numerator_named_by_its_calculation_is_earnings() -> None:
    assert _line_kind("Net income used to compute diluted net income per share") == "amount"


@pytest.mark.parametrize(
    ("label", "flavour"),
    [
        ("shares used to compute basic net income per share dilutive potential common shares", "basic"),
        ("diluted net income per share", "diluted"),
        ("net loss per share basic and diluted", "basic"),
        ("effect of dilutive securities", "diluted"),
    ],
)
def test_the_first_calculation_a_label_names_is_its_own(label: str, flavour: str) -> None:
    assert _flavour(label, "") == flavour
