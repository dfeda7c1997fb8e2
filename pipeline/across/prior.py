"""Prior-period consistency: a document's figures against what the same issuer published before (issue 27).

A comparative column repeats figures its issuer published a year earlier. For each figure of the
document under check:

1. **Match.** Find the printings with the same key (:func:`figure_key`: statement kind, line, period,
   unit, basis, dimension and reporting entity) in the issuer's latest earlier document that prints the
   key. A printing that agrees (within rounding) with some printing on the other side is matched; a key
   may be printed several times on either side (a statement and its note; two notes with one label).
2. **Prove.** A printing that agrees with none on the other side is compared with the printing there
   whose table agrees with its own table on the most other figures. Unless the two tables agree on two
   thirds of the other lines they both print, the difference is *unproven* and raises nothing: "same
   line, same period" is proven by the tables' own agreement, not by a label alone (two tables of one
   report may print "Americas" for revenue and for head count; a parent company's condensed statement
   shares net income with the group's, and little else). A difference that looks like a keying error
   (step 4) is also proven between tables that print two thirds of the same lines, or between the two
   documents' main table of one primary statement: a restated or recast statement is still one
   statement.
3. **Compare** the two printings within their rounding.
4. **Tell a restatement from an error.** A disagreement that does not look like a keying error is a
   *restatement* (PRI002, information, with the reason quoted) when its column is headed "as restated",
   "recast", "as adjusted", …; when the total its line adds into is printed alike in both documents
   (amounts moved between lines), or a line printed in one document only is the difference (a line split
   out of "Other", or merged into it); or when the document says it restated,
   recast or reclassified prior periods (a change in accounting principle, discontinued operations, a
   segment reorganisation). Anything else is an *inconsistency* (PRI001). A keying-error signature (two
   digits swapped, one dropped or doubled, the sign or the scale wrong) is an inconsistency even where
   the document states a reclassification: a recast does not swap digits.

The history itself (which documents, in which store) is the adapters' business
(:mod:`adapters.history`); this module is pure.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pipeline.checks.crossref import PRIMARY
from pipeline.checks.prior import INCONSISTENCY_RULE, RESTATEMENT_RULE
from pipeline.checks.rule import Located, printed_evidence
from pipeline.checks.tolerance import Relation, keying_relation
from pipeline.figures.rounding import compare_values
from pipeline.figures.taxonomy import normalise_label
from schemas.models import Block, Flag, PublishedFigure

__all__ = [
    "INCONSISTENCY_RULE",
    "RESTATEMENT_RULE",
    "PriorMatch",
    "PriorReport",
    "Reason",
    "Verdict",
    "compare_with_history",
    "figure_key",
    "prior_flags",
    "restatement_reasons",
]

Verdict = Literal["agree", "restatement", "inconsistency", "unproven"]
"""What one matched pair is: agreeing, a restatement with a reason, an inconsistency, or a disagreement
between tables that agree on nothing else (no proof that the two lines are one thing)."""

TablePair = tuple[str, str, str]
"""A table of the document under check, and an earlier document and its table."""
_PROOF_SHARE = 2 / 3
"""Two tables are one statement in two years when they agree on two thirds of the other lines they share."""

_KEYING: frozenset[Relation] = frozenset({"swap", "digit_count", "sign", "scale"})
"""Differences that are how keying errors look, never how a recast looks."""
_DIGIT_KEYING_PLACE = 2
"""One digit different is a keying error's look when it is not one of the last two printed digits: a recast
moves the last digit or two (1,387 → 1,386; 1,358 → 1,378), a mistyped digit is as likely in any place."""

_DISCONTINUED = "discontinued operations"
_WITHIN_TOTAL = "a reclassification within an unchanged total"
_MOVED = "a line split out or merged in"
_DISCONTINUED_LINE = re.compile(r"\bdiscontinued\b", re.IGNORECASE)
_PRIOR_WORDS = r"[^.]{0,160}\b(?:prior|previous(?:ly)?|comparative|earlier|all periods|periods presented)\b"
_REASON_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "a change in accounting principle",
        r"\bchanges? in (?:an )?accounting principle\b|(?<!modified )\bretrospective(?:ly)?\b[^.]{0,100}"
        r"\b(?:adopt|appl|recast|restat)|\b(?:adopt|appl)\w*[^.]{0,100}(?<!modified )\bretrospective",
    ),
    (
        "restated or recast",
        rf"\b(?:restated|recast|revised|restatement)\b{_PRIOR_WORDS}|"
        rf"\b(?:prior|previous(?:ly)?|comparative)\b[^.]{{0,160}}\b(?:restated|recast|revised)\b",
    ),
    (_DISCONTINUED, rf"\bdiscontinued operations?\b{_PRIOR_WORDS}"),
    (
        "a segment reorganisation",
        r"\b(?:reorgani[sz]\w*|realign\w*|re-?segment\w*)\b[^.]{0,80}\bsegments?\b|"
        r"\bsegments?\b[^.]{0,80}\b(?:reorgani[sz]\w*|realign\w*)\b",
    ),
    ("a reclassification", r"\breclassifi(?:ed|cations?)\b[^.]{0,160}\bconform"),
)
"""What a document says when it changed prior periods' figures on purpose, most specific first."""
_REASONS = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in _REASON_PATTERNS]
_NOT_A_REASON = re.compile(
    # A sentence about what could happen (a risk factor) or will (an adoption to come), or a denial.
    r"\b(?:could|may|might|would|will|must|should)\b|\bno restatement\b|"
    r"\bnot (?:been )?(?:restated|recast|revised)\b|\bamended and restated\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.;]*(?:\.(?=\d)[^.;]*)*[.;]?")
