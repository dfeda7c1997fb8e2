from __future__ import annotations

import pytest

from pipeline.figures.taxonomy import (
    MetricDef,
    Taxonomy,
    TaxonomyError,
    load_taxonomy,
    normalise_label,
    parse_taxonomy,
)
from pipeline.ids import stable_id


@pytest.mark.parametrize(
    ("label", "metric"),
    [
        ("Revenue", "revenue"),
        ("Revenues", "revenue"),
        ("Net sales", "revenue"),
        ("Total net sales", "revenue"),
        ("Net revenues", "revenue"),
        ("Total revenues", "revenue"),
        ("Turnover", "revenue"),
        ("Sales", "revenue"),
        ("Revenue (1)", "revenue"),
        ("Revenue (a)", "revenue"),
        ("Revenue*", "revenue"),
        ("Revenue²", "revenue"),
        ("Revenue Note 5", "revenue"),
        ("Revenue (note 3)", "revenue"),
        ("Revenue . . . . . . .", "revenue"),
        ("Net sales:", "revenue"),
        ("Cost of sales", "cost_of_sales"),
        ("Cost of revenues", "cost_of_sales"),
        ("Cost of goods sold", "cost_of_sales"),
        ("Cost of products sold", "cost_of_sales"),
        ("Less: Cost of sales", "cost_of_sales"),
        ("Gross profit", "gross_profit"),
        ("Gross margin", "gross_profit"),
        ("Gross margin %", "gross_margin_percent"),
        ("Operating income (loss)", "operating_income"),
        ("Operating profit", "operating_income"),
        ("Income from operations", "operating_income"),
        ("Net income", "net_income"),
        ("Net (loss) income", "net_income"),
        ("Net earnings", "net_income"),
        ("Profit for the year", "net_income"),
        ("Profit/(loss) for the period", "net_income"),
        ("Net income attributable to Acme Corp.", "net_income_attributable_to_parent"),
        ("Profit attributable to owners of the parent", "net_income_attributable_to_parent"),
        ("Net income attributable to noncontrolling interests", "net_income_attributable_to_nci"),
        ("Net income attributable to non-controlling interests", "net_income_attributable_to_nci"),
        ("Income before income taxes", "profit_before_tax"),
        ("Profit before taxation", "profit_before_tax"),
        ("Provision for income taxes", "income_tax"),
        ("Income tax expense", "income_tax"),
        ("Taxation", "income_tax"),
        ("Total assets", "total_assets"),
        ("Total liabilities", "total_liabilities"),
        ("Total shareholders’ equity", "total_equity"),
        ("Total stockholders' equity", "total_equity"),
        ("Total shareholders' funds", "total_equity"),
        ("Total liabilities and stockholders’ equity", "total_liabilities_and_equity"),
        ("Total equity and liabilities", "total_liabilities_and_equity"),
        ("Net assets", "total_equity"),
        ("Cash and cash equivalents", "cash_and_cash_equivalents"),
        ("Net cash provided by operating activities", "operating_cash_flow"),
        ("Net cash from operating activities", "operating_cash_flow"),
        ("Cash generated from operations", "cash_generated_from_operations"),
        ("Purchases of property, plant and equipment", "capital_expenditure"),
        ("Capital expenditures", "capital_expenditure"),
        ("Earnings per share – basic", "eps_basic"),
        ("Diluted earnings per share", "eps_diluted"),
    ],
)
def test_match_synonyms(label: str, metric: str) -> None:
    found = load_taxonomy().match(label)
    assert found is not None, label
    assert found.id == metric


@pytest.mark.parametrize(
    "label",
    [
        "Deferred revenue",
        "Revenue recognition",
        "Revenue from external customers in Europe",
        "Net loss",
        "Basic",
        "Total",
        "",
        "Cash and cash equivalents at beginning of year",
        "Gross margin improvement",
    ],
)
def test_no_substring_matches(label: str) -> None:
    assert load_taxonomy().match(label) is None


