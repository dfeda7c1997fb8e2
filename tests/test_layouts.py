"""Layouts the engine has never seen: the layout variants of ``sample_docs.generate``, generated in memory.

Each variant is a new issuer (currency, scale, fonts) with layout traits none of the six committed samples
has: the scale caption above explanatory prose, title and caption on one line, statements running over
page breaks with no "(continued)" and no repeated column heads, liabilities in parentheses with "Net
assets", costs printed positive, a scale stated once for the whole document. The PDFs are never committed;
``python -m sample_docs.generate --variants DIR`` writes them out for inspection.

The engine is held to the same truth as on the samples (``tests/test_truth.py``): every truth fact found
with its value in base units on its pages, every figure of a known scale, every injected inconsistency
flagged on its pages and no other flag.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pymupdf
import pytest

from pipeline.engine import process_bytes
from sample_docs.generate import VARIANT_TRAITS, DocConfig, layout_variants, render_variant
from schemas.models import DocumentResult, Fact
from tests.support.layouts import LayoutCases
from tests.support.truth import candidates, flagged, found_on
from tests.test_sample_docs import KINDS, METRICS, PERIOD_RE, identity_breaks, printed_forms, printed_on

VARIANTS: dict[str, DocConfig] = {cfg.file: cfg for cfg in layout_variants()}
NAMES = sorted(VARIANTS)


@cache
def rendered(name: str) -> tuple[bytes, dict[str, Any]]:
    """The variant's PDF bytes and truth entry, generated once per session."""
    return render_variant(VARIANTS[name])


@cache
def result(name: str) -> DocumentResult:
    """The engine's result on the variant, computed once per session."""
    data, _ = rendered(name)
    return process_bytes(data, source=name)


@cache
def page_texts(name: str) -> tuple[str, ...]:
    data, _ = rendered(name)
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        return tuple(str(page.get_text()) for page in doc)


def _describe(f: Fact) -> str:
    period = f.period.key if f.period else None
    return (
        f"{f.metric} {period} p{f.page} {f.origin} {f.label!r} printed {f.printed!r}: value {f.value} "
        f"(scale {f.scale}, scale_source {f.scale_source}, currency {f.currency})"
    )


# -- the variants themselves --------------------------------------------------------------------------


def test_variant_set_covers_the_traits_and_the_injections() -> None:
    cfgs = list(VARIANTS.values())
    assert len(cfgs) >= 5
    assert set(VARIANT_TRAITS) == set(VARIANTS)
    assert sum(not c.injections for c in cfgs) >= 2
    kinds = {i.kind for c in cfgs for i in c.injections}
    assert {"sum_mismatch", "cross_reference_mismatch", "balance_identity"} <= kinds
    assert len({c.currency for c in cfgs}) >= 4
    assert {c.scale for c in cfgs} >= {3, 6}
    assert len({c.decimals for c in cfgs}) >= 2
    assert len({c.font for c in cfgs}) >= 3
    assert any(c.prior_first for c in cfgs) and any(not c.prior_first for c in cfgs)
    assert any(c.caption_placement == "above_prose" for c in cfgs)
    assert any(c.title_caption_one_line for c in cfgs)
    assert any(not c.repeat_header_on_break for c in cfgs)
    assert any(c.liab_sign < 0 and c.bs_kind == "uk" for c in cfgs)
    assert any(c.expense_sign > 0 for c in cfgs)
    assert {c.document_note_at for c in cfgs if c.document_scale_note} == {"statements", "start"}
    # New issuers, not the committed samples.
    from sample_docs.generate import DOCS

    assert not {c.issuer for c in cfgs} & {d.issuer for d in DOCS}
    assert not {c.file for c in cfgs} & {d.file for d in DOCS}


