"""The walk down a table's rows that recognises its totals (step 3 of :mod:`pipeline.statements`).

A row may be a total by its label (:func:`pipeline.statements.labels.total_strength`); its candidate children
are runs of the rows above it still visible, starting at a natural boundary (the table start, a section
heading, an opening balance, an earlier total). A structure the figures prove folds its rows into the total
(:func:`build_tree`); single-column roll-forwards and schedules are taken by their labels
(:mod:`pipeline.statements.schedules`), totals over their breakdowns last
(:mod:`pipeline.statements.breakdowns`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.figures.grid import RowView
from pipeline.figures.line_kinds import line_kinds
from pipeline.figures.taxonomy import Taxonomy, normalise_label
from pipeline.statements.breakdowns import breakdowns
from pipeline.statements.labels import (
    BASIC,
    CLOSING_LABEL,
    DILUTED,
    OPENING_LABEL,
    TOTAL_LABEL,
    after_deduction,
    heading_sign,
    label_sign,
    named_change,
    named_closing,
    placed_total,
    table_names,
    total_strength,
)
from pipeline.statements.resolve import candidate_structures, resolve_total
from pipeline.statements.schedules import labelled_rollforward, labelled_schedule
from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import (
    Grid,
    Resolution,
    Structure,
    TreeNode,
    evaluate,
    exact,
    one_kind,
    prints_no_dash,
    supports,
)
from schemas.models import StatementKind

__all__ = ["build_tree"]

_TOTAL_OF = re.compile(r"^(?:total|subtotal) ")
"""The word that makes a section's name the name of its total ("Total other comprehensive income")."""


def _inner_runs(
    total: int, visible: Sequence[int], starts: Sequence[int], signs: Mapping[int, int]
) -> list[Structure]:
    """Runs that start inside the last section: "Total cost of sales" under "Net revenue" with no heading.

    Tried only for a line that says it is a total, when no run from a natural start adds up to it.
    """
    first = max(max(starts) if starts else 0, len(visible) - TREE_SETTINGS.max_components)
    out: list[Structure] = []
    for i in range(len(visible) - 2, first, -1):
        run = visible[i:]
        out.append(Structure(total, tuple((r, 1) for r in run), "sum"))
        by_label = tuple((r, signs.get(r, 1)) for r in run)
        if any(sign < 0 for _, sign in by_label):
            out.append(Structure(total, by_label, "by_label"))
    return out


def _single_item(
    row: RowView, visible: Sequence[int], starts: Sequence[int], grid: Grid, columns: Sequence[int]
) -> Resolution | None:
    """A "Total …" line over the one line of its section ("Derivatives" / "Total liabilities").

    It repeats that line, so it proves nothing by adding up; it is taken as its total when the two agree,
    with real figures, in at least two columns and differ in at most one (the misprint).
    """
    run = visible[max(starts) :] if starts else []
    if len(run) != 1 or not TOTAL_LABEL.search(normalise_label(row.label)):
        return None
    structure = Structure(row.index, ((run[0], 1),), "sum")
    results = [r for c in columns if (r := evaluate(structure, grid, c)) is not None]
    holds = sum(1 for r in results if r.comparison.ok and r.comparison.actual != 0.0)
    fails = sum(1 for r in results if not r.comparison.ok)
    if holds >= 2 and fails <= 1 and holds > fails:
        return Resolution(structure, True)
    # Agreeing where printed but nil elsewhere ("Investment in subsidiaries" / "Net cash used in investing
    # activities", a dash in two years of three): it still folds its line, so the total below does not add
    # it twice, but it proves nothing.
    return Resolution(structure, False) if holds >= 1 and not fails else None


_HEADED_LINE = re.compile(r"^\s*(?P<heading>[A-Z][A-Za-z ,'’()-]{2,60}):\s+[A-Za-z]")
"""A line that begins with its section's heading and its colon (not "Less:", which signs the line:
:func:`.labels.heading_sign`)."""


def _fold(visible: list[int], starts: list[int], structure: Structure) -> tuple[list[int], list[int]]:
    """Remove a recognised total's components from the visible rows, keeping the run starts aligned."""
    folded = {r for r, _ in structure.components}
    kept = [r for r in visible if r not in folded]
    new_starts = {0}
    for pos in starts:
        following = [r for r in visible[pos:] if r not in folded]
        new_starts.add(kept.index(following[0]) if following else len(kept))
    return kept, sorted(new_starts)


