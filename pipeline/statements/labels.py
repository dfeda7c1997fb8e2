"""What a row's label says about its place in the tree.

Cleaned of print marks (:func:`clean_label`); whether it calls itself a total, a subtotal, an opening or a
closing balance (:func:`total_strength`); whether it names a cost, subtracted when printed positive
(:func:`label_sign`). The kind of figure its line holds (amounts, per-share amounts or share counts, which
never add up together) is read by :mod:`pipeline.figures.line_kinds`, as facts read it too. These are the
statement's own words for its structure; :mod:`pipeline.statements.totals` weighs them against the figures.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from pipeline.figures.grid import RowView
from pipeline.figures.periods import parse_period
from pipeline.figures.taxonomy import Taxonomy, normalise_label
from pipeline.statements.settings import TREE_SETTINGS
from pipeline.statements.structures import Figure

__all__ = [
    "BASIC",
    "CLOSING_LABEL",
    "DILUTED",
    "OPENING_LABEL",
    "TOTAL_LABEL",
    "after_deduction",
    "clean_label",
    "heading_sign",
    "label_sign",
    "named_change",
    "named_closing",
    "named_opening",
    "placed_total",
    "table_names",
    "total_strength",
]


DILUTED = re.compile(r"\bdilut")
"""A label of the diluted calculation ("Diluted", "dilutive")."""
BASIC = re.compile(r"\bbasic\b")
"""A label of the basic calculation."""

_DOT_LEADERS = re.compile(r"(?:\s*[.·…_]){3,}\s*")
"""Dot leaders between a label and its figures."""
_FOOTNOTE = re.compile(
    r"(?:\s*\((?:[a-z]|\d{1,2}|[ivx]{1,4})\)|\s*\*+|[\u00b9\u00b2\u00b3\u2070-\u2079]+)+\s*$"
)
"""Footnote marks ending a label: "(a)", "(1)", "(iv)", asterisks, superscript digits."""


def clean_label(label: str) -> str:
    """A label as printed, less dot leaders, footnote marks and a trailing colon.

    Args:
        label: The row label as printed ("Net revenue . . . . . (1)").

    Returns:
        "Net revenue".
    """
    text = _DOT_LEADERS.sub(" ", label)
    text = _FOOTNOTE.sub("", " ".join(text.split()))
    return text.strip().rstrip(":").strip()


# --- the words of totals, balances and costs ---------------------------------------------------------------
# Compiled once, and module constants: they are the vocabulary statements print, not thresholds to tune
# (those are pipeline.statements.settings.TREE_SETTINGS).

TOTAL_LABEL = re.compile(
    r"^(?:total|subtotal|sub total|net (?:increase|decrease|change)|net cash)\b|\btotal$|"
    r"\bend of (?:the )?(?:fiscal )?(?:year|period|quarter|month)\b|"
    # Chinese statements: "…合计" (total), "…总计" (grand total), "…小计" (subtotal), "…净额" (net amount).
    r"(?:合计|合計|总计|總計|小计|小計|净额|淨額)$"
)
"""A label saying its line is a total ("Total …", "Net cash …", "… end of year")."""

# The income statement's subtotals, whatever the filer calls them exactly.
_SUBTOTAL_LABEL = re.compile(
    r"^(?:net |comprehensive )?(?:income|earnings|profit|loss|result)s?\b.*\bbefore\b|"
    r"^(?:net |total )?(?:comprehensive )?(?:income|earnings|profit|loss)(?: \w+){0,2} attributable to\b|"
    r"^(?:adjusted |consolidated |total |segment )?(?:ebitda|ebitdar|ebita|ebit|noi|ffo|affo)\b|"
    r"^(?:adjusted )?free cash flow\b|"
    r"^(?:income|earnings|profit|loss) from (?:continuing )?operations\b|^operating (?:income|profit|loss)\b|"
    r"^gross (?:profit|margin)\b|"
    # Japanese statements: ordinary profit (keijō rieki) is operating profit plus non-operating income less
    # non-operating expenses.
    r"^ordinary (?:profit|income|loss)\b|"
    # A non-GAAP reconciliation's result: the GAAP figure plus the adjustments printed above it.
    r"^adjusted\b|\(non-gaap(?: measures?)?\)|^non-gaap\b"
)
CLOSING_LABEL = re.compile(
    r"^(?:balances?|ending balance|closing balance|balance end)\b(?!.*\b(?:beginning|begin|opening)\b)|"
    r"\bend of (?:the )?(?:fiscal )?(?:year|period|quarter|month)\b|^(?:ending|closing)\b|期末|"
    # "Accrued restructuring action balances as of December 31, 2018": a named balance at a date
    r"^(?!.*\b(?:beginning|begin|opening)\b).+ balances? (?:as of|at) "
)
"""A closing balance: the total of a roll-forward, whose blank cells are nil."""
OPENING_LABEL = re.compile(
    r"\b(?:beginning|opening|begin)\b.*\b(?:balance|year|period|quarter)\b|^(?:beginning|opening) balance\b|"
    r"^balances?,? (?:at )?(?:beginning|begin|opening)\b|期初|年初"
)
"""An opening balance: where a roll-forward's run of lines begins."""
_AT_WHEN = re.compile(
    r"^(?P<stem>[a-z].*?) (?:at|as of|as at) (?P<when>.+)$|"
    r"^(?P<stem2>[a-z].*?) (?P<when2>[a-z]+ \d{1,2} (?:19|20)\d\d)$"
)
"""A balance named with its moment: "options outstanding at january 28 2023", or with the date alone after
its name ("Equity, December 31, 2013", normalised "equity december 31 2013")."""
_BEGINNING = re.compile(r"^(?:the )?(?:beginning|start) of (?:the )?(?:fiscal )?(?:year|period|quarter)$")
_END = re.compile(r"^(?:the )?end of (?:the )?(?:fiscal )?(?:year|period|quarter)$")


