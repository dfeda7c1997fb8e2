"""The parent's earnings from continuing operations are not its net income (generated filing).

"Net income attributable to Acme from continuing operations was $1.6 billion": the taxonomy's pattern for
the parent's net income took any words after "attributable to", so the sentence was compared with the
income statement's net income attributable to Acme (1,300, after a discontinued operation's loss) and
NAR001 flagged it. A label or sentence naming continuing or discontinued operations is not the parent's
net income; the net income itself stated wrong is still flagged.
"""

from __future__ import annotations

from pipeline.figures.taxonomy import load_taxonomy
from schemas.models import DocumentResult
from tests.support.pages import table_and_text

_INCOME = [
    ("Net sales", ("10,000", "9,000")),
    ("Income from continuing operations", ("1,620", "1,150")),
    ("Loss from discontinued operations", ("(300)", "—")),
    ("Net income", ("1,320", "1,150")),
    ("Net income attributable to noncontrolling interest", ("(20)", "(30)")),
    ("Net income attributable to Acme", ("1,300", "1,120")),
]


def _filing(sentence: str) -> DocumentResult:
    title = "CONSOLIDATED STATEMENTS OF INCOME (in millions)"
    return table_and_text(title, ("2023", "2022"), _INCOME, [sentence])


def test_a_label_naming_continuing_operations_is_not_the_parent_s_net_income() -> None:
    found = load_taxonomy().match("Net income attributable to Acme from continuing operations")
    assert found is None or found.id != "net_income_attributable_to_parent"


def test_the_continuing_operations_share_is_not_compared_with_net_income() -> None:
    result = _filing("Net income attributable to Acme from continuing operations was $1.6 billion in 2023.")
    assert [f.message for f in result.flags] == []


def test_the_parent_s_net_income_stated_wrong_is_flagged() -> None:
    result = _filing("Net income attributable to Acme was $1.6 billion in 2023.")
    assert [f.rule for f in result.flags] == ["NAR001"], [f.message for f in result.flags]
