"""An amount change printed beside a dash reads the dash as nil.

An MD&A table prints a one-off line in the year it arose only ("Store impairments | — | 1,358"), with its
change beside it ("(1,358)", "(100.0)%"). A dash may mean "not applicable", so a row with one was left out
of the change's test, and the change keyed with the wrong sign raised nothing (CVS Health's 2022 10-K,
development seed 25). Where an amount change is printed beside it, the dash is nil: that change is the
other figure less nil (:func:`pipeline.checks.changes.check_table_changes`). A percentage change from
nothing stays undefined, and a change column's own dash is never read as a figure.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import Keyed, page_rows, table_result

_HEADS = ("2022", "2021", "$ Change", "% Change")
_XS = (340.0, 410.0, 480.0, 550.0)


@Keyed
def _results(impairments: str = "(1,358)", charges: str = "5,803") -> DocumentResult:
    rows = page_rows(f"""
        Products                  | 226,616 | 203,738 | 22,878        | 11.2 %
        Premiums                  | 85,330  | 76,132  | 9,198         | 12.1 %
        Services                  | 9,683   | 11,042  | (1,359)       | (12.3)%
        Litigation charges        | 5,803   | —       | {charges}     | 100.0 %
        Store impairments         | —       | 1,358   | {impairments} | (100.0)%
        Operating expenses        | 38,212  | 37,066  | 1,146         | 3.1 %
        Loss on assets held       | —       | —       | —             | — %
    """)
    return table_result("Summary of consolidated results (in millions)", _HEADS, rows, _XS)


test_the_clean_table_raises_nothing = _results.quiet_test()

test_a_change_to_nothing_with_its_sign_flipped_is_flagged = _results.flagged_test(
    "CHG001", "1,358", impairments="1,358"
)

test_a_change_from_nothing_keyed_wrong_is_flagged = _results.flagged_test("CHG001", "5,083", charges="5,083")
