"""Verification of the model's proposals on recorded answers: signs, labelled evidence, the reference figure.

Each case is a chat completion shaped exactly as vLLM's OpenAI-compatible server returns it
(``tests/data/model_responses/*.json``); its content is validated against the task's structured-output
schema, as the client does, and run through the real verification code against the Halvorsen 10-K (or a
copy of it with one printed figure changed). No server is needed: what is under test is what code makes of
an answer.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pipeline.model.grounding as verify
from pipeline.engine import process_path
from pipeline.figures.taxonomy import load_taxonomy
from pipeline.model.grounding import PageIndex, verify_claim, verify_link, verify_mapping
from pipeline.model.proposals import TASK_SCHEMAS, CrossPageLinks, LabelMapping, LabelMappings, ProposedClaims
from schemas.models import DocumentResult, Flag, ProposalOutcome
from tests.support.tables import make_table

ROOT = Path(__file__).resolve().parent
DOC = ROOT.parent / "sample_docs" / "halvorsen_2025_form_10k.pdf"
RESPONSES = ROOT / "data" / "model_responses"
TAXONOMY = load_taxonomy()


@cache
def doc() -> DocumentResult:
    return process_path(DOC)


def recorded(name: str) -> Any:
    """The answer of a recorded completion, validated as the client validates it."""
    case = json.loads((RESPONSES / f"{name}.json").read_text(encoding="utf-8"))
    response = case["response"]
    assert response["object"] == "chat.completion" and response["choices"][0]["finish_reason"] == "stop"
    return TASK_SCHEMAS[case["task"]].model_validate_json(response["choices"][0]["message"]["content"])


def links(
    name: str, d: DocumentResult, flags: list[Flag] | None = None
) -> list[tuple[ProposalOutcome, Flag | None]]:
    answer = recorded(name)
    assert isinstance(answer, CrossPageLinks)
    index = PageIndex.of(d, TAXONOMY)
    return [verify_link(link, index, TAXONOMY, d.flags if flags is None else flags) for link in answer.links]


def claims(name: str, d: DocumentResult) -> list[tuple[ProposalOutcome, Flag | None]]:
    answer = recorded(name)
    assert isinstance(answer, ProposedClaims)
    index = PageIndex.of(d, TAXONOMY)
    return [verify_claim(c, index, TAXONOMY, d.flags) for c in answer.claims]


def reprinted(d: DocumentResult, page: int, label: str, text: str, value: float) -> DocumentResult:
    """The document with the FY2025 figure of ``label`` on ``page`` printed as ``text`` instead."""
    tables = []
    for t in d.tables:
        rows = {c.row for c in t.cells if c.col == 0 and c.text == label and c.page == page}
        cells = []
        for c in t.cells:
            n = c.number
            if c.row in rows and n is not None and n.period is not None and n.period.key == "FY2025":
                assert n.scale is not None
                n = n.model_copy(
                    update={
                        "text": text,
                        "value": value,
                        "base_value": value * 10**n.scale,
                        "negative": value < 0,
                    }
                )
                c = c.model_copy(update={"text": text, "number": n})
            cells.append(c)
        tables.append(t.model_copy(update={"cells": cells}))
    return d.model_copy(update={"tables": tables})


def test_signs_follow_the_metrics_convention() -> None:
    # Capital expenditure is a cost (sign: expense): "(86,912)" in the cash-flow statement, "$86.9 million" in
    # prose, "(86.9)" in the highlights are one figure, whichever sign the model gives each side.
    got = links("sign_costs_with_and_without_parentheses", doc(), flags=[])
    assert [(o.reason, f) for o, f in got] == [("verified_consistent", None), ("verified_consistent", None)]
    # Net income's sign is fixed: a loss printed "(144.7)" against a profit of 144,722 is a disagreement,
    # and reading the "(144.7)" as 144.7 is a misreading, not a match.
    loss = reprinted(doc(), 2, "Net income", "(144.7)", -144.7)
    (mismatch, flag), (misread, none), (prose, no_flag) = links("sign_net_income_disagrees", loss)
    assert mismatch.reason == "verified_mismatch" and flag is not None and flag.rule == "MOD001"
    assert flag.pages == [2, 4] and flag.metric == "net_income" and "'(144.7)'" in flag.message
    assert (misread.reason, misread.accepted, none) == ("sign_misread", False, None)
    # Prose prints no sign ("net income of $144.7 million", a loss in words): it states the magnitude only.
    assert (prose.reason, no_flag) == ("verified_consistent", None)


def test_a_bare_number_on_the_page_is_no_evidence_of_a_mismatch() -> None:
    # "$311.7 million" (a segment's revenue in prose) and the segment row "Aerospace Components 311,675" are
    # printed on page 3, but neither is labelled revenue: no flag against the statement's 1,321,213.
    got = links("bare_number_on_the_page", doc(), flags=[])
    assert [(o.reason, o.accepted, f) for o, f in got] == [("unlabelled_evidence", False, None)] * 2


def test_a_claims_reference_is_the_primary_statement() -> None:
    # The prose's $192.2 million agrees with the cash-flow statement's 192,186; the model named the highlights
    # table (page 2), whose 129.2 is the planted error. The prose is consistent: no flag against page 2.
    ((outcome, flag),) = claims("claim_reference_names_the_summary", doc())
    assert (outcome.reason, flag) == ("verified_consistent", None) and outcome.pages == [3, 7]
    # Prose that copies the highlights' 129.2 agrees with the page the model named, but not with the
    # statement: the flag cites the cash-flow statement's figure.
    blocks = [
        b.model_copy(update={"text": b.text.replace("$192.2 million", "$129.2 million")})
        for b in doc().blocks
    ]
    copied = doc().model_copy(update={"blocks": blocks})
    ((outcome, flag),) = claims("claim_copies_the_summary_error", copied)
    assert outcome.reason == "verified_mismatch" and flag is not None
    assert flag.pages == [3, 7] and [(e.page, e.role) for e in flag.evidence] == [
        (3, "narrative"),
        (7, "table"),
    ]
    assert "192,186" in flag.evidence[1].text and "(the model cited page 2)" in flag.message


def test_model_mapped_facts_are_tagged_corroborated_or_not() -> None:
    # Goodwill has no fact the taxonomy read: its figures are model-derived and uncorroborated. The
    # highlights' "Net sales" relabelled "Sales to customers" (unread by the taxonomy) agrees with the
    # statement's revenue: corroborated.
    tables = [
        t.model_copy(
            update={
                "cells": [
                    c.model_copy(update={"text": "Sales to customers"})
                    if c.page == 2 and c.text == "Net sales"
                    else c
                    for c in t.cells
                ]
            }
        )
        for t in doc().tables
    ]
    facts = [f for f in doc().facts if not (f.page == 2 and f.metric == "revenue")]
    d = doc().model_copy(update={"tables": tables, "facts": facts})
    answer = recorded("label_mappings_corroborated_or_not")
    assert isinstance(answer, LabelMappings)
    index = PageIndex.of(d, TAXONOMY)
    (goodwill, gw_facts), (sales, sales_facts) = [verify_mapping(m, index, TAXONOMY) for m in answer.mappings]
    assert goodwill.reason == "unrefuted" and sales.reason == "verified"
    assert {f.provenance for f in gw_facts} == {"model_uncorroborated"} and len(gw_facts) == 2
    assert {f.provenance for f in sales_facts} == {"model_corroborated"} and len(sales_facts) == 2
    assert {f.provenance for f in doc().facts} == {"taxonomy"}


def test_every_reason_is_listed_in_the_docstring() -> None:
    assert verify.__doc__ is not None
    for reason in (*verify.REJECTION_REASONS, *verify.ACCEPTANCE_REASONS):
        assert f"``{reason}``" in verify.__doc__
    assert not set(verify.REJECTION_REASONS) & set(verify.ACCEPTANCE_REASONS)


def test_a_mapped_per_share_row_is_not_scaled_by_the_tables_millions() -> None:
    """A row the model maps to EPS in a table "in millions, except per share" keeps its printed $2.15.

    The taxonomy's own per-share facts were never scaled (:func:`pipeline.figures.facts.cell_fact`); a
    model-mapped row built its fact from the cell's scaled value instead: 2,150,000 published as EPS.
    """
    label = "Income per common share, fully diluted basis"
    table = make_table([("Net income", ["1,200", "1,100"]), (label, ["2.15", "1.95"])], currency=None)
    d = doc().model_copy(update={"tables": [table], "facts": []})
    mapping = LabelMapping(label=label, metric="eps_diluted", rationale="the diluted EPS line")
    outcome, facts = verify_mapping(mapping, PageIndex.of(d, TAXONOMY), TAXONOMY)
    assert outcome.reason == "unrefuted"
    assert sorted((f.value, f.scale, f.decimals, f.unit) for f in facts) == [
        (1.95, 0, 2, "per_share"),
        (2.15, 0, 2, "per_share"),
    ]
