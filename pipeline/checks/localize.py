"""Error localization: which printed figure, changed, makes every relation of the document hold.

The checks establish relations between printed figures — a statement's sums in every column, a total
column across a row, the same figure printed in two tables — and record each one they evaluated, holding
or not, as an :class:`Equation` in the document's :class:`RelationLog`. All of them together form one
system of rounding-aware equalities, as a statistical office's edit rules do for a survey record; this
module edits the system the way Fellegi and Holt proposed (and R's ``errorlocate`` implements): a break is
an inconsistency when a *small* set of printed figures explains every failing relation at once while every
relation that holds still holds.

For each connected set of failing relations (they share figures):

1. Every figure they all share is a candidate. Each relation that prints the figure says what it would
   have to be for that relation to hold (a ratio to its printed value, so that relations in different
   units agree): the failing ones must all ask for the same value, and a holding relation asks for the
   value as printed, so a figure that a holding relation pins cannot be the error. A relation that compares
   the figure's magnitude (a cost and its copy printed with the other sign) pins its size, not its sign.
2. A candidate is weighted by how its change looks: a keying error (two digits swapped, a digit wrong,
   dropped or doubled, the sign, a factor of a thousand) weighs 1, a near miss 2, anything else 3.
3. Without a single candidate, pairs of figures are tried the same way (each relation that prints only one
   of them fixes it; one that prints both must hold with both changed), and only pairs whose changes look
   like keying errors count (one figure printed twice, in a line and its total column, counts once).
4. The lightest set is the localization: its page, box, the value that would make everything tie and the
   relations it repairs. The flags it explains fold into one finding (one misprint, one flag), which keeps
   the evidence of all of them.
5. When no set of one or two figures explains the breaks, two errors may share the set: a figure whose
   keyed change mends failing relations while every relation printing it holds is an error of its own when
   it mends two or more, or when each set of the relations it leaves is explained by a keying error or a
   near miss; the relations left are then localized apart, from step 1. Otherwise the relation or the
   table was most likely misread: the flags become *structure questions*, kept with their evidence but out
   of the analyst's default queue.

Only linear relations are recorded (sums, copies); a rule that records none (narrative percentages,
per-share ratios, ledgers) keeps its flags as they are, without a localization.
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pipeline.checks.tolerance import keying_relation, printed_at, printed_decimals
from pipeline.figures.keying import keyed_variants
from schemas.models import BBox, Cell, Evidence, Flag, Localization

__all__ = [
    "Equation",
    "FigureKey",
    "Localized",
    "RelationLog",
    "Term",
    "base_term",
    "cell_term",
    "connected",
    "figure_key",
    "localize_errors",
    "signed_as_printed",
]

FigureKey = tuple[int, tuple[float, ...], str]
"""Where a figure is printed: page and box (0.1 pt); the text only when no box is known (a fact and the
cell it came from print the same figure, in one box, with texts that may differ by a currency sign)."""

_WEIGHT = {"swap": 1, "digit": 1, "digit_count": 1, "sign": 1, "scale": 1, "near_miss": 2, None: 3}
"""How likely a change is a keying error: what the least-weight explanation minimises."""
_MAX_PAIR_FIGURES = 40
"""A set of failing relations printing more figures than this is not searched for pairs (a structure
question): the pair search is quadratic in them."""
_MAX_PAIR_WEIGHT = 2
"""Two figures explain breaks only when their changes look like keying errors (one figure printed twice
counts once): two printings both wrong by an amount no slip produces are a misread relation, not a pair
of errors."""
_REL_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Term:
    """One printed figure in a relation.

    Attributes:
        value: The value the relation uses (base units, or as printed when the table's scale is unknown).
        printed: The number as printed, with its sign (``(1,234.5)`` is -1234.5).
        places: Decimal places as printed.
        decimals: Precision of ``value`` (XBRL ``decimals``).
        coef: Its coefficient: the relation is ``sum(coef * value) == 0``.
        magnitude: The relation uses the figure's magnitude (a cost printed with either sign).
        page: Page.
        bbox: Box, when known.
        text: The cell's text as printed.
        label: The line's label, for messages.
        key: Where it is printed (:func:`figure_key` of page, box and text; derived).
    """

    value: float
    printed: float
    places: int
    decimals: int
    coef: float
    magnitude: bool
    page: int
    bbox: BBox | None
    text: str
    label: str
    key: FigureKey = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", figure_key(self.page, self.bbox, self.text))

    @property
    def used(self) -> float:
        """The value as it enters the relation."""
        return abs(self.value) if self.magnitude else self.value


@dataclass(frozen=True, slots=True)
class Equation:
    """A relation a rule evaluated: ``sum(coef * value) == 0`` within ``tolerance``.

    Attributes:
        rule: The rule that established it.
        terms: Its figures.
        tolerance: Rounding tolerance, in the units of the values.
        holds: Whether it held as printed.
        proof: Why it is a relation at all (what the rule required before comparing).
        name: A short description for messages ("Total assets 2024, page 44").
        flag_id: The flag raised for it, when it failed and was flagged.
    """

    rule: str
    terms: tuple[Term, ...]
    tolerance: float
    holds: bool
    proof: str
    name: str
    flag_id: str | None = None

    def residual(self, scaled: Mapping[FigureKey, float]) -> float:
        """``sum(coef * value)`` with the figures of ``scaled`` that many times their value.

        A figure the relation uses by its magnitude keeps it when its sign flips (a factor of -1).
        """
        total = 0.0
        for t in self.terms:
            factor = scaled.get(t.key, 1.0)
            total += t.coef * t.used * (abs(factor) if t.magnitude else factor)
        return total

    def by_magnitude(self, term: Term) -> bool:
        """Whether the relation uses the figure's magnitude, which any sign satisfies."""
        return any(t.magnitude for t in self.terms if t.key == term.key)

    def ratio_for(self, term: Term, scaled: Mapping[FigureKey, float] | None = None) -> float | None:
        """The factor the term's value would need for the relation to hold.

        The other figures as printed, or those of ``scaled`` that many times their value. None when the
        term's value is zero (no factor makes a zero anything else). The figure enters as this relation
        uses it, which may differ from ``term`` (a cost is signed in its statement's footing and a
        magnitude where it is compared with its copy): the factor is the same either way.
        """
        if term.used == 0.0:
            return None
        others = {**(scaled or {}), term.key: 0.0}
        own = sum(t.coef * t.used for t in self.terms if t.key == term.key)
        if own == 0.0:
            return None
        return -self.residual(others) / own

    def slack(self, term: Term) -> float:
        """How far the ratio for ``term`` may move while the relation still holds.

        The figure enters with its coefficient: a ratio's line enters a hundredfold (``100 × line − ratio ×
        base``), so its value may move a hundredth as far.
        """
        own = sum(t.coef * t.used for t in self.terms if t.key == term.key)
        return self.tolerance / abs(own) if own else math.inf


@dataclass(slots=True)
class RelationLog:
    """Every relation the checks evaluated over one document, holding or not (append-only)."""

    equations: list[Equation] = field(default_factory=list)

    def add(self, equation: Equation) -> None:
        """Record one relation (a relation with fewer than two figures relates nothing and is dropped)."""
        if len({t.key for t in equation.terms}) >= 2:
            self.equations.append(equation)


@functools.lru_cache(maxsize=1 << 16)  # every relation a cell enters keys it again
def figure_key(page: int, bbox: BBox | None, text: str) -> FigureKey:
    """The key of a figure printed at ``page``/``bbox`` (rounded as :func:`.tolerance.printed_at` does)."""
    p, box = printed_at(page, bbox)
    return p, box, "" if box else text.strip()


def base_term(
    printed: tuple[float, int, int],
    coef: float,
    where: tuple[int, BBox | None, str, str],
    *,
    magnitude: bool = False,
    used: float | None = None,
) -> Term:
    """The term of a figure known in base units: a fact, or a copy of one.

    Args:
        printed: Its value in base units with its sign as printed, its decimals and its scale.
        coef: Its coefficient in the relation.
        where: Its page, box, text as printed and line label.
        magnitude: The relation uses its magnitude.
        used: The value the relation uses, when not the printed one (a cost's magnitude).
    """
    value, decimals, scale = printed
    page, bbox, text, label = where
    return Term(
        value=value if used is None else used,
        printed=value / 10.0**scale,
        places=printed_decimals(decimals, scale),
        decimals=decimals,
        coef=coef,
        magnitude=magnitude,
        page=page,
        bbox=bbox,
        text=text,
        label=label,
    )


def cell_term(cell: Cell, value: float, decimals: int, coef: float, label: str) -> Term:
    """The term of a table cell whose value (as the relation uses it) is ``value``."""
    number = cell.number
    return Term(
        value=value,
        printed=number.value if number is not None else value,
        places=number.places if number is not None else 0,
        decimals=decimals,
        coef=coef,
        magnitude=False,
        page=cell.page,
        bbox=cell.bbox,
        text=cell.text,
        label=label,
    )


# --- the search ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Change:
    term: Term
    ratio: float
    weight: int
    signature: str | None


@dataclass(frozen=True, slots=True)
class _Explanation:
    changes: tuple[_Change, ...]
    weight: int
    alternatives: int


def _agree(ratios: Sequence[tuple[float, float]]) -> float | None:
    """One ratio every (ratio, slack) pair allows, or None."""
    lo = max(r - s for r, s in ratios)
    hi = min(r + s for r, s in ratios)
    if lo > hi + _REL_EPS * max(1.0, abs(lo)):
        return None
    first = ratios[0][0]
    return min(max(first, lo), hi)


def _new_value(term: Term, ratio: float) -> float:
    """The figure's value once the value the relation uses is ``ratio`` times what it is.

    For a magnitude the sign as printed is kept, unless the magnitude would turn negative.
    """
    if not term.magnitude:
        return term.value * ratio
    magnitude = abs(term.value) * ratio
    return math.copysign(abs(magnitude), term.value if magnitude >= 0 else -term.value)


def _change(term: Term, ratio: float) -> _Change | None:
    """The change of a figure to ``ratio`` times its value; None when that is no change at all."""
    new = _new_value(term, ratio)
    if math.isclose(new, term.value, rel_tol=1e-12, abs_tol=0.0):
        return None
    signature = keying_relation(term.value, term.decimals, new, term.decimals)
    return _Change(term, ratio, _WEIGHT[signature], signature)


def _single(term: Term, relations: Sequence[Equation]) -> _Change | None:
    """The change of one figure that every relation printing it allows.

    The relations allow a range (their rounding); a keyed variant of the figure inside it (two digits
    swapped, a digit dropped …) is the change named, rather than the range's first point: "3,393 were
    9,753" where "829 were 289" also holds within rounding would name the wrong figure.
    """
    windows = _windows(term, relations)
    if windows is None:
        return None
    ratio = _ratio_within(*windows)
    if ratio is None:
        return None
    found = _change(term, ratio)
    # A sum or a copy fixes a value that prints (1,234 + 56 = 1,290): that is the change. A ratio's rounding
    # leaves a range between printed values, in which a keyed variant says which one.
    printed = term.printed * ratio * 10.0**term.places
    if found is not None and found.weight > _WEIGHT["swap"] and abs(printed - round(printed)) > 1e-6:
        for value, _ in keyed_variants(term.printed, term.places):
            keyed = value / term.printed
            if _ratio_within([(keyed, 0.0), *windows[0]], windows[1]) is not None:
                return _change(term, keyed) or found
    return found


def _pair(a: Term, b: Term, relations: Sequence[Equation]) -> tuple[_Change, _Change] | None:
    """Both figures changed so that every relation printing either holds; None when impossible.

    Relations printing only one of them fix that one; a figure no such relation fixes is solved from a
    relation printing both (a figure and its copy in a total column keyed wrong together).
    """
    only_a = [eq for eq in relations if _has(eq, a) and not _has(eq, b)]
    only_b = [eq for eq in relations if _has(eq, b) and not _has(eq, a)]
    both = [eq for eq in relations if _has(eq, a) and _has(eq, b)]
    ra = _ratio(a, only_a) if only_a else None
    rb = _ratio(b, only_b) if only_b else None
    if (only_a and ra is None) or (only_b and rb is None) or (ra is None and rb is None):
        return None
    if ra is None or rb is None:
        known, ratio, free = (a, ra, b) if ra is not None else (b, rb, a)
        assert ratio is not None
        solved = [
            (r, eq.slack(free)) for eq in both if (r := eq.ratio_for(free, {known.key: ratio})) is not None
        ]
        got = _agree(solved) if solved else None
        if got is None:
            return None
        ra, rb = (ratio, got) if known is a else (got, ratio)
    for eq in both:
        if abs(eq.residual({a.key: ra, b.key: rb})) > eq.tolerance * (1 + 1e-9) + 1e-9:
            return None
    ca, cb = _change(a, ra), _change(b, rb)
    return None if ca is None or cb is None else (ca, cb)


def _windows(
    term: Term, relations: Sequence[Equation]
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]] | None:
    """Each relation's ratio for ``term`` with its slack: those on the signed figure, those on its size."""
    signed: list[tuple[float, float]] = []
    sizes: list[tuple[float, float]] = []
    for eq in relations:
        r = eq.ratio_for(term)
        if r is None:
            return None
        (sizes if eq.by_magnitude(term) else signed).append((r, eq.slack(term)))
    return signed, sizes


