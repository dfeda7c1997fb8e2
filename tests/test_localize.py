"""Error localization over a document's relations (pipeline/checks/localize.py): which figure to change.

Each case is a small system of relations over printed figures, as the checks record them; the figure the
localization names must be the one a reviewer would name, and a break no small change explains must be a
structure question, not a finding.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.checks.localize import Equation, RelationLog, Term, localize_errors
from schemas.models import Flag
from tests.support.records import flag

_BOXES: dict[str, tuple[float, float, float, float]] = {}


def fig(name: str, value: float, coef: float = 1.0, page: int = 1, places: int = 0) -> Term:
    """A figure printed once, at its own box; the same name is the same printed figure."""
    box = _BOXES.setdefault(name, (10.0, 10.0 * (len(_BOXES) + 1), 60.0, 10.0 * (len(_BOXES) + 1) + 8))
    text = f"{abs(value):,.{places}f}" if value >= 0 else f"({abs(value):,.{places}f})"
    return Term(
        value=value, printed=value, places=places, decimals=-places,
        coef=coef, magnitude=False, page=page, bbox=box, text=text, label=name,
    )  # fmt: skip


def total(name: str, t: Term, *parts: Term, flag: str | None = None) -> Equation:
    """``t = sum(parts)`` (the parts' coefficients flipped), holding or not as printed."""
    terms = (t, *(replace(p, coef=-p.coef) for p in parts))
    residual = sum(x.coef * x.value for x in terms)
    return Equation("TOT001", terms, 0.5, abs(residual) <= 0.5, "proven in other columns", name, flag)


def same(name: str, a: Term, b: Term, flag: str | None = None) -> Equation:
    terms = (a, replace(b, coef=-1.0))
    return Equation("XREF001", terms, 0.5, abs(a.value - b.value) <= 0.5, "anchored copy", name, flag)


def run(*equations: Equation) -> tuple[dict[str, Flag], dict[str, Flag]]:
    log = RelationLog()
    for eq in equations:
        log.add(eq)
    ids = sorted({eq.flag_id for eq in equations if eq.flag_id})
    out = localize_errors([flag(flag_id=i) for i in ids], log)
    return {f.flag_id: f for f in out.flags}, {f.flag_id: f for f in out.structure_questions}


def test_a_swapped_component_is_named_with_the_value_that_ties() -> None:
    # Revenue 1,383 keyed for 1,338: the total fails; the revenue line is printed once.
    a, b, t = fig("revenue", 1383), fig("other income", 62), fig("total income", 1400)
    found, questions = run(total("Total income 2025", t, a, b, flag="f1"))
    loc = found["f1"].localization
    assert not questions and loc is not None
    assert loc.corrected == ["1,338"] and loc.signatures == ["swap"]
    assert loc.figures[0].text == "revenue: 1,383" and loc.alternatives == 0
    assert "If page 1's 1,383 were 1,338, this relation would hold" in found["f1"].message


def test_a_figure_a_holding_relation_pins_is_not_the_error() -> None:
    # The total fails. Revenue is also printed on the highlights page and agrees there (pinned); the
    # total ties into a holding sum on the next page (pinned): only "other income" can explain it.
    rev, oth, tot = fig("revenue", 1000), fig("other income", 45), fig("total income", 1054)
    rev2, tot2, x = fig("revenue (highlights)", 1000, page=2), fig("total (note)", 1054, page=3), fig("y", 46)
    found, _ = run(
        total("Total income 2025", tot, rev, oth, flag="f1"),
        same("Revenue 2025", rev, rev2),
        total("Note total", tot2, fig("a", 1008, page=3), x),
        same("Total income 2025", tot, tot2),
    )
    loc = found["f1"].localization
    assert loc is not None and loc.figures[0].text == "other income: 45" and loc.corrected == ["54"]
    assert loc.holding == 2  # the two relations that pin revenue and the total still hold


def test_one_figure_explains_two_breaks_at_once() -> None:
    # A subtotal keyed wrong breaks its own sum and the total above it: one change repairs both.
    a, b, sub = fig("cash", 100), fig("receivables", 250), fig("current assets", 530)
    c, tot = fig("property", 700), fig("total assets", 1050)
    found, _ = run(
        total("Current assets", sub, a, b, flag="f1"), total("Total assets", tot, sub, c, flag="f2")
    )
    # One misprint, one finding: the second flag folds into the first, which names both relations.
    assert list(found) == ["f1"]
    loc = found["f1"].localization
    assert loc is not None and loc.figures[0].text == "current assets: 530" and loc.corrected == ["350"]
    assert len(loc.repairs) == 2
    assert any("TOT001 f2" in r for r in found["f1"].reasons), found["f1"].reasons


def test_a_stale_copy_is_localized_whatever_the_size_of_the_difference() -> None:
    # Highlights say 284.0; the income statement says 280.5 and its own sum holds: the highlights are stale
    # (no keying error looks like 284.0 for 280.5, and it is still the one figure that explains the break).
    rev, cost, gp = (
        fig("revenue", 280.5, places=1),
        fig("cost", -100.5, places=1),
        fig("gross", 180.0, places=1),
    )
    stale = fig("revenue (highlights)", 284.0, page=2, places=1)
    found, questions = run(total("Gross profit", gp, rev, cost), same("Revenue", stale, rev, flag="x1"))
    loc = found["x1"].localization
    assert not questions and loc is not None
    assert loc.figures[0].page == 2 and loc.corrected == ["280.5"] and loc.signatures == ["other"]


def test_a_break_no_small_change_explains_is_a_structure_question() -> None:
    # Every line of the failing "total" ties elsewhere, and so does the total: the row is not a component
    # (fair value printed in a table of cost), so the relation itself was misread.
    a, b, c, t = fig("cost", 100), fig("gains", 20), fig("fair value", 120), fig("total", 120)
    found, questions = run(
        total("Total", t, a, b, c, flag="f1"),
        total("cost + gains = fair value", c, a, b),
        same("total copy", t, fig("total (note)", 120, page=4)),
        same("cost copy", a, fig("cost (note)", 100, page=4)),
        same("gains copy", b, fig("gains (note)", 20, page=4)),
    )
    assert "f1" in questions and "f1" not in found
    assert any("misread" in r for r in questions["f1"].reasons)


def test_a_line_and_its_copy_in_the_total_column_are_one_error() -> None:
    # Net income keyed 210 for 200 in the equity statement, in the retained-earnings column and its copy in
    # the total column; the income statement's 200 holds in its own sum.
    ni, pbt, tax = fig("net income", 200), fig("profit before tax", 250), fig("tax", -50)
    eq_re, eq_tot = fig("net income (retained earnings)", 210, page=7), fig("net income (total)", 210, page=7)
    found, _ = run(
        total("Net income", ni, pbt, tax),
        Equation("TOT002", (eq_tot, replace(eq_re, coef=-1.0)), 0.5, True, "total column", "row"),
        same("Net income 2025", ni, eq_tot, flag="x1"),
    )
    loc = found["x1"].localization
    assert loc is not None and loc.corrected == ["200", "200"] and {f.page for f in loc.figures} == {7}
    assert "(printed twice)" in loc.note


def test_flags_of_rules_that_record_no_relation_are_left_as_they_are() -> None:
    out = localize_errors([flag(flag_id="n1")], RelationLog())
    assert [f.flag_id for f in out.flags] == ["n1"] and out.flags[0].localization is None


def test_a_figure_signed_in_one_relation_and_a_magnitude_in_another_is_one_change() -> None:
    # Capital expenditure (920) keyed for (290): the investing total uses it signed, its positive copy in
    # the key figures by magnitude; both relations ask for the same factor on the figure.
    capex, other, total_ = fig("capex", -920), fig("disposals", 40), fig("investing", -250)
    copy = fig("capex (key figures)", 290, page=2)
    found, questions = run(
        total("Investing 2025", total_, capex, other, flag="f1"),
        same(
            "Capital expenditure 2025",
            replace(copy, magnitude=True),
            replace(capex, magnitude=True),
            flag="x1",
        ),
    )
    assert not questions and list(found) == ["f1"]
    loc = found["f1"].localization
    assert loc is not None and loc.figures[0].text == "capex: (920)" and loc.corrected == ["(290)"]
    assert loc.signatures == ["swap"] and len(loc.repairs) == 2


def test_a_copy_compared_by_magnitude_does_not_pin_the_sign() -> None:
    # Total operating expenses keyed (4,461) for 4,461: its footing and the operating line below both ask
    # for the sign back, and its copy in the MD&A, compared by magnitude, holds either way (eBay 2021).
    a, b, tot = fig("sales and marketing", 2091), fig("other expenses", 2370), fig("total opex", -4461)
    gross, opinc = fig("gross profit", 7097), fig("operating income", 2636)
    copy = fig("total opex (MD&A)", 4461, page=2)
    found, questions = run(
        total("Total operating expenses 2020", tot, a, b, flag="f1"),
        total("Income from operations 2020", opinc, gross, replace(tot, coef=-1.0), flag="f2"),
        Equation(
            "XREF001",
            (replace(copy, magnitude=True), replace(tot, magnitude=True, coef=-1.0)),
            0.5,
            True,
            "anchored copy",
            "Total operating expenses 2020",
        ),
    )
    assert not questions and list(found) == ["f1"]
    loc = found["f1"].localization
    assert loc is not None and loc.figures[0].text == "total opex: (4,461)" and loc.corrected == ["4,461"]
    assert loc.signatures == ["sign"] and loc.holding == 1


def test_two_errors_in_one_component_are_localized_apart() -> None:
    # A cash-flow statement's net income keyed 5,482 for 4,582 breaks its footing and its copy on the income
    # statement; another line of the same footing differs from its copy in a note by a last digit (111
    # against 114), which no keying error explains. No one or two keyed changes mend all three, but the
    # net income alone mends two of them while every relation printing it holds: it is named, and the near
    # miss is localized on its own.
    net, gain, other = fig("net income", 5482), fig("gain on sale", -111), fig("depreciation", 1593)
    found, questions = run(
        total("Operating cash flow 2019", fig("operating cash flow", 6064), net, gain, other, flag="f1"),
        same("Net income 2019", net, fig("net income (income statement)", 4582, page=2), flag="f2"),
        same("Gain on sale 2019", gain, fig("gain on sale (note)", -114, page=3), flag="f3"),
    )
    assert not questions
    loc = found["f1"].localization
    assert loc is not None and loc.figures[0].text == "net income: 5,482" and loc.corrected == ["4,582"]
    assert "f2" not in found  # one misprint, one finding: folded into f1
    near = found["f3"].localization
    assert near is not None and near.signatures == ["near_miss"]


def _footing_beside_a_copy(copy: float) -> tuple[dict[str, Flag], dict[str, Flag]]:
    """3M's 2019 operating expenses, cost of sales keyed 1,713 for 17,136; the gain on sale in the footing
    is printed again in the cash-flow statement as ``copy``."""
    cost, gain, sga = fig("cost of sales", 1713), fig("gain on sale", -114), fig("SG&A", 7029)
    tot = fig("total operating expenses", 24051)
    return run(
        total("Total operating expenses 2019", tot, cost, gain, sga, flag="f1"),
        same("Gain on sale 2019", gain, fig("gain on sale (cash flow)", copy, page=3), flag="f3"),
    )


def test_a_keyed_figure_beside_a_near_miss_in_one_footing_are_two_errors() -> None:
    # The copy differs by a last digit: the cost mends one relation, and what it leaves is a near miss
    # explained on its own.
    found, questions = _footing_beside_a_copy(-111)
    assert not questions
    loc = found["f1"].localization
    assert loc is not None and loc.figures[0].text == "cost of sales: 1,713" and loc.corrected == ["17,136"]
    assert found["f3"].localization is not None


def test_a_keyed_figure_whose_remainder_no_small_change_explains_is_a_structure_question() -> None:
    # The copy differs by 40 %: no keying error or near miss explains it, and the cost alone mends one
    # relation only. The relations were likely misread.
    _, questions = _footing_beside_a_copy(-160)
    assert set(questions) == {"f1", "f3"}