@dataclass(slots=True)
class _Walk:
    """The state of the walk down a table's rows: the lines still visible and where runs may start."""

    grid: Grid
    columns: Sequence[int]
    signs: dict[int, int]
    kinds: dict[int, str]
    by_index: dict[int, RowView]
    visible: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=lambda: [0])
    sections: list[int] = field(default_factory=list)  # the headings of the sections open, outermost first
    heading_row: int = -1  # row of the last heading
    totals: set[int] = field(default_factory=set)
    partial: bool = False  # the table may be the rest of one begun on the page before
    by_label: dict[str, list[int]] = field(init=False)  # normalised label → its rows, top to bottom
    below: dict[int, str] = field(init=False)  # row → the next figure line's normalised label
    placed: bool = False  # the row being resolved is a total by its place only (outdented, under a rule)
    deducted: bool = False  # ... or by being printed under a deduction ("Less: …"): of the two lines above
    nil_blanks: bool = field(init=False)  # the table prints no dash anywhere: a blank line is nil

    def __post_init__(self) -> None:
        self.nil_blanks = prints_no_dash(self.grid)
        self.by_label, self.below = {}, {}
        for r, row in self.by_index.items():
            self.by_label.setdefault(normalise_label(row.label), []).append(r)
        after = ""  # the next figure line's label, headings between passed over
        for r, row in reversed(self.by_index.items()):
            if r in self.grid and not row.is_heading:
                self.below[r] = after
                after = normalise_label(row.label)

    def contradicted_by_peers(self, structure: Structure) -> bool:
        """Lines of the same labels in another section of the table do not add up the same way.

        "Current: Federal, State, International" above "Deferred: Federal, State, International": the
        deferred "International" may equal federal plus state in two columns by chance, but the current
        section's lines of the same names, which do not add up so, show that the three are peers. The k-th
        printing of each label is paired with the k-th of the others; a structure is contradicted when a
        parallel one fails in at least half of the columns it can be evaluated in.
        """
        rows = [structure.total, *(r for r, _ in structure.components)]
        labels = [normalise_label(self.by_index[r].label) for r in rows]
        if not all(labels):
            return False
        printed = {text: self.by_label[text] for text in labels}
        counts = {len(printed[text]) for text in labels}
        if len(counts) != 1 or (n := counts.pop()) < 2:
            return False
        own = printed[labels[0]].index(structure.total)
        for k in range(n):
            if k == own:
                continue
            peer = Structure(
                printed[labels[0]][k],
                tuple(
                    (printed[text][k], sign)
                    for text, (_, sign) in zip(labels[1:], structure.components, strict=True)
                ),
                structure.convention,
                structure.rollforward,
            )
            results = [r for c in self.columns if (r := evaluate(peer, self.grid, c)) is not None]
            fails = sum(1 for r in results if not r.comparison.ok)
            if results and fails * 2 >= len(results):
                return True
        return False

    def begin_line(self, row: RowView, label: str) -> bool:
        """Where a line with figures begins a run; returns whether it is an opening balance.

        An opening balance begins a roll-forward (and its movements a run of their own, after it); a line
        that begins with its section's heading and its colon ("Long-term investments: Corporate debt
        securities", a section of one line) begins a section, as a heading of its own would.
        """
        if OPENING_LABEL.search(label):
            self.starts.append(len(self.visible))
            return True
        if (m := _HEADED_LINE.match(row.label)) is not None and heading_sign(m.group("heading")) is None:
            self.starts.append(len(self.visible))
            self.open_section(row.index - 1)
        return False

    @property
    def section_row(self) -> int:
        """Row of the heading of the innermost section open (not "Add:" or "Less:"), or -1."""
        return self.sections[-1] if self.sections else -1

    def open_section(self, heading: int) -> None:
        """A section begins under the heading row ``heading``, inside the sections open."""
        self.sections.append(heading)

    def close_section(self, structure: Structure) -> None:
        """A total that adds up every line left in view under its section's heading closes the section.

        The lines after it are its enclosing section's again: a purchase price allocation prints goodwill,
        then "Intangible assets:" with their lines and subtotal, then the other assets and liabilities, and
        its unlabelled last line adds up goodwill, that subtotal and those lines.
        """
        run = {r for r in self.visible if r > self.section_row}
        if not self.sections or not run or run != {r for r, _ in structure.components}:
            return
        self.sections.pop()

    def enter_heading(self, row: RowView) -> int | None:
        """A heading row: a run may start below it; returns the sign it gives the lines under it, if any."""
        self.starts.append(len(self.visible))
        self.heading_row = row.index
        sign = heading_sign(row.label)
        if sign is None:
            # (the lines under "Add:" or "Less:" adjust the line above the heading: one section with it)
            self.open_section(row.index)
        return sign

    def closes_section(self, row: RowView, structure: Structure) -> bool:
        """Whether a total under "Add:" or "Less:" takes in the line above the heading that they adjust.

        It then closes their section and is not deducted itself ("Income from continuing operations" under
        an FFO reconciliation's "Less:" lines): its sign is its label's.
        """
        if min(r for r, _ in structure.components) >= self.heading_row:
            return False
        self.signs[row.index] = label_sign(row, self.grid)
        return True

    def strength(
        self,
        row: RowView,
        previous: RowView | None,
        taxonomy: Taxonomy,
        section: Collection[str],
        changes: str,
    ) -> int:
        """The row's :func:`.labels.total_strength`, noting in :attr:`placed` if its place alone makes it one.

        The change in a balance (``changes``, :meth:`changed_balance`) is a total; a diluted count a weak one.
        """
        self.placed = self.deducted = False
        if changes:
            return 2
        if strength := total_strength(row, previous, taxonomy, section):
            return strength
        if placed_total(row, previous):
            self.placed = True
            return 1
        if after_deduction(row, previous):
            self.deducted = True
            return 1
        return 1 if self.diluted_count(row.index, normalise_label(row.label)) else 0

    def changed_balance(self, row: int, label: str) -> str:
        """The label of the balance the line below closes, when this line is the change in it, else ""."""
        below = self.below.get(row, "")
        return below if named_change(label, below) else ""

    def diluted_count(self, row: int, label: str) -> bool:
        """Whether a line is the diluted share count under the basic one: a weak total of the lines between.

        "Diluted weighted-average shares" is the basic count plus the dilutive awards and notes printed
        between them, though its label does not say it is a total.
        """
        if self.kinds.get(row) != "shares" or not DILUTED.search(label):
            return False
        return any(
            self.kinds.get(r) == "shares" and BASIC.search(normalise_label(self.by_index[r].label))
            for r in self.visible
        )

    def candidates(self, row: RowView, label: str, strength: int, rollforward: bool) -> list[Structure]:
        """The runs the line may add up, by what its label says it is."""
        found = candidate_structures(row.index, self.visible, self.starts, self.signs, rollforward)
        if self.deducted:
            # What is left of a line after the deduction printed under it: those two lines, nothing more.
            found = [c for c in found if [r for r, _ in c.components] == self.visible[-2:]]
        if self.placed:
            # A total by its place alone adds its lines as printed or signed by their labels: "the first
            # less the rest" of the totals above agrees by identity (a balance sheet's noncontrolling
            # interest, outdented under shareholders' equity, is total assets less liabilities less it).
            found = [c for c in found if c.convention != "first_less_rest" or self.signed_by_labels(c)]
        if strength < 2:
            # A line that does not say it is a total adds up its own section only (never lines above a
            # heading printed between them and it), or the totals of sections ("Other comprehensive
            # income" under its three sections' totals).
            # A run of everything above it is the exception: the last line of a table of sections without
            # totals ("Current:" and "Deferred:" federal, state and foreign, then the provision).
            whole = self.visible[0] if self.visible else None
            found = [
                c
                for c in found
                if all(r > self.section_row or r in self.totals for r, _ in c.components)
                or c.components[0][0] == whole
            ]
        if not label:
            # A line with no label at all adds its lines as printed or signed by their labels ("Less current
            # portion"); "the first less the rest" of a column of notes agrees by chance.
            found = [c for c in found if c.convention != "first_less_rest" or self.signed_by_labels(c)]
        if not strength:
            # A line whose label says nothing ("Free cash flow") is a total only when the figures prove it,
            # in two columns with real figures, adding a short run as printed.
            found = [
                c
                for c in found
                if len(c.components) <= TREE_SETTINGS.max_unlabelled and c.convention == "sum"
            ]
        return [c for c in found if one_kind(c, self.kinds)]

    def signed_by_labels(self, structure: Structure) -> bool:
        """Whether each line that "the first less the rest" deducts takes the sign its label gives it.

        "The first less the rest" is also the labels' signs when every line after the first is a cost
        ("Income before income taxes" less "Provision for income taxes"): such a run is kept wherever the
        labels' signs are, under whichever name :func:`.resolve.candidate_structures` gave it first. The
        first line is what the rest are deducted from: its own words say nothing of that ("Present value
        of lease payments" less "Less: current obligations" is the long-term part, though "payments" would
        subtract the line from a footing of costs).
        """
        return all(sign == self.signs.get(r, 1) for r, sign in structure.components[1:])

    def support(self, strength: int) -> int:
        """Columns that must hold before a total counts as proven.

        A line that says it is a total needs one. A weak one ("Net debt", an unlabelled line) needs two,
        or, in a table of two columns, the other one: there a keying error in either column would otherwise
        leave the total unproven and the error unflagged.
        """
        if strength == 2:
            return 1
        return 1 if strength == 1 and len(self.columns) == 2 else 2

    def needs_exact_proof(self, structure: Structure, strength: int) -> bool:
        """Whether a structure that one column alone proves lacks the exact agreement it then needs.

        One column is the whole proof of a line that does not say it is a total, in a table of two columns,
        or of a structure that subtracts lines: it must add up to the unit there, not merely within rounding
        (three lines of cash paid 3,207 + 15 + 94 = 3,316 beside a right-of-use figure of 3,317; capital
        expenditure obligations of 378 less purchase obligations of 127 beside total debt of 250 due within
        a year are coincidences).
        """
        held = [
            r
            for c in self.columns
            if (r := evaluate(structure, self.grid, c, nil_blanks=self.nil_blanks)) is not None
            and r.comparison.ok
            and supports(r, 0.0)
        ]
        if len(held) != 1 or (strength == 2 and structure.convention == "sum"):
            return False
        return not exact(held[0])

    def resolve(
        self, row: RowView, label: str, strength: int, section: Collection[str] = (), below: str = ""
    ) -> Resolution | None:
        """The structure of a candidate total: a natural run, then the fallbacks its label allows.

        ``section``: the normalised labels above it in its section, where an opening it closes may be.
        ``below``: the normalised label of the line below, when the line is the change in the balance that
        line closes (:func:`.labels.named_change`).
        """
        rollforward = bool(CLOSING_LABEL.search(label)) or named_closing(label, section)
        candidates = self.candidates(row, label, strength, rollforward)
        need = self.support(strength)
        resolution = resolve_total(
            candidates, self.grid, self.columns, need, strict=not strength, nil_blanks=self.nil_blanks
        )
        if (
            resolution is not None
            and resolution.proven
            and self.needs_exact_proof(resolution.structure, strength)
        ):
            resolution = Resolution(resolution.structure, False)
        if resolution is not None and strength < 2 and self.contradicted_by_peers(resolution.structure):
            return None
        if resolution is None and strength == 2 and TOTAL_LABEL.search(label):
            inner = [
                c
                for c in _inner_runs(row.index, self.visible, self.starts, self.signs)
                if one_kind(c, self.kinds)
            ]
            resolution = resolve_total(inner, self.grid, self.columns, 1) if inner else None
        if strength == 2 and (resolution is None or not resolution.proven):
            resolution = _single_item(row, self.visible, self.starts, self.grid, self.columns) or resolution
        if resolution is None and rollforward:
            resolution = labelled_rollforward(
                row.index, self.visible, self.by_index, self.grid, self.columns, self.signs, closing=label
            )
        if below and (resolution is None or not resolution.proven):
            resolution = (
                labelled_rollforward(
                    row.index,
                    self.visible,
                    self.by_index,
                    self.grid,
                    self.columns,
                    self.signs,
                    closing=below,
                    change=True,
                )
                or resolution
            )
        if (
            (resolution is None or not resolution.proven)
            and strength == 2
            and TOTAL_LABEL.search(label)
            and len(self.columns) == 1
        ):
            resolution = (
                labelled_schedule(
                    row.index, self.visible, self.by_index, self.grid, self.columns, partial=self.partial
                )
                or resolution
            )
        if resolution is None and strength == 2:
            resolution = self.excerpt(row.index, label)
        return resolution

    def excerpt(self, total: int, label: str) -> Resolution | None:
        """The total of a section its heading names, whose printed lines add up to it in no column.

        A table of an accounting change's effects prints only the lines the change touched: "Other
        comprehensive income (loss), net of tax:", one of its lines, then "Total other comprehensive income
        (loss), net of tax". The total is its section's all the same; taken as such, unproven (a failure in
        it means nothing), it lets the lines around it add up (comprehensive income is net income plus it),
        where its section's lines left in view would break every run.
        """
        heading = self.by_index.get(self.section_row)
        if heading is None or self.heading_row != self.section_row:
            return None
        name = normalise_label(heading.label)
        run = [r for r in self.visible if r > self.section_row]
        if not run or not name or _TOTAL_OF.sub("", label) != name:
            return None
        return Resolution(Structure(total, tuple((r, 1) for r in run), "sum"), False)


