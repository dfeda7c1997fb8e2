"""What the console's pages show, computed from records (no I/O): highlight boxes, statement context.

Coordinates: every bbox in the records is in PDF points, top-left origin, in PyMuPDF's page space; a page
image at zoom ``z`` has ``z * 96 / 72`` pixels per point (:func:`adapters.review.render.render_scale`), so a
box is placed at ``bbox * scale`` pixels from the image's top-left corner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from adapters.review.documents import ZOOMS
from adapters.review.render import PrintedBoxes, render_scale
from adapters.review.store import SORT_KEYS, FlagQuery
from console.labels import Rect, place_label
from console.params import choice, number
from schemas.models import BBox, Evidence, Fact, Flag
from schemas.reviews import REVIEW_STATUSES

__all__ = [
    "PAGE_GAP_PX",
    "QUEUE_PARAMS",
    "ROLE_CLASSES",
    "SCROLLBAR_PX",
    "ZOOM_CHOICES",
    "Box",
    "ContextLine",
    "PageView",
    "box_for",
    "default_zoom",
    "evidence_facts",
    "fitting_zoom",
    "flag_pages",
    "fmt_value",
    "own_evidence",
    "query_from_params",
    "queue_state",
    "role_class",
    "shown_pages",
    "shown_zoom",
    "statement_context",
    "with_labels",
    "zoom_bucket",
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
    """A highlight on a page image, in CSS pixels from the image's top-left corner.

    Its label (``label`` text, ``label_rect`` relative to the box's top-left corner) is placed outside it
    by :func:`console.labels.place_label`.
    """

    n: int
    role: str
    css: str
    left: float
    top: float
    width: float
    height: float
    text: str
    value: float | None
    label: str = ""
    label_rect: Rect = (0.0, 0.0, 0.0, 0.0)
    name: str = ""
    """What its label says after its number (default: its ``css`` class, e.g. 'other page')."""

    @property
    def rect(self) -> Rect:
        """The box on the page image."""
        return (self.left, self.top, round(self.left + self.width, 2), round(self.top + self.height, 2))


@dataclass
class PageView:
    """A page of a flag as shown: its image size and the boxes on it."""

    page: int
    width_px: int
    height_px: int
    scale: float
    boxes: list[Box] = field(default_factory=list)


def box_for(n: int, ev: Evidence, bbox: BBox, css: str, scale: float) -> Box:
    """The highlight of evidence ``n`` at ``scale`` pixels per point (its label not placed yet)."""
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


def own_evidence(flag: Flag) -> list[Evidence]:
    """The flag's evidence printed in its own document (a finding across documents cites another's too)."""
    return [e for e in flag.evidence if e.source is None]


def shown_pages(flag: Flag, page_count: int) -> list[int]:
    """The pages a flag's page shows side by side: every page of its document it names or cites."""
    return [p for p in sorted({*flag.pages, *(e.page for e in own_evidence(flag))}) if 1 <= p <= page_count]


def _scaled(boxes: list[BBox], scale: float) -> list[Rect]:
    return [(x0 * scale, y0 * scale, x1 * scale, y1 * scale) for x0, y0, x1, y1 in boxes]


def _inside(word: Rect, box: Rect) -> bool:
    """A word (mostly) inside a highlight: the highlighted figure itself, never in its label's way."""
    w = max(0.0, min(word[2], box[2]) - max(word[0], box[0]))
    h = max(0.0, min(word[3], box[3]) - max(word[1], box[1]))
    return w * h >= 0.5 * (word[2] - word[0]) * (word[3] - word[1])


def with_labels(view: PageView, printed: PrintedBoxes) -> PageView:
    """``view`` with each box's label placed clear of the figures printed, the other boxes and labels."""
    page = (0.0, 0.0, float(view.width_px), float(view.height_px))
    figures = _scaled(printed.figures, view.scale)
    words = _scaled(printed.words, view.scale)
    # a box's outline is drawn outside it: the other labels keep clear of that too
    outlined = [(b.left - 3, b.top - 3, b.rect[2] + 3, b.rect[3] + 3) for b in view.boxes]
    placed: list[Rect] = []
    boxes = []
    for i, b in enumerate(view.boxes):
        own = b.rect
        taken = [f for f in figures if not _inside(f, own)]
        taken += [r for j, r in enumerate(outlined) if j != i] + placed
        free = [w for w in words if not _inside(w, own)]
        text, (x0, y0, x1, y1) = place_label(
            own, (f"{b.n} · {b.name or b.css.replace('-', ' ')}", str(b.n)), taken, free, page
        )
        placed.append((x0, y0, x1, y1))
        rel = (round(x0 - b.left, 2), round(y0 - b.top, 2), round(x1 - x0, 2), round(y1 - y0, 2))
        boxes.append(replace(b, label=text, label_rect=rel))
    return replace(view, boxes=boxes)


