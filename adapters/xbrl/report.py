"""One checked document as an xBRL-JSON (OIM) report with its own small extension taxonomy.

Three files, side by side: ``report.json`` (the facts), ``tieout-ext.xsd`` (the concepts, one role per
statement) and ``tieout-ext-cal.xml`` (the statements' trees as Calculations 1.1 arcs, weights ±1). The
schema imports only the XBRL 2.1 instance schema and the linkbase names the Calculations 1.1 arcrole
schema, both bundled with Arelle, so the report loads with no network (docs/design/xbrl-arelle-spike.md).

Which figures are published, under which concepts, and which summations bind them is decided in
:mod:`adapters.xbrl.figures`; this module writes the files. A figure an open flag touches carries the flags
in ``src:openFlags``: a reader who wants clean figures only drops those.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from xml.sax.saxutils import quoteattr

from adapters.xbrl.figures import PURE, Concept, Excluded, Figure, Selection, Summation, concept_name, select
from pipeline.checks.tolerance import KnownFact
from schemas.models import DocumentResult

__all__ = [
    "AXIS",
    "CAL_FILE",
    "DEF_FILE",
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
DEF_FILE = "tieout-ext-def.xml"
"""The definition linkbase of the column dimension, written when a report has a non-consolidated column."""
COLUMNS_ROLE = "columns"
AXIS = "tieout:ColumnAxis"
"""The one dimension: which column of a statement a figure is printed in, when it is not the consolidated."""
_AXIS, _TABLE, _DOMAIN, _LINE_ITEMS = "ColumnAxis", "ColumnTable", "ColumnDomain", "LineItems"
_DIM_ARCROLE = "http://xbrl.org/int/dim/arcrole/"
_DEFAULT = "ColumnDomainDefault"


@dataclass(frozen=True)
class XbrlReport:
    """The files of one document's report, and the figures it leaves out.

    Attributes:
        files: File name -> bytes: ``report.json``, ``tieout-ext.xsd`` and ``tieout-ext-cal.xml``.
        excluded: The figures not published, each with its reason.
        published: The fact ids published, by their xBRL-JSON fact id.
        selection: The figures and summations behind the files.
    """

    files: dict[str, bytes]
    excluded: tuple[Excluded, ...]
    published: dict[str, str]
    selection: Selection | None = None


def _fact_id(fact: KnownFact) -> str:
    return f"f_{fact.fact_id}"


def _role_id(role: str) -> str:
    return f"R_{role}"


# --- the files ----------------------------------------------------------------------------------


def _roles(summations: Sequence[Summation]) -> dict[str, str]:
    """Each role used, with its definition: the statement's title (its breakdowns: "... (of which)")."""
    roles: dict[str, str] = {}
    for s in summations:
        title = s.statement.title or s.statement.kind
        roles.setdefault(s.role, title if s.role == s.statement.statement_id else f"{title} (of which)")
    return roles


def _schema(concepts: Iterable[Concept], roles: dict[str, str], members: Sequence[tuple[str, str]]) -> str:
    role_types = "".join(
        f'    <link:roleType roleURI="{ROLE_BASE}{role}" id="{_role_id(role)}">\n'
        f"      <link:definition>{_escape(title)}</link:definition>\n"
        "      <link:usedOn>link:calculationLink</link:usedOn>\n"
        "    </link:roleType>\n"
        for role, title in roles.items()
    )
    elements = "".join(
        f'  <xs:element id="tieout_{c.name}" name="{c.name}" type="xbrli:{c.item_type}" '
        f'substitutionGroup="xbrli:item" xbrli:periodType="{c.period_type}" nillable="true"/>\n'
        for c in sorted(concepts, key=lambda c: c.name)
    )
    dimension = ""
    if members:
        role_types += (
            f'    <link:roleType roleURI="{ROLE_BASE}{COLUMNS_ROLE}" id="{_role_id(COLUMNS_ROLE)}">\n'
            "      <link:definition>Columns: segments and other non-consolidated columns</link:definition>\n"
            "      <link:usedOn>link:definitionLink</link:usedOn>\n"
            "    </link:roleType>\n"
            f'    <link:linkbaseRef xlink:type="simple" xlink:href="{DEF_FILE}"\n'
            '      xlink:role="http://www.xbrl.org/2003/role/definitionLinkbaseRef"\n'
            '      xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>\n'
        )
        abstract = [
            (_AXIS, "xbrldt:dimensionItem"),
            (_TABLE, "xbrldt:hypercubeItem"),
            (_DOMAIN, "xbrli:item"),
        ]
        abstract += [(_LINE_ITEMS, "xbrli:item"), *((name, "xbrli:item") for name, _ in members)]
        dimension = (
            '  <xs:import namespace="http://xbrl.org/2005/xbrldt"\n'
            '    schemaLocation="http://www.xbrl.org/2005/xbrldt-2005.xsd"/>\n'
        ) + "".join(
            f'  <xs:element id="tieout_{name}" name="{name}" type="xbrli:stringItemType" '
            f'substitutionGroup="{group}" abstract="true" xbrli:periodType="duration" nillable="true"/>\n'
            for name, group in abstract
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xbrli="http://www.xbrl.org/2003/instance"\n'
        '  xmlns:link="http://www.xbrl.org/2003/linkbase" xmlns:xlink="http://www.w3.org/1999/xlink"\n'
        '  xmlns:xbrldt="http://xbrl.org/2005/xbrldt"\n'
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
        f"{dimension}"
        f"{elements}"
        "</xs:schema>\n"
    )


