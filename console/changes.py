"""What the "changed since the previous version" page shows, computed from a changes record (no I/O).

A :class:`~schemas.models.DocumentChanges` record names the figures added, removed and changed between a
document's previous version and this one, each printing with its page and box, and every relation with
whether it held before and after. The page lists first the changes among the figures of a tie the changes
broke, then those of a tie they repaired, then the other changed figures; each with the previous version's
page and this one's side by side, its box drawn on both (:mod:`console.view`'s boxes and labels).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from adapters.review.render import PrintedBoxes, render_scale
from console.view import PageView, box_for, with_labels
from schemas.models import DocumentChanges, Evidence, FigureChange, TieChange

__all__ = ["MARKS", "ChangeRow", "ChangesView", "Side", "changes_view", "shown_pages"]

MARKS = ("broke", "repaired")
"""The ties' outcomes a change is marked with, in the order the page lists them."""

OLD_CSS, NEW_CSS = "other-page", "total"
"""How a figure's box is drawn: on the previous version's page, and on this one's."""


@dataclass(frozen=True)
class Side:
    """One version's printing of a changed figure: the page shown with its box, or why there is none."""

    doc_id: str
    source: str
    evidence: Evidence | None
    page: PageView | None


@dataclass(frozen=True)
class ChangeRow:
    """A change as the page shows it: numbered, marked with the ties it broke or repaired, both sides."""

    n: int
    change: FigureChange
    marks: tuple[str, ...]
    ties: list[TieChange]
    old: Side
    new: Side

    @property
    def column(self) -> str:
        """The figure's period key, or its column's head when the column has no period."""
        return self.change.place.period or self.change.place.column


@dataclass(frozen=True)
class ChangesView:
    """The page: the record, its changes in the order shown, the ties broken and repaired, the counts.

    Attributes:
        marked: The changes among the figures of a tie broken, then of a tie repaired (any kind).
        changed: The other changed figures.
        added: Every figure added (those also in ``marked`` too), for the list.
        removed: Every figure removed, likewise.
    """

    changes: DocumentChanges
    marked: list[ChangeRow] = field(default_factory=list)
    changed: list[ChangeRow] = field(default_factory=list)
    added: list[ChangeRow] = field(default_factory=list)
    removed: list[ChangeRow] = field(default_factory=list)
    ties: list[TieChange] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """Changes by kind, and ties by outcome."""
        kinds = [c.kind for c in self.changes.changes]
        out = {k: kinds.count(k) for k in ("changed", "added", "removed")}
        out.update({m: sum(1 for t in self.ties if t.status == m) for m in MARKS})
        return out


def shown_pages(changes: DocumentChanges) -> tuple[set[int], set[int]]:
    """The pages of the previous version and of this one that the page shows (for what is printed there)."""
    old = {c.old.page for c in changes.changes if c.old is not None}
    new = {c.new.page for c in changes.changes if c.new is not None}
    return old, new


def _page(
    ev: Evidence | None,
    n: int,
    css: str,
    name: str,
    sizes: list[tuple[float, float]],
    zoom: float,
    printed: Mapping[int, PrintedBoxes],
) -> PageView | None:
    """The page a printing is on, its box drawn and labelled; None when it is not printed or not shown."""
    if ev is None or not 1 <= ev.page <= len(sizes):
        return None
    scale = render_scale(zoom)
    w, h = sizes[ev.page - 1]
    view = PageView(ev.page, round(w * scale), round(h * scale), scale)
    if ev.bbox is not None:
        view.boxes.append(replace(box_for(n, ev, ev.bbox, css, scale), name=name))
    return with_labels(view, printed.get(ev.page) or PrintedBoxes())


def changes_view(
    changes: DocumentChanges,
    sizes: tuple[list[tuple[float, float]], list[tuple[float, float]]],
    zoom: float,
    printed: tuple[Mapping[int, PrintedBoxes], Mapping[int, PrintedBoxes]] = ({}, {}),
) -> ChangesView:
    """The page of a changes record: its changes marked, ordered and drawn on both versions' pages.

    Args:
        changes: What changed since the previous version.
        sizes: Width and height in points of every page of the previous version, and of this one (none
            where the PDF cannot be found: its side is listed without a page).
        zoom: The zoom the page images are served at.
        printed: What is printed on the pages shown, of either version (their labels keep clear of it).

    Returns:
        The changes that broke a tie first, then those that repaired one, then the other changed figures;
        every figure added and removed; the ties broken and repaired.
    """
    ties = [t for m in MARKS for t in changes.ties if t.status == m]
    of: dict[int, list[TieChange]] = {}
    for tie in ties:
        for i in tie.changed:
            of.setdefault(i, []).append(tie)
    rows: list[ChangeRow] = []
    for i, ch in enumerate(changes.changes):
        n = i + 1
        old = _page(ch.old, n, OLD_CSS, "was", sizes[0], zoom, printed[0])
        new = _page(ch.new, n, NEW_CSS, "now", sizes[1], zoom, printed[1])
        marks = tuple(m for m in MARKS if any(t.status == m for t in of.get(i, [])))
        rows.append(
            ChangeRow(
                n,
                ch,
                marks,
                of.get(i, []),
                Side(changes.old_doc_id, changes.old_source, ch.old, old),
                Side(changes.new_doc_id, changes.new_source, ch.new, new),
            )
        )
    marked = sorted((r for r in rows if r.marks), key=lambda r: (MARKS.index(r.marks[0]), r.n))
    rest = [r for r in rows if not r.marks]
    return ChangesView(
        changes,
        marked=marked,
        changed=[r for r in rest if r.change.kind == "changed"],
        added=[r for r in rows if r.change.kind == "added"],
        removed=[r for r in rows if r.change.kind == "removed"],
        ties=ties,
    )
