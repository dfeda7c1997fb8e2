"""EPS001: earnings per share are the earnings divided by the weighted-average shares.

An income statement, an earnings-per-share note or an earnings release's reconciliation prints, per
period, the earnings, the basic and diluted weighted-average shares and the basic and diluted earnings per
share. That division is arithmetic the filing states once per column; a keying error in any of the three
figures breaks it in that column.

No pairing is assumed from labels alone. In one table, for each per-share line (basic or diluted, by its
label or its section's heading) and each share-count line of the same kind, every line of earnings ("Net
income", "Net income attributable to …", "Income from continuing operations", "Adjusted net income") is
tried, at each power of a thousand between the captions (shares "in thousands" beside earnings "in
millions"); the pairing and power that hold in the most columns are the table's. They must hold in at least
two columns and in two of every three columns where all three figures are printed; a column where they
then fail is flagged, unless another line of earnings explains it (earnings per share from continuing
operations); a per-share line "from continuing operations" is paired only with earnings that say so. The
comparison allows the per-share figure's rounding, the earnings' and the shares' rounding carried through
the division, and a cent or 3 % for the two-class method (earnings allocated to participating
securities). A loss year's diluted loss per share printed as the basic one is antidilution, not a break,
whatever diluted share count the column prints.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pipeline.checks.rule import PrintedFigure, Rule
from pipeline.checks.tolerance import keying_relation
from pipeline.figures.grid import RowView, row_labels
from pipeline.figures.keying import keyed_variants
from pipeline.figures.line_kinds import headings_over, line_item, line_kinds, numerator_label
from pipeline.figures.rounding import half_unit
from pipeline.figures.taxonomy import normalise_label
from pipeline.statements.build import with_tables
from pipeline.statements.columns import statement_rows
from pipeline.statements.labels import BASIC, DILUTED
from schemas.models import Flag, Statement, Table

__all__ = ["RULE", "check_per_share"]

RULE = Rule(
    "EPS001",
    "sum_mismatch",
    "error",
    "Earnings per share equal the earnings divided by the weighted-average shares.",
    "the earnings, shares and per-share lines pair up in at least two columns and two of every three, or "
    "in one when the earnings line names the per-share calculation it is used for",
)
_NAMED = "the earnings line names the calculation it is used for, and the lines pair up in another column"

_EARNINGS = re.compile(
    r"^(?:adjusted |non-gaap |gaap )?(?:net )?(?:income|earnings|loss|\(loss\) income|income \(loss\)|"
    r"earnings \(loss\)|profit)\b(?!.*\bper\b)(?!.*\b(?:before|margin|tax(?:es)?)\b)"
)
_POWERS = (0, 3, -3, 6, -6)
_TWO_CLASS = 0.03
"""Relative room for earnings allocated to participating securities (the two-class method) and for
quarterly figures of a column read beside another quarter's shares: a keying error worth flagging moves
the quotient by far more (a digit dropped, doubled, the sign)."""
_QUALIFIER = re.compile(r"\b(?:continuing|discontinued)\b")
_CENT = 0.011
_PER_SHARE_WORDS = re.compile(
    r"\b(?:basic|diluted|and|(?:earnings |income )?per (?:common |ordinary )?share)\b"
)
_WHOSE = re.compile(r"\b(?:attributable|available|applicable|allocable|allocated) (to .+)$")


@dataclass(frozen=True, slots=True)
class _Test:
    col: int
    ok: bool
    expected: float
    eps: PrintedFigure
    shares: PrintedFigure
    earnings: PrintedFigure
    exact: bool
    """Holds within the figures' rounding alone, without the room for the two-class method."""
    power: int
    """The power of ten between the captions: ``expected`` is earnings over shares times 10**power."""