def _moment(when: str) -> str | None:
    """A label's moment as a sortable key ("january 28 2023": "2023-01-28"); a period's beginning first.

    A day must be printed in full; the beginning of a period sorts before every day and its end after.
    """
    if _BEGINNING.match(when):
        return ""
    if _END.match(when):
        return "~"
    period = parse_period(when)
    return period.end_date if period is not None and period.kind == "instant" else None


def _named_moment(label: str) -> tuple[str, str] | None:
    """The balance a normalised label names and the moment it names it at (:func:`_moment`), if any."""
    m = _AT_WHEN.match(label)
    if m is None:
        return None
    stem, moment = (m["stem"], _moment(m["when"])) if m["stem"] else (m["stem2"], _moment(m["when2"]))
    return (stem, moment) if moment is not None else None


def _opens(closing: tuple[str, str] | None, above: str) -> bool:
    """Whether ``above`` names the balance of ``closing`` (:func:`_named_moment`) at an earlier moment."""
    if closing is None or not above.startswith(closing[0]):
        return False
    early = _named_moment(above)
    return early is not None and early[0] == closing[0] and closing[1] > early[1] and early[1] != "~"


def named_opening(closing: str, above: str) -> bool:
    """Whether ``above`` opens the roll-forward that ``closing`` closes, both normalised labels.

    The two name one balance at two moments, the later below: "options outstanding at the beginning of
    the year" or "outstanding at december 31 2021" above "options outstanding at january 28 2023" or
    "outstanding at december 31 2022" (an option or award table, whose lines name no balance).
    """
    return _opens(_named_moment(closing), above)


def named_closing(label: str, section: Collection[str]) -> bool:
    """Whether a line closes a roll-forward a line above it in its section opens (:func:`named_opening`).

    The line's own name and moment are read once, and only lines that start with its name are read again.
    """
    closing = _named_moment(label)
    return closing is not None and any(_opens(closing, above) for above in section)


_CHANGE_IN = re.compile(r"^(?:net |total )?(?:change|increase|decrease|movement)s? in (?P<stem>.+)$")
"""A line of the change in a named balance ("Change in Standardized Tier 2 capital")."""


