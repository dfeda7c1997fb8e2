"""What the console's pages show, computed from records (no I/O): highlight boxes, statement context.

Coordinates: every bbox in the records is in PDF points, top-left origin, in PyMuPDF's page space; a page
image at zoom ``z`` has ``z * 96 / 72`` pixels per point (:func:`adapters.review.render.render_scale`), so a
box
is placed at ``bbox * scale`` pixels from the image's top-left corner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from adapters.review.render import render_scale
from adapters.review.store import SORT_KEYS, FlagQuery
from console.params import choice, number
from schemas.models import BBox, Evidence, Fact, Flag
from schemas.reviews import REVIEW_STATUSES

__all__ = [
    "QUEUE_PARAMS",
    "ROLE_CLASSES",
    "Box",
    "ContextLine",
    "PageView",
    "box_for",
    "default_zoom",
    "evidence_facts",
    "flag_pages",
    "fmt_value",
    "query_from_params",
    "queue_state",
    "role_class",
    "statement_context",
]

ROLE_CLASSES = ("total", "component", "other-page")


def role_class(ev: Evidence, first_page: int) -> str:
    """How a piece of evidence is highlighted: the figure checked (total), a part of it, or its other side.

    The rules name roles freely ('total', 'subtracted component', 'assets', 'conflicting table', …);
    the console groups them into three colours.
    """
    if "component" in ev.role:
        return "component"
    if ev.page != first_page:
        return "other-page"
    return "total"


@dataclass(frozen=True)
class Box:
    """A highlight on a page image, in CSS pixels from the image's top-left corner."""

    n: int
    role: str
    css: str
    left: float
    top: float
    width: float
    height: float
    text: str
    value: float | None


@dataclass
class PageView:
    """A page of a flag as shown: its image size and the boxes on it."""

    page: int
    width_px: int
    height_px: int
    scale: float
    boxes: list[Box] = field(default_factory=list)


def box_for(n: int, ev: Evidence, bbox: BBox, css: str, scale: float) -> Box:
    """The highlight of evidence ``n`` at ``scale`` pixels per point."""
    x0, y0, x1, y1 = bbox
    return Box(
        n=n,
        role=ev.role,
        css=css,
        left=round(x0 * scale, 2),
        top=round(y0 * scale, 2),
        width=round((x1 - x0) * scale, 2),
        height=round((y1 - y0) * scale, 2),
        text=ev.text,
        value=ev.value,
    )


def flag_pages(flag: Flag, sizes: list[tuple[float, float]], zoom: float) -> list[PageView]:
    """Every page the flag involves, in page order, with its evidence boxes.

    Args:
        flag: The flag.
        sizes: Width and height in points of every page of the document.
        zoom: The zoom the images are served at.
    """
    scale = render_scale(zoom)
    first = flag.evidence[0].page if flag.evidence else (min(flag.pages) if flag.pages else 1)
    numbers = sorted({*flag.pages, *(e.page for e in flag.evidence)})
    views = {}
    for p in numbers:
        if 1 <= p <= len(sizes):
            w, h = sizes[p - 1]
            views[p] = PageView(p, round(w * scale), round(h * scale), scale)
    for n, ev in enumerate(flag.evidence, 1):
        view = views.get(ev.page)
        if view is not None and ev.bbox is not None:
            view.boxes.append(box_for(n, ev, ev.bbox, role_class(ev, first), scale))
    return list(views.values())


def default_zoom(flag: Flag) -> float:
    """Side by side, two pages fit a laptop screen at 0.75; a single page shows at printed size."""
    pages = {*flag.pages, *(e.page for e in flag.evidence)}
    return 0.75 if len(pages) > 1 else 1.0


def _overlap(a: BBox, b: BBox) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def evidence_facts(ev: Evidence, facts_on_page: list[Fact]) -> list[Fact]:
    """The facts printed where ``ev`` points (its bbox overlaps theirs)."""
    if ev.bbox is None:
        return []
    return [f for f in facts_on_page if f.bbox is not None and _overlap(f.bbox, ev.bbox)]


@dataclass(frozen=True)
class ContextLine:
    """A line of a statement around a flagged figure."""

    fact: Fact
    depth: int
    flagged: bool


def statement_context(table_facts: list[Fact], flagged: list[Fact]) -> list[ContextLine]:
    """The flagged figures' statement: the lines of their column, indented under their parents.

    Only the column (period and basis) of the flagged figures is kept: a statement's other periods repeat
    the same lines and would bury the figure.
    """
    if not flagged:
        return []
    keys = {(f.table_id, f.col) for f in flagged}
    flagged_ids = {f.fact_id for f in flagged}
    column = [f for f in table_facts if (f.table_id, f.col) in keys]
    by_label = {f.label: f for f in column}
    out = []
    for f in column:
        depth = 0
        parent = f.parent
        seen = set()
        while parent and parent in by_label and parent not in seen and depth < 6:
            seen.add(parent)
            depth += 1
            parent = by_label[parent].parent
        out.append(ContextLine(f, depth, f.fact_id in flagged_ids))
    return out


def query_from_params(params: dict[str, str], me: str, default_min: float = 0.0) -> FlagQuery:
    """The queue's filters from URL parameters; empty values mean no filter.

    ``assignee``: a user name, ``-`` for unassigned, ``me`` for the logged-in user. Without a ``cmin``
    parameter the minimum confidence is ``default_min`` (the calibrated queue threshold); ``cmin=0`` shows
    every flag.

    Raises:
        BadParameter: for a value that cannot be a filter (a non-numeric confidence, an unknown status).
    """

    def text(name: str) -> str | None:
        v = params.get(name, "").strip()
        return v or None

    status = choice(params, "status", REVIEW_STATUSES)
    sort = choice(params, "sort", SORT_KEYS) or "severity"
    descending = choice(params, "dir", ("asc", "desc")) == "desc"
    cmin = number(params, "cmin", low=0.0, high=1.0)
    cmax = number(params, "cmax", low=0.0, high=1.0)
    assignee = text("assignee")
    if assignee == "-":
        assignee = ""
    elif assignee == "me":
        assignee = me
    return FlagQuery(
        doc_id=text("doc"),
        rule=text("rule"),
        kind=text("kind"),
        severity=text("severity"),
        status=status,
        min_confidence=cmin if "cmin" in params else (default_min or None),
        max_confidence=cmax,
        assignee=assignee,
        sort=sort,
        descending=descending,
    )


QUEUE_PARAMS = ("doc", "rule", "kind", "severity", "status", "cmin", "cmax", "assignee", "sort", "dir")


def queue_state(params: dict[str, str]) -> str:
    """The queue's filter parameters (no cursor) as a query string, carried from page to page."""
    return urlencode([(k, params[k]) for k in QUEUE_PARAMS if params.get(k)])


def fmt_value(value: float | None) -> str:
    """A base-unit value with thousands separators ('—' when unknown)."""
    if value is None:
        return "—"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.4f}".rstrip("0").rstrip(".")