def _figures(rows: Sequence[RowView], columns: Sequence[int]) -> dict[int, dict[int, PrintedFigure]]:
    """Each row's figures as printed (the division fixes the powers of a thousand itself)."""
    out: dict[int, dict[int, PrintedFigure]] = {}
    for row in rows:
        for col, cell in row.numbers.items():
            n = cell.number
            if col not in columns or n is None or n.unit in ("percent", "ratio"):
                continue
            if (f := PrintedFigure.of(cell)) is not None:  # (dashes left out)
                out.setdefault(row.index, {})[col] = f
    return out


def _headed(rows: Sequence[RowView], heads: Mapping[int, RowView | None]) -> dict[int, str]:
    """Each line's label after its section heading's ("… per share from continuing operations: GAAP")."""
    by_index = {row.index: row for row in rows}
    return {
        r: f"{normalise_label(heading.label) if heading else ''} {normalise_label(by_index[r].label)}".strip()
        for r, heading in heads.items()
    }


def _flavour(label: str, headed: str) -> str | None:
    """Basic or diluted, by a line's own label or else its section heading's; the first named where both are.

    "Shares used to compute basic net income per share" is the basic count whatever follows it (a wrapped
    label's next line, "Dilutive potential common shares ...", read onto it); "basic and diluted" is one
    figure for both, paired as the basic one with the counts that say the same.
    """
    for text in (label, headed):
        diluted, basic = DILUTED.search(text), BASIC.search(text)
        if diluted and (basic is None or diluted.start() < basic.start()):
            return "diluted"
        if basic:
            return "basic"
    return None


def _own_flavour(label: str, heading: str = "") -> str | None:
    """The calculation a line of earnings names for itself, or else its section heading names for it.

    None where the first of them to name one names both ("basic and diluted"). Under "Basic Earnings Per
    Common Share:", "Net income attributable to common shareholders" is the basic numerator; the same line
    under "Diluted …" is the diluted one, though both print the same figures in most years.
    """
    for text in (label, heading):
        diluted, basic = DILUTED.search(text), BASIC.search(text)
        if diluted or basic:
            return None if diluted and basic else _flavour(text, "")
    return None


def _counts(
    figs: Mapping[int, object],
    kinds: Mapping[int, str],
    flavours: Mapping[int, str | None],
    labels: Mapping[int, str],
    heads: Mapping[int, RowView | None],
) -> dict[str, list[int]]:
    """The share counts a per-share line of each flavour may divide by.

    Under "Diluted Earnings Per Common Share:" the weighted-average shares, the effect of dilutive awards
    and the count including it are all share lines the heading makes diluted; the first is the basic count
    the last adds up from. Where a line names its flavour itself, it is the count; otherwise, of the lines
    that take it from their heading, each heading's last.
    """
    out: dict[str, list[int]] = {}
    for flavour in {f for r, f in flavours.items() if f and kinds.get(r) == "shares" and r in figs}:
        rows = [r for r in figs if kinds.get(r) == "shares" and flavours.get(r) == flavour]
        named = [r for r in rows if _flavour(normalise_label(labels[r]), "") == flavour]
        last = {(h.index if (h := heads.get(r)) else None): r for r in rows}
        out[flavour] = named or sorted(last.values())
    return out


def _numerators(
    earnings: Sequence[int],
    own: Mapping[int, str | None],
    headed: Mapping[int, str],
    eps: str,
    flavour: str | None,
) -> list[int]:
    """The lines of earnings that may divide to a per-share line of ``flavour`` headed ``eps``.

    "… per share from continuing operations" divides those earnings, not net income. "Net income for
    diluted earnings per share" is the diluted numerator, never the basic one's; where a line names the
    flavour, it is the numerator, and net income beside it (equal to it in most years) is not tried: a
    misprint in the named line would otherwise be read as the other line's pairing.
    """
    wanted = set(_QUALIFIER.findall(eps))
    same = [
        r
        for r in earnings
        if set(_QUALIFIER.findall(headed.get(r, ""))) == wanted and own[r] in (None, flavour)
    ]
    named = [r for r in same if own[r] == flavour]
    return named or same