def test_layout_cases_hold_every_variant_whatever_their_traits() -> None:
    # The regression tests on the variants with one trait switched on (tests.support.layouts) each draw
    # every variant, so each covers as many layouts as there are variants (five or more, above).
    cases = LayoutCases("any", net_debt=True)
    assert cases.names() == sorted(f"any-{name}" for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_variant_truth_matches_what_is_printed(name: str) -> None:
    cfg = VARIANTS[name]
    _, truth = rendered(name)
    texts = page_texts(name)
    assert truth["pages"] == len(texts) <= 8
    assert truth["clean"] == (not truth["inconsistencies"]) == (not cfg.injections)
    assert (truth["currency"], truth["scale"]) == (cfg.currency, cfg.scale)
    for fact in truth["facts"]:
        assert fact["metric"] in METRICS and PERIOD_RE.match(fact["period"]), fact
        assert fact["pages"], fact
        for page in fact["pages"]:
            assert printed_on(texts[page - 1], printed_forms(fact["value"], cfg.scale)), (fact, page)
    for inc in truth["inconsistencies"]:
        assert inc["kind"] in KINDS and inc["pages"] and inc["description"], inc
        assert all(1 <= p <= truth["pages"] for p in inc["pages"]), inc
    # Consistent by construction except where an injection says otherwise.
    expected = set()
    for inc in truth["inconsistencies"]:
        if inc["kind"] == "balance_identity":
            expected.add(("balance", inc["period"]))
        if inc["kind"] == "sum_mismatch" and inc["metric"] == "gross_profit":
            expected.add(("gross", inc["period"]))
    assert identity_breaks(truth) == expected


def _lines(name: str) -> list[tuple[int, float, str]]:
    """Every text line of the variant as (page, baseline, text), spans of one baseline joined."""
    data, _ = rendered(name)
    out: list[tuple[int, float, str]] = []
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            rows: dict[float, list[tuple[float, str]]] = {}
            for block in page.get_text("dict")["blocks"]:
                for line in block.get("lines", []):
                    for span in line["spans"]:
                        y = round(span["origin"][1], 1)
                        rows.setdefault(y, []).append((span["origin"][0], span["text"]))
            for y, spans in sorted(rows.items()):
                out.append((page.number + 1, y, " ".join(" ".join(t for _, t in sorted(spans)).split())))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_variant_has_its_layout_traits(name: str) -> None:
    cfg = VARIANTS[name]
    lines = _lines(name)
    texts = page_texts(name)
    every = "\n".join(texts)
    titles = [cfg.labels[f"{t}_title"].split("\n")[-1] for t in ("is", "bs", "cf")]
    if cfg.caption_placement == "above_prose":
        caption = cfg.labels.get("is_caption", cfg.unit_caption)
        start = next(i for i, (_, _, t) in enumerate(lines) if t == titles[0])
        at = next(i for i, (_, _, t) in enumerate(lines) if i > start and t == caption)
        assert at == start + 1, lines[start : at + 1]
        head = next(i for i, (_, _, t) in enumerate(lines) if i > at and t.startswith("Year ended"))
        # Two or three paragraphs of several lines between the caption and the column heads.
        assert head - at >= 6, lines[at : head + 1]
    if cfg.title_caption_one_line:
        for title in titles:
            assert any(t == f"{title} {cfg.unit_caption}" for _, _, t in lines), title
    if not cfg.repeat_header_on_break:
        assert "(continued)" not in every
        # The balance sheet runs over a page break: total liabilities (printed on the balance sheet only)
        # lands on a page without its title.
        _, truth = rendered(name)
        bs_pages = {p for f in truth["facts"] if f["metric"] == "total_liabilities" for p in f["pages"]}
        assert bs_pages and all(titles[1] not in texts[p - 1] for p in bs_pages)
    if cfg.document_scale_note:
        assert every.count(cfg.document_scale_note) == 1
        assert not cfg.unit_caption and not cfg.unit_col
    if cfg.liab_sign < 0:
        _, truth = rendered(name)
        assert all(f["value"] < 0 for f in truth["facts"] if f["metric"] == "total_liabilities")
        assert "Net assets" in every


# -- the engine on them ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_key_facts_found(name: str) -> None:
    r = result(name)
    _, truth = rendered(name)
    missing = []
    for f in truth["facts"]:
        found = found_on(r.facts, f)
        if not set(f["pages"]) <= found:
            got = [_describe(x) for x in candidates(r.facts, f)]
            missing.append(
                f"{f['metric']} {f['period']} {f['value']} on p{f['pages']}: found p{sorted(found)}; {got}"
            )
    assert not missing, f"{len(missing)} of {len(truth['facts'])} key facts not found:\n" + "\n".join(missing)


@pytest.mark.parametrize("name", NAMES)
def test_every_figure_has_a_known_scale(name: str) -> None:
    r = result(name)
    unknown = [
        _describe(f) for f in r.facts if f.scale_source is None or (f.unit == "currency" and f.value is None)
    ]
    scale_errors = [f"p{e.page} {e.category}: {e.message}" for e in r.errors if e.category == "scale_unknown"]
    assert not unknown, f"{len(unknown)} of {len(r.facts)} facts of unknown scale:\n" + "\n".join(unknown)
    assert not scale_errors, scale_errors


@pytest.mark.parametrize("name", NAMES)
def test_every_table_of_figures_has_a_known_scale(name: str) -> None:
    # A table that yields no fact (a continuation read as a table of its own, without periods) still holds
    # figures: each document states its scale somewhere, so none of its tables may be of unknown scale.
    r = result(name)
    unknown = [
        f"p{t.pages} {t.title!r}: {sum(1 for c in t.cells if c.number and not c.is_header)} figures, "
        f"first row {next((c.text for c in t.cells if not c.is_header), None)!r}"
        for t in r.tables
        if t.scale is None and any(c.number for c in t.cells if not c.is_header)
    ]
    assert not unknown, f"tables of unknown scale: {unknown}"


@pytest.mark.parametrize("name", NAMES)
def test_injected_inconsistencies_flagged_and_nothing_else(name: str) -> None:
    r = result(name)
    _, truth = rendered(name)
    unmatched_truth, unmatched_flags = flagged(r.flags, truth["inconsistencies"])
    spurious = [
        f"{f.rule} {f.kind} p{f.pages} {f.period.key if f.period else None}: {f.message}"
        for f in unmatched_flags
    ]
    assert not unmatched_truth, f"not flagged: {unmatched_truth}\nflags raised: {spurious}"
    assert not spurious, f"flags not in the truth: {spurious}"
