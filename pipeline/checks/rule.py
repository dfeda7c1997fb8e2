"""What every rule shares: its declaration and one interface to the document under check.

A :class:`Rule` says what its flags are (id, kind, severity) and what it checks; its :meth:`Rule.flag`
builds its flags, with ids that depend only on the rule, the document and where the evidence is printed,
so that reruns give the same ids. A :class:`Check` runs
one or more rules over a :class:`CheckedDocument`; :data:`pipeline.checks.CHECKS` lists them, and the rule
list and :func:`pipeline.checks.check_document` derive from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Protocol

from pipeline.checks.localize import Equation, RelationLog, cell_term
from pipeline.checks.tolerance import KnownFact, Severity, where_printed
from pipeline.figures.rounding import Comparison, half_unit
from pipeline.figures.taxonomy import Taxonomy
from pipeline.ids import stable_id
from schemas.models import BBox, Block, Cell, Chunk, Evidence, Flag, FlagKind, Period, Statement, Table

__all__ = [
    "Check",
    "CheckedDocument",
    "DocRef",
    "Located",
    "PrintedAt",
    "PrintedFigure",
    "Rule",
    "column_proof_confidence",
    "labelled_evidence",
    "printed_evidence",
]


class Located(Protocol):
    """Anything that names its document: a table, a :class:`DocRef`, the document under check."""

    @property
    def doc_id(self) -> str:
        """Document id."""
        ...

    @property
    def source(self) -> str:
        """Source path or object key."""
        ...


class PrintedAt(Protocol):
    """A figure that knows where and how it is printed: a fact, a copy of one, a published figure."""

    @property
    def page(self) -> int:
        """The page it is printed on."""
        ...

    @property
    def bbox(self) -> BBox | None:
        """Its box on the page, when known."""
        ...

    @property
    def label(self) -> str:
        """Its line's label as printed."""
        ...

    @property
    def printed(self) -> str:
        """The number as printed."""
        ...

    @property
    def value(self) -> float | None:
        """Its value in base units."""
        ...