def _whose(label: str) -> str | None:
    """Whose earnings a normalised line says it divides or prints, or None where it says none.

    "to 3m" in "Net income attributable to 3M — basic", "to common stockholders" in "Basic earnings per
    share attributable to common stockholders".

    Such a per-share line divides its owners' earnings, never the consolidated net income printed above it:
    the noncontrolling interests' share, small in some years, would make that pairing hold there and fail
    where it is not. It pairs only with earnings lines that name owners too ("Net income attributable to
    3M" beside "Earnings per share attributable to 3M common shareholders").
    """
    found = _WHOSE.search(" ".join(_PER_SHARE_WORDS.sub(" ", label).split()))
    return found[1] if found else None


def _test(
    col: int, eps: PrintedFigure, shares: PrintedFigure, earnings: PrintedFigure, power: int
) -> _Test | None:
    if shares.value == 0.0 or eps.value == 0.0:
        return None
    ratio = earnings.value / shares.value * 10.0**power
    h_e = half_unit(earnings.places)
    h_s = half_unit(shares.places)
    carried = abs(ratio) * (h_e / max(abs(earnings.value), 1e-12) + h_s / abs(shares.value))
    rounding = half_unit(eps.places) + carried
    tolerance = rounding + max(_CENT, _TWO_CLASS * abs(eps.value))
    off = abs(ratio - eps.value)
    exact = off <= rounding * (1 + 1e-9) + 1e-12
    return _Test(col, off <= tolerance, ratio, eps, shares, earnings, exact, power)


def _strict(tests: Sequence[_Test]) -> list[_Test]:
    """The tests judged within rounding alone, when the table shows it needs no more.

    The room for the two-class method (and a cent) is there for filers that allocate earnings to
    participating securities; a table whose other columns of earnings of the same sign all divide exactly
    allocates nothing, and a swapped digit in its shares (710 for 701: 1.3 %) is then no allocation.
    """
    out: list[_Test] = []
    for t in tests:
        peers = [x for x in tests if x.col != t.col and (x.earnings.value > 0) == (t.earnings.value > 0)]
        exact_peers = bool(peers) and all(x.exact for x in peers)
        out.append(replace(t, ok=False) if exact_peers and t.ok and not t.exact and _keyed(t) else t)
    return out


_KEYED = ("swap", "digit", "digit_count", "scale")


def _keyed(t: _Test) -> bool:
    """Whether one of the three figures, re-keyed, makes the division hold within rounding.

    What this rule cannot tell from an allocation to participating securities or a numerator adjusted
    elsewhere (892 over 102.5 shares for a printed 8.72) is a near miss; a keying error in one figure is no
    allocation. A last digit wrong is a near miss too.
    """
    factor = 10.0**t.power
    needed = (
        (t.eps, t.expected),
        (t.shares, t.earnings.value * factor / t.eps.value),
        (t.earnings, t.eps.value * t.shares.value / factor),
    )
    for fig, value in needed:
        target = round(value, fig.places)
        kind = keying_relation(fig.value, fig.places, target, fig.places)
        if kind in _KEYED:  # (a last digit wrong is a near miss to keying_relation)
            return True
    return False


def _antidilutive(t: _Test, basic: Sequence[PrintedFigure]) -> bool:
    """A diluted loss per share printed as the basic one: the loss over the basic shares.

    Dilutive shares would make a loss per share smaller, so they are left out of a loss year's diluted
    figure (ASC 260-10-45-20, IAS 33.43), whatever count the table's diluted share line prints in that
    column. The basic figure is checked against the basic shares on its own.
    """
    return t.earnings.value < 0 and any(
        abs(b.value - t.eps.value) <= half_unit(min(b.places, t.eps.places)) for b in basic
    )


