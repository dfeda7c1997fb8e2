"""One checked document as an xBRL-JSON (OIM) report with its own small extension taxonomy.

Three files, side by side: ``report.json`` (the facts), ``tieout-ext.xsd`` (one concept per metric, one
role per statement) and ``tieout-ext-cal.xml`` (the statements' trees as Calculations 1.1 arcs, weights ±1).
The schema imports only the XBRL 2.1 instance schema and the linkbase names the Calculations 1.1 arcrole
schema, both bundled with Arelle, so the report loads with no network (docs/design/xbrl-arelle-spike.md).

Only clean figures are published: a figure whose scale was not established, that an open flag touches,
whose period is not fully known, or that a dimension would have to qualify (a segment or non-reported
column) is listed in :attr:`XbrlReport.excluded` with the reason instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from xml.sax.saxutils import quoteattr

from pipeline.checks.tolerance import KnownFact, interval, known_facts
from pipeline.figures.facts import year_end_day
from pipeline.rewards.records import touches
from schemas.models import DocumentResult, Fact, Flag, Statement

__all__ = [
    "CAL_FILE",
    "ENTITY_SCHEME",
    "REPORT_FILE",
    "SCHEMA_FILE",
    "SOURCE_NS",
    "TIEOUT_NS",
    "Excluded",
    "XbrlReport",
    "concept_name",
    "xbrl_report",
]

TIEOUT_NS = "https://tieout.dev/xbrl/2026/tieout"
"""Namespace of the generated concepts (prefix ``tieout``): ours, never claimed to be us-gaap or IFRS."""
SOURCE_NS = "https://tieout.dev/xbrl/2026/source"
"""Namespace of the extension properties (prefix ``src``): where each figure is printed."""
ENTITY_SCHEME = "https://tieout.dev/entity"
"""Placeholder entity scheme: the identifier is the document id, since no LEI or CIK is read yet."""
ROLE_BASE = "https://tieout.dev/xbrl/2026/role/"
SUMMATION_ITEM = "https://xbrl.org/2023/arcrole/summation-item"
REPORT_FILE = "report.json"
SCHEMA_FILE = "tieout-ext.xsd"
CAL_FILE = "tieout-ext-cal.xml"

_ITEM_TYPE = {"currency": "monetaryItemType", "shares": "sharesItemType"}
"""XBRL item type by unit; the other units publish as ``decimalItemType``."""
_PURE_UNITS = frozenset({"ratio", "count", "number"})


@dataclass(frozen=True)
class Excluded:
    """A figure left out of the report, and why."""

    fact_id: str
    metric: str
    reason: str


@dataclass(frozen=True)
class XbrlReport:
    """The files of one document's report, and the figures it leaves out.

    Attributes:
        files: File name -> bytes: ``report.json``, ``tieout-ext.xsd`` and ``tieout-ext-cal.xml``.
        excluded: The figures not published, each with its reason.
        published: The fact ids published, by their xBRL-JSON fact id.
    """

    files: Mapping[str, bytes]
    excluded: tuple[Excluded, ...]
    published: Mapping[str, str]


@dataclass(frozen=True)
class _Concept:
    name: str
    item_type: str
    period_type: str


@dataclass(frozen=True)
class _Entry:
    """A publishable figure: its fact and its OIM concept, period and unit."""

    fact: KnownFact
    concept: _Concept
    period: str
    unit: str

    @property
    def key(self) -> tuple[str, str, str]:
        return self.concept.name, self.period, self.unit


def concept_name(metric: str) -> str:
    """The local name of a metric's concept: ``gross_profit`` -> ``GrossProfit``.

    Args:
        metric: A metric id of the taxonomy.

    Returns:
        An NCName, unique per metric id spelling of words.
    """
    name = "".join(w[:1].upper() + w[1:] for w in metric.replace("-", "_").split("_") if w)
    return name if name[:1].isalpha() else f"M{name}"


def _fact_id(fact: Fact) -> str:
    return f"f_{fact.fact_id}"


# --- which figures are clean --------------------------------------------------------------------


def _period_ends(result: DocumentResult) -> dict[str, str]:
    """The end date of each period key: as printed by any figure or statement column, else the year end.

    A fiscal year printed as a bare "2025" ends on the document's year-end day when its instants show one
    only (:func:`pipeline.figures.facts.year_end_day`), the day ``align_instants`` gives balances under
    such a column.
    """
    ends: dict[str, str] = {}
    periods = [f.period for f in result.facts] + [c.period for s in result.statements for c in s.columns]
    for p in periods:
        if p is not None and p.end_date:
            ends.setdefault(p.key, p.end_date)
    year_end = year_end_day(periods)
    if year_end is not None:
        for p in periods:
            if p is not None and p.key.startswith("FY") and p.fiscal_year is not None and not p.quarter:
                ends.setdefault(p.key, year_end.of(p.fiscal_year))
    return ends


def _oim_period(fact: Fact, ends: Mapping[str, str]) -> str | None:
    """The OIM period: ``start/end`` or an instant, both as midnights (the end is exclusive)."""
    p = fact.period
    if p is None or p.kind == "unknown" or p.key not in ends:
        return None
    end = date.fromisoformat(ends[p.key]) + timedelta(days=1)
    if p.kind == "instant":
        return f"{end.isoformat()}T00:00:00"
    months = p.months or (12 if p.key.startswith("FY") and not p.quarter else None)
    if months is None:
        return None
    year, month = divmod(end.year * 12 + end.month - 1 - months, 12)
    start = date(year, month + 1, min(end.day, 28))
    return f"{start.isoformat()}T00:00:00/{end.isoformat()}T00:00:00"


def _oim_unit(fact: Fact) -> str | None:
    if fact.unit == "shares":
        return "xbrli:shares"
    if fact.unit in _PURE_UNITS:
        return "xbrli:pure"
    if fact.currency is None:
        return None
    if fact.unit == "currency":
        return f"iso4217:{fact.currency}"
    if fact.unit == "per_share":
        return f"iso4217:{fact.currency}/xbrli:shares"
    return None  # percent: the base-unit convention of a percentage is not settled for export yet


def _unclean(fact: Fact, flags: Sequence[Flag]) -> str | None:
    """Why a figure with an established scale cannot be published as clean, or None."""
    known = known_facts([fact])
    if not known or fact.scale_source is None:
        return "scale not established"
    for flag in flags:
        if touches(flag, known[0]):
            return f"open flag {flag.rule} ({flag.flag_id})"
    if fact.basis != "reported" or fact.context is not None:
        # a segment or restated column would need a dimension to tell it from the consolidated figure
        return f"column needs a dimension ({fact.context or fact.basis})"
    return None


def _entries(result: DocumentResult) -> tuple[list[_Entry], list[Excluded]]:
    """The publishable figures, and the others with their reasons."""
    flags = [*result.flags, *result.structure_questions]
    ends = _period_ends(result)
    concepts: dict[str, _Concept] = {}
    entries: list[_Entry] = []
    excluded: list[Excluded] = []
    for fact in result.facts:
        reason = _unclean(fact, flags)
        period = _oim_period(fact, ends)
        unit = _oim_unit(fact)
        if reason is None and period is None:
            reason = "period end or length not printed"
        if reason is None and unit is None:
            reason = f"unit {fact.unit} without a currency or not exported"
        if reason is not None or period is None or unit is None:
            excluded.append(Excluded(fact.fact_id, fact.metric, reason or ""))
            continue
        period_type = "instant" if "/" not in period else "duration"
        wanted = _Concept(
            concept_name(fact.metric), _ITEM_TYPE.get(fact.unit, "decimalItemType"), period_type
        )
        concept = concepts.setdefault(fact.metric, wanted)
        if concept != wanted:
            reason = f"concept {concept.name} is {concept.period_type} {concept.item_type} elsewhere"
            excluded.append(Excluded(fact.fact_id, fact.metric, reason))
            continue
        entries.append(_Entry(known_facts([fact])[0], concept, period, unit))
    return entries, excluded


def _dedupe(entries: Sequence[_Entry]) -> tuple[list[_Entry], list[Excluded]]:
    """One fact per concept, period and unit (Calculations 1.1 binds no duplicates).

    Agreeing copies (their rounding intervals meet) keep the most precise one, a table's first; copies
    that disagree are all left out: which one is right is the analyst's call, not the export's.
    """
    groups: dict[tuple[str, str, str], list[_Entry]] = {}
    for e in entries:
        groups.setdefault(e.key, []).append(e)
    kept: list[_Entry] = []
    excluded: list[Excluded] = []
    for group in groups.values():
        bounds = [interval(e.fact.value, e.fact.decimals) for e in group]
        if max(lo for lo, _ in bounds) > min(hi for _, hi in bounds):
            printed = ", ".join(sorted({e.fact.printed for e in group}))
            excluded += [
                Excluded(e.fact.fact_id, e.fact.metric, f"conflicting duplicates ({printed})") for e in group
            ]
            continue
        best = max(group, key=lambda e: (e.fact.decimals, e.fact.origin == "table_cell"))
        kept.append(best)
        reason = f"duplicate of {best.fact.fact_id}"
        excluded += [Excluded(e.fact.fact_id, e.fact.metric, reason) for e in group if e is not best]
    return kept, excluded


# --- the calculation trees ----------------------------------------------------------------------


def _statement_arcs(statement: Statement, published: Mapping[str, set[str]]) -> list[tuple[str, str, int]]:
    """A statement's summations as (total concept, item concept, weight) arcs.

    Calculations 1.1 adds up the items present in a context, so a summation is written only when each of
    its lines maps to a concept and, wherever its total is published, every item is published too: a
    missing or excluded item would otherwise read as an inconsistency the page does not have.

    Args:
        statement: A calculation tree.
        published: The periods published for each concept.

    Returns:
        The arcs, in line order.
    """
    by_row = {line.row: line for line in statement.lines}
    arcs: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    for total in statement.lines:
        items = [line for line in statement.lines if line.parent == total.row and line.row in by_row]
        if not items or total.metric is None or any(i.metric is None for i in items):
            continue
        name = concept_name(total.metric)
        names = [concept_name(i.metric or "") for i in items]
        if name in seen or name in names or len(set(names)) != len(names):
            continue
        periods = published.get(name, set())
        if not periods or any(not periods <= published.get(n, set()) for n in names):
            continue
        seen.add(name)
        arcs += [(name, n, i.sign) for n, i in zip(names, items, strict=True)]
    return arcs


def _role_id(statement: Statement) -> str:
    return f"R_{statement.statement_id}"


# --- the files ----------------------------------------------------------------------------------


def _schema(concepts: Iterable[_Concept], roles: Sequence[Statement]) -> str:
    role_types = "".join(
        f'    <link:roleType roleURI="{ROLE_BASE}{s.statement_id}" id="{_role_id(s)}">\n'
        f"      <link:definition>{_escape(s.title or s.kind)}</link:definition>\n"
        "      <link:usedOn>link:calculationLink</link:usedOn>\n"
        "    </link:roleType>\n"
        for s in roles
    )
    elements = "".join(
        f'  <xs:element id="tieout_{c.name}" name="{c.name}" type="xbrli:{c.item_type}" '
        f'substitutionGroup="xbrli:item" xbrli:periodType="{c.period_type}" nillable="true"/>\n'
        for c in sorted(concepts, key=lambda c: c.name)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xbrli="http://www.xbrl.org/2003/instance"\n'
        '  xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink"\n'
        f'  xmlns:tieout="{TIEOUT_NS}" targetNamespace="{TIEOUT_NS}"\n'
        '  elementFormDefault="qualified" attributeFormDefault="unqualified">\n'
        "  <xs:annotation><xs:appinfo>\n"
        f"{role_types}"
        f'    <link:linkbaseRef xlink:type="simple" xlink:href="{CAL_FILE}"\n'
        '      xlink:role="http://www.xbrl.org/2003/role/calculationLinkbaseRef"\n'
        '      xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>\n'
        "  </xs:appinfo></xs:annotation>\n"
        '  <xs:import namespace="http://www.xbrl.org/2003/instance"\n'
        '    schemaLocation="http://www.xbrl.org/2003/xbrl-instance-2003-12-31.xsd"/>\n'
        f"{elements}"
        "</xs:schema>\n"
    )


def _escape(text: str) -> str:
    return quoteattr(text)[1:-1]


def _linkbase(networks: Sequence[tuple[Statement, list[tuple[str, str, int]]]]) -> str:
    refs = []
    links = []
    for statement, arcs in networks:
        role = f"{ROLE_BASE}{statement.statement_id}"
        href = f"{SCHEMA_FILE}#{_role_id(statement)}"
        refs.append(f'  <link:roleRef roleURI="{role}" xlink:type="simple" xlink:href="{href}"/>\n')
        names = list(dict.fromkeys(n for arc in arcs for n in arc[:2]))
        locs = "".join(
            f'    <link:loc xlink:type="locator" xlink:href="{SCHEMA_FILE}#tieout_{n}" xlink:label="{n}"/>\n'
            for n in names
        )
        lines = "".join(
            f'    <link:calculationArc xlink:type="arc" xlink:arcrole="{SUMMATION_ITEM}" xlink:from="{a}" '
            f'xlink:to="{b}" order="{i}" weight="{float(w)}"/>\n'
            for i, (a, b, w) in enumerate(arcs, 1)
        )
        links.append(
            f'  <link:calculationLink xlink:type="extended" xlink:role="{role}">\n{locs}{lines}'
            "  </link:calculationLink>\n"
        )
    # the summation-item arcrole needs its own ref (spike: without it, xbrl.3.5.2.5:missingArcroleRef)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<link:linkbase xmlns:link="http://www.xbrl.org/2003/linkbase" '
        'xmlns:xlink="http://www.w3.org/1999/xlink">\n'
        f"{''.join(refs)}"
        f'  <link:arcroleRef arcroleURI="{SUMMATION_ITEM}" xlink:type="simple"\n'
        '    xlink:href="https://www.xbrl.org/2023/calculation-1.1.xsd#summation-item"/>\n'
        f"{''.join(links)}"
        "</link:linkbase>\n"
    )


def _value(fact: KnownFact) -> str:
    """The value in base units with exactly the digits ``decimals`` allows (more: calc11e:excessDigits)."""
    quantum = Decimal(1).scaleb(-fact.decimals)
    value = Decimal(repr(fact.value)).quantize(quantum)
    return format(value if value else Decimal(0).quantize(quantum), "f")


def _oim_fact(entry: _Entry, entity: str) -> dict[str, object]:
    fact = entry.fact
    location: dict[str, object] = {
        "document": fact.source,
        "page": fact.page,
        "bbox": list(fact.bbox) if fact.bbox else None,
        "label": fact.label,
        "printed": fact.printed,
        "factId": fact.fact_id,
    }
    mapped = [c for c in (fact.concept_us_gaap, fact.concept_ifrs) if c]
    out: dict[str, object] = {
        "value": _value(fact),
        "decimals": fact.decimals,
        "dimensions": {
            "concept": f"tieout:{entry.concept.name}",
            "entity": entity,
            "period": entry.period,
            "unit": entry.unit,
        },
        "src:location": location,
    }
    if mapped:
        out["src:taxonomyConcepts"] = mapped
    return out


def xbrl_report(result: DocumentResult) -> XbrlReport:
    """A document's clean figures as an xBRL-JSON report, its extension taxonomy and calculation linkbase.

    Args:
        result: A processed document (its statements give the calculation trees).

    Returns:
        The three files and the figures left out, with reasons.
    """
    entries, excluded = _entries(result)
    kept, duplicates = _dedupe(entries)
    published: dict[str, set[str]] = {}
    for e in kept:
        published.setdefault(e.concept.name, set()).add(e.period)
    networks = [(s, arcs) for s in result.statements if (arcs := _statement_arcs(s, published))]
    entity = f"ent:{result.doc_id[:16]}"
    document = {
        "documentInfo": {
            "documentType": "https://xbrl.org/2021/xbrl-json",
            "namespaces": {
                "xbrl": "https://xbrl.org/2021",
                "xbrli": "http://www.xbrl.org/2003/instance",
                "iso4217": "http://www.xbrl.org/2003/iso4217",
                "ent": ENTITY_SCHEME,
                "tieout": TIEOUT_NS,
                "src": SOURCE_NS,
            },
            "taxonomy": [SCHEMA_FILE],
        },
        "facts": {_fact_id(e.fact): _oim_fact(e, entity) for e in kept},
    }
    concepts = {e.concept for e in kept}
    files = {
        REPORT_FILE: (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode("utf-8"),
        SCHEMA_FILE: _schema(concepts, [s for s, _ in networks]).encode("utf-8"),
        CAL_FILE: _linkbase(networks).encode("utf-8"),
    }
    return XbrlReport(
        files=files,
        excluded=tuple(excluded + duplicates),
        published={_fact_id(e.fact): e.fact.fact_id for e in kept},
    )
