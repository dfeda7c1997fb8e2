"""A change on a constant-currency basis is the filer's own measure: it is not checked against the figures.

eBay's 10-Ks reconcile revenue as reported to FX-neutral revenue (at the prior year's exchange rates) and
print the change on both bases. The FX-neutral change of net transaction revenues excludes hedging, as a
footnote says, so in one row of four it is not the change of the printed figures (16.4 % printed 17 %):
CHG001 flagged it, a false alarm, on two development filings. Now a column whose head names a
constant-currency basis proves no relation (:mod:`pipeline.checks.changes`), read from every line printed
above its first figure, since the heads sit on a line under the years that the header finder leaves in
the body. The change as reported is still checked. Here, on the generated layout variants with such a
table (the trait ``fx_neutral_changes``).
"""

from __future__ import annotations

import pytest

from tests.support.layouts import LayoutCases

CASES = LayoutCases("fx", fx_neutral_changes=True)


test_the_reconciliation_raises_nothing = CASES.quiet_test()
"""Each clean variant raises no flag: the hedged row's FX-neutral change is not compared."""


@pytest.mark.parametrize("kind", ["swap", "drop"])
@pytest.mark.parametrize("name", CASES.names())
def test_a_keying_error_in_the_reported_change_is_flagged(name: str, kind: str) -> None:
    CASES.caught(name, ["Transactions"], kind, "CHG001", column=4)
