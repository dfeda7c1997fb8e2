"""A section's heading printed on its only line begins a section there (generated page).

eBay's fair-value table prints "Long-term investments: Corporate debt securities" on one line, the section
holding that line alone, then "Total long-term investments" repeating it. With no heading row of its own,
the section did not begin at that line: the total's run took in the line above as well and added up in
no column, the line was left to be counted again in "Total financial assets", and a figure keyed with the
wrong sign raised nothing. A line that begins with a heading and its colon begins a section.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, only_flag, page_rows, table_result

_XS = (330.0, 400.0, 470.0, 540.0)


@Keyed
def _fair_values(derivatives: str = "1,113") -> DocumentResult:
    rows = page_rows(f"""
        Cash and cash equivalents                        | 1,101         | 890   | 211   | —
        Short-term investments: Restricted cash          | 137           | 137   | —     | —
        Corporate debt securities                        | 2,255         | —     | 2,255 | —
        Total short-term investments                     | 2,392         | 137   | 2,255 | —
        Derivatives                                      | {derivatives} | —     | 62    | 1,051
        Long-term investments: Corporate debt securities | 286           | —     | 286   | —
        Total long-term investments                      | 286           | —     | 286   | —
        Total financial assets                           | 4,892         | 1,027 | 2,814 | 1,051
    """)
    return table_result(
        "Financial assets measured at fair value (In millions)",
        ("December 31, 2020", "Level 1", "Level 2", "Level 3"),
        rows,
        _XS,
        source="fair_values.pdf",
    )


test_the_clean_table_raises_nothing = _fair_values.quiet_test()


def test_a_figure_keyed_with_the_other_sign_is_flagged() -> None:
    # One flag names the figure; the date column being the levels' total (TOT002), the break of "Total
    # financial assets" that the section's tree finds is among the relations it repairs.
    flag = only_flag(_fair_values(derivatives="(1,113)"), "TOT002")
    assert flag.localization is not None and flag.localization.corrected == ["1,113"]
    assert any(r.startswith("TOT001 Total financial assets") for r in flag.localization.repairs)
