"""A retailer's "fiscal 2021" may be the year that ended in January 2022 (generated earnings release).

Ulta Beauty's tables date each 52-week year by its end ("January 29, 2022"), and its text names that year
"fiscal 2021", by the year it began in; Walmart names its years by their end. NAR001 read "compared to $2.1
billion in fiscal 2021" against the column ending 30 January 2021 (1,583.0) and flagged a sentence that is
right about the year ending 29 January 2022 (2,061.5); it showed once "SG&A expenses" became a name of
selling, general and administrative expenses. Where the named year ends in January or February, a figure
that agrees with the next year's column is no misstatement; one that agrees with neither is still flagged
(by NAR002 here: the sentence's own change does not follow from it).
"""

from __future__ import annotations

from pipeline.figures.taxonomy import load_taxonomy
from schemas.models import DocumentResult
from tests.support.pages import table_and_text

_RELEASE = [
    ("Net sales", ("10,208.6", "8,630.9", "6,152.0")),
    ("Selling, general and administrative expenses", ("2,395.3", "2,061.5", "1,583.0")),
    ("Net income", ("1,242.4", "985.8", "175.8")),
]


def _release(sentence: str) -> DocumentResult:
    heads = ("January 28, 2023", "January 29, 2022", "January 30, 2021")
    return table_and_text(
        "52 Weeks Ended (Dollars in millions)", heads, _RELEASE, [sentence], (340.0, 420.0, 500.0)
    )


def test_the_abbreviation_names_the_metric() -> None:
    found = load_taxonomy().match("SG&A expenses")
    assert found is not None and found.id == "selling_general_and_administrative"


def test_a_year_named_by_its_start_is_not_flagged() -> None:
    result = _release(
        "SG&A expenses increased 16.2% to $2.4 billion compared to $2.1 billion in fiscal 2021."
    )
    assert [f.message for f in result.flags] == []


def test_a_figure_that_fits_neither_year_is_flagged() -> None:
    result = _release(
        "SG&A expenses increased 16.2% to $2.4 billion compared to $1.9 billion in fiscal 2021."
    )
    messages = [f.message for f in result.flags]
    assert len(messages) == 1 and "$1.9 billion" in messages[0], messages
