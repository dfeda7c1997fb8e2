"""A line of earnings that names the calculation it is for is that calculation's numerator.

An earnings-per-share note deducts preferred dividends from net income for the basic numerator ("Net
income available to common stockholders - basic") and adds them back for the diluted one ("... -
diluted"), which then equals net income in every year the preferred stock is dilutive. EPS001 tried every
line of earnings and kept the pairing that held in most columns: with the diluted numerator keyed wrong in
one year (3,695 printed (3,695): Corning's 2017 10-K, development seed 26), net income held as often, and
its pairing, which the misprint does not touch, was kept. Where a line names the flavour it is the
numerator (:func:`pipeline.checks.per_share._numerators`); a line naming both ("basic and diluted")
serves both.
"""

from __future__ import annotations

import pytest

from pipeline.checks.per_share import _own_flavour
from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("2017", "2016", "2015")
_XS = (420.0, 480.0, 540.0)


@Keyed
def _note(diluted_2016: str = "3,695") -> DocumentResult:
    rows = page_rows(f"""
        Net income (loss) attributable to the Company          | (497) | 3,695          | 1,339
        Less: Preferred stock dividend                         | 98    | 98             | 98
        Net income (loss) available to common stock - basic    | (595) | 3,597          | 1,241
        Plus: Preferred stock dividend                         | —     | 98             | 98
        Net income (loss) available to common stock - diluted  | (595) | {diluted_2016} | 1,339
        Weighted-average common shares outstanding - basic     | 895   | 1,020          | 1,219
        Stock options and other dilutive securities            | —     | 9              | 9
        Preferred stock                                        | —     | 115            | 115
        Weighted-average common shares outstanding - diluted   | 895   | 1,144          | 1,343
        Basic earnings (loss) per common share                 | (0.66) | 3.53          | 1.02
        Diluted earnings (loss) per common share               | (0.66) | 3.23          | 1.00
    """)
    title = "Earnings per share (in millions, except per share amounts)"
    return table_result(title, _HEADS, rows, _XS, source="eps.pdf")


test_the_clean_note_raises_nothing = _note.quiet_test()


@pytest.mark.parametrize("keyed", ["(3,695)", "3,965"], ids=["sign", "swap"])
def test_the_diluted_numerator_keyed_wrong_is_flagged(keyed: str) -> None:
    flags = _note(diluted_2016=keyed).flags
    eps = [f for f in flags if f.rule == "EPS001"]
    assert len(eps) == 1 and keyed in eps[0].message, [f.message for f in flags]


@pytest.mark.parametrize(
    ("label", "flavour"),
    [
        ("net income available to common stock diluted", "diluted"),
        ("net income for basic earnings per share", "basic"),
        ("net loss attributable to common stockholders basic and diluted", None),
        ("net income", None),
    ],
)
def test_a_line_names_its_own_calculation(label: str, flavour: str | None) -> None:
    assert _own_flavour(label) == flavour
