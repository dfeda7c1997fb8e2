"""A total's structure, chosen among the runs of lines above it by the columns that prove each.

:func:`candidate_structures` lists the runs from each natural start under the three sign conventions;
:func:`resolve_total` takes the one the figures prove, and says whether a column where it fails is an
inconsistency (a figure is wrong) or the structure unproven.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import (
    ColumnResult,
    Convention,
    Figure,
    Resolution,
    Structure,
    evaluate,
    exact,
    support_of,
    supports,
)

__all__ = ["candidate_structures", "resolve_total"]


def candidate_structures(
    total: int,
    visible: Sequence[int],
    starts: Sequence[int],
    signs: Mapping[int, int],
    rollforward: bool,
) -> list[Structure]:
    """Runs of visible rows from each natural start to just above the total, under each sign convention.

    Args:
        total: Row index of the candidate total.
        visible: Row indices above it still visible (not folded into a total), top to bottom.
        starts: Positions in ``visible`` where a run may start (boundaries).
        signs: Row → sign under the by-label convention.
        rollforward: The total is a closing balance.

    Returns:
        Structures from the shortest run to the longest.
    """
    out: list[Structure] = []
    n = len(visible)
    for i in sorted(set(starts), reverse=True):
        run = visible[i:]
        if not 2 <= len(run) <= TREE_SETTINGS.max_components or i >= n:
            continue
        conventions: dict[tuple[tuple[int, int], ...], Convention] = {}
        conventions.setdefault(tuple((r, 1) for r in run), "sum")
        conventions.setdefault(((run[0], 1), *((r, -1) for r in run[1:])), "first_less_rest")
        conventions.setdefault(tuple((r, signs.get(r, 1)) for r in run), "by_label")
        out.extend(Structure(total, comps, conv, rollforward) for comps, conv in conventions.items())
    return out


def resolve_total(
    candidates: Sequence[Structure],
    grid: Mapping[int, Mapping[int, Figure]],
    columns: Sequence[int],
    min_support: int,
    *,
    strict: bool = False,
    nil_blanks: bool = False,
) -> Resolution | None:
    """Pick the structure of one total.

    A candidate that holds in every column it can be evaluated in (at least two) is taken at once. Else
    the best supported one is taken; it is *proven* when its support reaches ``min_support``, it fails in
    one column only, no other candidate holds in that column, and the equally supported candidates agree
    on what that column should print.

    Args:
        candidates: The candidate structures, shortest run first.
        grid: The table's figures.
        columns: Its value columns.
        min_support: Columns that must prove a structure before a failing column is believed.
        strict: The line does not say it is a total: a structure must hold with real figures in two
            columns even where it fails nowhere.
        nil_blanks: The table prints no dash anywhere: a blank line is nil (Corning's cash-flow statements
            leave "Severance charges" blank in the year without any).

    Returns:
        The resolution, or None when no candidate is supported at all.
    """
    explained: set[int] = set()  # columns a candidate holds in that also holds in another column
    scored: list[_Scored] = []
    exact: Structure | None = None  # a labelled total that adds up wherever it is printed, figures small
    for order, structure in enumerate(candidates):
        results = [
            r for c in columns if (r := evaluate(structure, grid, c, nil_blanks=nil_blanks)) is not None
        ]
        holds = [r for r in results if r.comparison.ok]
        if _agrees_twice(holds):
            # An alternative that holds in a column explains it only if it holds elsewhere too: one
            # column alone agrees with some run of lines by chance.
            explained.update(r.col for r in holds)
        fails = [r for r in results if not r.comparison.ok]
        if _unproven_line_breaks(structure, grid, holds, fails, nil_blanks=nil_blanks):
            continue
        support = support_of(holds) or int(min_support == 1 and _exactly_itemised(holds))
        if not fails and len(holds) >= 2 and any(r.nonzero_components >= 2 for r in holds):
            # Agreement in several columns at once is no coincidence, whatever the figures' size; for a
            # line whose label does not say it is a total (strict), it takes real figures in two.
            if not strict or support >= 2:
                return Resolution(structure, True)
            continue
        if (
            not fails
            and holds
            and exact is None
            and min_support == 1
            and any(r.nonzero_components >= 2 for r in holds)
        ):
            exact = structure
        if support == 0:
            continue
        if not fails:
            if not strict or support >= 2:
                return Resolution(structure, True)
            continue
        slack = sum(abs(r.comparison.difference) for r in holds)
        scored.append((support, order, structure, fails, slack, _printed_in(holds)))
    if not scored:
        # "Total other comprehensive income" printed in one column, small: it still folds its items, so
        # that the closing balance below does not count them twice; but it proves nothing.
        return Resolution(exact, False) if exact is not None else None
    return _best_supported(scored, explained, min_support, grid, strict=strict)


def _agrees_twice(holds: Sequence[ColumnResult]) -> bool:
    """Whether a candidate holds in two columns alike: both to the unit, or both within rounding only.

    CVS's equity statement: with "Other comprehensive loss" keyed with the wrong sign in the AOCI column,
    the opening balance less the movements lands on the closing one there to the unit, and in the
    treasury shares' column within the rounding of seven small figures (424 for 422). One exact agreement
    and one by rounding slack are not two: in a table whose lines add up to the unit, the other column
    does not agree with that reading, and the keyed column's coincidence alone does not explain its break.
    """
    if len(holds) < 2:
        return False
    to_the_unit = sum(1 for r in holds if exact(r))
    return to_the_unit >= 2 or to_the_unit == 0


def _nil_in(row: int, columns: Collection[int], grid: Mapping[int, Mapping[int, Figure]]) -> bool:
    """Whether a line prints nothing or nil in every one of ``columns``: there nothing shows it belongs."""
    return all((f := grid.get(row, {}).get(c)) is None or f.value == 0.0 for c in columns)


def _unproven_line_breaks(
    structure: Structure,
    grid: Mapping[int, Mapping[int, Figure]],
    holds: Sequence[ColumnResult],
    fails: Sequence[ColumnResult],
    *,
    nil_blanks: bool,
) -> bool:
    """Whether the columns a run fails in hold without its lines that are nil wherever it holds.

    A run may hold only where one of its lines prints nothing or nil: nothing then shows that the line
    belongs. Corning's reclassifications out of other comprehensive income leave the investments' "Net of
    tax" (14) blank but in one year, just above the hedges' lines; CVS's "Acquisitions, net" prints "—" but
    in one year, just above "Add: Components of incurred health care costs". Each run from that line holds
    in the other years and breaks in that one by exactly that line. Such a run is no structure, and its
    break no finding; a line that belongs breaks no column this way, since without it the run is short of
    its figure.
    """
    if not holds or not fails:
        return False
    held = {r.col for r in holds}
    unproven = {r for r, _ in structure.components if _nil_in(r, held, grid)}
    if not unproven or len(unproven) == len(structure.components):
        return False
    rest = replace(structure, components=tuple((r, s) for r, s in structure.components if r not in unproven))
    return all(
        (r := evaluate(rest, grid, f.col, nil_blanks=nil_blanks)) is not None and r.comparison.ok
        for f in fails
    )


_Scored = tuple[int, int, Structure, list[ColumnResult], float, tuple[tuple[int, int], ...]]
"""``(support, order, structure, failing columns, slack, printed)`` of a candidate that fails somewhere."""


def _printed_in(holds: Sequence[ColumnResult]) -> tuple[tuple[int, int], ...]:
    """``(column, lines printing a figure)`` of each column a candidate holds in."""
    return tuple(sorted((r.col, r.nonzero_components) for r in holds))


def _padded(item: _Scored, chosen: _Scored, grid: Mapping[int, Mapping[int, Figure]]) -> bool:
    """A run that differs from the chosen one only in lines printing nil wherever it holds.

    Above "Equity:", "Redeemable noncontrolling interest" prints "—" in the column where the equity lines
    add up to "Total shareholders' equity": the run with it holds there exactly as the run without it, and
    nothing shows it belongs. Foot Locker's "Noncontrolling interest" prints "—" in the year where the
    equity lines add up: the run that subtracts it (its label reads as a deduction) holds there as the one
    that adds it, and nothing shows its sign. Such a run's different expectation in the failing column is
    no rival reading.
    """
    differ = {r for r, _ in set(item[2].components) ^ set(chosen[2].components)}
    held = [c for c, _ in item[5]]
    return (
        item is not chosen
        and item[5] == chosen[5]
        and bool(differ)
        and all(_nil_in(r, held, grid) for r in differ)
    )


def _exactly_itemised(holds: Sequence[ColumnResult]) -> bool:
    """One column whose four lines or more add up to the unit, as printed: proof enough for a labelled total.

    A lease note's finance leases (11 + 11 + 6 + 2 + 2 + 26 = 58 beside "Total lease payments") are too
    small to prove anything by their size; but six printed figures landing exactly on the line that calls
    itself their total are no coincidence, and a keying error in the other column would otherwise leave
    the total unproven and unflagged.
    """
    return any(
        r.as_printed and r.nonzero_components >= 4 and exact(r) and supports(r, TREE_SETTINGS.min_signal_each)
        for r in holds
    )


def _best_supported(
    scored: Sequence[_Scored],
    explained: set[int],
    min_support: int,
    grid: Mapping[int, Mapping[int, Figure]],
    *,
    strict: bool,
) -> Resolution | None:
    """The best supported of the candidates that fail somewhere, proven only when its failure is believed.

    ``scored`` holds ``(support, order, structure, failing columns, slack, printed)``, the slack being how
    far from exact the columns that hold are and ``printed`` how many lines print a figure in each
    (:func:`_padded`); ``explained`` the columns another candidate holds in (and in some other column too).
    """
    best_support = max(item[0] for item in scored)
    best = [item for item in scored if item[0] == best_support]
    # Of runs equally supported, those that hold exactly beat those that hold only within rounding: the line
    # above a section heading ("Balance, end of year 2" of common stock) fits into the next section's
    # roll-forward by rounding alone.
    least = min(item[4] for item in best)
    best = [item for item in best if item[4] <= least + 1e-9 * max(abs(least), 1.0)]
    first = min(best, key=lambda item: item[1])
    _, _, chosen, fails, _, _ = first
    best = [item for item in best if not _padded(item, first, grid)]
    if strict and (best_support < min_support or len(fails) > 1):
        return None  # no line is folded into one that does not say it is a total, on weak evidence
    if best_support < min_support or len(fails) > 1:
        # One misprint breaks one column. A structure failing in two is more likely wrong (or the table
        # misread) than two figures misprinted.
        return Resolution(chosen, False)
    for fail in fails:
        if fail.col in explained:
            return Resolution(chosen, False)
        expectations = {
            round(f.comparison.expected, 6) for item in best for f in item[3] if f.col == fail.col
        }
        if len(expectations) != 1:
            return Resolution(chosen, False)
    return Resolution(chosen, True)
