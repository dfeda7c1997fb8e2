"""Deterministic consistency checks over a document's tables, facts and narrative.

Rules (each module documents its own):

* ``TOT001``/``TOT002`` (:mod:`.sums`): the calculation trees of :mod:`pipeline.statements` hold in every
  column, and total columns in every row.
* ``XREF001`` (:mod:`.crossref`): a metric for one period agrees wherever it is printed.
* ``NAR001`` (:mod:`.narrative`): narrative figures and changes agree with the tables.
* ``BAL001`` (:mod:`.balance`): the balance sheet balances.
* ``CHG001`` (:mod:`.changes`): columns of changes and of shares agree with the figures they compare.
* ``LED001`` (:mod:`.ledger`): a ledger's running balance follows from its debits and credits.
* ``EPS001`` (:mod:`.per_share`): earnings per share are the earnings over the weighted-average shares.

Every rule is rounding-aware (:mod:`.tolerance`) and silent when the structure is ambiguous: a false
flag on a real filing costs an analyst more than a missed one.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.checks.balance import check_balance
from pipeline.checks.changes import check_changes
from pipeline.checks.crossref import check_crossref
from pipeline.checks.ledger import check_ledgers
from pipeline.checks.narrative import check_narrative
from pipeline.checks.per_share import check_per_share
from pipeline.checks.sums import check_sums
from pipeline.checks.tolerance import known_facts, where_printed
from pipeline.statements import build_statements
from pipeline.taxonomy import Taxonomy, load_taxonomy
from schemas.models import Block, Fact, Flag, Statement, Table

__all__ = ["RULES", "run_checks"]

RULES: dict[str, str] = {
    "TOT001": "Every proven node of a statement's calculation tree adds up in every column.",
    "TOT002": "A total column equals the sum of the component columns in every row.",
    "XREF001": "The same metric or line, period and basis printed in different tables agree.",
    "XST001": "The identities between the primary statements hold (net income, cash, equity).",
    "NAR001": "Figures and percentage changes in narrative text agree with the tables.",
    "NAR002": "The figures of one sentence agree among themselves (from X to Y, up Z or P%).",
    "BAL001": "Total assets equal total liabilities plus equity.",
    "CHG001": "A column of changes or of shares agrees, row by row, with the figures it is computed from.",
    "LED001": "A ledger's running balance is the previous balance plus its debits less its credits.",
    "EPS001": "Earnings per share equal the earnings divided by the weighted-average shares.",
}
"""Rule id → what it checks."""


def run_checks(
    tables: Sequence[Table],
    facts: Sequence[Fact],
    blocks: Sequence[Block],
    *,
    doc_id: str,
    source: str,
    statements: Sequence[Statement] | None = None,
    taxonomy: Taxonomy | None = None,
) -> list[Flag]:
    """Run every rule over one document.

    Args:
        tables: Logical tables.
        facts: Facts from :func:`pipeline.facts.extract_facts` (and text facts, which are ignored by
            the cross-reference rule).
        blocks: Narrative text blocks.
        doc_id: Document id.
        source: Source path.
        statements: The tables' calculation trees; built here (without page headings) when None.
        taxonomy: Metric taxonomy; the packaged one by default.

    Returns:
        Flags, one per distinct ``flag_id``, ordered by first page, rule and id.
    """
    tax = taxonomy or load_taxonomy()
    # Figures whose scale is unknown are compared nowhere in base units.
    known = known_facts(facts)
    found: list[Flag] = []
    trees = build_statements(tables, {}, tax) if statements is None else statements
    found.extend(check_sums(tables, trees, tax))
    found.extend(check_changes(tables))
    found.extend(check_ledgers(tables))
    found.extend(check_per_share(tables, trees))
    found.extend(check_balance(known, doc_id=doc_id, source=source))
    found.extend(check_crossref(known, tables, trees, tax, doc_id=doc_id, source=source))
    found.extend(check_narrative(blocks, known, tax, doc_id=doc_id, source=source))
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
    return sorted(unique.values(), key=lambda f: (f.pages[0] if f.pages else 0, f.rule, f.flag_id))


_PRECEDENCE = {rule: k for k, rule in enumerate(("BAL001", "XST001", "LED001", "TOT002", "TOT001", "CHG001"))}
"""Which rule's flag stands when two compare the same figures: the identity that names what they are."""