def build_tree(
    rows: Sequence[RowView],
    grid: Grid,
    columns: Sequence[int],
    taxonomy: Taxonomy,
    kind: StatementKind = "note",
    titles: Sequence[str | None] = (),
    *,
    partial: bool = False,
) -> list[TreeNode]:
    """Walk a table's rows top to bottom and recognise its totals (step 3 of :mod:`pipeline.statements`).

    Args:
        rows: Body rows of the table.
        grid: Their figures in the value columns.
        columns: The value columns.
        taxonomy: To recognise total metrics.
        kind: The statement's kind: a balance sheet's last line, unlabelled, is its grand total.
        titles: The table's title and the lines just above it: a last line that repeats one ("Other
            Current Assets" over payment processor advances, prepaid expenses, other and "Other current
            assets") is its total.
        partial: The table may be the rest of one begun on the page before (:func:`.build.maybe_partial`).

    Returns:
        The recognised totals in reading order, each with the rows it adds up and how.
    """
    if not columns:
        return []
    signs = {row.index: label_sign(row, grid) for row in rows if row.index in grid}
    walk = _Walk(grid, columns, signs, line_kinds(rows), {row.index: row for row in rows}, partial=partial)
    previous: RowView | None = None
    nodes: list[TreeNode] = []
    last_row = max(grid) if grid else -1
    named = table_names(*titles)
    section_labels: set[str] = set()
    section_sign: int | None = None  # what an "Add:" or "Less:" heading makes of the lines under it
    for row in rows:
        if row.is_heading:
            section_labels.clear()
            section_sign = walk.enter_heading(row)
            continue
        if row.index not in grid:
            continue
        label = normalise_label(row.label)
        if section_sign is not None:
            walk.signs[row.index] = label_sign(row, grid, section=section_sign)
        opening = walk.begin_line(row, label)
        changes = walk.changed_balance(row.index, label)
        strength = walk.strength(row, previous, taxonomy, section_labels, changes)
        if row.index == last_row and ((kind == "balance_sheet" and not label) or (label and label in named)):
            # "$ 7,907  $ 8,135" under total equity: total liabilities and equity; or the table's own name
            strength = 2
        if walk.visible and (len(walk.visible) >= 2 or strength == 2) and (strength or len(columns) >= 3):
            resolution = walk.resolve(row, label, strength, section_labels, changes)
            if resolution is not None:
                if not label and walk.heading_row in walk.by_index:
                    # An unlabelled total is named by its section's heading: under "Expenses", a cost that a
                    # line below subtracts ("Operating income" = revenues − expenses + affiliates' income).
                    heading = normalise_label(walk.by_index[walk.heading_row].label)
                    walk.signs[row.index] = label_sign(row, grid, heading)
                nodes.append(TreeNode(resolution.structure, resolution.proven))
                walk.totals.add(row.index)
                walk.close_section(resolution.structure)
                if section_sign is not None and walk.closes_section(row, resolution.structure):
                    section_sign = None
                walk.visible, walk.starts = _fold(walk.visible, walk.starts, resolution.structure)
                strength = 2  # a recognised total starts the next run
        if strength:  # a total starts the next run (it may itself be a component)
            walk.starts.append(len(walk.visible))
        walk.visible.append(row.index)
        if strength == 2 or opening:
            # ... or the next run starts after it: a second block of the same lines for another period
            # ("December 31, 2020" under the 2021 block's total) adds up to its own total, and the
            # movements under "Beginning balance" add up to "Net change" before the closing balance.
            walk.starts.append(len(walk.visible))
        previous = row
        section_labels.add(label)
    return nodes + breakdowns(rows, grid, columns, nodes, walk.kinds)