def _ratio_within(
    signed: Sequence[tuple[float, float]], sizes: Sequence[tuple[float, float]]
) -> float | None:
    """One ratio inside every window (:func:`_windows`), or None."""
    if not signed:
        return _agree(sizes)
    got = _agree(signed)
    if got is None or (sizes and _agree([(abs(got), 0.0), *sizes]) is None):
        return None
    return got


def _ratio(term: Term, relations: Sequence[Equation]) -> float | None:
    """The one ratio of ``term`` every relation allows (the others as printed), or None.

    A relation that compares the figure's magnitude (a cost and its copy printed with the other sign) allows
    the ratio's opposite as well: it pins the size, never the sign, so a sign the footings ask to flip is
    still one change.
    """
    windows = _windows(term, relations)
    return None if windows is None else _ratio_within(*windows)


def _has(eq: Equation, term: Term) -> bool:
    return any(t.key == term.key for t in eq.terms)


def _explain(
    failing: Sequence[Equation], by_figure: Mapping[FigureKey, list[Equation]]
) -> _Explanation | None:
    """The lightest set of one (else two) figures that explains the failing relations; None without one.

    The change must make every failing relation of the set hold and every relation printing the figures
    hold (those that hold as printed keep holding).
    """
    terms: dict[FigureKey, Term] = {}
    for eq in failing:
        for t in eq.terms:
            terms.setdefault(t.key, t)
    shared = [t for k, t in terms.items() if all(_has(eq, t) for eq in failing)]
    singles = [c for t in shared if (c := _single(t, by_figure[t.key])) is not None]
    if singles:
        best = min(c.weight for c in singles)
        top = sorted((c for c in singles if c.weight == best), key=lambda c: (c.term.page, c.term.key))
        return _Explanation((top[0],), best, len(top) - 1)
    if len(terms) > _MAX_PAIR_FIGURES:
        return None
    # The second figure of a pair: another figure of the failing relations, or one a holding relation ties
    # to the first (a figure and its copy in a total column, keyed wrong together).
    candidates: dict[tuple[FigureKey, FigureKey], tuple[Term, Term]] = {}
    for x, y in itertools.combinations(terms.values(), 2):
        candidates[(x.key, y.key)] = (x, y)
    for x in terms.values():
        for eq in by_figure[x.key]:
            if eq.holds:
                for y in eq.terms:
                    if y.key not in terms and (y.key, x.key) not in candidates:
                        candidates[(x.key, y.key)] = (x, y)
    pairs: list[tuple[_Change, _Change]] = []
    for a, b in candidates.values():
        if not all(_has(eq, a) or _has(eq, b) for eq in failing):
            continue
        # By identity: a relation that prints both figures is listed under each; relations alike in value
        # are still two relations the checks evaluated.
        relations = list({id(eq): eq for eq in (*by_figure[a.key], *by_figure[b.key])}.values())
        got = _pair(a, b, relations)
        if got is not None and _pair_weight(got) <= _MAX_PAIR_WEIGHT:
            pairs.append(got)
    if not pairs:
        return None
    best = min(_pair_weight(p) for p in pairs)
    tied = [p for p in pairs if _pair_weight(p) == best]
    return _Explanation(tied[0], best, len(tied) - 1)


