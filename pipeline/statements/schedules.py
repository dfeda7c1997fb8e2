"""Single-column tables whose labels state their structure: roll-forwards and maturity schedules.

With one value column no other column can prove a structure, but the labels can: "Balance as of June 30,
2022", the movements, "Balance as of June 30, 2023" (:func:`labelled_rollforward`); "2023 … 2027,
Thereafter, Total" (:func:`labelled_schedule`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pipeline.figures.grid import RowView
from pipeline.figures.taxonomy import normalise_label
from pipeline.statements.labels import CLOSING_LABEL, OPENING_LABEL, named_change, named_opening
from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import Grid, Resolution, Structure, evaluate

__all__ = ["labelled_rollforward", "labelled_schedule"]


def labelled_rollforward(
    total: int,
    visible: Sequence[int],
    by_index: Mapping[int, RowView],
    grid: Grid,
    columns: Sequence[int],
    signs: Mapping[int, int],
    *,
    closing: str = "",
    change: bool = False,
) -> Resolution | None:
    """A closing balance under its opening balance and the movements between, proven by its labels.

    The labels state the structure: "Balance as of June 30, 2022", movements, "Balance as of June 30,
    2023". With one column there is no other column to prove it; with several, the figures of a small
    roll-forward (unrecognized tax benefits of 173 and movements of tens) are too small for a column that
    holds to prove a run of lines on its own (:func:`.structures.supports`), so a keying error in one
    column left the whole roll-forward unproven. It is taken when every movement is printed in every column
    (a blank may be a figure the reader lost) and all add as printed: in one column whether or not it holds,
    when no line by its label might be subtracted; in several when it holds, with two figures or more, in
    all columns but one at most (the columns that hold show the lines add as printed). The run starts at
    the nearest opening or closing balance above, or at the line that names the balance ``closing`` (the
    total's normalised label) names at an earlier moment (:func:`.labels.named_opening`). A total that is a
    closing balance by that name only (an option table's "Outstanding at December 31, 2023") must hold in
    every column when it has several: beside the number of options such a table prints their average
    price, which adds up nowhere, and which only its head, not always read as one, tells from an amount.
    With ``change`` the total is the change in the balance (:func:`.labels.named_change`), and the run is the
    movements below the opening balance, without it.
    """
    start = next(
        (
            p
            for p in range(len(visible) - 2, -1, -1)
            if OPENING_LABEL.search(label := normalise_label(by_index[visible[p]].label))
            or CLOSING_LABEL.search(label)
            or named_opening(closing, label)
        ),
        None,
    )
    # Opening and closing with one line between are a roll-forward when that line is the change in the
    # balance, the movements' own total (:func:`.labels.named_change`); else the run is two lines or more.
    least = 2 if visible and named_change(normalise_label(by_index[visible[-1]].label), closing) else 3
    if start is None or not least <= len(visible) - start <= TREE_SETTINGS.max_components:
        return None
    run = visible[start + 1 :] if change else visible[start:]
    if any(c not in grid.get(r, {}) for r in run for c in columns):
        return None
    if len(columns) == 1 and any(signs.get(r, 1) < 0 for r in run):
        return None
    structure = Structure(total, tuple((r, 1) for r in run), "sum", rollforward=True)
    results = [evaluate(structure, grid, c) for c in columns]
    if any(r is None or r.nonzero_components < 2 for r in results):
        return None
    if len(columns) == 1:
        return Resolution(structure, True)
    fails = sum(1 for r in results if r is not None and not r.comparison.ok)
    allowed = 1 if not closing or CLOSING_LABEL.search(closing) else 0
    return Resolution(structure, True) if fails <= allowed and fails < len(columns) else None


_SCHEDULE_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
"""A year in a schedule line's label ("2027", "Fiscal 2027")."""
_SCHEDULE_LATER = re.compile(r"\b(?:thereafter|after|later|beyond|more than|over)\b")
"""The line for the years after the schedule's last ("Thereafter", "2028 and after")."""


def labelled_schedule(
    total: int,
    visible: Sequence[int],
    by_index: Mapping[int, RowView],
    grid: Grid,
    columns: Sequence[int],
    *,
    partial: bool = False,
) -> Resolution | None:
    """A "Total" printed in a single column under a schedule of years ("2023 … 2027, Thereafter, Total").

    A maturity schedule (debt, leases, purchase obligations) states its structure in its labels: each line
    names the next year, a last one the years after them, and the total adds them all. With one column no
    other column proves that, but the labels do, as a roll-forward's opening and closing lines do. It is
    taken when at least three consecutive years, each printed, run up to the total (a line for the later
    years may end them), whether or not it holds — and when the schedule is whole: its first year starts
    the table or follows a line without a figure (a heading). A figure line that names no year above the
    years means the run is a part (a page foot read as a row split a schedule that ran over a page
    break), and a part does not add up to the total. So is a ``partial`` table that starts with its first
    year: the top of a page carrying on a schedule whose first years the page before printed.
    """
    run: list[int] = []
    years_in_run = 0
    next_year: int | None = None  # the year of the line below, walking up
    for r in reversed(visible):
        label = normalise_label(by_index[r].label)
        years = _SCHEDULE_YEAR.findall(label)
        if not run and _SCHEDULE_LATER.search(label):
            pass  # the later years' line, last of the schedule ("Thereafter", "2028 and after")
        elif len(years) == 1 and (next_year is None or int(years[0]) == next_year - 1):
            next_year = int(years[0])
            years_in_run += 1
        else:
            break
        run.insert(0, r)
    if years_in_run < TREE_SETTINGS.min_schedule_years or any(columns[0] not in grid.get(r, {}) for r in run):
        return None
    above = visible.index(run[0]) - 1
    if above >= 0 and columns[0] in grid.get(visible[above], {}):
        return None
    if partial and above < 0 and min(by_index) == run[0]:
        return None
    structure = Structure(total, tuple((r, 1) for r in run), "sum")
    result = evaluate(structure, grid, columns[0])
    return Resolution(structure, True) if result is not None and result.nonzero_components >= 2 else None
