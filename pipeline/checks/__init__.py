"""Deterministic consistency checks over a document's tables, facts and narrative.

Rules, one line a check in the order they run (:data:`CHECKS`; each module documents its own):

* ``TOT001``/``TOT002`` (:mod:`.sums`): the calculation trees of :mod:`pipeline.statements` hold in
  every column, and total columns in every row.
* ``CHG001`` (:mod:`.changes`): columns of changes and of shares agree with the figures they compare, and
  so do rows of them, "Percent of sales" and "Percent change" under their line (:mod:`.ratio_rows`).
* ``LED001`` (:mod:`.ledger`): a ledger's running balance follows from its debits and credits.
* ``TOT003`` (:mod:`.closing`): in a column of balances, a period's total line repeats its closing balance;
  a period's opening balance repeats the previous period's closing (:mod:`.carried`).
* ``EPS001`` (:mod:`.per_share`): earnings per share are the earnings over the weighted-average shares.
* ``BAL001`` (:mod:`.balance`): the balance sheet balances.
* ``XREF001``/``XST001`` (:mod:`.crossref`): a metric for one period agrees wherever it is printed, and so
  does a period one table prints twice (:mod:`.repeated_columns`); the identities between the primary
  statements hold.
* ``QTR001`` (:mod:`.quarters`): the four quarters of a year printed in one table add up to the year.
* ``NAR001``/``NAR002`` (:mod:`.narrative`): narrative figures and changes agree with the tables; a
  sentence's own arithmetic holds.
* ``SCL001`` (:mod:`.magnitude`): a figure that no other rule's relation prints is on the scale of its row
  and of its column.

Rules raised across two documents, by :mod:`pipeline.across` (a single document never raises them;
:data:`ACROSS_RULES`):

- ``VER001`` (:mod:`.versions`): a tie that held in the previous draft still holds.
- ``PRI001``/``PRI002`` (:mod:`.prior`): a figure agrees with what the issuer published for that period
  in an earlier document; or it was restated, and the document says why.

The rules that compare linear relations (sums, copies) record every relation they evaluate, holding or
not; :mod:`.localize` then names the printed figure whose change explains each break, and sets apart as
structure questions the breaks no small change explains.

Every rule is rounding-aware (:mod:`.tolerance`) and silent when the structure is ambiguous: a false
flag on a real filing costs an analyst more than a missed one.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.checks import (
    balance,
    carried,
    changes,
    closing,
    crossref,
    ledger,
    magnitude,
    narrative,
    per_share,
    prior,
    quarters,
    ratio_rows,
    repeated_columns,
    sums,
    versions,
)
from pipeline.checks.confidence import calibrate
from pipeline.checks.localize import Localized, RelationLog, localize_errors
from pipeline.checks.rule import Check, CheckedDocument, Rule
from pipeline.checks.tolerance import known_facts, where_printed
from pipeline.figures.taxonomy import Taxonomy, load_taxonomy
from pipeline.statements.build import build_statements
from schemas.models import Block, Chunk, Fact, Flag, Statement, Table

__all__ = ["ACROSS_RULES", "CHECKS", "RULES", "Localized", "check_document"]

CHECKS: tuple[Check, ...] = (
    Check(
        (sums.RULE, sums.ACROSS_RULE),
        lambda d: sums.check_sums(d.tables, d.statements, d.taxonomy, d.relations),
    ),
    Check(
        (changes.RULE,),
        lambda d: [*changes.check_changes(d.tables), *ratio_rows.check_ratio_rows(d.tables, d.relations)],
    ),
    Check((ledger.RULE,), lambda d: ledger.check_ledgers(d.tables)),
    Check(
        (closing.RULE,),
        lambda d: [
            *closing.check_closing_balances(d.tables, d.relations),
            *carried.check_carried_balances(d.tables, d.relations),
        ],
    ),
    Check((per_share.RULE,), lambda d: per_share.check_per_share(d.tables, d.statements, d.questions)),
    Check((balance.RULE,), lambda d: balance.check_balance(d.facts, doc_id=d.doc_id, source=d.source)),
    Check(
        (crossref.RULE, crossref.STATEMENT_RULE),
        lambda d: [
            *crossref.check_crossref(
                d.facts,
                d.tables,
                d.statements,
                d.taxonomy,
                doc_id=d.doc_id,
                source=d.source,
                relations=d.relations,
            ),
            *repeated_columns.check_repeated_columns(d.tables, d.relations),
        ],
    ),
    Check((quarters.RULE,), quarters.check_quarters),
    Check(
        (narrative.RULE, narrative.SENTENCE_RULE),
        lambda d: narrative.check_narrative(
            d.blocks, d.facts, d.taxonomy, doc_id=d.doc_id, source=d.source, tables=d.tables, chunks=d.chunks
        ),
    ),
    # Last: it speaks only for figures that no relation recorded by the rules above prints.
    Check((magnitude.RULE,), lambda d: magnitude.check_magnitudes(d.tables, d.relations)),
)
"""Every check, in the order they run."""

ACROSS_RULES: tuple[Rule, ...] = (versions.RULE, prior.INCONSISTENCY_RULE, prior.RESTATEMENT_RULE)
"""The rules raised across two documents (:mod:`pipeline.across`), in the order the docstring lists them."""

RULES: dict[str, Rule] = {rule.id: rule for rule in (*(r for c in CHECKS for r in c.rules), *ACROSS_RULES)}
"""Rule id → its declaration (what it checks, the kind and severity of its flags), every rule."""


def check_document(
    tables: Sequence[Table],
    facts: Sequence[Fact],
    blocks: Sequence[Block],
    *,
    doc_id: str,
    source: str,
    statements: Sequence[Statement] | None = None,
    taxonomy: Taxonomy | None = None,
    relations: RelationLog | None = None,
    chunks: Sequence[Chunk] = (),
) -> Localized:
    """Run every rule over one document, then localize the error behind each break.

    Args:
        tables: Logical tables.
        facts: Facts from :func:`pipeline.figures.facts.extract_facts` (and text facts, which are ignored by
            the cross-reference rule).
        blocks: Narrative text blocks.
        doc_id: Document id.
        source: Source path.
        statements: The tables' calculation trees; built here (without page headings) when None.
        taxonomy: Metric taxonomy; the packaged one by default.
        relations: Where every relation the checks evaluate is recorded, holding or not (a new log by
            default); ``bench.miss_coverage`` reads it to tell a missed error in no relation from one a
            relation held but did not flag.
        chunks: The document's heading-aware chunks: which section each narrative block sits under.

    Returns:
        The findings, one per distinct ``flag_id``, ordered by first page, rule and id, each with its
        localization where its rule records relations; and the structure questions (breaks no one or two
        printed figures explain), in the same order.
    """
    tax = taxonomy or load_taxonomy()
    trees = build_statements(tables, {}, tax) if statements is None else statements
    # Figures whose scale is unknown are compared nowhere in base units.
    log = RelationLog() if relations is None else relations
    doc = CheckedDocument(doc_id, source, tables, trees, known_facts(facts), blocks, tax, log, chunks=chunks)
    found = magnitude.left_to_others([flag for check in CHECKS for flag in check.run(doc)])
    unique: dict[str, Flag] = {}
    seen: set[frozenset[tuple[int, tuple[float, ...]]]] = set()
    # One misprint, one flag: where two rules compare the very same printed figures (the balance
    # identity and the tree node "Net assets = Total assets − Total liabilities"), the more specific
    # rule's flag is kept.
    for flag in sorted(found, key=lambda f: _PRECEDENCE.get(f.rule, len(_PRECEDENCE))):
        cells = frozenset(where_printed(e) for e in flag.evidence)
        if flag.flag_id in unique or (len(cells) > 1 and cells in seen):
            continue
        unique[flag.flag_id] = flag
        seen.add(cells)
    located = localize_errors(list(unique.values()), log)
    # The confidence last: it reads what the localization found.
    flags = [calibrate(f) for f in located.flags]
    questions = [calibrate(f) for f in (*located.structure_questions, *doc.questions)]
    return Localized(_ordered(flags), _ordered(questions), located.seconds)


def _ordered(flags: Sequence[Flag]) -> list[Flag]:
    return sorted(flags, key=lambda f: (f.pages[0] if f.pages else 0, f.rule, f.flag_id))


_PRECEDENCE = {
    rule.id: k
    for k, rule in enumerate(
        (balance.RULE, crossref.STATEMENT_RULE, ledger.RULE, sums.ACROSS_RULE, sums.RULE, changes.RULE)
    )
}
"""Which rule's flag stands when two compare the same figures: the identity that names what they are."""