_QUOTE_CHARS = 240


def figure_key(
    statement: str | None,
    label: str,
    period: str,
    unit: str,
    basis: str,
    dimension: str | None,
    entity: str | None = None,
) -> str:
    """The key two documents' figures must share to be compared: one layout, written once.

    Args:
        statement: The kind of table it is printed in (None: not classified).
        label: The line's label as printed (normalised here).
        period: The OIM period.
        unit: The OIM unit.
        basis: The column's basis.
        dimension: The segment or dimension the figure belongs to (None: the whole entity).
        entity: The reporting entity its statement names (a combined report's parent and subsidiary).

    Returns:
        ``kind|line|period|unit|basis|dimension|entity``.
    """
    line = normalise_label(label)
    parts = (statement or "", line, period, unit, basis, normalise_label(dimension or ""))
    return "|".join((*parts, normalise_label(entity or "")))


@dataclass(frozen=True)
class Reason:
    """Why a document's prior-period figures may differ from the earlier document's, as it prints it."""

    page: int
    quote: str
    kind: str = "the column's head"
    """What it says happened: a change in accounting principle, a restatement, … (``_REASON_PATTERNS``)."""


def restatement_reasons(blocks: Iterable[Block]) -> list[Reason]:
    """The sentences of a document that say it restated, recast or reclassified prior periods.

    Args:
        blocks: The document's narrative blocks.

    Returns:
        One reason a sentence, the most specific kind first, then in reading order.
    """
    found: list[tuple[int, Reason]] = []
    for block in blocks:
        text = " ".join(block.text.split())
        for sentence in _SENTENCE.findall(text):
            if not sentence.strip() or _NOT_A_REASON.search(sentence):
                continue
            for rank, (kind, pattern) in enumerate(_REASONS):
                if pattern.search(sentence):
                    found.append((rank, Reason(block.page, sentence.strip()[:_QUOTE_CHARS], kind)))
                    break
    return [reason for _, reason in sorted(found, key=lambda x: x[0])]


@dataclass(frozen=True)
class PriorMatch:
    """A figure of the document under check and the earlier document's figure with the same key."""

    current: PublishedFigure
    earlier: PublishedFigure
    verdict: Verdict
    relation: Relation | None = None
    reason: Reason | None = None


@dataclass(frozen=True)
class PriorReport:
    """What comparing one document with its issuer's history found."""

    matches: tuple[PriorMatch, ...]
    compared: int
    """Keys of the document that some earlier document prints."""
    several: int
    """Of those, keys printed more than once in either document."""

    def count(self, verdict: Verdict) -> int:
        """How many matches have ``verdict``."""
        return sum(m.verdict == verdict for m in self.matches)


@dataclass(frozen=True)
class _Explanations:
    """What may explain a difference other than an error, found once per comparison (step 4)."""

    reasons: Sequence[Reason]
    """What the document says about restating prior periods."""
    steady: Mapping[str, PublishedFigure]
    """The keys both documents print alike, with this document's printing."""
    only_now: Mapping[tuple[str, str, str], Sequence[PublishedFigure]]
    """This document's lines no earlier document prints, by table, period and unit."""
    only_then: Mapping[tuple[str, str, str], Sequence[PublishedFigure]]
    """The earlier document's lines this one does not print, by table, period and unit."""

    def moved(self, now: PublishedFigure, then: PublishedFigure) -> PublishedFigure | None:
        """A line printed in one document only whose amount is the difference: split out, or merged in."""
        gap = abs(now.value - then.value)
        for f in (*self.only_now.get(_where(now), ()), *self.only_then.get(_where(then), ())):
            if compare_values(abs(f.value), f.decimals, gap, min(now.decimals, then.decimals)).ok:
                return f
        return None