def _peel(
    component: Sequence[Equation], by_figure: Mapping[FigureKey, list[Equation]]
) -> tuple[_Explanation, list[Equation]] | None:
    """When no one or two figures explain a component: one keyed error in it, explained apart.

    Two errors can share a component (a net income keyed wrong in a statement whose other line differs
    from its copy by a rounding): no one or two changes that look like keying errors mend it all, yet one
    figure keyed wrong mends some of its failing relations while every relation printing it holds. That
    figure is an error of its own when it mends two failing relations or more, or when what it leaves is
    explained apart (a cost keyed wrong in a footing whose other line differs from its copy elsewhere by a
    last digit); the relations it mends are explained by it, and the others are localized apart.

    Returns:
        The explanation and the relations it mends; None when no figure is such an error.
    """
    found: list[tuple[int, _Change, list[Equation]]] = []
    seen: set[FigureKey] = set()
    for eq in component:
        for term in eq.terms:
            if term.key in seen:
                continue
            seen.add(term.key)
            change = _single(term, by_figure[term.key])
            if change is None or change.weight > _WEIGHT["swap"]:
                continue
            mended = [e for e in component if _has(e, term)]
            if len(mended) >= 2 or _explained_apart(component, mended, by_figure):
                found.append((len(mended), change, mended))
    if not found:
        return None
    most = max(n for n, _, _ in found)
    top = sorted((f for f in found if f[0] == most), key=lambda f: (f[1].term.page, f[1].term.key))
    _, change, mended = top[0]
    return _Explanation((change,), change.weight, len(top) - 1), mended


