"""Totals the engine once could not prove, each in a note the generated layout variants print with a trait.

In each case a keying error in a line of the note went unflagged on a real filing (re-keyed by the
planted-errors bench), because the line that adds the others up was no proven total. Here, on the layout
variants with such a note, the clean document raises nothing and the total is proven with as many lines as
it adds up, and a keying error in one of those lines is flagged with the re-keyed figure as evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.support.layouts import LayoutCases


@dataclass(frozen=True)
class Total:
    """A total of a note, and the keying error planted in a line it adds up."""

    cases: LayoutCases
    label: str
    children: int  # the lines it adds up
    first: tuple[str, ...]  # the first words of the line re-keyed (its first figure, unless ``latest``)
    kind: str  # the re-keying (bench.planted_errors)
    count: int = 1  # the lines labelled ``label``: the last one is the total checked
    occurrence: int = 0  # which of the lines starting with ``first`` is re-keyed
    latest: bool = False  # re-key the latest year's figure, wherever its column is printed


TOTALS = {
    # A line named after the first line of its section with ", net" is that line net of the lines between.
    # "Deferred card and other fees", "Deferred direct acquisition costs", "Reserves for membership
    # cancellations", "Deferred card and other fees, net": no line says "Total" or "Less", so the net line was
    # no total, and in two columns nothing could prove it, so a keying error in any of the four went
    # unflagged (American Express's 2022 10-K: reserves (153) -> (1,153)). A re-keyed reserve is flagged.
    "net_of_first": Total(
        LayoutCases("net", net_of_first=True), "Deferred card and other fees, net", 3, ("Reserves",), "double"
    ),
    # The last line of a table of sections without totals adds up every section above it. A tax note prints
    # "Current:" federal, state and foreign, "Deferred:" the same three, then the provision, outdented, with
    # no "Total" in its label. A line that does not say it is a total was only allowed to add up its own
    # section (the deferred lines), so the provision was no total and a keying error in any of the six lines
    # went unflagged (Corning's 2016 10-K). A swapped pair of digits in the first current line is flagged.
    "tax_sections": Total(
        LayoutCases("tax", tax_sections=True), "Charge for taxation on profit", 6, ("Domestic",), "swap"
    ),
    # Roll-forwards in sections: a run that holds only within rounding is no rival to one that holds exactly.
    # A statement of changes in equity prints share capital (a balance of 2, nothing issued) above the share
    # premium's opening balance, awards, issues and closing balance. With the premium's opening balance
    # re-keyed in one year, the other year must prove the roll-forward; it did, but runs reaching up into the
    # share capital section held there too, within rounding (the 2 is smaller than the rounding of seven
    # figures), and they expected another figure in the broken year, so no break was believed and the error
    # went unflagged (eBay's 2021 statement of stockholders' equity: additional paid-in capital at the
    # beginning of 2021 16,497 -> 6,497). The run that holds exactly now wins. The share premium's opening
    # balance (the second one) of the latest year, the other year's closing one, is re-keyed.
    "equity_sections": Total(
        LayoutCases("eq", equity_sections=True),
        "Balance, end of year",
        4,
        ("Balance,", "beginning"),
        "drop",
        count=2,
        occurrence=1,
        latest=True,
    ),
}
CASES = [(trait, name) for trait, total in TOTALS.items() for name in total.cases.names()]


@pytest.mark.parametrize(("trait", "name"), CASES)
def test_the_total_is_proven_and_nothing_is_flagged(trait: str, name: str) -> None:
    total = TOTALS[trait]
    total.cases.proven_total(name, total.label, total.children, count=total.count)


@pytest.mark.parametrize(("trait", "name"), CASES)
def test_a_keying_error_in_a_line_of_the_total_is_flagged(trait: str, name: str) -> None:
    total = TOTALS[trait]
    column = -1 if total.latest and total.cases.cases[name].prior_first else 0
    total.cases.caught(name, total.first, total.kind, "TOT001", column=column, occurrence=total.occurrence)
