"""The earnings line under a per-share heading is an amount (generated page).

FedEx's earnings-per-share note opens each part with its heading, "Basic earnings per common share:", over
"Net earnings allocable to common shares", and heads the diluted count "Weighted-average diluted shares".
The heading made the numerator a per-share line (3,966 beside 15.60), and "diluted shares" without "common"
was no share count: the division the note states was never checked, so a diluted share count keyed with
the wrong sign raised nothing. A line that takes "per share" from its heading but prints fifty times the
table's own per-share figures in every column is the heading's numerator.

Kraft Heinz's note names none of its lines "per share": under "Basic Earnings Per Common Share:" it prints
"Net income/(loss) attributable to common shareholders", the weighted-average shares and "Net
earnings/(loss)", the per-share figure, and the same three under "Diluted …". The numerator stayed a
per-share line, and once it was an amount, the diluted heading's numerator (the same figures in most years)
was tried for the basic division too: a basic numerator keyed wrong was read as the diluted line's pairing
(development seed 27). Where no line names a per-share figure, the heading's other lines are the per-share
lines; a line of earnings takes its flavour from its heading where its label names none.
"""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.engine import process_bytes
from pipeline.figures.line_kinds import line_item, line_kinds
from pipeline.statements.columns import statement_rows
from schemas.models import DocumentResult
from tests.support.pages import SIZE, page_rows, right_aligned, titled_page

_XS = (400.0, 470.0, 540.0)


def _note(diluted_shares: str = "256") -> DocumentResult:
    return _written(f"""
        Basic earnings per common share:
        Net earnings allocable to common shares   | 3,966            | 3,819 | 5,220
        Weighted-average common shares            | 254              | 263   | 264
        Basic earnings per common share           | 15.60            | 14.54 | 19.79
        Diluted earnings per common share:
        Net earnings allocable to common shares   | 3,966            | 3,819 | 5,221
        Weighted-average common shares            | 254              | 263   | 264
        Dilutive effect of share-based awards     | 2                | 3     | 4
        Weighted-average diluted shares           | {diluted_shares} | 266   | 268
        Diluted earnings per common share         | 15.48            | 14.33 | 19.45
    """)


def _unnamed(basic_2019: str = "1,935") -> DocumentResult:
    return _written(f"""
        Basic Earnings Per Common Share:
        Net income/(loss) attributable to common shareholders | 1,012 | 356   | {basic_2019}
        Weighted average shares of common stock outstanding   | 1,224 | 1,223 | 1,221
        Net earnings/(loss)                                   | 0.83  | 0.29  | 1.59
        Diluted Earnings Per Common Share:
        Net income/(loss) attributable to common shareholders | 1,012 | 356   | 1,935
        Weighted average shares of common stock outstanding   | 1,224 | 1,223 | 1,221
        Effect of dilutive equity awards                      | 12    | 5     | 3
        Weighted average shares, including dilutive effect    | 1,236 | 1,228 | 1,224
        Net earnings/(loss)                                   | 0.82  | 0.29  | 1.58
    """)


def _written(table: str) -> DocumentResult:
    """The note printed as ``table`` is written (:func:`tests.support.pages.page_rows`): a line printing no
    figure is a heading, and the lines under it are indented."""
    doc = pymupdf.open()
    page = titled_page(doc, "(in millions, except per share amounts)", ("2023", "2022", "2021"), _XS)
    y = 84.0
    for label, figures in page_rows(table):
        y += 13
        indent = 60.0 if figures else 50.0
        page.insert_text((indent, y), label, fontsize=SIZE)
        for x, text in zip(_XS, figures, strict=False):
            right_aligned(page, x, y, text)
    return process_bytes(doc.tobytes(), source="eps.pdf")


def test_the_heading_before_a_line_is_not_its_name() -> None:
    assert line_item("Basic earnings per common share: Net earnings allocable") == "net earnings allocable"
    assert line_item("Earnings per share: Basic") == "earnings per share basic"


def test_the_numerator_is_an_amount_and_the_diluted_count_is_shares() -> None:
    result = _note()
    assert result.flags == []
    [table] = result.tables
    rows = statement_rows(table)
    kinds = {" ".join(r.label.split()): line_kinds(rows)[r.index] for r in rows if r.numbers}
    numerators = [kind for label, kind in kinds.items() if label.endswith("allocable to common shares")]
    assert numerators and set(numerators) == {"amount"}
    assert kinds["Weighted-average diluted shares"] == "shares"


def test_a_diluted_count_keyed_with_the_wrong_sign_breaks_the_division() -> None:
    flags = _note(diluted_shares="(256)").flags
    assert "EPS001" in {f.rule for f in flags}


def test_the_diluted_heading_divides_by_its_last_count() -> None:
    # 1,012 over the basic count its heading also prints, 1,224, is 0.83, not the diluted 0.82.
    assert _unnamed().flags == []


@pytest.mark.parametrize("keyed", ["9,135", "(1,935)"], ids=["swap", "sign"])
def test_the_basic_numerator_keyed_wrong_breaks_the_basic_division(keyed: str) -> None:
    eps = [f for f in _unnamed(basic_2019=keyed).flags if f.rule == "EPS001"]
    assert len(eps) == 1 and keyed.strip("()") in eps[0].message, [f.message for f in eps]