def _definitions(concepts: Iterable[Concept], members: Sequence[tuple[str, str]]) -> str:
    """The column dimension: every concept may take a member; none is the consolidated figure (default).

    ``LineItems`` holds every concept and has the open (``closed="false"``) hypercube ``ColumnTable`` of
    the one dimension ``ColumnAxis``, whose domain lists the members and is its default.
    """
    names = [_LINE_ITEMS, _TABLE, _AXIS, _DOMAIN, *(n for n, _ in members), *sorted(c.name for c in concepts)]
    # XLink allows one arc per (from, to) in a link: the default arc reaches the domain through a locator
    # of its own (xlink:dupArcs otherwise)
    locs = _locators([(n, n) for n in names] + [(_DOMAIN, _DEFAULT)])
    arcs = [
        ("all", _LINE_ITEMS, _TABLE, ' xbrldt:closed="false" xbrldt:contextElement="segment"'),
        ("hypercube-dimension", _TABLE, _AXIS, ""),
        ("dimension-domain", _AXIS, _DOMAIN, ""),
        ("dimension-default", _AXIS, _DEFAULT, ""),
        *(("domain-member", _DOMAIN, n, "") for n, _ in members),
        *(("domain-member", _LINE_ITEMS, c.name, "") for c in sorted(concepts, key=lambda c: c.name)),
    ]
    lines = "".join(
        f'    <link:definitionArc xlink:type="arc" xlink:arcrole="{_DIM_ARCROLE}{kind}" xlink:from="{a}" '
        f'xlink:to="{b}" order="{i}"{extra}/>\n'
        for i, (kind, a, b, extra) in enumerate(arcs, 1)
    )
    refs = "".join(
        f'  <link:arcroleRef arcroleURI="{_DIM_ARCROLE}{kind}" xlink:type="simple"\n'
        f'    xlink:href="http://www.xbrl.org/2005/xbrldt-2005.xsd#{kind}"/>\n'
        for kind in ("all", "hypercube-dimension", "dimension-domain", "dimension-default", "domain-member")
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<link:linkbase xmlns:link="http://www.xbrl.org/2003/linkbase" '
        'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xbrldt="http://xbrl.org/2005/xbrldt">\n'
        f"{_role_ref(COLUMNS_ROLE)}"
        f"{refs}"
        f'  <link:definitionLink xlink:type="extended" xlink:role="{ROLE_BASE}{COLUMNS_ROLE}">\n{locs}{lines}'
        "  </link:definitionLink>\n"
        "</link:linkbase>\n"
    )


def _role_ref(role: str) -> str:
    """A linkbase's reference to one of the schema's roles."""
    href = f"{SCHEMA_FILE}#{_role_id(role)}"
    return f'  <link:roleRef roleURI="{ROLE_BASE}{role}" xlink:type="simple" xlink:href="{href}"/>\n'


def _locators(pairs: Iterable[tuple[str, str]]) -> str:
    """Locators of concepts of the schema: (concept name, the label arcs use for it)."""
    return "".join(
        f'    <link:loc xlink:type="locator" xlink:href="{SCHEMA_FILE}#tieout_{n}" xlink:label="{label}"/>\n'
        for n, label in pairs
    )


def _escape(text: str) -> str:
    return quoteattr(text)[1:-1]


def _linkbase(summations: Sequence[Summation]) -> str:
    networks: dict[str, list[tuple[str, str, int]]] = {}
    for s in summations:
        networks.setdefault(s.role, []).extend((s.total, item, weight) for item, weight in s.items)
    refs = []
    links = []
    for name, arcs in networks.items():
        role = f"{ROLE_BASE}{name}"
        refs.append(_role_ref(name))
        locs = _locators([(n, n) for n in dict.fromkeys(n for arc in arcs for n in arc[:2])])
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


def _oim_fact(figure: Figure, entity: str) -> dict[str, object]:
    fact = figure.fact
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
            "concept": f"tieout:{figure.concept.name}",
            "entity": entity,
            "period": figure.period,
            # OIM: a pure figure has no unit dimension (naming xbrli:pure is oime:illegalPureUnit)
            **({} if figure.unit == PURE else {"unit": figure.unit}),
            **({} if figure.member is None else {AXIS: f"tieout:{figure.member}"}),
        },
        "src:location": location,
    }
    if fact.metric:
        out["src:metric"] = fact.metric
    if mapped:
        out["src:taxonomyConcepts"] = mapped
    if figure.flags:
        out["src:openFlags"] = [{"rule": f.rule, "flagId": f.flag_id} for f in figure.flags]
    return out


def xbrl_report(result: DocumentResult) -> XbrlReport:
    """A document's figures as an xBRL-JSON report, its extension taxonomy and calculation linkbase.

    Args:
        result: A processed document (its statements give the calculation trees).

    Returns:
        The three files, the figures left out with reasons, and the selection behind them.
    """
    selection = select(result)
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
        "facts": {_fact_id(f.fact): _oim_fact(f, entity) for f in selection.figures},
    }
    concepts = {f.concept for f in selection.figures}
    members = selection.members
    files = {
        REPORT_FILE: (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode("utf-8"),
        SCHEMA_FILE: _schema(concepts, _roles(selection.summations), members).encode("utf-8"),
        CAL_FILE: _linkbase(selection.summations).encode("utf-8"),
    }
    if members:
        files[DEF_FILE] = _definitions(concepts, members).encode("utf-8")
    return XbrlReport(
        files=files,
        excluded=selection.excluded,
        published={_fact_id(f.fact): f.fact.fact_id for f in selection.figures},
        selection=selection,
    )