def named_change(label: str, below: str) -> bool:
    """Whether a line is the change in the balance the line below it closes, both normalised labels.

    "Change in Tier 1 capital" over "Tier 1 capital at March 31, 2021": the movements between the opening
    balance and it add up to it, and it is what the closing balance adds to the opening one (a bank's
    capital roll-forward). The label does not say it is a total; its place says it.
    """
    m = _CHANGE_IN.match(label)
    closing = _named_moment(below) if m is not None else None
    return m is not None and closing is not None and closing[0] == m["stem"]


_COST_WORDS = re.compile(
    r"\b(?:costs?|expenses?|losses|loss|tax|taxes|provision|depreciation|amortization|impairments?|less|"
    r"deduct\w*|charges?|write-?downs?|dividends?|repurchases?|purchases?|payments?|repayments?|"
    r"withdrawals?|minority interests?|non-?controlling interests?)\b|^减 "
)
"""Words of a line subtracted when printed positive (costs, expenses, taxes, payments …)."""
_DEDUCTION_LINE = re.compile(
    r"^\W*less\b|^\W*accumulated (?:depreciation|amortization|depletion)\b", re.IGNORECASE
)
"""A line deducted from the one above ("Less: accumulated depreciation")."""
_WHOLE = re.compile(r"^(?:group|consolidated)\b")
"""A line named for the whole entity ("Group revenue", "Group", "Consolidated net sales")."""
_GAIN_WORDS = re.compile(r"\b(?:income|gains?|revenues?|sales|proceeds|profit|benefit)\b(?! tax)")
"""Words that make a line a gain whatever cost word it holds ("Gain on sale", "Tax benefit")."""


def total_strength(
    row: RowView,
    previous: RowView | None,
    taxonomy: Taxonomy,
    section: Collection[str] = (),
) -> int:
    """How strongly a row looks like a total of the rows above it.

    Args:
        row: The row.
        previous: The data row just above it, if any.
        taxonomy: To recognise total metrics ("Gross profit", "Operating income").
        section: The normalised labels of the lines above it in its section.

    Returns:
        2 for "Total …"/"Subtotal"/"Net increase in cash …", closing balances (named so, or named as an
        opening line above, :func:`named_closing`) and total metrics; 1 (weak)
        for unlabelled rows, "Net …", "Gross …", "Group …" and "Consolidated …" rows; 0 otherwise, what
        the label says being all: a row's place (:func:`placed_total`) is read apart.
    """
    label = normalise_label(row.label)
    if (
        label
        and (TOTAL_LABEL.search(label) or CLOSING_LABEL.search(label))
        and not OPENING_LABEL.search(label)
    ):
        return 2
    if label and _SUBTOTAL_LABEL.search(label):
        return 2
    metric = taxonomy.match(row.label) if label else None
    if metric is not None and metric.is_total:
        return 2
    if (
        not label
        or label.startswith(("net ", "gross "))
        or named_closing(label, section)
        or _WHOLE.match(label)
    ):
        # "Net unrealized gains" is often a subtotal, but "Net sales" or "Net interest" are not; "Gross
        # property, plant and equipment" adds the classes above it, at their indent, before the deduction
        # that makes it net, while "Gross unrealized gains" adds nothing: the figures decide. "Group
        # revenue" or "Consolidated net sales" under the segments' lines is their sum, the whole entity's,
        # though "Group pension plans" is no total: again the figures decide.
        return 1
    stem = label[: -len(" net")]
    if label.endswith(" net") and (
        (previous is not None and _DEDUCTION_LINE.search(previous.label))
        or stem in section
        or f"{stem} gross" in section
    ):
        # "Property, plant and equipment" / "Less: accumulated depreciation" / "Property, plant and
        # equipment, net": the line after a deduction that calls itself net is the difference of the two;
        # "Deferred card and other fees" (or "…, gross") … "Deferred card and other fees, net": the line it
        # is net of is printed above, in its section, and the lines between are what it is net of.
        return 1
    return 0


def after_deduction(row: RowView, previous: RowView | None) -> bool:
    """Whether a row is printed under a deduction line ("Less: Amounts representing interest") and is none.

    The line under "Less: …" is often what is left of the line above it, whatever it calls itself ("Present
    value of future minimum lease payments"); it may as well be the next line of a list ("Noncontrolling
    interest" under "Less: Treasury stock"): only the two lines above it adding up to it say which.
    """
    return (
        previous is not None
        and bool(_DEDUCTION_LINE.search(previous.label))
        and not _DEDUCTION_LINE.search(row.label)
    )