def _where(f: PublishedFigure) -> tuple[str, str, str]:
    return f.table_id, f.period, f.unit


@dataclass(frozen=True)
class _Proof:
    """Which pairs of tables are one statement in two documents (step 2)."""

    printing: Counter[TablePair]
    """For each pair of tables, the printings of a key they both print."""
    agreeing: Counter[TablePair]
    """Of those, the printings that agree."""
    lines: set[TablePair]
    """Tables that print two thirds of the same lines in the periods both print: one statement, restated
    in part (a change in accounting principle moves many of its figures)."""
    main: set[TablePair]
    """Each document's main table of one primary statement and reporting entity (the one that prints the
    most figures): one statement, whatever was restated or recast in it."""

    def support(self, now: PublishedFigure, then: PublishedFigure) -> int:
        """How many printings the two printings' tables agree on."""
        return self.agreeing[(now.table_id, then.doc_id, then.table_id)]

    def holds(self, now: PublishedFigure, then: PublishedFigure) -> bool:
        """Whether two printings are proven to be one line.

        Their tables agree on two thirds of the other lines they both print (tables that agree on fewer,
        such as a parent company's condensed statement against the group's, prove nothing); or, for a
        difference that looks like a keying error, the tables print the same lines or are the two
        documents' main table of one statement.
        """
        pair = (now.table_id, then.doc_id, then.table_id)
        agree, others = self.agreeing[pair], self.printing[pair] - 1
        if agree and agree >= _PROOF_SHARE * others:
            return True
        return (pair in self.lines or pair in self.main) and _keying(now, then) is not None


def _main_tables(figures: Iterable[PublishedFigure]) -> dict[tuple[str, str, str | None], str]:
    """Each document's main table of each primary statement and entity: the one that prints the most."""
    size = Counter((f.doc_id, f.statement, f.entity, f.table_id) for f in figures if f.statement in PRIMARY)
    main: dict[tuple[str, str, str | None], str] = {}
    for (doc, kind, entity, table), _ in size.most_common():
        main.setdefault((doc, kind or "", entity), table)
    return main


def _is_main(f: PublishedFigure, main: Mapping[tuple[str, str, str | None], str]) -> bool:
    """Whether ``f`` is printed in its document's main table of a primary statement."""
    return f.statement in PRIMARY and main.get((f.doc_id, f.statement or "", f.entity)) == f.table_id


def _same_lines(
    current: Sequence[PublishedFigure], earlier: Sequence[PublishedFigure], pairs: Iterable[TablePair]
) -> set[TablePair]:
    """The pairs of tables that print two thirds of the same lines in the periods both print."""
    lines: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for f in (*current, *earlier):
        lines[(f.doc_id, f.table_id)].add((f.key, f.period))
    now_doc = current[0].doc_id if current else ""
    same: set[TablePair] = set()
    for table, doc, other in pairs:
        mine, theirs = lines[(now_doc, table)], lines[(doc, other)]
        periods = {p for _, p in mine} & {p for _, p in theirs}
        a, b = {k for k, p in mine if p in periods}, {k for k, p in theirs if p in periods}
        if a and b and len(a & b) >= _PROOF_SHARE * max(len(a), len(b)):
            same.add((table, doc, other))
    return same


def _by_key(figures: Iterable[PublishedFigure]) -> dict[str, list[PublishedFigure]]:
    by_key: dict[str, list[PublishedFigure]] = defaultdict(list)
    for f in figures:
        by_key[f.key].append(f)
    return by_key


def _latest_earlier(earlier: Sequence[PublishedFigure]) -> dict[str, list[PublishedFigure]]:
    """For each key, its printings in the latest earlier document that prints it."""
    by_doc: dict[str, list[PublishedFigure]] = defaultdict(list)
    for f in earlier:
        by_doc[f.doc_id].append(f)
    order = sorted(by_doc, key=lambda d: (by_doc[d][0].period_end or "", d), reverse=True)
    kept: dict[str, list[PublishedFigure]] = {}
    for doc in order:
        for key, copies in _by_key(by_doc[doc]).items():
            kept.setdefault(key, copies)
    return kept


