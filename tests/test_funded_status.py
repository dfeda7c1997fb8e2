"""A pension plan's funded status is its plan assets less its benefit obligation (generated note).

Every US filer with a defined-benefit plan prints, per plan and year, the obligation's roll-forward to "PBO
at end of year", the plan assets' to "Fair value of plan assets at end of year", and then "Funded status":
the second less the first. The three sit in sections of their own, so no footing relates them, and a
funded status keyed wrong ((2,723) for (2,732): FedEx's note, development seeds 31-32) broke nothing. The
identity is now one of TOT001's metric identities (pipeline/statements/identities.py), checked where each
of its lines is printed once and it holds in another column.
"""

from __future__ import annotations

from schemas.models import DocumentResult
from tests.support.pages import table_result

_XS = (330.0, 400.0, 470.0, 540.0)


def _note(funded_us_2022: str = "(2,732)") -> DocumentResult:
    rows = [
        ("PBO at beginning of year", ("28,702", "31,423", "1,096", "2,611")),
        ("Service cost", ("651", "835", "44", "56")),
        ("Actuarial (gain) loss", ("(1,664)", "(2,376)", "(115)", "(1,335)")),
        ("Benefits paid", ("(1,263)", "(1,180)", "(35)", "(236)")),
        ("PBO at end of year", ("26,426", "28,702", "990", "1,096")),
        ("Fair value of plan assets at beginning of year", ("25,970", "29,785", "663", "2,133")),
        ("Actual return on plan assets", ("(707)", "(3,168)", "(83)", "(4)")),
        ("Company contributions", ("826", "533", "34", "(1,430)")),
        ("Benefits paid", ("(1,263)", "(1,180)", "(35)", "(36)")),
        ("Fair value of plan assets at end of year", ("24,826", "25,970", "579", "663")),
        ("Funded status of the plans", ("(1,600)", funded_us_2022, "(411)", "(433)")),
    ]
    heads = ("U.S. 2023", "U.S. 2022", "Intl. 2023", "Intl. 2022")
    return table_result("Pension plans (in millions)", heads, rows, _XS, source="pensions.pdf")


def test_the_clean_note_raises_nothing() -> None:
    assert [f.message for f in _note().flags] == []


def test_a_funded_status_keyed_wrong_is_flagged() -> None:
    flags = _note(funded_us_2022="(2,723)").flags  # two adjacent digits swapped
    assert [f.rule for f in flags] == ["TOT001"], [f.message for f in flags]
    assert "Funded status of the plans" in flags[0].message and "-2,723" in flags[0].message
