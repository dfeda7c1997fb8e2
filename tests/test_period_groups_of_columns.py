"""Each period's group of columns adds up the same way: results at prior-year exchange rates.

Amazon prints, for each year, "As Reported | Exchange Rate Effect | At Prior Year Rates": the last is the
first plus the second, in every line. No head says "Total", three lines a year prove nothing alone, and the
heads' "Rate" made both columns look like rates, not amounts: operating expenses' exchange effect keyed
(352) → (3,522) raised nothing (development seeds 19-21). A rate's effect and results at prior-year or
constant rates are amounts (:data:`pipeline.statements.columns.NOT_ADDITIVE`), and the column of one place in
every period's group that adds up the group's others, in five rows of all the groups, is their total
(:func:`pipeline.statements.column_sums.column_sums`).
"""

from __future__ import annotations

import pymupdf

from pipeline.engine import process_bytes
from schemas.models import DocumentResult
from tests.support.pages import SIZE, Keyed, titled_page, write_table

_XS = (280.0, 335.0, 390.0, 450.0, 505.0, 560.0)


@Keyed
def _results(effect_2017: str = "(352)") -> DocumentResult:
    rows = [
        ("Net sales", ("135,987", "550", "136,537", "177,866", "(210)", "177,656")),
        ("Operating expenses", ("131,801", "660", "132,461", "173,760", effect_2017, "173,408")),
        ("Operating income", ("4,186", "(110)", "4,076", "4,106", "142", "4,248")),
    ]
    doc = pymupdf.open()
    page = titled_page(doc, "Results at prior year rates (in millions)", (), ())
    for year, first, last in (("2016", _XS[0] - 40, _XS[2]), ("2017", _XS[3] - 40, _XS[5])):
        head = f"Year Ended December 31, {year}"  # centred over its year's three columns
        width = pymupdf.get_text_length(head, fontsize=SIZE)
        page.insert_text(((first + last - width) / 2, 84), head, fontsize=SIZE)
    write_table(page, 96, ("As", "Rate", "Prior Year", "As", "Rate", "Prior Year"), [], _XS)
    write_table(
        page,
        108,
        ("Reported", "Effect", "Rates", "Reported", "Effect", "Rates"),
        rows,
        _XS,
    )
    return process_bytes(doc.tobytes(), source="fx.pdf")


test_the_clean_table_raises_nothing = _results.quiet_test()


test_an_exchange_effect_keyed_wrong_is_flagged = _results.flagged_test(
    "TOT002", "Operating expenses", effect_2017="(3,522)"
)