def _keying(current: PublishedFigure, earlier: PublishedFigure) -> Relation | None:
    """The keying-error signature of a disagreement, or None when it looks like a recast."""
    relation = keying_relation(current.value, current.decimals, earlier.value, earlier.decimals)
    if relation in _KEYING:
        return relation
    if relation == "digit":
        last_place = 10.0 ** -min(current.decimals, earlier.decimals)
        if abs(current.value - earlier.value) >= 10**_DIGIT_KEYING_PLACE * last_place * (1 - 1e-9):
            return relation
    return None


def compare_with_history(
    current: Sequence[PublishedFigure], earlier: Sequence[PublishedFigure], reasons: Sequence[Reason] = ()
) -> PriorReport:
    """Compare a document's published figures with its issuer's earlier documents' (the module's steps).

    Args:
        current: The figures of the document under check.
        earlier: The figures the same issuer published in earlier documents (any number of them).
        reasons: What the document under check says about restating prior periods
            (:func:`restatement_reasons`).

    Returns:
        The matches with their verdicts, and how many keys were compared or printed more than once.
    """
    mine, theirs = _by_key(current), _latest_earlier(earlier)
    shared = sorted(mine.keys() & theirs.keys())
    main = _main_tables((*current, *earlier))
    # One pass over the pairs of printings of the keys both print: step 2's proof (for each pair of
    # tables, the printings they share and those they agree on; the pairs of main statements) and the
    # keys printed alike, with this document's printing (step 4).
    printing: Counter[TablePair] = Counter()
    agreeing: Counter[TablePair] = Counter()
    mains: set[TablePair] = set()
    steady: dict[str, PublishedFigure] = {}
    for k in shared:
        for c in mine[k]:
            for e in theirs[k]:
                pair = (c.table_id, e.doc_id, e.table_id)
                printing[pair] += 1
                if _agrees(c, e):
                    agreeing[pair] += 1
                    steady[k] = c
                if _is_main(c, main) and _is_main(e, main):
                    mains.add(pair)
    proof = _Proof(printing, agreeing, _same_lines(current, earlier, printing.keys()), mains)
    only_now: dict[tuple[str, str, str], list[PublishedFigure]] = defaultdict(list)
    for c in current:  # in the document's order: the first line that explains a difference is quoted
        if c.key not in theirs:
            only_now[_where(c)].append(c)
    only_then: dict[tuple[str, str, str], list[PublishedFigure]] = defaultdict(list)
    for f in earlier:
        if f.key not in mine:
            only_then[_where(f)].append(f)
    explain = _Explanations(reasons, steady, only_now, only_then)
    matches: list[PriorMatch] = []
    for key in shared:
        matches += _match_key(mine[key], theirs[key], proof, explain)
    several = sum(len(mine[k]) > 1 or len(theirs[k]) > 1 for k in shared)
    return PriorReport(tuple(matches), len(shared), several)


def _match_key(
    now: Sequence[PublishedFigure],
    then: Sequence[PublishedFigure],
    proof: _Proof,
    explain: _Explanations,
) -> list[PriorMatch]:
    """Steps 1 to 4 for the printings of one key in the document and in the earlier one."""
    lonely_now = [i for i, c in enumerate(now) if not any(_agrees(c, e) for e in then)]
    lonely_then = [j for j, e in enumerate(then) if not any(_agrees(c, e) for c in now)]
    out: list[PriorMatch] = []
    if len(lonely_now) < len(now):
        c = next(c for i, c in enumerate(now) if i not in lonely_now)
        out.append(PriorMatch(c, next(e for e in then if _agrees(c, e)), "agree"))
    # Each lonely printing against the other side's printing whose table supports it most (indices).
    pairs = {(i, _partner_then(now[i], then, proof)) for i in lonely_now}
    pairs |= {(_partner_now(now, then[j], proof), j) for j in lonely_then}
    for i, j in sorted(pairs):
        c, e = now[i], then[j]
        # One table printing the key twice, one printing matched: two sections the key does not tell
        # apart (an electric and a gas "Residential"), not two printings of one line.
        twin = any(c.table_id == x.table_id for x in _without(now, i)) or any(
            e.table_id == x.table_id for x in _without(then, j)
        )
        if not twin and proof.holds(c, e):
            out.append(_judge(c, e, explain))
        else:
            out.append(PriorMatch(c, e, "unproven"))
    return out