@dataclass(frozen=True, slots=True)
class DocRef:
    """A document's id and source, for rules that work from facts rather than from one table."""

    doc_id: str
    source: str


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule's declaration.

    Attributes:
        id: Rule id, e.g. ``"TOT001"`` (stable: flag ids and analysts' decisions refer to it).
        kind: The kind of its flags.
        severity: The severity of its flags.
        checks: What it checks, in one sentence.
        requires: The proof it requires before a break counts: what establishes that the figures it
            compares are in that relation at all. Each flag says which proof it had (``Flag.proof``).
    """

    id: str
    kind: FlagKind
    severity: Severity
    checks: str
    requires: str

    def flag(
        self,
        doc: Located,
        *,
        message: str,
        evidence: Sequence[Evidence],
        metric: str | None = None,
        period: Period | None = None,
        comparison: Comparison | None = None,
        confidence: float = 0.5,
        reasons: Sequence[str] = (),
        proof: str | None = None,
    ) -> Flag:
        """A flag of this rule in ``doc``.

        Args:
            doc: The document (or a table of it).
            message: Analyst-facing explanation.
            evidence: Every side of the finding.
            metric: Metric id when known.
            period: Period of the finding.
            comparison: Expected/actual/difference/tolerance in base units.
            confidence: How sure the rule is that this is a real inconsistency, in [0, 1].
            reasons: The structural evidence that made the comparison valid.
            proof: The proof this finding had; the rule's ``requires`` when not given.

        Returns:
            The flag; its id depends only on the rule, the document, the metric and period and where the
            evidence is printed, so reruns over the same document give the same ``flag_id``.
        """
        locations = sorted((*where_printed(e), e.role, e.text) for e in evidence)
        flag_id = stable_id(self.id, doc.doc_id, metric, period.key if period else None, *locations)
        measured = {} if comparison is None else asdict(comparison)
        measured.pop("ok", None)
        return Flag(
            flag_id=flag_id,
            doc_id=doc.doc_id,
            source=doc.source,
            rule=self.id,
            kind=self.kind,
            severity=self.severity,
            metric=metric,
            period=period,
            message=message,
            pages=sorted({e.page for e in evidence}),
            evidence=list(evidence),
            confidence=confidence,
            reasons=list(reasons),
            proof=proof or self.requires,
            **measured,  # expected, actual, difference and tolerance, when the rule compared figures
        )

    def copy_equation(
        self,
        a: PrintedFigure,
        b: PrintedFigure,
        labels: tuple[str, str],
        name: str,
        holds: bool,
        flag_id: str | None = None,
    ) -> Equation:
        """``a − b = 0``: one figure printed twice (two columns of one period, a balance carried forward).

        Args:
            a: One printing.
            b: The other.
            labels: Their lines' labels, as printed.
            name: How the localization's messages name the relation.
            holds: Whether it held as printed.
            flag_id: The flag raised for it, when it failed and was flagged.

        Returns:
            The relation, for :class:`.localize.RelationLog`.
        """
        terms = (
            cell_term(a.cell, a.value, a.places, 1.0, labels[0]),
            cell_term(b.cell, b.value, b.places, -1.0, labels[1]),
        )
        return Equation(self.id, terms, a.half + b.half, holds, self.requires, name, flag_id)

    def copy_flag(
        self,
        table: Table,
        printed: PrintedFigure,
        source: PrintedFigure,
        *,
        message: str,
        labels: Mapping[int, str],
        holds: int,
        reasons: Sequence[str],
    ) -> Flag:
        """A flag of a figure that should print ``source`` again and does not (:meth:`copy_equation` fails).

        The copy is compared with its source within both figures' rounding, as :meth:`copy_equation` does.

        Args:
            table: The table.
            printed: The printing under test.
            source: The figure it should repeat.
            message: Analyst-facing explanation.
            labels: Row → the line's label as printed.
            holds: The other copies that agree with their sources.
            reasons: The structural evidence that made the comparison valid.

        Returns:
            The flag.
        """
        return self.relation_flag(
            table,
            message=message,
            labels=labels,
            printed=printed,
            inputs=(source,),
            expected=source.value,
            actual=printed.value,
            tolerance=printed.half + source.half,
            holds=holds,
            reasons=reasons,
        )

    def relation_flag(
        self,
        table: Table,
        *,
        message: str,
        labels: Mapping[int, str],
        printed: PrintedFigure,
        inputs: Sequence[PrintedFigure],
        expected: float,
        actual: float,
        tolerance: float,
        holds: int,
        reasons: Sequence[str],
        proof: str | None = None,
    ) -> Flag:
        """A flag of a printed figure that its lines' relation, proven in the table's other columns, fails.

        The printed figure is the evidence's total and the figures the relation computes it from are its
        components, each shown with its line's label; the flag's period is the printed figure's, and its
        confidence grows with the columns where the relation holds (:func:`column_proof_confidence`).

        Args:
            table: The table.
            message: Analyst-facing explanation.
            labels: Row → the line's label as printed.
            printed: The figure under test.
            inputs: The figures the relation computes it from.
            expected: What the relation gives.
            actual: The printed value compared with ``expected``.
            tolerance: The room the comparison allowed.
            holds: The other columns where the relation holds.
            reasons: The structural evidence that made the comparison valid.
            proof: The proof this finding had; the rule's ``requires`` when not given.

        Returns:
            The flag.
        """
        evidence = [labelled_evidence(printed.cell, labels, "total", printed.value)]
        evidence += [labelled_evidence(f.cell, labels, "component", f.value) for f in inputs]
        return self.flag(
            table,
            message=message,
            evidence=evidence,
            period=printed.cell.number.period if printed.cell.number else None,
            comparison=Comparison(False, expected, actual, actual - expected, tolerance),
            confidence=column_proof_confidence(holds),
            reasons=reasons,
            proof=proof,
        )


@dataclass(frozen=True, slots=True)
class PrintedFigure:
    """A table figure as a relation between a row's figures reads it: its value and places as printed.

    Attributes:
        value: The value as printed (at the table's printed scale).
        places: The decimal places printed.
        cell: Its cell.
    """

    value: float
    places: int
    cell: Cell

    @property
    def half(self) -> float:
        """Half a unit in the last printed place: the figure's rounding radius."""
        return half_unit(self.places)

    @classmethod
    def of(cls, cell: Cell | None) -> PrintedFigure | None:
        """A cell's figure as printed; None for a cell without a number or one that prints a dash."""
        n = cell.number if cell is not None else None
        if cell is None or n is None or n.is_dash:
            return None
        return cls(n.value, n.places, cell)


@dataclass(frozen=True, slots=True)
class CheckedDocument:
    """Everything a rule may read of one document.

    Attributes:
        doc_id: Document id.
        source: Source path or object key.
        tables: Logical tables.
        statements: Their calculation trees.
        facts: Facts whose scale is known (figures of unknown scale are compared nowhere in base units).
        blocks: Narrative text blocks.
        taxonomy: The metric taxonomy.
        chunks: The heading-aware chunks, whose heading paths say which section each text block is in.
        relations: Where the rules record every relation they evaluate (append-only), for the localization.
        questions: Breaks a rule set apart itself as structure questions (append-only): it can tell they are
            no keying error of a figure it prints, as the localization tells for the relations it reads.
    """

    doc_id: str
    source: str
    tables: Sequence[Table]
    statements: Sequence[Statement]
    facts: Sequence[KnownFact]
    blocks: Sequence[Block]
    taxonomy: Taxonomy
    relations: RelationLog = field(default_factory=RelationLog)
    questions: list[Flag] = field(default_factory=list)
    chunks: Sequence[Chunk] = ()


@dataclass(frozen=True, slots=True)
class Check:
    """One or more rules run together over a document (they share a search of its structure).

    Attributes:
        rules: The rules whose flags it raises.
        run: The check.
    """

    rules: tuple[Rule, ...]
    run: Callable[[CheckedDocument], list[Flag]]


def labelled_evidence(cell: Cell, labels: Mapping[int, str], role: str, value: float) -> Evidence:
    """A table figure as evidence: its page and box, and its line's label before it ("Net sales: 3,540").

    Args:
        cell: The figure's cell.
        labels: Row → the line's label as printed.
        role: What the figure is in the relation ("total", "component").
        value: The value the relation used.
    """
    return Evidence(
        page=cell.page,
        bbox=cell.bbox,
        text=f"{labels[cell.row]}: {cell.text.strip()}",
        role=role,
        value=value,
    )


def printed_evidence(figure: PrintedAt, role: str, source: str | None = None) -> Evidence:
    """A figure read from a fact as evidence: its page and box, and its label before the figure as printed.

    Args:
        figure: The figure.
        role: What it is in the finding ("total", "component", "table").
        source: The document it is printed in, when not the flag's own (a finding across documents).
    """
    text = f"{figure.label}: {figure.printed}"
    return Evidence(
        page=figure.page, bbox=figure.bbox, text=text, role=role, value=figure.value, source=source
    )


def column_proof_confidence(holds: int) -> float:
    """A flag's confidence when the relation's other columns are its proof: 0.65 for one, at most 0.85.

    Args:
        holds: The columns where the relation holds.
    """
    return min(0.85, 0.55 + 0.1 * holds)