def test_normalise_label() -> None:
    assert normalise_label("  Total Shareholders’ Equity (Note 12) ") == "total shareholders equity"
    assert normalise_label("Operating income (loss)(1)") == "operating income"
    assert normalise_label("Cost of sales ......") == "cost of sales"
    assert normalise_label("Revenue (in millions)") == "revenue"


def test_every_metric_is_well_formed() -> None:
    tax = load_taxonomy()
    assert len(tax) >= 25
    for metric in tax:
        assert metric.id.islower() and " " not in metric.id
        assert metric.unit in ("currency", "per_share", "shares", "percent")
        assert metric.synonyms, metric.id
        assert metric.us_gaap is None or metric.us_gaap.startswith("us-gaap:")
        assert metric.ifrs is None or metric.ifrs.startswith("ifrs-full:")
    assert tax.metrics["revenue"].us_gaap == "us-gaap:Revenues"
    assert tax.metrics["revenue"].ifrs == "ifrs-full:Revenue"
    assert tax.metrics["net_income"].ifrs == "ifrs-full:ProfitLoss"
    assert tax.metrics["total_assets"].period_type == "instant"
    assert tax.metrics["cost_of_sales"].magnitude_only


def test_load_is_cached() -> None:
    assert load_taxonomy() is load_taxonomy()


def test_colliding_synonyms_are_rejected() -> None:
    text = """
metrics:
  - {id: a, us_gaap: null, ifrs: null, unit: currency, synonyms: [Revenue]}
  - {id: b, us_gaap: null, ifrs: null, unit: currency, synonyms: ["revenue (1)"]}
"""
    with pytest.raises(TaxonomyError):
        parse_taxonomy(text)


def test_bad_unit_is_rejected() -> None:
    with pytest.raises(TaxonomyError):
        parse_taxonomy("metrics:\n  - {id: a, unit: furlongs, synonyms: [A]}\n")


def test_stable_id() -> None:
    a = stable_id("doc", "revenue", 3, None, 1.0)
    assert a == stable_id("doc", "revenue", 3, None, 1.0)
    assert len(a) == 16 and int(a, 16) >= 0
    assert stable_id("a", "bc") != stable_id("ab", "c")
    assert stable_id(1.00000001) == stable_id(1.0)


def _full_lookup(taxonomy: Taxonomy, label: str) -> tuple[MetricDef, bool] | None:
    """The lookup as written before its shortcut: normalise, then the index, then the patterns."""
    key = normalise_label(label)
    if not key:
        return None
    found: tuple[MetricDef, bool] | None = taxonomy._index.get(key)
    if found is not None:
        return found
    return next(((m, False) for p, m in taxonomy._patterns if p.fullmatch(key)), None)


@pytest.mark.parametrize(
    "label",
    [
        # words the normalisation drops inside a phrase: the shortcut must not count them
        "Revenue ( loss )",
        "Less: Revenue",
        "Revenue ( a )",
        "Revenue ( iv )",
        "Revenue (in millions)",
        "Net revenues Notes 5 and 6",
        "Income taxes / loss",
        # a pattern's metric, whose company name is in no synonym
        "Net income attributable to Acme Widgets Corp.",
        "Profit for the year attributable to owners of the parent company",
        "Net earnings attributable to noncontrolling interests",
        # '&', apostrophes and other scripts go the full way
        "Selling, general & administrative expenses",
        "Shareholders' equity",
        "Umsatzerlöse",
        # no metric: the shortcut answers these
        "Accrued payroll and related benefits",
        "Revenue from our cloud services business in the Americas",
    ],
)
def test_the_shortcut_answers_as_the_full_lookup(label: str) -> None:
    taxonomy = load_taxonomy()
    assert taxonomy.lookup(label) == _full_lookup(taxonomy, label)


def test_the_shortcut_answers_most_labels_that_are_no_metric() -> None:
    # the speed it is for: a row label no synonym has is answered without normalising it
    taxonomy = load_taxonomy()
    assert taxonomy._cannot_match("Accrued payroll and related benefits")
    assert not taxonomy._cannot_match("Net income attributable to Acme Widgets Corp.")
