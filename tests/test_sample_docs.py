"""The sample documents are reproducible, and truth.json matches what the PDFs print."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from sample_docs.generate import (
    fmt_amount,
    generate,
    pct_change,
    round_div,
    transpose_digits,
)

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_docs"
TRUTH_PATH = SAMPLE_DIR / "truth.json"
KINDS = {"sum_mismatch", "cross_reference_mismatch", "narrative_mismatch", "balance_identity"}
METRICS = {
    "revenue",
    "cost_of_sales",
    "gross_profit",
    "operating_income",
    "net_income",
    "profit_before_tax",
    "income_tax",
    "total_assets",
    "total_liabilities",
    "total_equity",
    "cash_and_cash_equivalents",
    "operating_cash_flow",
    "capital_expenditure",
}
PERIOD_RE = re.compile(r"^(FY\d{4}|\d{4}-\d{2}-\d{2})$")


def load_truth() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TRUTH_PATH.read_text(encoding="utf-8"))
    return data


def documents() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = load_truth()["documents"]
    return docs


def page_texts(file: str) -> list[str]:
    with pymupdf.open(SAMPLE_DIR / file) as doc:
        return [str(page.get_text()) for page in doc]


def printed_forms(value: float, scale: int) -> list[str]:
    """Regexes for the figure as a statement prints it at ``scale``: exact, with its sign."""
    shown = Decimal(str(value)) / Decimal(10) ** scale
    forms = []
    for decimals in (0, 1, 2):
        if shown == shown.quantize(Decimal(1).scaleb(-decimals)):
            digits = re.escape(f"{abs(shown):,.{decimals}f}")
            tail = r"(?![\d,]|\.\d)"
            if shown < 0:
                forms.append(rf"(?:\({digits}\)|(?<![\d,.])-{digits}{tail})")
            else:
                forms.append(rf"(?<![\d,.(\-]){digits}(?!\))" + tail)
    return forms


def printed_on(text: str, forms: list[str]) -> bool:
    """True when one form appears as a whole figure (not part of a longer number)."""
    return any(re.search(form, text) for form in forms)


# -- reproducibility --------------------------------------------------------------------------------


def test_regeneration_is_byte_identical(tmp_path: Path) -> None:
    truth = generate(tmp_path)
    assert (tmp_path / "truth.json").read_text(encoding="utf-8") == TRUTH_PATH.read_text(encoding="utf-8")
    for doc in truth["documents"]:
        fresh = (tmp_path / doc["file"]).read_bytes()
        committed = (SAMPLE_DIR / doc["file"]).read_bytes()
        assert fresh == committed, f"{doc['file']} differs from the committed copy; run make samples"


def test_pdfs_are_small_and_page_counts_match() -> None:
    for doc in documents():
        path = SAMPLE_DIR / doc["file"]
        assert path.stat().st_size < 60_000
        with pymupdf.open(path) as pdf:
            assert pdf.page_count == doc["pages"]
            assert 6 <= pdf.page_count <= 12
            assert pdf.metadata is not None and pdf.metadata["creationDate"].startswith("D:2026")


# -- truth.json against the PDFs ----------------------------------------------------------------------


@pytest.mark.parametrize("doc", documents(), ids=lambda d: str(d["file"]))
def test_every_fact_is_printed_on_each_of_its_pages(doc: dict[str, Any]) -> None:
    texts = page_texts(doc["file"])
    for fact in doc["facts"]:
        assert fact["pages"], fact
        for page in fact["pages"]:
            assert printed_on(texts[page - 1], printed_forms(fact["value"], doc["scale"])), (fact, page)


@pytest.mark.parametrize("doc", documents(), ids=lambda d: str(d["file"]))
def test_balance_sheet_runs_over_a_page_break(doc: dict[str, Any]) -> None:
    texts = page_texts(doc["file"])
    continued = [i for i, text in enumerate(texts) if "(continued)" in text]
    assert continued, "no continuation page"
    # The continuation repeats the column header, so the period years appear again.
    assert any(str(y) in texts[continued[0]] for y in (2024, 2025))


@pytest.mark.parametrize("doc", documents(), ids=lambda d: str(d["file"]))
def test_inconsistency_pages_exist(doc: dict[str, Any]) -> None:
    for inc in doc["inconsistencies"]:
        assert inc["kind"] in KINDS
        assert all(1 <= p <= doc["pages"] for p in inc["pages"])
        assert PERIOD_RE.match(inc["period"])
        assert inc["metric"] is None or inc["metric"] in METRICS
        assert inc["description"]


# -- the rules of the set -----------------------------------------------------------------------------


def test_truth_shape() -> None:
    truth = load_truth()
    assert truth["schema"] == 1
    for doc in truth["documents"]:
        assert set(doc) == {"file", "clean", "currency", "scale", "pages", "facts", "inconsistencies"}
        assert doc["clean"] == (not doc["inconsistencies"])
        for fact in doc["facts"]:
            assert set(fact) == {"metric", "period", "value", "currency", "pages"}
            assert fact["metric"] in METRICS
            assert PERIOD_RE.match(fact["period"])
            assert fact["currency"] == doc["currency"]
        for inc in doc["inconsistencies"]:
            assert set(inc) == {"kind", "metric", "period", "pages", "description"}


def test_set_covers_clean_documents_and_every_kind_twice() -> None:
    docs = documents()
    assert len(docs) >= 6
    assert sum(doc["clean"] for doc in docs) >= 2
    for doc in docs:
        assert doc["clean"] or 1 <= len(doc["inconsistencies"]) <= 3
    kinds = [inc["kind"] for doc in docs for inc in doc["inconsistencies"]]
    assert set(kinds) <= KINDS
    assert all(kinds.count(k) >= 2 for k in KINDS), kinds
    assert len({doc["currency"] for doc in docs}) >= 4
    assert len({doc["scale"] for doc in docs}) >= 2


def _by_period(doc: dict[str, Any]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for fact in doc["facts"]:
        out.setdefault(fact["period"], {})[fact["metric"]] = fact["value"]
    return out


def identity_breaks(doc: dict[str, Any]) -> set[tuple[str, str]]:
    """(identity, period) pairs that fail in the truth facts of a document."""
    broken: set[tuple[str, str]] = set()
    for period, m in _by_period(doc).items():
        if {"revenue", "cost_of_sales", "gross_profit"} <= set(m) and (
            abs(m["revenue"]) - abs(m["cost_of_sales"]) != m["gross_profit"]
        ):
            broken.add(("gross", period))
        # Tax is a charge in every sample (printed positive or in parentheses).
        if {"profit_before_tax", "income_tax", "net_income"} <= set(m) and (
            m["profit_before_tax"] - abs(m["income_tax"]) != m["net_income"]
        ):
            broken.add(("net", period))
        if {"total_assets", "total_liabilities", "total_equity"} <= set(m) and (
            m["total_assets"] != abs(m["total_liabilities"]) + m["total_equity"]
        ):
            broken.add(("balance", period))
    return broken


def test_clean_documents_tie_out_and_injections_break_what_they_say() -> None:
    for doc in documents():
        broken = identity_breaks(doc)
        expected = set()
        for inc in doc["inconsistencies"]:
            if inc["kind"] == "balance_identity" and any(
                f["metric"] == "total_liabilities" for f in doc["facts"]
            ):
                expected.add(("balance", inc["period"]))
            if inc["kind"] == "sum_mismatch" and inc["metric"] == "gross_profit":
                expected.add(("gross", inc["period"]))
        assert broken == expected, doc["file"]


# -- number helpers -----------------------------------------------------------------------------------


def test_number_helpers() -> None:
    assert round_div(25, 10) == 3
    assert round_div(-25, 10) == -3
    assert fmt_amount(-13382, 1, "paren", "-") == "(1,338.2)"
    assert fmt_amount(-1234567, 0, "minus", "-") == "-1,234,567"
    assert fmt_amount(0, 2, "paren", "—") == "—"
    assert fmt_amount(45231, 2, "paren", "-") == "452.31"
    assert pct_change(13382, 12345) == 84
    assert pct_change(900, 1000) == -100
    assert transpose_digits(254_6) == 245_6
    assert transpose_digits(-1922) == -1292
