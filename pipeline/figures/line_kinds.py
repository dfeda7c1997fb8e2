"""The kind of figure a table's line holds: amounts, per-share amounts or share counts.

Read from the line's label ("Basic earnings per share", "Weighted-average shares outstanding"), or, where
the label says none, from its section heading ("Basic earnings (loss) per share:" over "Net income
attributable to common stockholders") or the lines around it. Lines of different kinds never add up
together (:mod:`pipeline.statements`), and a per-share line is never a fact of an amount
(:mod:`pipeline.figures.facts`: AES's "Net income attributable to The AES Corporation" under "Basic earnings
per share:" printed 0.22, which the table's millions made 220,000 of net income).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pipeline.figures.grid import RowView
from pipeline.figures.taxonomy import normalise_label

__all__ = ["headings_over", "line_item", "line_kinds", "numerator_label"]


# A line of per-share amounts or of share counts, by how such lines begin; a balance sheet's "Common
# stock, $0.01 par value per share; 900 shares authorized" is an amount.
_PER_SHARE_LINE = re.compile(
    r"^(?:basic|diluted|net (?:income|earnings|loss)|(?:income|earnings|loss)(?: from \w+(?: \w+)?)?|"
    r"(?:cash )?dividends?(?: declared| paid)?|book value|eps)\b.{0,40}\bper (?:common |ordinary |basic |"
    r"diluted )?(?:share|unit|ads)\b|^(?:basic |diluted )?(?:earnings|loss|income) per\b|^eps\b"
)
_SHARES_LINE = re.compile(
    r"^(?:(?:adjusted|non-gaap|gaap) )?(?:basic |diluted )?"
    r"(?:weighted[- ]average(?: number of)?(?: basic| diluted)?(?:(?: [\w&.]+)? common| ordinary)? shares|"
    r"number of (?:common |ordinary )?shares|(?:common |ordinary )?shares used (?:in|to|for)\b|"
    r"(?:common |ordinary )?shares outstanding(?: basic| diluted)?$|units outstanding)"
)


_FIGURE = re.compile(r"(?<![a-z0-9])\d(?:[\d,.]*\d)?(?![a-z0-9])")
"""A figure printed in a label ("$5.88 per share", "1,228 shares issued"); a name's digits ("3M common
shares", glued to its letters) are none."""

# The numerator line of the calculation names what it is used for: "Net income attributable to X used in
# basic earnings per common share calculation", "Net income for diluted earnings per share". The clause says
# where the amount goes, not what it is: the line is earnings, not a per-share figure.
_USED_IN = re.compile(
    r"\b(?:used in|for|used for|used to) (?:the )?(?:computing |computation of |calculation of |calculating |"
    r"compute |calculate )?"
    r"(?:basic |diluted )?(?:and diluted )?(?:net )?(?:earnings|income|loss) per "
    r"(?:common |ordinary )?share\b.*$"
)


def numerator_label(label: str) -> str:
    """A line's normalised label without a clause naming the per-share calculation it is used for."""
    return _USED_IN.sub("", normalise_label(label)).strip()


def line_item(label: str) -> str:
    """A line's normalised label without the section heading printed before it on the same line.

    "Basic earnings per common share: Net earnings allocable to common shares" is the numerator's line
    under a heading the table set on its first line. The heading goes only when what follows names a line
    of its own (two words or more): "Earnings per share: Basic" is the per-share line.
    """
    _, colon, item = label.rpartition(": ")
    item = normalise_label(item)
    return item if colon and len(item.split()) >= 2 else normalise_label(label)


_AMOUNT_UNDER_PER_SHARE = 50.0
"""How many times a per-share line's figures a line that takes its kind from a per-share heading must
print in every column to be the heading's numerator, an amount: earnings in millions over a per-share
figure are the share count in millions, hundreds for a listed company, while two per-share figures of one
column (earnings and dividends per share) are seldom fifty times apart."""


def _line_kind(label: str) -> str:
    """Amounts, per-share amounts or share counts: lines of different kinds never add up together."""
    text = numerator_label(label)
    if "par value" in text or _FIGURE.search(text):
        return "amount"  # "Dividends declared ($5.88 per share)": an amount, described
    if _PER_SHARE_LINE.search(text):
        return "per_share"
    # "Shares used in computing basic net income per share": the clause goes, and the count with it.
    if _SHARES_LINE.search(text) or _SHARES_LINE.search(normalise_label(label)):
        return "shares"
    return "amount"


def headings_over(rows: Sequence[RowView]) -> dict[int, RowView | None]:
    """Each line's section heading: the nearest label-only row above it (None above the first one)."""
    out: dict[int, RowView | None] = {}
    heading: RowView | None = None
    for row in rows:
        if row.is_heading:
            heading = row
            continue
        out[row.index] = heading
    return out


def line_kinds(rows: Sequence[RowView]) -> dict[int, str]:
    """Each row's kind.

    A row whose label says none ("Basic") takes its section heading's; failing that, lines that say none
    between two lines of one kind other than amounts take that kind: "Employee stock awards" under "Effect
    of dilutive securities:", between the basic and the diluted weighted-average shares, is a share count
    (the heading says nothing of it: the same heading may stand over the numerator's interest add-back).
    """
    own = {row.index: _line_kind(row.label) for row in rows}
    headings = headings_over(rows)
    kinds = {
        r: own[r] if own[r] != "amount" or heading is None else own[heading.index]
        for r, heading in headings.items()
    }
    kinds |= _numerators_under_per_share(rows, kinds, headings)
    run: list[int] = []  # lines that say no kind since the last line that does
    before: str | None = None
    for r in kinds:
        if kinds[r] == "amount":
            run.append(r)
            continue
        if run and before == kinds[r]:
            kinds.update(dict.fromkeys(run, before))
        run, before = [], kinds[r]
    return kinds


def _numerators_under_per_share(
    rows: Sequence[RowView], kinds: dict[int, str], headings: Mapping[int, RowView | None]
) -> dict[int, str]:
    """Lines that take "per share" from a heading but print amounts: the earnings the heading divides.

    FedEx sets "Basic earnings per common share:" before "Net earnings allocable to common shares" on one
    line, 3,966 beside the basic earnings per share's 15.60: a per-share figure that large is the
    numerator. Only lines whose own item names no per-share figure, and only beside a line that does or,
    where none does, beside the other lines under the same heading.
    """
    labels = {row.index: row.label for row in rows}
    heading = {r: h.index if h else None for r, h in headings.items()}
    own = {
        row.index: {c: abs(x.number.value) for c, x in row.numbers.items() if x.number is not None}
        for row in rows
        if kinds.get(row.index) == "per_share"
    }
    said = {r for r in own if _line_kind(line_item(labels[r])) == "per_share"}
    out: dict[int, str] = {}
    for r, figures in own.items():
        if r in said or not figures:
            continue
        # Where no line names a per-share figure ("Net earnings/(loss)" under "Basic Earnings Per Common
        # Share:"), the heading's other lines are the per-share lines the numerator is fifty times.
        peers = said or {s for s in own if s != r and heading.get(s) == heading.get(r)}
        beside = {c: max((own[s].get(c, 0.0) for s in peers), default=0.0) for c in figures}
        if all(beside[c] > 0.0 and v >= _AMOUNT_UNDER_PER_SHARE * beside[c] for c, v in figures.items()):
            out[r] = "amount"
    return out