def flag_pages(
    flag: Flag,
    sizes: list[tuple[float, float]],
    zoom: float,
    printed: Mapping[int, PrintedBoxes] | None = None,
) -> list[PageView]:
    """Every page the flag involves, in page order, with its evidence boxes and their labels.

    Args:
        flag: The flag.
        sizes: Width and height in points of every page of the document.
        zoom: The zoom the images are served at.
        printed: What is printed on each page shown (its labels keep clear of it); none: only the boxes.
    """
    scale = render_scale(zoom)
    first = flag.evidence[0].page if flag.evidence else (min(flag.pages) if flag.pages else 1)
    views = {}
    for p in shown_pages(flag, len(sizes)):
        w, h = sizes[p - 1]
        views[p] = PageView(p, round(w * scale), round(h * scale), scale)
    for n, ev in enumerate(flag.evidence, 1):
        # Numbered as the evidence table numbers it; a page of another document is not this one's page.
        view = views.get(ev.page) if ev.source is None else None
        if view is not None and ev.bbox is not None:
            view.boxes.append(box_for(n, ev, ev.bbox, role_class(ev, first), scale))
    printed = printed or {}
    return [with_labels(v, printed.get(p) or PrintedBoxes()) for p, v in views.items()]


ZOOM_CHOICES = tuple(z for z in ZOOMS if z >= 0.5)
"""The zooms the flag page offers (smaller ones are the document page's thumbnails)."""
PAGE_GAP_PX = 14.0
"""Between two pages side by side (``.pages`` gap: 1 em)."""
SCROLLBAR_PX = 20.0
"""Kept free of pages for a vertical scrollbar the room was measured without."""


def default_zoom(flag: Flag) -> float:
    """Side by side, two pages fit a laptop screen at 0.75; a single page shows at printed size."""
    pages = {*flag.pages, *(e.page for e in own_evidence(flag))}
    return 0.75 if len(pages) > 1 else 1.0


def zoom_bucket(widths: Sequence[float]) -> str:
    """Which remembered zoom a flag's page uses: its pages' width side by side, to 100 points.

    A zoom picked on one page is remembered for pages as wide (a single portrait page, two side by side, a
    landscape page), never applied to pages twice as wide.
    """
    return str(round(sum(widths) / 100))


def fitting_zoom(widths: Sequence[float], room_px: float) -> float:
    """The largest zoom at which pages ``widths`` (points) fit side by side in ``room_px`` CSS pixels."""
    for z in sorted(ZOOM_CHOICES, reverse=True):
        need = sum(round(w * render_scale(z)) for w in widths) + PAGE_GAP_PX * (len(widths) - 1)
        if need <= room_px - SCROLLBAR_PX:
            return z
    return ZOOM_CHOICES[0]


def shown_zoom(
    flag: Flag, widths: Sequence[float], remembered: Mapping[str, float], room_px: float | None
) -> float:
    """The zoom a flag's page opens at when the analyst asks for none.

    The zoom remembered for pages as wide (:func:`zoom_bucket`), else :func:`default_zoom`; the pages of a
    cross-page flag at most at the zoom that shows them all side by side in the browser's room (measured by
    ``console.js``), so that no page of it is off screen.

    Args:
        flag: The flag.
        widths: The widths in points of the pages shown (:func:`shown_pages`).
        remembered: The zooms picked so far, by bucket.
        room_px: The width the pages have in the browser (CSS pixels), when known.
    """
    zoom = remembered.get(zoom_bucket(widths)) or default_zoom(flag)
    if zoom not in ZOOMS:
        zoom = default_zoom(flag)
    if len(widths) > 1 and room_px:
        zoom = min(zoom, fitting_zoom(widths, room_px))
    return zoom


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