def _triples(
    figs: Mapping[int, Mapping[int, PrintedFigure]],
    eps_row: int,
    share_row: int,
    earnings_rows: Sequence[int],
) -> list[tuple[int, int, list[_Test]]]:
    """Every earnings line and power with its tests, best first.

    Most columns holding first, then fewest failing, then most holding within rounding alone.
    """
    out: list[tuple[int, int, list[_Test]]] = []
    for earn in earnings_rows:
        for power in _POWERS:
            tests = [
                t
                for col, e in figs[eps_row].items()
                if (s := figs[share_row].get(col)) is not None
                and (i := figs.get(earn, {}).get(col)) is not None
                and (t := _test(col, e, s, i, power)) is not None
            ]
            out.append((earn, power, tests))
    # Of pairings equally good, the one that divides within rounding alone: net income attributable to the
    # parent (893) over net income (892), when the per-share figures are the parent's.
    out.sort(
        key=lambda x: (-sum(t.ok for t in x[2]), sum(not t.ok for t in x[2]), -sum(t.exact for t in x[2]))
    )
    return out


_ELSEWHERE = (
    "the basic and the diluted per-share figures of this column both divide the same earnings, which the "
    "table does not print, and no keying error of the printed earnings gives them: a numerator adjusted "
    "elsewhere (redeemable interests, preferred dividends), not a misprint"
)


def _implied(t: _Test) -> tuple[float, float]:
    """The earnings the per-share figure and its shares give, and how far rounding may move them."""
    factor = 10.0**t.power
    value = t.eps.value * t.shares.value / factor
    room = (
        half_unit(t.eps.places) * abs(t.shares.value) + half_unit(t.shares.places) * abs(t.eps.value)
    ) / factor
    return value, room + half_unit(t.earnings.places)


def _adjusted_elsewhere(t: _Test, failed: Sequence[_Test]) -> bool:
    """Whether a failing division is an adjusted numerator rather than a misprint.

    Earnings per share adjusted for redeemable interests or preferred dividends in a note on another page
    divide earnings the table does not print: in that column the basic and the diluted figures both fail,
    over the same printed earnings, and agree on what the earnings are. A keying error does that only in
    the earnings line itself (the per-share figures and share counts are printed apart): so the break is
    the numerator's adjustment when no keyed variant of the printed earnings is the earnings they agree on.
    A share count both divisions print (a loss year's "basic and diluted") could be the misprint instead.
    """
    peers = [
        x
        for x in failed
        if x.col == t.col
        and x.power == t.power
        and x.earnings.cell.row == t.earnings.cell.row
        and x.eps.cell.row != t.eps.cell.row
        and x.shares.cell.row != t.shares.cell.row
    ]
    if not peers:
        return False
    value, room = _implied(t)
    lo, hi = value - room, value + room
    for x in peers:
        v, r = _implied(x)
        lo, hi = max(lo, v - r), min(hi, v + r)
    if lo > hi:
        return False
    return not any(lo <= v <= hi for v, _ in keyed_variants(t.earnings.value, t.earnings.places))


def _explained(t: _Test, earn: int, others: Sequence[tuple[int, int, list[_Test]]]) -> bool:
    """Whether a line of earnings other than ``earn`` (continuing operations) gives the figure."""
    return any(
        x.ok
        for other, power, tests in others
        if power == t.power and other != earn
        for x in tests
        if x.col == t.col
    )


def _flag(
    table: Table, statement: Statement, test: _Test, holds: int, labels: Mapping[int, str], proof: str | None
) -> Flag:
    head = next((c.header for c in statement.columns if c.col == test.col), f"column {test.col}")
    eps_label = labels[test.eps.cell.row]
    message = (
        f"{eps_label} ({' '.join(head.split())}) printed {test.eps.cell.text.strip()} but "
        f"{labels[test.earnings.cell.row]} {test.earnings.cell.text.strip()} over "
        f"{labels[test.shares.cell.row]} {test.shares.cell.text.strip()} shares is {test.expected:,.3f}."
    )

    return RULE.relation_flag(
        table,
        message=message,
        labels=labels,
        printed=test.eps,
        inputs=(test.earnings, test.shares),
        expected=test.expected,
        actual=test.eps.value,
        tolerance=0.0,
        holds=holds,
        proof=proof,
        reasons=[
            f"the same lines give the printed per-share figure in {holds} other column(s)",
            f"{statement.kind.replace('_', ' ')} table on page {statement.pages[0]}",
        ],
    )