def _explained_apart(
    component: Sequence[Equation], mended: Sequence[Equation], by_figure: Mapping[FigureKey, list[Equation]]
) -> bool:
    """Whether the failing relations ``mended`` leaves are each explained on their own.

    Only by changes that look like keying errors or near misses, not by any value that ties.
    """
    rest = _left(component, mended)
    if not rest:
        return False
    for part in _components(rest):
        got = _explain(part, by_figure)
        if got is None or got.weight > _WEIGHT["near_miss"]:
            return False
    return True


def _left(component: Sequence[Equation], mended: Sequence[Equation]) -> list[Equation]:
    """The relations of ``component`` that ``mended`` does not hold (by identity, as in :func:`_explain`)."""
    return [eq for eq in component if not any(eq is m for m in mended)]


def _pair_weight(pair: tuple[_Change, _Change]) -> int:
    """Two changes weigh their sum, unless they are one figure printed twice.

    The same value changed to the same value (a line and its copy in a total column) is one keying error.
    """
    x, y = pair
    same = math.isclose(x.term.value, y.term.value, rel_tol=1e-9) and math.isclose(
        _new_value(x.term, x.ratio), _new_value(y.term, y.ratio), rel_tol=1e-9
    )
    return max(x.weight, y.weight) if same else x.weight + y.weight


