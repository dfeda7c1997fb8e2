"""A line of rates printed first does not make the columns under it percentages.

A 10-K's market-risk table of debt by maturity prints, for each kind of debt, its average interest rate
("— %" where none falls due) over the obligations falling due each year, "Thereafter" and "Total", and a
total line. A "%" on a column's first figure is every line's in US tables, so every column was taken for
percentages and the table had no value columns: no sum was read, and an obligation keyed 2,000 → 200
raised nothing (PG&E's 2022 10-K, development seed 25). A line whose label names a rate prints its own "%"
and is no first line (:func:`pipeline.statements.columns.statement_columns`).
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("2023", "2024", "2025", "Thereafter", "Total")
_XS = (300.0, 360.0, 420.0, 490.0, 550.0)


@Keyed
def _maturities(fixed_later: str = "2,000", variable_2025: str = "2,625") -> DocumentResult:
    rows = page_rows(f"""
        Average fixed interest rate              | — %    | — %    | 3.82 %          | 5.13 %         | 5.02 %
        Fixed rate obligations                   | —      | —      | 1,925           | {fixed_later}  | 3,925
        Variable interest rate as of December 31 | 7.13 % | 7.13 % | 7.13 %          | — %            | 7.13 %
        Variable rate obligations                | 28     | 28     | {variable_2025} | —              | 2,681
        Recovery bonds                           | 38     | 46     | 48              | 1,592          | 1,724
        Total consolidated debt                  | 66     | 74     | 4,598           | 3,592          | 8,330
    """)
    return table_result("Debt by maturity (in millions, except interest rates)", _HEADS, rows, _XS)


test_the_clean_table_raises_nothing = _maturities.quiet_test()


def test_an_obligation_keyed_wrong_is_flagged() -> None:
    flags = _maturities(fixed_later="200").flags
    assert {f.rule for f in flags} >= {"TOT001"} and all("200" in f.message for f in flags), [
        f.message for f in flags
    ]


def test_an_obligation_in_a_year_keyed_wrong_is_flagged() -> None:
    flags = _maturities(variable_2025="2,652").flags
    assert flags and all("2,652" in f.message for f in flags), [f.message for f in flags]
