"""Net income available to common shareholders is not the parent's net income (generated filing).

"Net income attributable to common shareholders" (or "available to", "applicable to") is what is left for
common shares after preferred dividends: the basic earnings per share's numerator, us-gaap's
NetIncomeLossAvailableToCommonStockholdersBasic. The taxonomy held it as a synonym of the parent's net
income (us-gaap NetIncomeLoss), so a filer that issued preferred stock during the year printed two figures
of "one" metric, and XREF001 flagged the highlights' 1,250 against the income statement's 1,300 as a near
miss. And "Net income attributable to Corning Incorporated used in basic earnings per common share
calculation", after allocations to participating securities, was the parent's net income too: it
disagreed with the line above it in every year, and a keyed error in that line was lost among them
(development seeds 31-32). The common shareholders' share is now a metric of its own, and a line naming
the per-share calculation it is used for maps to none.
"""

from __future__ import annotations

import pytest

from pipeline.figures.taxonomy import load_taxonomy
from schemas.models import DocumentResult
from tests.support.pages import tables_result

TAX = load_taxonomy()


@pytest.mark.parametrize(
    ("label", "metric"),
    [
        ("Net income attributable to Acme Corp.", "net_income_attributable_to_parent"),
        ("Net income attributable to common shareholders", "net_income_available_to_common"),
        ("Net income available to common stockholders", "net_income_available_to_common"),
        (
            "Net income attributable to Boston Properties, Inc. common shareholders",
            "net_income_available_to_common",
        ),
        ("Net income (loss) attributable to AMD common stockholders", "net_income_available_to_common"),
        (
            "Net income attributable to Acme Corporation used in basic earnings per common share calculation",
            None,
        ),
        ("Net income attributable to noncontrolling interests", "net_income_attributable_to_nci"),
    ],
)
def test_the_common_shareholders_share_is_a_metric_of_its_own(label: str, metric: str | None) -> None:
    found = TAX.match(label)
    assert (found.id if found else None) == metric


def _filing(highlights_label: str) -> DocumentResult:
    """Preferred stock issued in 2023: its dividends (50) come between the parent's and the common share."""
    statement = [
        ("Net sales", ("10,000", "9,000")),
        ("Operating expenses", ("8,600", "7,800")),
        ("Net income", ("1,400", "1,200")),
        ("Net income attributable to noncontrolling interests", ("(100)", "(80)")),
        ("Net income attributable to Acme Corp.", ("1,300", "1,120")),
    ]
    highlights = [("Net sales", ("10,000", "9,000")), (highlights_label, ("1,250", "1,120"))]
    return tables_result(
        [
            ("CONSOLIDATED STATEMENTS OF INCOME (in millions)", statement),
            ("Financial highlights (in millions)", highlights),
        ],
        ("2023", "2022"),
    )


def test_the_common_shareholders_share_is_not_compared_with_the_parent_s_net_income() -> None:
    result = _filing("Net income attributable to common shareholders")
    assert [f.message for f in result.flags] == []


def test_the_parent_s_net_income_printed_wrong_is_still_flagged() -> None:
    result = _filing("Net income attributable to Acme Corp.")
    assert [f.rule for f in result.flags] == ["XREF001"], [f.message for f in result.flags]