def check_per_share(
    tables: Sequence[Table], statements: Sequence[Statement], questions: list[Flag] | None = None
) -> list[Flag]:
    """EPS001 over every table that prints earnings, shares and earnings per share.

    Args:
        tables: The document's tables.
        statements: Their calculation trees (for the value columns and the line kinds).
        questions: Where the breaks of a numerator adjusted elsewhere go, as structure questions
            (:func:`_adjusted_elsewhere`); dropped when None.

    Returns:
        One flag per failing per-share figure.
    """
    flags: list[Flag] = []
    for statement, table in with_tables(statements, tables):
        rows = statement_rows(table)
        kinds = line_kinds(rows)
        if "per_share" not in kinds.values() or "shares" not in kinds.values():
            continue
        figs = _figures(rows, [c.col for c in statement.columns])
        labels = row_labels(rows)
        heads = headings_over(rows)
        headed = _headed(rows, heads)
        flavours = {r: _flavour(normalise_label(labels[r]), headed.get(r, "")) for r in figs}
        earnings = [
            r.index
            for r in rows
            if kinds.get(r.index) == "amount"
            and r.index in figs
            and _EARNINGS.search(numerator_label(line_item(r.label)))
        ]
        # "Net income for basic earnings per share" names its flavour and the calculation it is used for.
        heading = {r: normalise_label(h.label) if (h := heads.get(r)) else "" for r in earnings}
        own = {r: _own_flavour(normalise_label(labels[r]), heading[r]) for r in earnings}
        counts = _counts(figs, kinds, flavours, labels, heads)
        named = {r for r in earnings if numerator_label(labels[r]) != normalise_label(labels[r])}
        seen: set[tuple[int, int]] = set()
        failed: list[tuple[_Test, int, str | None]] = []
        for e in (r for r in figs if kinds.get(r) == "per_share" and flavours.get(r)):
            numerators = _numerators(earnings, own, headed, headed.get(e, ""), flavours[e])
            if _whose(normalise_label(labels[e])) is not None:
                numerators = [r for r in numerators if _whose(numerator_label(line_item(labels[r])))]
            for s in counts.get(flavours[e] or "", ()):
                ranked = _triples(figs, e, s, numerators)
                if not ranked:
                    continue
                earn, _, tests = ranked[0]
                tests = _strict(tests)
                holds = sum(t.ok for t in tests)
                fails = [t for t in tests if not t.ok]
                # "Net income for basic earnings per share" states the pairing: one column then fixes the
                # power, and a two-column note can be checked. Otherwise the columns must prove it.
                by_name = earn in named
                proven = (
                    holds >= 1 and len(fails) <= holds if by_name else holds >= 2 and len(fails) * 2 <= holds
                )
                if not proven or not fails:
                    continue
                basic = [figs[r] for r in figs if kinds.get(r) == "per_share" and flavours.get(r) == "basic"]
                for t in fails:
                    if _explained(t, earn, ranked[1:]):
                        continue
                    if flavours[e] == "diluted" and _antidilutive(t, [b[t.col] for b in basic if t.col in b]):
                        continue
                    if (e, t.col) in seen:
                        continue
                    seen.add((e, t.col))
                    failed.append((t, holds, _NAMED if by_name and holds < 2 else None))
        failing = [t for t, _, _ in failed]
        for t, holds, proof in failed:
            flag = _flag(table, statement, t, holds, labels, proof)
            if not _adjusted_elsewhere(t, failing):
                flags.append(flag)
            elif questions is not None:
                questions.append(flag.model_copy(update={"reasons": [*flag.reasons, _ELSEWHERE]}))
    return flags