def _partner_then(now: PublishedFigure, then: Sequence[PublishedFigure], proof: _Proof) -> int:
    """The earlier printing whose table supports ``now``'s the most (the first of equals)."""
    return max(range(len(then)), key=lambda j: proof.support(now, then[j]))


def _partner_now(now: Sequence[PublishedFigure], then: PublishedFigure, proof: _Proof) -> int:
    """This document's printing whose table supports ``then``'s the most (the first of equals)."""
    return max(range(len(now)), key=lambda i: proof.support(now[i], then))


def _without(figures: Sequence[PublishedFigure], i: int) -> Sequence[PublishedFigure]:
    return [*figures[:i], *figures[i + 1 :]]


def _agrees(a: PublishedFigure, b: PublishedFigure) -> bool:
    return compare_values(a.value, a.decimals, b.value, b.decimals).ok


def _judge(now: PublishedFigure, then: PublishedFigure, explain: _Explanations) -> PriorMatch:
    """Step 4: a proven disagreement is a restatement or an inconsistency."""
    relation = _keying(now, then)
    if now.basis == "restated" and now.column:
        return PriorMatch(now, then, "restatement", relation, Reason(now.page, now.column))
    if relation is None:
        # Amounts moved between lines while the total they add into did not (a reclassification), or a
        # line printed in one document only is the difference (split out of "Other", or merged into it):
        # presentation, not a different figure.
        total = explain.steady.get(now.parent_key or "")
        if total is not None:
            quote = f"{total.label}, the total it adds into, is {total.printed} in both documents"
            return PriorMatch(now, then, "restatement", None, Reason(total.page, quote, _WITHIN_TOTAL))
        if (line := explain.moved(now, then)) is not None:
            where = "this document" if line.doc_id == now.doc_id else line.source
            quote = f"{line.label} ({line.printed}), printed in {where} only, is the difference"
            return PriorMatch(now, then, "restatement", None, Reason(line.page, quote, _MOVED))
        if explain.reasons:
            return PriorMatch(now, then, "restatement", None, explain.reasons[0])
    # Operations presented as discontinued move whole amounts between lines: a line about them may change
    # by any amount, a keying error's look included ((12) → (2)), in a document that says it recast them.
    recast = next((r for r in explain.reasons if r.kind == _DISCONTINUED), None)
    if recast is not None and _DISCONTINUED_LINE.search(now.label):
        return PriorMatch(now, then, "restatement", relation, recast)
    return PriorMatch(now, then, "inconsistency", relation)


def prior_flags(report: PriorReport, doc: Located) -> list[Flag]:
    """The flags of a report: PRI001 for each inconsistency, PRI002 for each restatement.

    Args:
        report: The comparison of ``doc`` with its issuer's history.
        doc: The document under check.

    Returns:
        Flags on ``doc``; the earlier printing is evidence with its ``source`` set, and the flag's pages are
        the document's own.
    """
    flags: list[Flag] = []
    for m in report.matches:
        if m.verdict not in ("restatement", "inconsistency"):
            continue
        now, then = m.current, m.earlier
        evidence = [printed_evidence(now, "current"), printed_evidence(then, "earlier", then.source)]
        comparison = compare_values(now.value, now.decimals, then.value, then.decimals)
        where = f"{then.source} (p. {then.page})"
        line = f"{now.label} ({now.column or now.period})"
        same = f"same line, period, basis, dimension and entity as {where}, in one statement with it"
        if m.verdict == "restatement":
            assert m.reason is not None  # a restatement always has its reason
            flag = RESTATEMENT_RULE.flag(
                doc,
                message=(
                    f"{line} is {now.printed} here and {then.printed} in {where}: "
                    f'{m.reason.kind}, the document says (p. {m.reason.page}): "{m.reason.quote}"'
                ),
                evidence=evidence,
                comparison=comparison,
                confidence=0.05,
                reasons=[same, f"explained: {m.reason.kind}"],
            )
        else:
            signature = f"; the difference looks like a keying error ({m.relation})" if m.relation else ""
            flag = INCONSISTENCY_RULE.flag(
                doc,
                message=(
                    f"{line} is {now.printed} here but {then.printed} in {where}, "
                    f"and the document states no restatement{signature}."
                    if m.relation is None
                    else f"{line} is {now.printed} here but {then.printed} in {where}{signature}."
                ),
                evidence=evidence,
                comparison=comparison,
                confidence=0.9 if m.relation else 0.6,
                reasons=[same],
            )
        flags.append(flag.model_copy(update={"pages": [now.page]}))
    return flags
