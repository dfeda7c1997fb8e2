"""A unit caption printed in the heads, over the first column of the second date's group.

Intangible-asset tables print two dates, each over gross, accumulated amortization, net and a useful life
in years, and the unit line "(In millions, except years)" between the groups, where the reader sets it
over the first date's life column and the second date's gross column. Read with the caption, that
column's heads said "years" beside a day, no period was found, and the column was left out of the
statement: a gross figure keyed with the other sign broke a sum nobody checked (development seeds
19-21). A head that is a unit caption alone names no period (:func:`pipeline.parse.structure.column_periods`).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from pipeline.figures.scale_captions import unit_caption
from schemas.models import DocumentResult
from tests.support.pages import SIZE, only_flag, titled_page, write_table

_XS = (185.0, 240.0, 290.0, 330.0, 400.0, 455.0, 505.0, 545.0)
_NAMES = ("Gross", "Amort.", "Net", "Life") * 2


def _intangibles(gross_customer: str = "1,664") -> DocumentResult:
    rows = [
        ("Customer lists", ("1,561", "(1,088)", "473", "7", gross_customer, "(1,092)", "572", "7")),
        ("Marketing related", ("388", "(345)", "43", "5", "395", "(339)", "56", "5")),
        ("Developed technology", ("1,068", "(1,035)", "33", "3", "1,099", "(1,048)", "51", "3")),
        ("All other", ("429", "(338)", "91", "7", "438", "(329)", "109", "7")),
        ("Intangible assets, net", ("3,446", "(2,806)", "640", "", "3,596", "(2,808)", "788", "")),
    ]
    doc = pymupdf.open()
    page = titled_page(doc, "The components of identifiable intangible assets were as follows:", (), ())
    for date, first, last in (
        ("June 30, 2023", _XS[0] - 30, _XS[3]),
        ("December 31, 2022", _XS[4] - 30, _XS[7]),
    ):
        width = pymupdf.get_text_length(date, fontsize=SIZE)  # centred over its group
        page.insert_text(((first + last - width) / 2, 84), date, fontsize=SIZE)
    write_table(page, 98, _NAMES, [], _XS)
    write_table(page, 108, ("", "", "", "(Years)") * 2, [], _XS)
    # the unit line centred between the groups: over the first group's life and the second's gross
    caption = "(In millions, except years)"
    width = pymupdf.get_text_length(caption, fontsize=SIZE)
    page.insert_text(((_XS[3] + _XS[4]) / 2 - width / 2, 122), caption, fontsize=SIZE)
    write_table(page, 122, ("",) * 8, rows, _XS)
    return process_bytes(doc.tobytes(), source="intangibles.pdf")


def test_a_unit_caption_alone_is_no_period_head() -> None:
    assert unit_caption("(In millions, except years)")
    assert unit_caption("(in thousands)")
    assert not unit_caption("December 31, 2022")
    assert not unit_caption("(in millions) 2022")


def test_the_second_dates_gross_column_is_dated() -> None:
    result = _intangibles()
    gross = [
        cell.number.period.key
        for table in result.tables
        for cell in table.cells
        if cell.text == "1,664" and cell.number is not None and cell.number.period is not None
    ]
    assert gross == ["2022-12-31"]
    assert result.flags == []


def test_a_gross_figure_keyed_with_the_other_sign_is_flagged() -> None:
    # One flag names the figure: the column's sum to "Intangible assets, net" breaks, and so does the row's
    # gross less amortization, each date's net being the same place in its group (column_sums).
    flag = only_flag(_intangibles(gross_customer="(1,664)"), "TOT002")
    assert flag.localization is not None and flag.localization.corrected == ["1,664"]
    assert any(r.startswith("TOT001 Intangible assets, net") for r in flag.localization.repairs)
