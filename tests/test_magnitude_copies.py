"""A cost compared by its magnitude in one relation and signed in another is still one figure to correct.

Capital expenditure is printed in parentheses in the cash-flow statement, where it enters the investing
total signed, and positive in the key figures, where the cross-reference compares magnitudes. Re-keyed in the
statement, it breaks both relations, and one change (the printed figure back to its value) repairs both; but
the localization asked each relation for the factor on the figure as the *first* relation used it, so the
signed and the magnitude relation asked for opposite factors, no change explained both, and the planted error
became a structure question, out of the analyst's queue (found on Amcor's 2023 income statement, re-keyed by
the planted-errors bench: interest expense (290) -> (920), printed positive in the MD&A's table).
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases(
    "mag", summary_rows=("revenue", "opinc", "net", "capex", "ta"), summary_capex_positive=True
)


def _capex_label(name: str) -> list[str]:
    flows = next(s for s in CASES.clean(name).statements if s.kind == "cash_flow")
    return next(line.label for line in flows.lines if line.metric == "capital_expenditure").split()


@pytest.mark.parametrize("name", CASES.names())
def test_a_cost_printed_with_two_signs_is_localized(name: str) -> None:
    CASES.quiet(name)
    target, _, hits = CASES.caught(name, _capex_label(name), "double", "TOT001", occurrence=-1)
    (flag,) = hits
    assert flag.localization is not None and flag.localization.corrected == [target.text]
    # The key figures' copy is one of the relations the change repairs.
    assert len(flag.localization.repairs) == 2 and len(flag.pages) == 2, flag.localization.repairs


@pytest.mark.parametrize("name", CASES.names())
def test_a_sign_flipped_cost_is_localized_though_its_copy_agrees_in_size(name: str) -> None:
    # The key figures' copy compares magnitudes: it holds whatever the sign, so it must not pin it.
    target, _, hits = CASES.caught(name, _capex_label(name), "sign", "TOT001", occurrence=-1)
    located = [f.localization for f in hits if f.localization is not None]
    # The corrected figure is printed the planted way ("-344" where the plant printed "344").
    assert located and located[0].signatures == ["sign"], located
    assert located[0].corrected[0].strip("()-") == target.text.strip("()-"), located[0].corrected
