"""The accounting identities between metrics, written once.

``result = Σ sign·operand`` over the figures of one period. Two readers share this table:

* TOT001's metric identities (:func:`pipeline.checks.sums.check_identities`) test the identities printed
  in one table (``within_table``) where the calculation tree found no structure of its own;
* the reward functions' consistency score (:mod:`pipeline.rewards.functions`) tests all of them among a
  model's answers.

The balance-sheet identities are also BAL001's (:mod:`pipeline.checks.balance`), which adds its own rule
for when the three-term form can be trusted (mezzanine equity may sit between the two totals).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from typing import Literal

__all__ = ["IDENTITIES", "Identity", "Operand"]


@dataclass(frozen=True, slots=True)
class Operand:
    """One term of an identity.

    Attributes:
        metric: Metric id (``pipeline/data/taxonomy.yaml``).
        sign: How it enters the result; None when either sign is right (income tax may be a charge or a
            credit, printed either way).
        magnitude: Use the figure's magnitude: its printed sign is a presentation choice (cost of sales
            printed positive or in parentheses, liabilities in parentheses in UK balance sheets).
    """

    metric: str
    sign: Literal[1, -1] | None = 1
    magnitude: bool = False


@dataclass(frozen=True, slots=True)
class Identity:
    """``result = Σ sign·operand`` between metrics of one period.

    Attributes:
        name: Short name for messages.
        result: The metric the operands add up to.
        operands: The terms.
        within_table: Printed together in one table (the income statement), so a table's own figures can
            be checked against it.
        result_magnitude: Compare the result by magnitude too (a total of liabilities).
    """

    name: str
    result: str
    operands: tuple[Operand, ...]
    within_table: bool = False
    result_magnitude: bool = False

    @property
    def metrics(self) -> tuple[str, ...]:
        """The result's and the operands' metric ids."""
        return (self.result, *(o.metric for o in self.operands))

    def sign_choices(self) -> Iterator[tuple[tuple[Operand, Literal[1, -1]], ...]]:
        """Each way of fixing the free signs: ``(operand, sign)`` per term, subtraction tried first."""
        options: list[tuple[Literal[1, -1], ...]] = [
            (o.sign,) if o.sign is not None else (-1, 1) for o in self.operands
        ]
        for signs in product(*options):
            yield tuple(zip(self.operands, signs, strict=True))


IDENTITIES: tuple[Identity, ...] = (
    Identity(
        "gross profit",
        "gross_profit",
        (Operand("revenue"), Operand("cost_of_sales", -1, magnitude=True)),
        within_table=True,
    ),
    Identity(
        "net income",
        "net_income",
        (Operand("profit_before_tax"), Operand("income_tax", None)),
        within_table=True,
    ),
    Identity(
        "total assets", "total_assets", (Operand("total_current_assets"), Operand("total_non_current_assets"))
    ),
    # A plan's funded status is its assets less its obligation; underfunded, it prints negative.
    Identity(
        "funded status",
        "funded_status",
        (Operand("plan_assets"), Operand("benefit_obligation", -1, magnitude=True)),
        within_table=True,
    ),
    Identity(
        "balance sheet",
        "total_assets",
        (Operand("total_liabilities", magnitude=True), Operand("total_equity")),
    ),
    Identity("total liabilities and equity", "total_liabilities_and_equity", (Operand("total_assets"),)),
    Identity(
        "total liabilities",
        "total_liabilities",
        (
            Operand("total_current_liabilities", magnitude=True),
            Operand("total_non_current_liabilities", magnitude=True),
        ),
        result_magnitude=True,
    ),
)
"""Every identity the checks and the rewards know."""
