"""XREF001: the same metric for the same period, printed in different places, must agree.

Facts are grouped by metric, period key, unit and currency (whole-entity figures only: a fact with a
``context`` is a segment's or a dimension's). Within a group, figures that agree within rounding form a
cluster; a group with exactly two clusters printed in different places is flagged, when the
disagreement looks like a misstatement (a near miss or a digit slip) rather than two concepts that share
a label. Three or more distinct values mean the label is used for different things: no flag. Two
tables that disagree on several metrics and agree on fewer are statements of different entities (a
guarantor group, the parent company alone): nothing between them is flagged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.checks.tolerance import (
    Comparison,
    KnownFact,
    compare_values,
    fmt_small,
    make_flag,
    period_text,
    plausible_discrepancy,
    printed_decimals,
    scale_note,
)
from pipeline.taxonomy import Taxonomy
from schemas.models import Evidence, Flag

RULE = "XREF001"


@dataclass(frozen=True, slots=True)
class GroupKey:
    """What two facts must share to be the same figure."""

    metric: str
    period: str
    unit: str


def _location(fact: KnownFact) -> tuple[str, int]:
    return (fact.table_id or f"text@{fact.page}", fact.page)


def _comparable_value(fact: KnownFact, magnitude_only: bool) -> float:
    return abs(fact.value) if magnitude_only else fact.value


def group_facts(facts: Sequence[KnownFact]) -> dict[GroupKey, list[KnownFact]]:
    """Group whole-entity table facts by metric, period key and unit.

    Args:
        facts: Facts of one document.

    Returns:
        Groups with at least two facts printed in different tables or on different pages.
    """
    groups: dict[GroupKey, list[KnownFact]] = {}
    for fact in facts:
        if fact.context is not None or fact.period is None or fact.origin != "table_cell":
            continue
        if fact.period.kind == "unknown":
            continue
        groups.setdefault(GroupKey(fact.metric, fact.period.key, fact.unit), []).append(fact)
    return {k: v for k, v in groups.items() if len({_location(f) for f in v}) >= 2}


def split_currencies(facts: Sequence[KnownFact]) -> list[list[KnownFact]]:
    """Split a group by currency; a fact without a currency joins the group only if there is one."""
    known = {f.currency for f in facts if f.currency}
    if len(known) <= 1:
        return [list(facts)]
    return [[f for f in facts if f.currency == cur] for cur in sorted(known)]


def cluster(facts: Sequence[KnownFact], magnitude_only: bool) -> list[list[KnownFact]] | None:
    """Cluster facts whose figures agree within rounding.

    Args:
        facts: Facts of one group.
        magnitude_only: Compare magnitudes (costs printed with either sign).

    Returns:
        Clusters, largest first; None when agreement is not transitive (a fact agrees with two
        clusters), which only happens with coarse roundings and is too ambiguous to flag.
    """
    clusters: list[list[KnownFact]] = []
    for fact in sorted(facts, key=lambda f: -f.decimals):
        v = _comparable_value(fact, magnitude_only)
        homes = [
            c
            for c in clusters
            if all(
                compare_values(v, fact.decimals, _comparable_value(o, magnitude_only), o.decimals).ok
                for o in c
            )
        ]
        if len(homes) > 1:
            return None
        if homes:
            homes[0].append(fact)
        else:
            clusters.append([fact])
    return sorted(clusters, key=lambda c: (-len(c), min(f.page for f in c)))


def _representative(facts: Sequence[KnownFact]) -> KnownFact:
    """The most precise, earliest printed fact of a cluster."""
    return min(facts, key=lambda f: (-f.decimals, f.page, f.row or 0))


def _where(fact: KnownFact) -> str:
    return f"page {fact.page}" + (" (narrative)" if fact.origin == "text_span" else "")


def _flag(
    doc_id: str, source: str, key: GroupKey, clusters: Sequence[Sequence[KnownFact]], magnitude_only: bool
) -> Flag:
    main, other = _representative(clusters[0]), _representative(clusters[1])
    if len(clusters[0]) == len(clusters[1]):
        # No majority: report in reading order rather than pretending one side is right.
        main, other = sorted((main, other), key=lambda f: (f.page, f.row or 0))
    a, b = _comparable_value(other, magnitude_only), _comparable_value(main, magnitude_only)
    c = compare_values(a, other.decimals, b, main.decimals)
    comparison = Comparison(False, b, a, c.difference, c.tolerance)
    scale = main.scale
    places = printed_decimals(min(main.decimals, other.decimals), scale)
    main_pages = ", ".join(str(p) for p in sorted({f.page for f in clusters[0]}))
    other_pages = ", ".join(str(p) for p in sorted({f.page for f in clusters[1]}))
    message = (
        f"{main.label} {period_text(main.period)} is {main.printed} on page {main_pages} but "
        f"{other.printed} on page {other_pages} (difference {fmt_small(abs(c.difference), scale, places)}, "
        f"tolerance {fmt_small(c.tolerance, scale, places)}{scale_note(scale)})."
    )
    evidence = [
        Evidence(
            page=f.page,
            bbox=f.bbox,
            text=f"{f.label}: {f.printed}",
            role="table" if i == 0 else "conflicting table",
            value=f.value,
        )
        for i, group in enumerate(clusters[:2])
        for f in sorted(group, key=lambda f: (f.page, f.row or 0))
    ]
    return make_flag(
        rule=RULE,
        kind="cross_reference_mismatch",
        severity="warning",
        doc_id=doc_id,
        source=source,
        message=message,
        evidence=evidence,
        metric=key.metric,
        period=main.period,
        comparison=comparison,
    )


def _table_value(facts: Sequence[KnownFact]) -> dict[str, KnownFact]:
    by_table: dict[str, KnownFact] = {}
    for f in facts:
        if f.table_id is not None:
            by_table.setdefault(f.table_id, f)
    return by_table


def unrelated_tables(groups: dict[GroupKey, list[KnownFact]], taxonomy: Taxonomy) -> set[frozenset[str]]:
    """Pairs of tables that look like statements of different entities.

    A misprint changes one figure; a different entity (the parent company, a guarantor group) changes
    them all. Two tables that disagree on at least two metric-periods and agree on fewer are the latter.

    Args:
        groups: Facts grouped by metric, period and unit.
        taxonomy: For each metric's sign convention.

    Returns:
        Unordered pairs of table ids.
    """
    agree: dict[frozenset[str], int] = {}
    disagree: dict[frozenset[str], int] = {}
    for key, facts in groups.items():
        metric = taxonomy.get(key.metric)
        magnitude_only = metric.magnitude_only if metric else False
        per_table = sorted(_table_value(facts).items())
        for i, (ta, fa) in enumerate(per_table):
            for tb, fb in per_table[i + 1 :]:
                pair = frozenset((ta, tb))
                va, vb = _comparable_value(fa, magnitude_only), _comparable_value(fb, magnitude_only)
                tally = agree if compare_values(va, fa.decimals, vb, fb.decimals).ok else disagree
                tally[pair] = tally.get(pair, 0) + 1
    return {pair for pair, n in disagree.items() if n >= 2 and agree.get(pair, 0) < n}


def check_crossref(facts: Sequence[KnownFact], taxonomy: Taxonomy, *, doc_id: str, source: str) -> list[Flag]:
    """Flag metrics whose figure for one period differs between places in the document.

    Args:
        facts: Facts of one document (text facts are left to NAR001).
        taxonomy: For each metric's sign convention.
        doc_id: Document id.
        source: Source path.

    Returns:
        One flag per disagreeing group.
    """
    flags: list[Flag] = []
    groups = group_facts(facts)
    unrelated = unrelated_tables(groups, taxonomy)
    for key, group in sorted(groups.items(), key=lambda kv: (kv[0].metric, kv[0].period)):
        metric = taxonomy.get(key.metric)
        magnitude_only = metric.magnitude_only if metric else False
        for part in split_currencies(group):
            clusters = cluster(part, magnitude_only)
            if clusters is None or len(clusters) != 2:
                continue
            tables = [{_location(f)[0] for f in c} for c in clusters]
            if tables[0] & tables[1]:
                # One table prints both values under labels of this metric (e.g. parent's and total
                # equity): the label covers two concepts here, so the other place proves nothing.
                continue
            if all(frozenset((x, y)) in unrelated for x in tables[0] for y in tables[1]):
                continue
            a, b = _representative(clusters[0]), _representative(clusters[1])
            va, vb = _comparable_value(a, magnitude_only), _comparable_value(b, magnitude_only)
            if not plausible_discrepancy(va, a.decimals, vb, b.decimals):
                continue
            flags.append(_flag(doc_id, source, key, clusters, magnitude_only))
    return flags
