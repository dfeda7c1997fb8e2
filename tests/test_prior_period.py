"""PRI001/PRI002: a document's figures against what its issuer published in earlier documents."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import pytest

from adapters.history.sqlite import SqliteHistory, StoredDocument
from adapters.history.store import HistoryStore
from pipeline.across.prior import (
    PriorReport,
    Reason,
    Verdict,
    compare_with_history,
    figure_key,
    prior_flags,
    restatement_reasons,
)
from pipeline.checks.rule import DocRef
from schemas.models import Basis, Block, Flag, PublishedFigure

FY24 = "2024-01-01T00:00:00/2025-01-01T00:00:00"
RECLASSIFIED = Reason(
    50, "Certain prior year amounts have been reclassified to conform.", "a reclassification"
)


def fig(
    label: str,
    printed: str,
    *,
    doc: str = "new",
    table: str = "t-income",
    period_end: str = "2025-12-31",
    basis: Basis = "reported",
    column: str | None = None,
    decimals: int = -6,
    parent: str | None = None,
) -> PublishedFigure:
    value = float(printed.replace(",", "").replace("(", "-").replace(")", "")) * 1e6
    return PublishedFigure(
        issuer_key="acme",
        doc_id=doc,
        source=f"{doc}.pdf",
        period_end=period_end,
        key=figure_key("income", label, FY24, "iso4217:USD", basis, None),
        parent_key=None if parent is None else figure_key("income", parent, FY24, "iso4217:USD", basis, None),
        table_id=f"{doc}-{table}",
        statement="income",
        label=label,
        column=column,
        period=FY24,
        unit="iso4217:USD",
        basis=basis,
        value=value,
        decimals=decimals,
        printed=printed,
        page=40 if doc == "new" else 38,
        bbox=(300.0, 100.0, 340.0, 110.0),
    )


def steady_now(**kw: object) -> list[PublishedFigure]:
    """Lines both years print alike: what proves that two tables are one statement in two years."""
    return [fig("Revenue", "1,200", **kw), fig("Gross profit", "500", **kw)]  # type: ignore[arg-type]


def steady_then(**kw: object) -> list[PublishedFigure]:
    return [old("Revenue", "1,200", **kw), old("Gross profit", "500", **kw)]


def old(label: str, printed: str, **kw: object) -> PublishedFigure:
    return fig(label, printed, doc="old", period_end="2024-12-31", **kw)  # type: ignore[arg-type]


def verdicts(
    current: list[PublishedFigure], earlier: list[PublishedFigure], reasons: Sequence[Reason] = ()
) -> tuple[dict[str, Verdict], PriorReport]:
    report = compare_with_history(current, earlier, reasons)
    return {m.current.label: m.verdict for m in report.matches}, report


def cost_of_sales(now: str, then: str, reasons: Sequence[Reason] = ()) -> tuple[Verdict, list[Flag]]:
    """The verdict on "Cost of sales" printed ``now`` this year and ``then`` last year, and the flags."""
    found, report = verdicts(
        [*steady_now(), fig("Cost of sales", now)], [*steady_then(), old("Cost of sales", then)], reasons
    )
    return found["Cost of sales"], prior_flags(report, DocRef("new", "new.pdf"))


def test_agreeing_figures_raise_nothing() -> None:
    found, report = verdicts(
        [*steady_now(), fig("Cost of sales", "700")],
        [*steady_then(), old("Cost of sales", "700")],
    )
    assert found == {"Revenue": "agree", "Gross profit": "agree", "Cost of sales": "agree"}
    assert prior_flags(report, DocRef("new", "new.pdf")) == []


def test_a_swapped_comparative_is_an_inconsistency_even_where_the_document_reclassified() -> None:
    verdict, (flag,) = cost_of_sales("7,150", "7,510", [RECLASSIFIED])
    assert verdict == "inconsistency"
    assert flag.rule == "PRI001" and flag.severity == "error"
    assert "swap" in flag.message
    assert flag.pages == [40]  # the flag's pages are its own document's
    assert [(e.role, e.source, e.page) for e in flag.evidence] == [
        ("current", None, 40),
        ("earlier", "old.pdf", 38),
    ]


def test_a_recast_with_a_stated_reason_is_a_restatement_quoting_it() -> None:
    verdict, (flag,) = cost_of_sales("712", "705", [RECLASSIFIED])
    assert verdict == "restatement"
    assert flag.rule == "PRI002" and flag.severity == "info"
    assert "reclassified to conform" in flag.message and "p. 50" in flag.message


def test_a_difference_no_reason_explains_is_an_inconsistency() -> None:
    assert cost_of_sales("712", "705")[0] == "inconsistency"


def test_a_restated_column_is_a_restatement_quoting_its_head() -> None:
    now = [
        *steady_now(basis="restated"),
        fig("Cost of sales", "712", basis="restated", column="2024 As restated"),
    ]
    then = [*steady_then(basis="restated"), old("Cost of sales", "705", basis="restated")]
    found, report = verdicts(now, then)
    assert found["Cost of sales"] == "restatement"
    (flag,) = prior_flags(report, DocRef("new", "new.pdf"))
    assert "2024 As restated" in flag.message


def test_tables_that_agree_on_nothing_else_prove_no_relation() -> None:
    # "Americas" in a table of revenue this year and of head count last year: one label, two things.
    found, report = verdicts([fig("Americas", "5,873")], [old("Americas", "16,124")])
    assert found == {"Americas": "unproven"}
    assert prior_flags(report, DocRef("new", "new.pdf")) == []


def test_a_line_printed_in_a_statement_and_a_note_is_compared_printing_by_printing() -> None:
    # The statement's copy was mistyped; the note's copy and last year's statement agree.
    now = [*steady_now(), fig("Other", "15"), fig("Other", "51", table="t-note")]
    then = [*steady_then(), old("Other", "51"), old("Other", "51", table="t-note")]
    _, report = verdicts(now, then)
    assert [
        (m.verdict, m.current.table_id, m.earlier.table_id)
        for m in report.matches
        if m.current.label == "Other"
    ] == [
        ("agree", "new-t-note", "old-t-income"),
        ("inconsistency", "new-t-income", "old-t-income"),
    ]
    assert (report.compared, report.several) == (3, 1)


def test_one_label_in_two_tables_is_two_lines() -> None:
    # "Americas" in a table of revenue and in a table of head count, both years.
    now = [
        fig("Revenue", "900", table="t-rev"),
        fig("Americas", "5,873", table="t-rev"),
        fig("Americas", "16,124", table="t-emp"),
    ]
    both = [
        old("Revenue", "900", table="t-rev"),
        old("Americas", "5,873", table="t-rev"),
        old("Americas", "16,124", table="t-emp"),
    ]
    assert {m.verdict for m in compare_with_history(now, both).matches} == {"agree"}
    # Last year printed only the revenue table: head count has no partner whose table agrees with its own.
    report = compare_with_history(now, both[:2])
    assert sorted(m.verdict for m in report.matches) == ["agree", "agree", "unproven"]
    assert prior_flags(report, DocRef("new", "new.pdf")) == []


def test_the_latest_earlier_document_is_the_reference() -> None:
    older = [
        fig("Revenue", "1,100", doc="older", period_end="2023-12-31"),
        fig("Cost", "600", doc="older", period_end="2023-12-31"),
    ]
    found, report = verdicts(
        [*steady_now(), fig("Cost", "600")], [*older, *steady_then(), old("Cost", "600")]
    )
    assert found == {"Revenue": "agree", "Gross profit": "agree", "Cost": "agree"}
    assert {m.earlier.doc_id for m in report.matches} == {"old"}


@pytest.mark.parametrize(
    ("now", "then", "verdict"),
    [
        ("1,385", "1,387", "restatement"),  # the last digit: how a recast looks (one unit is rounding)
        ("1,378", "1,358", "restatement"),  # the last two digits
        ("1,487", "1,387", "inconsistency"),  # the hundreds: a mistyped digit
        ("138", "1,387", "inconsistency"),  # a dropped digit
        ("(1,387)", "1,387", "inconsistency"),  # the sign
    ],
)
def test_which_differences_look_like_keying_errors(now: str, then: str, verdict: str) -> None:
    assert cost_of_sales(now, then, [RECLASSIFIED])[0] == verdict


def block(text: str, page: int = 7) -> Block:
    return Block(page=page, bbox=(50.0, 50.0, 500.0, 80.0), text=text, font_size=9.0)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "Certain prior year amounts have been reclassified to conform to the current year presentation.",
            "a reclassification",
        ),
        (
            "This change was applied retrospectively to all periods presented.",
            "a change in accounting principle",
        ),
        (
            "Our Korea business is presented as discontinued operations for all periods presented.",
            "discontinued operations",
        ),
        ("Effective January 1, we realigned our reportable segments.", "a segment reorganisation"),
        ("Prior year amounts have been recast to reflect the new definition.", "restated or recast"),
        ("Changes in accounting principles could have a significant impact on our results.", None),
        ("We will adopt the standard on a modified retrospective basis in 2018.", None),
        ("We adopted the standard using the modified retrospective method.", None),
        ("No restatement of prior periods is required.", None),
        ("10.20 Executive Pension Plan as amended and restated April 10, 2007.", None),
    ],
)
def test_what_a_document_says_about_restating(text: str, kind: str | None) -> None:
    found = restatement_reasons([block(text)])
    assert [r.kind for r in found] == ([kind] if kind else [])


def test_the_most_specific_reason_comes_first() -> None:
    found = restatement_reasons(
        [
            block("Certain amounts have been reclassified to conform to the current presentation.", 3),
            block("Change in Accounting Principle for Pension Cost", 50),
        ]
    )
    assert [(r.page, r.kind) for r in found] == [
        (50, "a change in accounting principle"),
        (3, "a reclassification"),
    ]


def check_history_store(history: HistoryStore) -> None:
    """What every history store does (the SQLite file here, PostgreSQL in the integration tier)."""
    then = StoredDocument("old", "acme", "2024-12-31", "old.pdf", (RECLASSIFIED,))
    history.put(then, [old("Revenue", "1,200")])
    history.put(then, [*steady_then(), old("Cost", "600")])  # a rerun or a redelivery replaces
    later = StoredDocument("later", "acme", "2026-12-31", "later.pdf")
    history.put(later, [fig("Revenue", "1,300", doc="later", period_end="2026-12-31")])
    other = StoredDocument("other", "globex", "2023-12-31", "other.pdf")
    history.put(other, [fig("Revenue", "9", doc="other", period_end="2023-12-31")])
    now = StoredDocument("new", "acme", "2025-12-31", "new.pdf")
    history.put(now, [fig("Revenue", "1,200")])
    assert sorted(f.label for f in history.earlier(now)) == ["Cost", "Gross profit", "Revenue"]
    assert {f.doc_id for f in history.earlier(now)} == {"old"}
    assert [f.label for f in history.figures("old")] == ["Revenue", "Gross profit", "Cost"]
    assert history.figures("old")[0] == steady_then()[0]
    stored = history.document("old")
    assert stored == then and stored.reasons == (RECLASSIFIED,)
    assert history.document("missing") is None
    assert [d.doc_id for d in history.later(then)] == ["new", "later"]
    assert history.later(later) == []


def test_the_history_replaces_a_document_and_returns_only_earlier_ones(tmp_path: Path) -> None:
    with closing(SqliteHistory(tmp_path)) as history:
        check_history_store(history)


def test_a_line_about_discontinued_operations_may_move_by_any_amount_where_they_were_recast() -> None:
    recast = Reason(
        32,
        "Korea is presented as discontinued operations for all periods presented.",
        "discontinued operations",
    )
    now = [*steady_now(), fig("Net cash used in discontinued financing activities", "(2)")]
    then = [*steady_then(), old("Net cash used in discontinued financing activities", "(12)")]
    assert (
        verdicts(now, then, [RECLASSIFIED, recast])[0]["Net cash used in discontinued financing activities"]
        == "restatement"
    )
    assert (
        verdicts(now, then, [RECLASSIFIED])[0]["Net cash used in discontinued financing activities"]
        == "inconsistency"
    )


def test_a_line_that_moved_within_an_unchanged_total_is_a_reclassification() -> None:
    now = [
        *steady_now(),
        fig("Other", "121", parent="Total assets"),
        fig("Receivables", "1,657", parent="Total assets"),
        fig("Total assets", "8,426"),
        fig("Total liabilities", "5,100"),
    ]
    then = [
        *steady_then(),
        old("Other", "278", parent="Total assets"),
        old("Receivables", "1,500", parent="Total assets"),
        old("Total assets", "8,426"),
        old("Total liabilities", "5,100"),
    ]
    report = compare_with_history(now, then)
    moved = {m.current.label: (m.verdict, m.reason.kind if m.reason else None) for m in report.matches}
    assert moved["Other"] == ("restatement", "a reclassification within an unchanged total")
    assert moved["Total assets"] == ("agree", None)


def test_a_line_split_out_of_other_explains_the_difference() -> None:
    # This year prints "Greenhouse gas allowance" (157) on its own; last year it was inside "Other".
    now = [*steady_now(), fig("Other", "121"), fig("Greenhouse gas allowance", "157")]
    then = [*steady_then(), old("Other", "278")]
    (flag,) = prior_flags(compare_with_history(now, then), DocRef("new", "new.pdf"))
    assert (
        flag.rule == "PRI002"
        and "Greenhouse gas allowance (157), printed in this document only" in flag.message
    )
    # Merged back the next year: the line printed in the earlier document only explains it.
    (flag,) = prior_flags(compare_with_history(then, now), DocRef("old", "old.pdf"))
    assert flag.rule == "PRI002" and "printed in new.pdf only" in flag.message


def test_tables_that_agree_on_under_two_thirds_of_their_lines_prove_nothing() -> None:
    labels = ["Residential", "Commercial", "Industrial"]
    now = [fig(label, v) for label, v in zip(labels, ["2,759", "713", "500"], strict=True)]
    then = [old(label, v) for label, v in zip(labels, ["2,759", "5,042", "6,089"], strict=True)]
    assert {m.verdict for m in compare_with_history(now, then).matches} == {"agree", "unproven"}
    then[2] = old("Industrial", "500")  # two of three agree: one statement in two years
    assert {m.verdict for m in compare_with_history(now, then).matches} == {"agree", "inconsistency"}


def test_a_keying_error_in_a_recast_statement_is_still_found() -> None:
    # A change in accounting principle moved most of the statement's figures: the tables agree on little,
    # but they print the same lines, and a swapped digit is no recast.
    labels = ["Revenue", "Cost of sales", "Gross profit", "Operating income", "Income tax"]
    now = [fig(label, v) for label, v in zip(labels, ["1,200", "710", "490", "1,352", "61"], strict=True)]
    then = [old(label, v) for label, v in zip(labels, ["1,200", "702", "498", "1,325", "66"], strict=True)]
    found, _ = verdicts(now, then, [RECLASSIFIED])
    assert found["Operating income"] == "inconsistency"  # 1,325 → 1,352: two digits swapped
    assert (
        found["Cost of sales"] == "unproven"
    )  # a recast amount: tables that agree on so little prove nothing


_A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # labels lose their numbers when normalised ("Note 2"), not their letters


def test_the_main_statements_of_two_years_prove_a_keying_error_whatever_was_recast() -> None:
    # This year's cash flow statement prints new lines and many recast figures (operations discontinued).
    now = [fig(f"Line {_A[i]}", f"{100 + i}") for i in range(8)] + [fig("Repayment of debt", "(15,550)")]
    then = [old(f"Line {_A[i]}", f"{200 + i}") for i in range(2, 8)] + [old("Repayment of debt", "(1,550)")]
    then += [old(f"Old line {_A[i]}", "5") for i in range(6)]
    found, _ = verdicts(now, then)
    assert found["Repayment of debt"] == "inconsistency"  # a doubled digit
    # The same tables, but neither is its document's main income statement: nothing proves the relation.
    then += [old(f"Main {_A[i]}", "1", table="t-main") for i in range(20)]
    found, _ = verdicts(now, then)
    assert found["Repayment of debt"] == "unproven"


def test_a_section_the_key_does_not_name_is_no_error() -> None:
    # This year's revenue table prints electric and gas "Residential"; last year's prints electric only.
    now = [*steady_now(), fig("Residential", "6,089"), fig("Residential", "2,759")]
    then = [*steady_then(), old("Residential", "6,089")]
    report = compare_with_history(now, then)
    assert sorted(m.verdict for m in report.matches if m.current.label == "Residential") == [
        "agree",
        "unproven",
    ]
    assert prior_flags(report, DocRef("new", "new.pdf")) == []


def test_the_line_under_judgement_does_not_count_against_its_own_proof() -> None:
    # Three lines, one mistyped: the other two agree, which is all the table can say.
    now = [fig("Accrued marketing", "93"), fig("Prepaid supply", "916"), fig("Total", "1,478")]
    then = [old("Accrued marketing", "933"), old("Prepaid supply", "916"), old("Total", "1,478")]
    assert verdicts(now, then)[0]["Accrued marketing"] == "inconsistency"
