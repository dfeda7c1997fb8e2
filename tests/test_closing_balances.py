"""TOT003: a quarter's total line of a column of balances repeats the balance after its last month.

A table of issuer purchases of equity securities prints, month by month, the shares bought and what may
yet be purchased under the programs; the quarter's total line adds up the shares but repeats the balance.
No check related the balance column to anything (it is not additive), so a keying error in it went
unflagged (found on 3M's 2018 and 2020 10-Ks, re-keyed by the planted-errors bench: the September balance
1,504 -> 15,504). Here, on the generated layout variants with such a table, the clean document raises
nothing, a re-keyed balance after a quarter's last month is flagged on its page, and a table whose balance
column adds up plans (not periods) is left alone.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pymupdf
import pytest

from bench.planted_errors import Candidate, mutations, plant
from pipeline.checks.closing import check_closing_balances
from pipeline.engine import process_bytes
from sample_docs.generate import DocConfig, layout_variants, render_variant
from schemas.models import DocumentResult
from tests.support.tables import make_table

CASES: dict[str, DocConfig] = {
    f"bb-{c.file}": replace(c, file=f"bb-{c.file}", buybacks=True, injections=()) for c in layout_variants()
}


@cache
def rendered(name: str) -> bytes:
    data, _ = render_variant(CASES[name])
    return data


@cache
def clean(name: str) -> DocumentResult:
    return process_bytes(rendered(name), source=name)


def september_balance(data: bytes) -> Candidate:
    """The last figure on the "Sep" line: the balance left after September."""
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = page.get_text("words")
            for w in words:
                if w[4] != "Sep":
                    continue
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                if line[0] is not w:
                    continue
                f = line[-1]
                return Candidate(number, (f[0], f[1], f[2], f[3]), f[4])
    raise AssertionError("no Sep line printed")


def test_the_cases_cover_five_layouts() -> None:
    assert len(CASES) >= 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_buybacks_table_raises_nothing(name: str) -> None:
    result = clean(name)
    assert not result.flags, [f.message for f in result.flags]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_keying_error_in_a_quarter_end_balance_is_flagged(name: str) -> None:
    data = rendered(name)
    target = september_balance(data)
    new = mutations(target.text, "swap")[0]
    planted = plant(data, target, new)
    assert planted is not None
    result = process_bytes(planted, source=name)
    hits = [f for f in result.flags if target.page in f.pages and f.rule == "TOT003"]
    assert any(e.text.endswith(f": {new}") for f in hits for e in f.evidence), [
        f.message for f in result.flags
    ]


def test_a_column_of_balances_by_plan_adds_up_and_is_left_alone() -> None:
    # Securities remaining available for future issuance, by plan: the total adds the plans up.
    rows = [
        ("Equity compensation plans approved by shareholders", ["21,340"]),
        ("Equity compensation plans not approved by shareholders", ["5,000"]),
        ("Total", ["26,340"]),
    ]
    table = make_table(rows, periods=(None,), headers=("Number of securities remaining available",))
    assert check_closing_balances([table]) == []