def connected(n: int, links: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The indices ``0 … n-1`` grouped by the links between them (union-find).

    Returns:
        The groups, each in index order, in the order of their first index.
    """
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in links:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        groups[root(i)].append(i)
    return list(groups.values())


def _components(failing: Sequence[Equation]) -> list[list[Equation]]:
    """Failing relations grouped when they share a figure."""
    owner: dict[FigureKey, int] = {}
    shared = ((i, owner.setdefault(t.key, i)) for i, eq in enumerate(failing) for t in eq.terms)
    return [[failing[i] for i in group] for group in connected(len(failing), shared)]


# --- what the analyst reads ------------------------------------------------------------------------


def signed_as_printed(body: str, negative: bool, text: str) -> str:
    """A corrected figure's digits with the sign the way ``text`` (the figure as printed) shows one."""
    if not negative:
        return body
    return f"({body})" if "(" in text else f"-{body}"


def _printed_text(term: Term, ratio: float) -> str:
    """The corrected figure as the document would print it (its decimal places, parentheses or minus)."""
    value = _new_value(term, ratio) * (term.printed / term.value) if term.value else 0.0
    return signed_as_printed(f"{abs(value):,.{max(0, term.places)}f}", value < 0, term.text)


def _localization(explanation: _Explanation, component: Sequence[Equation], holding: int) -> Localization:
    changes = explanation.changes
    figures = [
        Evidence(
            page=c.term.page, bbox=c.term.bbox, text=f"{c.term.label}: {c.term.text}",
            role="localized figure", value=c.term.value,
        )
        for c in changes
    ]  # fmt: skip
    corrected = [_printed_text(c.term, c.ratio) for c in changes]
    repairs = [eq.name for eq in component]
    said: dict[tuple[int, str, str], int] = {}
    for c, new in zip(changes, corrected, strict=True):
        k = (c.term.page, c.term.text.strip(), new)
        said[k] = said.get(k, 0) + 1
    what = " and ".join(
        f"page {page}'s {text}{' (printed twice)' if n > 1 else ''} were {new}"
        for (page, text, new), n in said.items()
    )
    n = len(component)
    note = f"If {what}, {'this relation' if n == 1 else f'these {n} relations'} would hold"
    note += f" and the {holding} that hold still would." if holding else "."
    if explanation.alternatives:
        note += f" ({explanation.alternatives} other change(s) of the same likelihood would too.)"
    signatures = [c.signature or "other" for c in changes]
    return Localization(
        figures=figures,
        corrected=corrected,
        signatures=signatures,
        repairs=repairs,
        holding=holding,
        alternatives=explanation.alternatives,
        note=note,
    )


@dataclass(frozen=True, slots=True)
class Localized:
    """The checks' outcome after localization.

    Attributes:
        flags: The findings, each with its localization when its rule records relations.
        structure_questions: Flags whose breaks no one or two printed figures explain.
        seconds: How long the localization took.
    """

    flags: list[Flag]
    structure_questions: list[Flag]
    seconds: float = 0.0


def localize_errors(flags: Sequence[Flag], log: RelationLog) -> Localized:
    """Localize the error behind every flag whose relation the log holds.

    Args:
        flags: The checks' flags (deduplicated).
        log: Every relation the checks evaluated.

    Returns:
        The flags with their localization, and the structure questions apart.
    """
    t0 = time.perf_counter()
    failing = [eq for eq in log.equations if not eq.holds]
    by_figure: dict[FigureKey, list[Equation]] = defaultdict(list)
    for eq in log.equations:
        for key in {t.key for t in eq.terms}:
            by_figure[key].append(eq)
    verdict: dict[str, Localization | None] = {}
    pending = _components(failing)
    while pending:
        component = pending.pop(0)
        explanation = _explain(component, by_figure)
        if explanation is None and (peeled := _peel(component, by_figure)) is not None:
            explanation, mended = peeled
            pending.extend(_components(_left(component, mended)))
            component = mended
        touched = {t.key for eq in component for t in eq.terms}
        # By identity, as in _explain: each relation once, however many of its figures are touched.
        holding = len({id(eq) for k in touched for eq in by_figure[k] if eq.holds})
        loc = None if explanation is None else _localization(explanation, component, holding)
        for eq in component:
            if eq.flag_id is not None:
                verdict.setdefault(eq.flag_id, loc)
    findings: list[Flag] = []
    questions: list[Flag] = []
    for flag in _one_per_error(flags, verdict):
        if flag.flag_id not in verdict:
            findings.append(flag)
            continue
        loc = verdict[flag.flag_id]
        if loc is None:
            questions.append(
                flag.model_copy(
                    update={
                        "reasons": [
                            *flag.reasons,
                            "no one or two printed figures explain the breaks while the relations that "
                            "print them still hold: the table or the relation was likely misread",
                        ]
                    }
                )
            )
            continue
        findings.append(
            flag.model_copy(update={"localization": loc, "message": f"{flag.message} {loc.note}"})
        )
    return Localized(findings, questions, time.perf_counter() - t0)


def _one_per_error(flags: Sequence[Flag], verdict: Mapping[str, Localization | None]) -> list[Flag]:
    """One misprint, one finding: the flags one localized change explains fold into the first of them.

    A figure printed wrong breaks every relation that prints it (a footing, the total column across its row,
    its copy in another table), and each rule flags its own break. The localization already names every
    relation the change repairs, so the analyst gets one finding with the evidence of all of them; the
    first flag in ``flags`` (the caller orders them by rule precedence) is the one kept. Flags without a
    localization, and structure questions, stay as they are.
    """
    groups: dict[int, list[Flag]] = defaultdict(list)
    for flag in flags:
        loc = verdict.get(flag.flag_id)
        if loc is not None:
            # By identity: the flags of one component share its Localization object (one misprint).
            groups[id(loc)].append(flag)
    folded: dict[str, Flag] = {}
    absorbed: set[str] = set()
    for group in groups.values():
        first, rest = group[0], group[1:]
        if not rest:
            continue
        evidence = list(first.evidence)
        where = {(e.page, e.bbox, e.role) for e in evidence}
        for other in rest:
            for e in other.evidence:
                if (e.page, e.bbox, e.role) not in where:
                    where.add((e.page, e.bbox, e.role))
                    evidence.append(e)
        rules = ", ".join(f"{f.rule} {f.flag_id}" for f in rest)
        folded[first.flag_id] = first.model_copy(
            update={
                "pages": sorted({p for f in group for p in f.pages}),
                "evidence": evidence,
                "reasons": [
                    *first.reasons,
                    f"one misprint, one finding: the same change explains {len(rest)} other flag(s), folded "
                    f"into this one ({rules})",
                ],
            }
        )
        absorbed.update(f.flag_id for f in rest)
    return [folded.get(f.flag_id, f) for f in flags if f.flag_id not in absorbed]