def placed_total(row: RowView, previous: RowView | None) -> bool:
    """Whether a row's place makes it a (weak) total: outdented from the row above, or under a rule.

    US filings underline the figures a total adds up, and print a total left of its items; the label
    says nothing, so the figures must prove it.
    """
    outdented = (
        previous is not None
        and row.indent is not None
        and previous.indent is not None
        and row.indent < previous.indent - TREE_SETTINGS.outdent_points
    )
    return outdented or row.ruled


def label_sign(
    row: RowView,
    grid: Mapping[int, Mapping[int, Figure]],
    label: str | None = None,
    section: int | None = None,
) -> int:
    """−1 for a cost printed positive (it is subtracted), +1 otherwise; by ``label`` when given.

    ``section``: the sign its section's heading gives every line under it (:func:`heading_sign`), which
    overrules the line's own words: "Depreciation" under "Add:" is added back. A line that begins "Less:"
    says so itself, whatever its other words ("Less: Amounts representing interest", which the normalised
    label no longer begins with).
    """
    deducted = label is None and bool(_DEDUCTION_LINE.match(row.label))
    label = normalise_label(row.label) if label is None else label
    if section is not None:
        if section > 0:
            return 1
    elif not deducted and (
        not _COST_WORDS.search(label) or _GAIN_WORDS.search(label.replace("income tax", "tax"))
    ):
        return 1
    values = [v.value for v in grid.get(row.index, {}).values() if v.value != 0.0]
    positive = sum(1 for v in values if v > 0) * 2
    # Under "Less:" a line printed positive in half its columns is subtracted: the heading (or the line's
    # own "Less:") says so, and a figure in parentheses there is a negative deduction (or a sign keyed
    # wrong), not the convention.
    said = section is not None or deducted
    return -1 if values and (positive > len(values) or (said and positive == len(values))) else 1


_SIGNED_HEADING = re.compile(
    r"^(?:(add|plus|(?:the )?effects? of dilutive(?: potential)?(?: common| ordinary)? (?:securities|shares)|"
    r"dilutive effects? of)|(less|deduct|subtract|minus))(?: back)?\W*$"
)


def heading_sign(label: str) -> int | None:
    """+1 under a heading "Add:" ("Add back:", "Effect of dilutive securities:"), −1 under "Less:"; else None.

    A reconciliation (net operating income to net income, net income to adjusted EBITDA, basic to diluted
    shares) says in its section headings whether the lines below are added or subtracted, whatever their
    own words say.
    """
    # (the raw words: normalising drops a leading "Add" from "Add back")
    m = _SIGNED_HEADING.match(" ".join(re.findall(r"[a-z]+", label.lower())))
    if m is None:
        return None
    return 1 if m.group(1) else -1


_UNIT_NOTE = re.compile(r"(?:\s*\([^()]*\))+\s*:?\s*$|\s*:\s*$")
"""A title's trailing unit note ("(€ million)", "(in thousands):") or colon."""


_INTRODUCES = re.compile(
    r"^(?:the )?(?:(?:components|major classes|details) of )?(?P<subject>(?:\S+ ){0,7}?\S+),? "
    r"(?:consist(?:ed|s)? of|comprise[ds]?|(?:were|are|is|was) (?:comprised|composed|made up) of|"
    r"(?:were|are|is|was) (?:summarized )?as follows)\b"
)
"""A sentence introducing a table by what it breaks down ("Inventories consisted of the following")."""


def table_names(*lines: str | None) -> set[str]:
    """What a table's title lines call it, normalised, without trailing notes ("(continued) (€ million)").

    A sentence that introduces the table names it by its subject: "Inventories consisted of the following
    (in millions):" calls it "inventories", and a last line "Inventories" is its total.
    """
    names: set[str] = set()
    for line in lines:
        name = normalise_label(_UNIT_NOTE.sub("", line)) if line else ""
        if name:
            names.add(name)
            if (m := _INTRODUCES.match(name)) is not None:
                names.add(m["subject"])
    return names
