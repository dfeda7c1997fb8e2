"""Generate the sample financial documents and their truth file.

Run ``python -m sample_docs.generate [--out DIR]``. Every figure is generated from a seeded model so that
the statements are internally consistent by construction; a few inconsistencies are then injected on
purpose and recorded in ``truth.json``. The PDFs are written with PyMuPDF and base-14 fonts only, with
fixed metadata, so that the output is byte-for-byte reproducible.

The truth file is derived from what was actually drawn: every numeric cell the renderer prints is recorded
with its page, so the ``pages`` of a fact are where the figure really landed after pagination.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pymupdf

TableStyle = Literal["whitespace", "grid", "filing"]
RowKind = Literal["section", "item", "subtotal", "total", "spacer"]
NegStyle = Literal["paren", "minus"]

SAMPLE_DIR = Path(__file__).resolve().parent
FIXED_DATE = "D:20260301090000Z"
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# Statements that are the primary source of each metric: the truth value of a fact is the value printed
# there; the other copies (summary table, segment note, cash-flow opening line) are matched against it.
PRIMARY: dict[str, str] = {
    "revenue": "is",
    "cost_of_sales": "is",
    "gross_profit": "is",
    "operating_income": "is",
    "profit_before_tax": "is",
    "income_tax": "is",
    "net_income": "is",
    "total_assets": "bs",
    "total_liabilities": "bs",
    "total_equity": "bs",
    "cash_and_cash_equivalents": "bs",
    "operating_cash_flow": "cf",
    "capital_expenditure": "cf",
}


# --------------------------------------------------------------------------------------------------
# Numbers and text
# --------------------------------------------------------------------------------------------------


def round_div(num: int, den: int) -> int:
    """Divide two integers rounding half away from zero (how filings round, unlike ``round``)."""
    q, r = divmod(abs(num), den)
    if 2 * r >= den:
        q += 1
    return q if num >= 0 else -q


def fmt_units(units: int, decimals: int) -> str:
    """Format an integer count of display units (``13382`` with 1 decimal is ``13,382`` -> ``1,338.2``)."""
    whole, frac = divmod(abs(units), 10**decimals)
    text = f"{whole:,}"
    if decimals:
        text += "." + str(frac).zfill(decimals)
    return text


def fmt_amount(units: int, decimals: int, neg: NegStyle, nil: str) -> str:
    """Format a signed amount as a filing prints it: parentheses or minus for negatives, a dash for nil."""
    if units == 0:
        return nil
    text = fmt_units(units, decimals)
    if units > 0:
        return text
    return f"({text})" if neg == "paren" else f"-{text}"


def pct_change(cur: int, prev: int) -> int:
    """Percentage change in tenths of a percent, rounded half away from zero (``84`` means 8.4%)."""
    return round_div((cur - prev) * 1000, abs(prev))


def ratio_pct(part: int, whole: int) -> int:
    """``part / whole`` in tenths of a percent."""
    return round_div(part * 1000, whole)


def fmt_tenths(tenths: int) -> str:
    """Format tenths of a percent without sign: ``84`` -> ``8.4``."""
    return fmt_units(abs(tenths), 1)


def transpose_digits(units: int) -> int:
    """Swap the first pair of adjacent, different digits of a printed figure (a classic keying error)."""
    digits = list(str(abs(units)))
    # Start from the middle: a slip in the leading digits would be too blatant to be realistic.
    start = max(0, len(digits) // 2 - 1)
    order = [*range(start, len(digits) - 1), *range(start)]
    for i in order:
        if digits[i] != digits[i + 1] and not (i == 0 and digits[i + 1] == "0"):
            digits[i], digits[i + 1] = digits[i + 1], digits[i]
            swapped = int("".join(digits))
            return swapped if units >= 0 else -swapped
    raise ValueError(f"cannot transpose {units}")


def stale_copy(units: int) -> int:
    """A summary figure left at its value before a late adjustment of about 1.3 % (down, else up).

    No keying error explains the difference: as many digits, at least two of them different, and no
    adjacent swap.
    """
    a = str(abs(units))
    for step in range(max(2, round(abs(units) * 0.013)), abs(units)):
        for stale_abs in (abs(units) - step, abs(units) + step):
            b = str(stale_abs)
            if len(a) != len(b):
                continue
            diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
            swap = len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]]
            if len(diffs) >= 2 and not swap:
                return stale_abs if units >= 0 else -stale_abs
    raise ValueError(f"no stale copy of {units}")


def winansi(text: str) -> str:
    """Re-encode text for PyMuPDF's base-14 fonts.

    PyMuPDF writes base-14 fonts with ``/WinAnsiEncoding`` but maps text through Latin-1, so characters
    such as the euro sign or dashes only survive when passed as their cp1252 byte values.
    """
    return text.encode("cp1252").decode("latin-1")


# Width proxies for characters that PyMuPDF's base-14 metrics do not know (see ``winansi``).
_WIDTH_PROXY = str.maketrans({"€": "0", "—": "M", "–": "0", "’": "'", "“": '"', "”": '"'})


@functools.lru_cache(maxsize=8192)
def text_width(text: str, font: str, size: float) -> float:
    """Width of ``text`` in points in a base-14 font."""
    return float(pymupdf.get_text_length(text.translate(_WIDTH_PROXY), fontname=font, fontsize=size))


def wrap(text: str, font: str, size: float, width: float) -> list[str]:
    """Greedy word wrap to ``width`` points."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and text_width(candidate, font, size) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines or [""]


# --------------------------------------------------------------------------------------------------
# Document configuration
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocConfig:
    """Everything that makes one sample document look like its own issuer's filing."""

    file: str
    seed: int
    issuer: str
    title: str
    cover_lines: tuple[str, ...]
    currency: str
    scale: int
    decimals: int
    unit_caption: str
    unit_col: str
    years: tuple[int, ...]
    fy_end: tuple[int, int]
    revenue_base: int
    growth: tuple[float, float]
    labels: dict[str, str]
    font: str = "helv"
    bold: str = "hebo"
    italic: str = "heit"
    page_size: tuple[float, float] = (595.0, 842.0)
    style: TableStyle = "filing"
    neg: NegStyle = "paren"
    nil: str = "–"
    expense_sign: int = -1
    dollar_col: bool = False
    notes_col: str | None = None
    prior_first: bool = False
    body_size: float = 9.5
    table_size: float = 8.5
    row_gap: float = 4.0
    label_width: float = 250.0
    col_width: float = 62.0
    is_kind: Literal["standard", "jp", "in"] = "standard"
    bs_kind: Literal["uk", "us", "eu", "jp", "in"] = "uk"
    cf_start: Literal["net", "opinc", "pbt"] = "net"
    has_opex3: bool = True
    opex_rows: tuple[str, ...] = ("opex1", "opex2", "opex3")
    liab_sign: int = 1
    summary_years: int = 2
    has_other_op: bool = False
    has_fx: bool = True
    show_tax_split: bool = False
    duration_header: str = "span"
    instant_header: str = "span"
    bs_break_before: str | None = "cl_head"
    segments: tuple[str, ...] = ("A", "B", "C")
    segment_profit: bool = False
    summary_rows: tuple[str, ...] = ("revenue", "opinc", "net", "ocf", "ta")
    summary_scale: tuple[int, int] | None = None
    summary_change_col: bool = False
    summary_header: str | None = None
    summary_capex_positive: bool = False
    summary_markers: dict[tuple[str, int], str] = field(default_factory=dict)
    summary_footnotes: tuple[str, ...] = ()
    footer: str = "center"
    footer_offset: int = 0
    running_header: str | None = None
    narrative: str = "uk"
    intro: tuple[str, ...] = ()
    injections: tuple[Injection, ...] = ()
    # Layout options of the layout variants (``layout_variants``); the defaults are the six samples' layout.
    # Liabilities printed negative are ``liab_sign=-1`` (with ``bs_kind="uk"`` for "Net assets").
    cover_page: bool = True
    caption_placement: Literal["below_title", "above_prose"] = "below_title"
    title_caption_one_line: bool = False
    repeat_header_on_break: bool = True
    document_scale_note: str | None = None
    document_note_at: Literal["statements", "start"] = "statements"
    cf_new_page: bool = True
    eps_shares: int | None = None
    # Property, plant and equipment printed at cost, less accumulated depreciation, then net (US balance
    # sheets); the net line is the only one that enters the total.
    ppe_at_cost: bool = False
    # An earnings-per-share note after the statements (needs ``eps_shares``): the numerator lines named for
    # the calculation they feed ("Net income for basic earnings per share"), an interest add-back on
    # convertible notes in the earliest year, the share counts in millions and the per-share figures.
    eps_note: bool = False
    # Share-based compensation by income-statement line ("Cost of sales 41", "Administrative expenses 63"),
    # printed in the operating review and again in the notes: the lines share their labels with the income
    # statement's totals, so a label alone names several concepts.
    sbc_twice: bool = False
    # A net debt reconciliation in the review: cash (in parentheses), short- and long-term borrowings and
    # "Net debt", a line that does not say it is a total, in the balance sheet's two columns.
    net_debt: bool = False
    # A note table titled "Receivables" whose last line repeats the title: the table's total, though its
    # label does not say "Total" (US 10-K notes).
    titled_note: bool = False
    # A tax note of two sections without totals ("Current:" and "Deferred:", three lines each) and a last
    # line, outdented, that adds up both sections though its label does not say "Total".
    tax_sections: bool = False
    # A statement of changes in equity in sections, each a roll-forward: share capital (a tiny balance,
    # nothing issued) above the share premium's opening balance, awards, issues and closing balance.
    equity_sections: bool = False
    # Issuer purchases of equity securities, month by month over the last two quarters, each quarter with a
    # total line; the column of what may yet be purchased is a balance, so its totals repeat the last month.
    buybacks: bool = False
    # A note of deferred fees, less deferred costs and reserves (printed negative), then "Deferred fees, net":
    # a line named after the first one, net of those between, with no deduction word above it.
    net_of_first: bool = False
    # A property note: land, buildings, machinery and construction in progress, a "Gross property, plant and
    # equipment" line that adds them without saying "total" (and, as in 3M's notes, printed at the same indent
    # as its lines), accumulated depreciation printed negative, and the net line (the balance sheet's
    # figure), the difference of the two.
    ppe_note: bool = False
    # Unrecognized tax benefits rolled forward in each year's column: opening balance, increases and
    # decreases of two or three digits, the closing balance; the first year's closing is the next's opening.
    tax_benefits: bool = False
    # A schedule of valuation and qualifying accounts: for each allowance, a row per year from the balance at
    # the beginning, charges and deductions (negative) to the balance at the end of the year, a column each;
    # figures of two or three digits, and no column headed "Total".
    valuation_accounts: bool = False
    # An MD&A table of two lines, revenue and its subscriptions: the two years, the change ("Increase/
    # (decrease)") and the percentage change ("% Change"), as in Activision Blizzard's 2021 results of
    # operations; two rows are too few to prove either change column alone.
    two_line_changes: bool = False
    # Share options rolled forward in thousands, with their weighted average exercise price: outstanding at
    # the beginning of the year (or at the prior year's end, by the seed's parity), granted, exercised,
    # forfeited, "Options outstanding at <year end>" (named as the opening line, not "balance" or "total"),
    # then the options exercisable, which are no part of it (Foot Locker's 2022 10-K).
    option_rollforward: bool = False
    # An MD&A table of three lines, revenue, gross profit and operating profit, in the last two years and
    # their percentage change only ("% Change"), as in Kraft Heinz's 2021 segment results: three rows, one
    # of them keyed wrong, leave two that hold.
    three_line_changes: bool = False
    # A restructuring provision by kind of cost (employee, asset, total): the expense, non-cash changes,
    # cash payments and adjustments, then "Accrued restructuring balances as of <year end>", a closing line
    # that starts with no "Balance" (3M's restructuring actions).
    restructuring_balances: bool = False
    # Pension plan assets by level of the fair-value hierarchy, "Level 1", "Level 2" and "Total" each over
    # both years (3M's 10-Ks): funds measured at net asset value sit in no level, so their line is blank in
    # the level columns and printed in the total columns only, while the table prints dashes for nil.
    plan_asset_levels: bool = False
    # The plans whose obligations exceed their assets, in one table of four lines: the accumulated benefit
    # obligation and the plan assets, then the projected benefit obligation and the plan assets again
    # (Boeing's 10-Ks). With an even seed the same plans are in both sections, so the line "Fair value of
    # plan assets" prints one figure twice; with an odd seed the second section has more plans.
    plan_assets_twice: bool = False
    # The lease liabilities' maturities by kind of lease (Amcor's 10-Ks): operating leases in hundreds,
    # finance leases in units, a line a year for five years, "Thereafter", "Total lease payments", the
    # imputed interest and the liabilities. The finance column's figures are too small to prove the total
    # by their size alone.
    lease_kinds: bool = False
    # With ``lease_kinds``, the liabilities split as 3M's 10-Ks print them: the interest printed positive on
    # "Less: Amounts representing interest", the present value under a rule with a label that does not say
    # it is a total, then "Less: Current obligations" and "Long-term obligations". Only "Less:" signs the
    # deductions (the normalised labels no longer begin with it).
    lease_split: bool = False
    # A reconciliation of EBITDA to the profit for the year under "Less:" and "Add:" headings, a line under
    # "Less:" whose own words name no cost ("Exceptional items"): only the headings give the signs.
    signed_headings: bool = False
    # A lease note's maturity schedule in one column (the latest balance-sheet date): a line for each of the
    # next five years, "Thereafter" and "Total", whose structure only its labels state.
    maturities: bool = False
    # Available-for-sale securities, a row per kind and no total row: cost, unrealized gains and losses, and
    # a last column, "Fair value", that adds them up in every row though its head does not say "Total".
    fair_value_columns: bool = False
    # A single-step income statement (US hospitality and real estate filers): "Revenues" and "Costs and
    # expenses" sections, each closed by an unlabelled total, costs printed positive, then the operating line.
    single_step: bool = False
    # A sentence about a ratio's change in the notes: "As a percentage of revenue, cost of sales decreased
    # by 1%." (the change of the ratio, not of the amount).
    ratio_sentence: bool = False
    # A five-year record of key figures in the review: the statements' years and the earlier ones, which the
    # document prints nowhere else (no sum or copy checks their figures).
    five_year_record: bool = False
    # The property note's table ends at the foot of a page and the next page opens with the payables note's
    # title over the same column heads: a new note, not the property table carried on.
    notes_back_to_back: bool = False
    # The obligations and assets of the domestic and the foreign plans, each name over its balance-sheet
    # dates, printed twice: for the plans underfunded on the accumulated and on the projected obligation.
    plans_by_group: bool = False
    # Plan assets by level of the fair-value hierarchy at each year end, one table a date with the same lines
    # (Kraft Heinz's 10-Ks): fixed income and equities, "Investments in the hierarchy" (a subtotal whose label
    # does not say so, as Kraft Heinz's "Fair value excluding investments measured at net asset value"), the
    # funds at net asset value in no level, and the total plan assets. The subtotal's own table proves it in
    # two columns only.
    levels_per_date: bool = False
    # Trust assets by level of the fair-value hierarchy at each year end, one table a date (PG&E's 10-Ks):
    # sections of lines, each with its funds measured at net asset value (in no level, printed in the total
    # column only) and its "Total …" line. The current year prints a line the prior year lacks, so the two
    # tables are not one layout; a section's total is proven by the total column alone.
    trusts_by_level: bool = False
    # Revenue as reported, the exchange-rate effect and the FX-neutral figure of the year, the year before as
    # reported, then the change on both bases (eBay's FX-neutral reconciliation): the constant-currency
    # change of the transaction revenues excludes hedging, as the lead-in says, so it is not the change of
    # the printed figures. The years sit on a line above the columns' own heads.
    fx_neutral_changes: bool = False
    # The effect of a change in accounting principle on comprehensive income, each year under the prior
    # method and as adjusted (3M's 2021 10-K): only the lines the change touched, so the other comprehensive
    # income section prints one of its lines above its total, which that line alone does not make up.
    change_effects: bool = False
    # A statement of changes in equity for each of the last two years, its period over the components (as
    # Adobe's 10-Q prints it), with the dividends and the shares bought back as the cash-flow statement
    # labels them: the buy-back is booked when traded, and in the latest year a round amount of it is not
    # yet paid, so the booked amount differs from the cash paid by one digit.
    equity_statement: bool = False
    # The cash-flow statement and the net debt reconciliation set so low on their pages that each one's
    # last line runs over alone onto the next page, under the title "(continued)" and the column heads
    # when the layout repeats them, under nothing but the running head when it does not.
    spilled_totals: bool = False
    # The receivables note (``titled_note``) set so low on its page, under the taxation note's table, that
    # its heading, title and column heads end the page and its lines begin the next, under the title
    # "(continued)" and the heads again where the layout repeats them.
    orphaned_heads: bool = False
    # The lease maturity schedule (``maturities``) set so low on its page that its heads and first year end
    # the page and the other years begin the next, under the title "(continued)" where the layout repeats
    # its heads.
    schedule_at_foot: bool = False


@dataclass(frozen=True)
class Injection:
    """An inconsistency to plant: its kind, the model key or metric it touches and the column year.

    ``mode``: for ``narrative_mismatch``, ``pct`` (a wrong percentage change) or a keyed figure; for
    ``cross_reference_mismatch``, ``stale`` (the summary not updated after a late adjustment: 1.3 % off,
    no keying error) or a transposition.
    """

    kind: Literal["sum_mismatch", "cross_reference_mismatch", "narrative_mismatch", "balance_identity"]
    key: str
    year: int
    mode: str = ""


# --------------------------------------------------------------------------------------------------
# Financial model
# --------------------------------------------------------------------------------------------------

Figures = dict[int, dict[str, int]]


class _Draws:
    """One issuer's draws of line items, each a ratio of its base (revenue, unless another is named).

    Each item's ratio is drawn once per issuer (``profile``) and only jittered from year to year, so that
    margins and mix move the way a real business's do rather than jumping at random.
    """

    def __init__(self, rng: random.Random, rev: int, profile: dict[str, float]) -> None:
        self.rng = rng
        self.rev = rev
        self.profile = profile

    def part(self, name: str, lo: float, hi: float, base: int | None = None) -> int:
        """The item ``name`` for this year: its base times the issuer's ratio, jittered by 1.5 % at most."""
        ratio = self.profile.setdefault(name, self.rng.uniform(lo, hi))
        return round((self.rev if base is None else base) * ratio * self.rng.uniform(0.985, 1.015))


def _year_figures(
    rng: random.Random, cfg: DocConfig, rev: int, cash_begin: int, profile: dict[str, float]
) -> dict[str, int]:
    """Draw one year of line items and compute every subtotal from them (see :class:`_Draws`).

    The statements are drawn in this order, each from the figures before it: the income statement, the
    cash flows (which give the closing cash) and the balance sheet.
    """
    f: dict[str, int] = {"revenue": rev}
    draws = _Draws(rng, rev, profile)
    _income_figures(f, cfg, draws)
    _cash_flow_figures(f, cfg, draws, cash_begin)
    _balance_sheet_figures(f, draws)
    return f


def _income_figures(f: dict[str, int], cfg: DocConfig, draws: _Draws) -> None:
    """The income statement's lines and subtotals, from ``f["revenue"]``."""
    rev = f["revenue"]
    part = draws.part
    f["cogs"] = part("cogs", 0.52, 0.68)
    f["gross"] = rev - f["cogs"]
    f["opex1"] = part("opex1", 0.08, 0.12)
    f["opex2"] = part("opex2", 0.06, 0.09)
    f["opex3"] = part("opex3", 0.03, 0.055) if cfg.has_opex3 else 0
    f["other_op"] = part("other_op", -0.004, 0.008) if cfg.has_other_op else 0
    f["sga"] = f["opex1"] + f["opex2"] + f["opex3"]
    f["opinc"] = f["gross"] - f["sga"] + f["other_op"]
    f["fin_inc"] = part("fin_inc", 0.002, 0.006)
    f["fin_cost"] = part("fin_cost", 0.010, 0.018)
    f["ordinary"] = f["opinc"] + f["fin_inc"] - f["fin_cost"]
    f["extra"] = part("extra", 0.001, 0.004) if cfg.is_kind == "jp" else 0
    f["pbt"] = f["ordinary"] - f["extra"]
    f["cur_tax"] = part("cur_tax", 0.20, 0.25, f["pbt"])
    f["def_tax"] = part("def_tax", -0.02, 0.02, f["pbt"])
    f["tax"] = f["cur_tax"] + f["def_tax"]
    f["net"] = f["pbt"] - f["tax"]
    # Ind AS presents income and expenses as two totals rather than gross and operating profit.
    f["total_income"] = rev + f["fin_inc"]
    f["total_exp"] = f["cogs"] + f["opex1"] + f["opex2"] + f["opex3"] + f["fin_cost"]


def _cash_flow_figures(f: dict[str, int], cfg: DocConfig, draws: _Draws, cash_begin: int) -> None:
    """The cash-flow statement's lines and the closing cash, from the income statement's figures."""
    rev, rng, part = f["revenue"], draws.rng, draws.part
    # Indirect method; the opening line depends on the issuer's presentation.
    # Ind AS prints depreciation on the face of the income statement; the cash flow adds the same back.
    f["dep"] = f["opex3"] if cfg.is_kind == "in" else part("dep", 0.035, 0.055)
    f["other_adj"] = part("other_adj", -0.004, 0.006)
    f["d_recv"] = part("d_recv", -0.02, 0.008)
    f["d_inv"] = part("d_inv", -0.015, 0.008)
    f["d_pay"] = part("d_pay", -0.005, 0.015)
    wc = f["d_recv"] + f["d_inv"] + f["d_pay"]
    f["int_paid"] = -part("int_paid", 0.9, 1.0, f["fin_cost"])
    f["tax_paid"] = -part("tax_paid", 0.85, 1.05, f["tax"])
    f["int_add"] = f["fin_cost"]
    f["int_less"] = -f["fin_inc"]
    if cfg.cf_start == "net":
        f["cash_gen"] = 0
        f["ocf"] = f["net"] + f["dep"] + f["other_adj"] + wc
    elif cfg.cf_start == "opinc":
        f["cash_gen"] = f["opinc"] + f["dep"] + f["other_adj"] + wc
        f["ocf"] = f["cash_gen"] + f["int_paid"] + f["tax_paid"]
    else:
        f["cash_gen"] = f["pbt"] + f["dep"] + f["int_add"] + f["int_less"] + f["other_adj"] + wc
        f["ocf"] = f["cash_gen"] + f["tax_paid"]
    f["capex"] = -part("capex", 0.045, 0.075)
    f["disposals"] = part("disposals", 0.0, 0.004) if rng.random() < 0.7 else 0
    f["acq"] = -part("acq", 0.02, 0.06) if rng.random() < 0.5 else 0
    f["icf"] = f["capex"] + f["disposals"] + f["acq"]
    f["borrow"] = part("borrow", 0.0, 0.04)
    f["repay"] = -part("repay", 0.01, 0.04)
    f["div"] = -part("div", 0.30, 0.45, f["net"])
    f["buyback"] = -part("buyback", 0.01, 0.03) if rng.random() < 0.4 else 0
    f["fx"] = part("fx", -0.003, 0.003) if cfg.has_fx else 0
    f["cash_begin"] = cash_begin
    # Keep the closing cash balance plausible by drawing more debt when the year burns too much cash.
    floor = round(rev * 0.04)
    shortfall = floor - (cash_begin + f["ocf"] + f["icf"] + f["fx"] + f["borrow"] + f["repay"] + f["div"])
    if shortfall - f["buyback"] > 0:
        f["borrow"] += shortfall - f["buyback"] + part("headroom", 0.0, 0.02)
    f["fcf"] = f["borrow"] + f["repay"] + f["div"] + f["buyback"]
    f["net_change"] = f["ocf"] + f["icf"] + f["fcf"]
    f["cash"] = cash_begin + f["net_change"] + f["fx"]


def _balance_sheet_figures(f: dict[str, int], draws: _Draws) -> None:
    """The balance sheet at the period end, from the closing cash; retained earnings is the plug."""
    part = draws.part
    f["ppe"] = part("ppe", 0.40, 0.55)
    # No draw of the generator: the other figures stay those of the committed samples.
    f["ppe_dep"] = -round(f["ppe"] * 0.7)
    f["ppe_cost"] = f["ppe"] - f["ppe_dep"]
    f["intang"] = part("intang", 0.12, 0.25)
    f["other_nca"] = part("other_nca", 0.03, 0.06)
    f["tnca"] = f["ppe"] + f["intang"] + f["other_nca"]
    f["inv"] = part("inv", 0.10, 0.14)
    f["recv"] = part("recv", 0.13, 0.17)
    f["other_ca"] = part("other_ca", 0.02, 0.05)
    f["tca"] = f["inv"] + f["recv"] + f["other_ca"] + f["cash"]
    f["ta"] = f["tnca"] + f["tca"]
    f["pay"] = part("pay", 0.10, 0.14)
    f["stb"] = part("stb", 0.03, 0.06)
    f["ctax"] = part("ctax", 0.01, 0.02)
    f["tcl"] = f["pay"] + f["stb"] + f["ctax"]
    f["ltb"] = part("ltb", 0.20, 0.28)
    f["prov"] = part("prov", 0.03, 0.06)
    f["tncl"] = f["ltb"] + f["prov"]
    f["tl"] = f["tcl"] + f["tncl"]
    f["te"] = f["ta"] - f["tl"]
    f["tle"] = f["tl"] + f["te"]


def build_figures(cfg: DocConfig) -> Figures:
    """Generate every year of the model, oldest first, so that cash rolls forward year to year."""
    rng = random.Random(cfg.seed)
    figs: Figures = {}
    rev = cfg.revenue_base
    cash = round(rev * rng.uniform(0.08, 0.14))
    share_capital = round(rev * rng.uniform(0.01, 0.03))
    premium = round(rev * rng.uniform(0.08, 0.14))
    profile: dict[str, float] = {}
    for year in sorted(cfg.years):
        f = _year_figures(rng, cfg, rev, cash, profile)
        f["sc"] = share_capital
        f["prem"] = premium
        f["ret"] = f["te"] - share_capital - premium
        figs[year] = f
        cash = f["cash"]
        rev = round(rev * (1 + rng.uniform(*cfg.growth)))
    return figs


def split_segments(total: int, weights: Sequence[float]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` into parts that add up exactly."""
    parts = [round(total * w / sum(weights)) for w in weights[:-1]]
    return [*parts, total - sum(parts)]


def segment_figures(cfg: DocConfig, figs: Figures) -> dict[int, dict[str, int]]:
    """Revenue (and optionally operating profit) by segment, adding up to the income statement."""
    rng = random.Random(cfg.seed * 7 + 1)
    out: dict[int, dict[str, int]] = {}
    # The mix is stable from year to year; each segment drifts by a few percent.
    weights = [rng.uniform(0.6, 1.6) for _ in cfg.segments]
    for year in sorted(cfg.years):
        f = figs[year]
        revs = split_segments(f["revenue"], [w * rng.uniform(0.94, 1.06) for w in weights])
        seg: dict[str, int] = {f"segrev{i}": v for i, v in enumerate(revs)}
        # Segment profits sum to more than group operating profit; central costs bridge the gap.
        margins = [w * rng.uniform(0.9, 1.1) * v for w, v in zip(weights, revs, strict=True)]
        profits = split_segments(round(f["opinc"] * rng.uniform(1.06, 1.12)), margins)
        seg.update({f"segop{i}": v for i, v in enumerate(profits)})
        seg["central"] = f["opinc"] - sum(profits)
        out[year] = seg
    return out


# --------------------------------------------------------------------------------------------------
# Table specification
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TCell:
    """One printed value cell and what it means."""

    text: str
    key: str | None = None
    metric: str | None = None
    period: str | None = None
    units: int | None = None
    scale: int = 0
    decimals: int = 0


@dataclass(frozen=True)
class TRow:
    """One table row: a label, a note reference and one cell per value column."""

    label: str
    cells: tuple[TCell, ...] = ()
    kind: RowKind = "item"
    indent: int = 0
    note: str = ""
    dollar: bool = False
    break_before: bool = False
    key: str | None = None


@dataclass(frozen=True)
class TableSpec:
    """A table ready to draw."""

    tid: str
    title: str
    subtitle: str | None
    caption: str | None
    header: tuple[tuple[tuple[str, int, int], ...], ...]
    rows: tuple[TRow, ...]
    n_cols: int
    notes_header: str | None = None
    title_size: float = 11.0


@dataclass(frozen=True)
class Col:
    """A value column: the model year and the period key its figures belong to."""

    year: int
    period: str


def instant_key(cfg: DocConfig, year: int) -> str:
    """ISO date of the balance-sheet date ending fiscal ``year``."""
    month, day = cfg.fy_end
    return f"{year:04d}-{month:02d}-{day:02d}"


def ordered_years(cfg: DocConfig) -> list[int]:
    """Column order of the periods: newest first unless the issuer prints the prior year first."""
    years = sorted(cfg.years, reverse=True)
    return years[::-1] if cfg.prior_first else years


def date_text(cfg: DocConfig, year: int, style: str) -> str:
    """The period-end date in the issuer's house style."""
    month, day = cfg.fy_end
    name = MONTHS[month - 1]
    if style == "us":
        return f"{name} {day}, {year}"
    if style == "swiss":
        return f"{day:02d}.{month:02d}.{year}"
    return f"{day} {name} {year}"


def header_rows(cfg: DocConfig, years: Sequence[int], instant: bool) -> list[list[tuple[str, int, int]]]:
    """Column header rows for a statement: spanning period captions, year rows and unit rows."""
    month, day = cfg.fy_end
    last = len(years) - 1
    style = cfg.instant_header if instant else cfg.duration_header
    unit_row = [(cfg.unit_col, i, i) for i in range(len(years))] if cfg.unit_col else []
    rows: list[list[tuple[str, int, int]]] = []
    if style == "span":
        caption = f"As at {day} {MONTHS[month - 1]}" if instant else f"Year ended {day} {MONTHS[month - 1]}"
        rows = [[(caption, 0, last)], [(str(y), i, i) for i, y in enumerate(years)]]
    elif style == "us_span":
        caption = f"{MONTHS[month - 1]} {day}," if instant else f"Year Ended {MONTHS[month - 1]} {day},"
        rows = [[(caption, 0, last)], [(str(y), i, i) for i, y in enumerate(years)]]
    elif style == "fiscal":
        rows = [[(f"Fiscal {y}", i, i) for i, y in enumerate(years)]]
    elif style == "two_line_us":
        first = "As of" if instant else "Year ended"
        rows = [
            [(first, i, i) for i in range(len(years))],
            [(date_text(cfg, y, "us"), i, i) for i, y in enumerate(years)],
        ]
    elif style == "two_line_uk":
        first = "As at" if instant else "Year ended"
        rows = [
            [(first, i, i) for i in range(len(years))],
            [(date_text(cfg, y, "uk"), i, i) for i, y in enumerate(years)],
        ]
    elif style == "swiss":
        rows = [[(date_text(cfg, y, "swiss"), i, i) for i, y in enumerate(years)]]
    else:
        rows = [[(str(y), i, i) for i, y in enumerate(years)]]
    if unit_row:
        rows.append(unit_row)
    return rows


class Builder:
    """Turns the model into table rows for one document, applying its sign and number conventions."""

    def __init__(self, cfg: DocConfig, figs: Figures, tid: str, cols: Sequence[Col]) -> None:
        self.cfg = cfg
        self.figs = figs
        self.tid = tid
        self.cols = list(cols)
        self.rows: list[TRow] = []
        self.first_value_row = True

    def cell(self, key: str, col: Col, sign: int, metric: str | None, values: Figures | None) -> TCell:
        """One value cell in the statement's own scale."""
        source = values if values is not None else self.figs
        units = source[col.year][key] * sign
        text = fmt_amount(units, self.cfg.decimals, self.cfg.neg, self.cfg.nil)
        return TCell(text, key, metric, col.period, units, self.cfg.scale, self.cfg.decimals)

    def add(
        self,
        label: str,
        key: str,
        *,
        kind: RowKind = "item",
        indent: int = 0,
        metric: str | None = None,
        sign: int = 1,
        note: str = "",
        values: Figures | None = None,
        periods: Sequence[str] | None = None,
    ) -> None:
        """Add a value row; ``periods`` overrides the column period keys (cash at beginning of year)."""
        cells = []
        for i, col in enumerate(self.cols):
            use = Col(col.year, periods[i]) if periods is not None else col
            cells.append(self.cell(key, use, sign, metric, values))
        dollar = self.cfg.dollar_col and (self.first_value_row or kind == "total")
        self.first_value_row = False
        self.rows.append(TRow(label, tuple(cells), kind, indent, note, dollar, False, key))

    def per_share(self, label: str, key: str, shares: int, *, add_back: bool = False) -> None:
        """A per-share row (net income over ``shares``) in currency units with two decimals, no scale.

        ``add_back``: the diluted numerator (net income plus the convertible notes' interest).
        """
        cells = []
        for col in self.cols:
            earnings = (
                diluted_earnings(self.cfg, self.figs, col.year) if add_back else self.figs[col.year]["net"]
            )
            net = earnings * 10 ** (self.cfg.scale - self.cfg.decimals)
            units = round_div(net * 100, shares)
            text = fmt_amount(units, 2, self.cfg.neg, self.cfg.nil)
            cells.append(TCell(text, key, None, col.period, units, 0, 2))
        self.rows.append(TRow(label, tuple(cells), "item", 0, "", False, False, key))

    def section(self, label: str, *, key: str | None = None, indent: int = 0) -> None:
        """Add a label-only row (a section caption such as "Current assets")."""
        self.rows.append(TRow(label, (), "section", indent, key=key))

    def headed(self, heading: str, lines: Sequence[tuple[str, str]], values: Figures) -> None:
        """Add a section caption and, indented under it, a line of ``values`` for each ``(label, key)``."""
        self.section(heading)
        for label, key in lines:
            self.add(label, key, values=values, indent=1)

    def break_before(self, key: str) -> None:
        """Force a page break before the first row with ``key`` (where the printed page ran out)."""
        for i, row in enumerate(self.rows):
            if row.key == key:
                self.rows[i] = replace(row, break_before=True)
                return
        raise KeyError(key)

    def table(
        self,
        title: str,
        subtitle: str | None,
        caption: str | None,
        *,
        instant: bool,
        notes: str | None = None,
        title_size: float = 11.0,
    ) -> TableSpec:
        """The rows added so far as a table under the column heads of its years (an empty subtitle or
        caption is none)."""
        years = [c.year for c in self.cols]
        return TableSpec(
            self.tid,
            title,
            subtitle or None,
            caption or None,
            tuple(tuple(r) for r in header_rows(self.cfg, years, instant=instant)),
            tuple(self.rows),
            len(self.cols),
            notes,
            title_size=title_size,
        )

    def statement(self, title: str, *, instant: bool, notes: str | None) -> TableSpec:
        """A primary statement's table: its title, subtitle and caption are the labels named after its tid
        (``is_title``, ...), ``title`` and the document's unit caption where there is none."""
        lb = functools.partial(_label, self.cfg)
        tid = self.tid
        return self.table(
            lb(f"{tid}_title", title),
            lb(f"{tid}_subtitle", ""),
            lb(f"{tid}_caption", self.cfg.unit_caption),
            instant=instant,
            notes=notes,
        )

    def spacer(self) -> None:
        """Add an empty row."""
        self.rows.append(TRow("", (), "spacer"))


def _label(cfg: DocConfig, key: str, default: str) -> str:
    return cfg.labels.get(key, default)


OPEX_LABELS: dict[str, str] = {
    "opex1": "Distribution costs",
    "opex2": "Administrative expenses",
    "opex3": "Research and development costs",
    "sga": "Selling, general and administrative expenses",
}


def build_income_statement(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """The income statement in the issuer's structure (standard, Japanese GAAP or Ind AS)."""
    b = Builder(cfg, figs, "is", cols)
    es = cfg.expense_sign
    lb = functools.partial(_label, cfg)
    if cfg.is_kind == "in":
        b.add(lb("revenue", "Revenue from operations"), "revenue", metric="revenue", note="23")
        b.add(lb("fin_inc", "Other income"), "fin_inc", note="24")
        b.add(lb("total_income", "Total income"), "total_income", kind="subtotal")
        b.section(lb("expenses", "Expenses"))
        b.add(lb("cogs", "Cost of materials consumed"), "cogs", indent=1, note="25")
        b.add(lb("opex1", "Employee benefits expense"), "opex1", indent=1, note="26")
        b.add(lb("fin_cost", "Finance costs"), "fin_cost", indent=1, note="27")
        b.add(lb("opex3", "Depreciation and amortisation expense"), "opex3", indent=1, note="4")
        b.add(lb("opex2", "Other expenses"), "opex2", indent=1, note="28")
        b.add(lb("total_exp", "Total expenses"), "total_exp", kind="subtotal")
        b.add(lb("pbt", "Profit before tax"), "pbt", kind="subtotal", metric="profit_before_tax")
        b.section(lb("tax_head", "Tax expense"))
        b.add(lb("cur_tax", "Current tax"), "cur_tax", indent=1)
        b.add(lb("def_tax", "Deferred tax"), "def_tax", indent=1)
        b.add(lb("tax", "Total tax expense"), "tax", kind="subtotal", metric="income_tax", note="29")
        b.add(lb("net", "Profit for the year"), "net", kind="total", metric="net_income")
    else:
        if cfg.single_step:
            single_step_lines(cfg, b)
        else:
            b.add(lb("revenue", "Revenue"), "revenue", metric="revenue", note="3")
            b.add(lb("cogs", "Cost of sales"), "cogs", metric="cost_of_sales", sign=es)
            b.add(lb("gross", "Gross profit"), "gross", kind="subtotal", metric="gross_profit")
            for key in cfg.opex_rows:
                b.add(lb(key, OPEX_LABELS[key]), key, sign=es)
        if cfg.has_other_op and not cfg.single_step:
            b.add(lb("other_op", "Other operating income"), "other_op", note="4")
        b.add(lb("opinc", "Operating profit"), "opinc", kind="subtotal", metric="operating_income", note="4")
        if cfg.is_kind == "jp":
            b.add(lb("fin_inc", "Non-operating income"), "fin_inc")
            b.add(lb("fin_cost", "Non-operating expenses"), "fin_cost", sign=es)
            b.add(lb("ordinary", "Ordinary profit"), "ordinary", kind="subtotal")
            b.add(lb("extra", "Extraordinary losses"), "extra", sign=es)
        else:
            b.add(lb("fin_inc", "Finance income"), "fin_inc", note="6")
            b.add(lb("fin_cost", "Finance costs"), "fin_cost", sign=es, note="6")
        b.add(lb("pbt", "Profit before tax"), "pbt", kind="subtotal", metric="profit_before_tax")
        if cfg.show_tax_split:
            b.add(lb("cur_tax", "Current tax"), "cur_tax", indent=1, sign=es)
            b.add(lb("def_tax", "Deferred tax"), "def_tax", indent=1, sign=es)
        b.add(lb("tax", "Taxation"), "tax", sign=es, metric="income_tax", note="7")
        b.add(lb("net", "Profit for the year"), "net", kind="total", metric="net_income")
    if cfg.eps_shares:
        b.spacer()
        b.per_share(lb("eps_basic", f"Basic earnings per share ({cfg.currency})"), "eps", cfg.eps_shares)
        diluted = diluted_shares(cfg)
        b.per_share(
            lb("eps_diluted", f"Diluted earnings per share ({cfg.currency})"),
            "eps_dil",
            diluted,
            add_back=True,
        )
    return b.statement("Consolidated income statement", instant=False, notes=cfg.notes_col)


def single_step_lines(cfg: DocConfig, b: Builder) -> None:
    """Revenues and costs in two sections, each closed by an unlabelled total, costs printed positive.

    The operating line below adds the revenues' total, subtracts the costs' total and adds what follows as
    printed: only the costs' heading says the second total is subtracted.
    """
    values: Figures = {}
    for col in b.cols:
        f = b.figs[col.year]
        product = f["revenue"] * 2 // 3
        impairment = f["revenue"] // 25 + 7  # a cost that the associates' profit below makes up for
        values[col.year] = {
            "product": product,
            "service": f["revenue"] - product,
            "revenue": f["revenue"],
            "impairment": impairment,
            "costs": f["cogs"] + f["sga"] + impairment,
            "associates": f["other_op"] + impairment,
        }
    b.headed("Revenues", [("Product revenue", "product"), ("Service revenue", "service")], values)
    b.add("", "revenue", kind="subtotal", values=values)
    b.section("Costs and expenses")
    b.add(_label(cfg, "cogs", "Cost of sales"), "cogs", indent=1)
    for key in cfg.opex_rows:
        b.add(_label(cfg, key, OPEX_LABELS[key]), key, indent=1)
    b.add("Impairment of goodwill", "impairment", values=values, indent=1)
    b.add("", "costs", kind="subtotal", values=values)
    b.add("Share of profit of associates", "associates", values=values)


def note_table(cfg: DocConfig, b: Builder, title: str, *, instant: bool) -> TableSpec:
    """A note's table of ``b``'s rows under the statements' column heads and unit caption."""
    lb = functools.partial(_label, cfg)
    caption = lb("is_caption", cfg.unit_caption)
    if instant:
        caption = lb("bs_caption", caption)
    return b.table(title, None, caption, instant=instant, title_size=10.0)


def diluted_shares(cfg: DocConfig) -> int:
    """The diluted weighted-average share count (the basic one and 1.2 % of dilutive awards and notes)."""
    assert cfg.eps_shares is not None
    return round(cfg.eps_shares * 1.012)


def note_interest(cfg: DocConfig, figs: Figures, year: int) -> int:
    """Interest on convertible notes added back for diluted earnings: the earliest year only (then repaid)."""
    if not cfg.eps_note or year != min(cfg.years):
        return 0
    return max(1, abs(figs[year]["net"]) // 500)


def diluted_earnings(cfg: DocConfig, figs: Figures, year: int) -> int:
    """The numerator of diluted earnings per share, in the statements' units."""
    return figs[year]["net"] + note_interest(cfg, figs, year)


def build_eps_note(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """The earnings-per-share note: numerator, denominator and per-share figures, one caption for both.

    The numerator lines say what they are used for ("… for basic earnings per share"); they are amounts,
    not per-share figures. Share counts are printed in the statements' scale. Diluted shares are the basic
    ones plus awards plus the notes' shares, and the diluted numerator adds the notes' interest back in the
    year they were outstanding.
    """
    assert cfg.eps_shares is not None
    b = Builder(cfg, figs, "eps", cols)
    unit = 10 ** (cfg.scale - cfg.decimals)
    basic_u, diluted_u = round(cfg.eps_shares / unit), round(diluted_shares(cfg) / unit)
    years = [c.year for c in cols]
    values: Figures = {}
    for y in years:
        conv = max(1, (diluted_u - basic_u) // 4) if note_interest(cfg, figs, y) else 0
        values[y] = {
            "basic_net": figs[y]["net"],
            "interest": note_interest(cfg, figs, y),
            "diluted_net": diluted_earnings(cfg, figs, y),
            "basic_shares": basic_u,
            "awards": diluted_u - basic_u - conv,
            "conv": conv,
            "diluted_shares": diluted_u,
        }
    b.section("Numerator")
    b.add("Net income for basic earnings per share", "basic_net", values=values)
    b.section("Effect of dilutive securities:")
    b.add("Interest expense on convertible notes", "interest", values=values)
    b.add("Net income for diluted earnings per share", "diluted_net", values=values)
    b.section("Denominator")
    b.add("Basic weighted-average shares", "basic_shares", values=values)
    b.section("Effect of dilutive securities:")
    b.add("Employee share awards", "awards", values=values)
    b.add("Convertible notes", "conv", values=values)
    b.add("Diluted weighted-average shares", "diluted_shares", values=values)
    b.section("Earnings per share:")
    b.per_share("Basic", "eps", cfg.eps_shares)
    b.per_share("Diluted", "eps_dil", diluted_shares(cfg), add_back=True)
    return note_table(cfg, b, "Earnings per share", instant=False)


def build_balance_sheet(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """The balance sheet; its layout follows the issuer's GAAP and it always runs over a page break."""
    b = Builder(cfg, figs, "bs", cols)
    lb = functools.partial(_label, cfg)
    kind = cfg.bs_kind

    if kind in ("us", "jp"):
        _bs_assets(b, "Assets", _bs_current, _bs_non_current)
        _bs_claims(b, "Liabilities and equity", "Total liabilities and equity", _bs_liabilities, _bs_equity)
    elif kind == "in":
        _bs_assets(b, "ASSETS", _bs_non_current, _bs_current)
        _bs_claims(
            b, "EQUITY AND LIABILITIES", "Total equity and liabilities", _bs_equity, _bs_headed_liabilities
        )
    elif kind == "uk":
        _bs_assets(b, None, _bs_non_current, _bs_current)
        _bs_liabilities(b)
        b.add(lb("net_assets", "Net assets"), "te", kind="subtotal", metric="total_equity")
        _bs_equity(b)
    else:
        _bs_assets(b, "Assets", _bs_non_current, _bs_current)
        _bs_claims(b, "Equity and liabilities", "Total equity and liabilities", _bs_equity, _bs_liabilities)
    if cfg.bs_break_before:
        b.break_before(cfg.bs_break_before)
    return b.statement("Consolidated balance sheet", instant=True, notes=cfg.notes_col)


def _bs_assets(b: Builder, head: str | None, *sections: Callable[[Builder], None]) -> None:
    """The assets: a heading (none in UK balance sheets), their sections in the GAAP's order, the total."""
    lb = functools.partial(_label, b.cfg)
    if head is not None:
        b.section(lb("assets_head", head))
    for section in sections:
        section(b)
    b.add(lb("ta", "Total assets"), "ta", kind="total", metric="total_assets")


def _bs_claims(b: Builder, head: str, total: str, *sections: Callable[[Builder], None]) -> None:
    """Liabilities and equity under one heading, in the GAAP's order, and their total (which equals total
    assets)."""
    lb = functools.partial(_label, b.cfg)
    b.section(lb("le_head", head), key="le_head")
    for section in sections:
        section(b)
    b.add(lb("tle", total), "tle", kind="total")


def _bs_headed_liabilities(b: Builder) -> None:
    """The liabilities under a heading of their own (Ind AS prints them after equity)."""
    b.section(_label(b.cfg, "liab_head", "Liabilities"))
    _bs_liabilities(b)


def _bs_non_current(b: Builder) -> None:
    """The non-current assets, with their total (none in a US balance sheet)."""
    cfg = b.cfg
    lb = functools.partial(_label, cfg)
    b.section(lb("nca_head", "Non-current assets"))
    if cfg.ppe_at_cost:
        b.add(lb("ppe_cost", "Property, plant and equipment, at cost"), "ppe_cost", indent=1, note="12")
        b.add(lb("ppe_dep", "Less: accumulated depreciation"), "ppe_dep", indent=1)
        b.add(lb("ppe_net", "Property, plant and equipment, net"), "ppe", indent=1)
    else:
        b.add(lb("ppe", "Property, plant and equipment"), "ppe", indent=1, note="12")
    b.add(lb("intang", "Goodwill and intangible assets"), "intang", indent=1, note="11")
    b.add(lb("other_nca", "Other non-current assets"), "other_nca", indent=1)
    if cfg.bs_kind != "us":
        b.add(lb("tnca", "Total non-current assets"), "tnca", kind="subtotal")


def _bs_current(b: Builder) -> None:
    """The current assets and their total."""
    lb = functools.partial(_label, b.cfg)
    b.section(lb("ca_head", "Current assets"))
    b.add(lb("inv", "Inventories"), "inv", indent=1, note="14")
    b.add(lb("recv", "Trade and other receivables"), "recv", indent=1, note="15")
    b.add(lb("other_ca", "Other current assets"), "other_ca", indent=1)
    b.add(lb("cash", "Cash and cash equivalents"), "cash", indent=1, metric="cash_and_cash_equivalents")
    b.add(lb("tca", "Total current assets"), "tca", kind="subtotal")


def _bs_liabilities(b: Builder) -> None:
    """Current and non-current liabilities, each with its total, then total liabilities (none in Ind AS)."""
    cfg = b.cfg
    lb = functools.partial(_label, cfg)
    b.section(lb("cl_head", "Current liabilities"), key="cl_head")
    b.add(lb("pay", "Trade and other payables"), "pay", indent=1, note="17", sign=cfg.liab_sign)
    b.add(lb("stb", "Borrowings"), "stb", indent=1, note="18", sign=cfg.liab_sign)
    b.add(lb("ctax", "Current tax liabilities"), "ctax", indent=1, sign=cfg.liab_sign)
    b.add(lb("tcl", "Total current liabilities"), "tcl", kind="subtotal", sign=cfg.liab_sign)
    b.section(lb("ncl_head", "Non-current liabilities"))
    b.add(lb("ltb", "Borrowings"), "ltb", indent=1, note="18", sign=cfg.liab_sign)
    b.add(lb("prov", "Provisions"), "prov", indent=1, note="19", sign=cfg.liab_sign)
    b.add(lb("tncl", "Total non-current liabilities"), "tncl", kind="subtotal", sign=cfg.liab_sign)
    if cfg.bs_kind != "in":
        b.add(
            lb("tl", "Total liabilities"),
            "tl",
            kind="subtotal",
            metric="total_liabilities",
            sign=cfg.liab_sign,
        )


def _bs_equity(b: Builder) -> None:
    """The equity lines and total equity."""
    cfg = b.cfg
    lb = functools.partial(_label, cfg)
    b.section(lb("eq_head", "Equity"), key="eq_head")
    b.add(lb("sc", "Share capital"), "sc", indent=1, note="21")
    b.add(lb("prem", "Share premium"), "prem", indent=1)
    b.add(lb("ret", "Retained earnings"), "ret", indent=1)
    b.add(
        lb("te", "Total equity"),
        "te",
        kind="subtotal" if cfg.bs_kind != "uk" else "total",
        metric="total_equity",
    )


def build_cash_flow(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """The cash-flow statement (indirect method) with cash reconciled to the balance sheet."""
    b = Builder(cfg, figs, "cf", cols)
    lb = functools.partial(_label, cfg)
    b.section(lb("cf_op_head", "Cash flows from operating activities"))
    if cfg.cf_start == "net":
        b.add(lb("cf_net", "Profit for the year"), "net", indent=1, metric="net_income")
    elif cfg.cf_start == "opinc":
        b.add(lb("cf_opinc", "Operating profit"), "opinc", indent=1, metric="operating_income")
    else:
        b.add(lb("cf_pbt", "Profit before tax"), "pbt", indent=1, metric="profit_before_tax")
    b.add(lb("dep", "Depreciation and amortisation"), "dep", indent=1)
    if cfg.cf_start == "pbt":
        b.add(lb("int_add", "Finance costs"), "int_add", indent=1)
        b.add(lb("int_less", "Interest income"), "int_less", indent=1)
    b.add(lb("other_adj", "Other non-cash items"), "other_adj", indent=1)
    b.add(lb("d_inv", "(Increase)/decrease in inventories"), "d_inv", indent=1)
    b.add(lb("d_recv", "(Increase)/decrease in trade and other receivables"), "d_recv", indent=1)
    b.add(lb("d_pay", "Increase/(decrease) in trade and other payables"), "d_pay", indent=1)
    if cfg.cf_start != "net":
        b.add(lb("cash_gen", "Cash generated from operations"), "cash_gen", kind="subtotal")
        if cfg.cf_start == "opinc":
            b.add(lb("int_paid", "Interest paid"), "int_paid", indent=1)
        b.add(lb("tax_paid", "Income taxes paid"), "tax_paid", indent=1)
    b.add(
        lb("ocf", "Net cash from operating activities"), "ocf", kind="subtotal", metric="operating_cash_flow"
    )
    b.section(lb("cf_inv_head", "Cash flows from investing activities"))
    b.add(
        lb("capex", "Purchases of property, plant and equipment"),
        "capex",
        indent=1,
        metric="capital_expenditure",
    )
    b.add(lb("disposals", "Proceeds from disposal of property, plant and equipment"), "disposals", indent=1)
    b.add(lb("acq", "Acquisition of subsidiaries, net of cash acquired"), "acq", indent=1)
    b.add(lb("icf", "Net cash used in investing activities"), "icf", kind="subtotal")
    b.section(lb("cf_fin_head", "Cash flows from financing activities"))
    b.add(lb("borrow", "Proceeds from borrowings"), "borrow", indent=1)
    b.add(lb("repay", "Repayment of borrowings"), "repay", indent=1)
    b.add(lb("div", "Dividends paid"), "div", indent=1)
    b.add(lb("buyback", "Purchase of own shares"), "buyback", indent=1)
    b.add(lb("fcf", "Net cash used in financing activities"), "fcf", kind="subtotal")
    b.add(lb("net_change", "Net increase/(decrease) in cash and cash equivalents"), "net_change")
    # The opening balance of each column is the closing balance of the previous balance-sheet date.
    opening = [instant_key(cfg, c.year - 1) for c in cols]
    b.add(
        lb("cash_begin", "Cash and cash equivalents at beginning of year"),
        "cash_begin",
        metric="cash_and_cash_equivalents",
        periods=opening,
    )
    if cfg.has_fx:
        b.add(lb("fx", "Effect of exchange rate changes"), "fx")
    closing = [instant_key(cfg, c.year) for c in cols]
    b.add(
        lb("cash_end", "Cash and cash equivalents at end of year"),
        "cash",
        kind="total",
        metric="cash_and_cash_equivalents",
        periods=closing,
    )
    return b.statement("Consolidated statement of cash flows", instant=False, notes=None)


def build_segment_table(
    cfg: DocConfig, figs: Figures, segs: dict[int, dict[str, int]], cols: Sequence[Col]
) -> TableSpec:
    """Segments as rows, periods as columns, with a total row equal to group revenue."""
    b = Builder(cfg, figs, "seg", cols)
    lb = functools.partial(_label, cfg)
    if cfg.segment_profit:
        b.section(lb("seg_rev_head", "Revenue"))
    for i, name in enumerate(cfg.segments):
        b.add(name, f"segrev{i}", values=segs, indent=1 if cfg.segment_profit else 0)
    b.add(lb("seg_total", "Total"), "revenue", kind="total", metric="revenue")
    if cfg.segment_profit:
        b.spacer()
        b.section(lb("seg_op_head", "Operating profit"))
        for i, name in enumerate(cfg.segments):
            b.add(name, f"segop{i}", values=segs, indent=1)
        b.add(lb("central", "Central costs"), "central", values=segs, indent=1)
        b.add(lb("seg_op_total", "Total operating profit"), "opinc", kind="total", metric="operating_income")
    title = lb("seg_title", "Segment information")
    return b.table(title, None, lb("seg_caption", cfg.unit_caption), instant=False, title_size=10.0)


def build_sbc_table(cfg: DocConfig, figs: Figures, cols: Sequence[Col], title: str) -> TableSpec:
    """Share-based compensation included in each income-statement line (a quarter of it), and the total."""
    lb = functools.partial(_label, cfg)
    keys = ["cogs", *cfg.opex_rows]
    labels = {"cogs": lb("cogs", "Cost of sales"), **{k: lb(k, OPEX_LABELS[k]) for k in cfg.opex_rows}}
    values: Figures = {c.year: {k: max(1, abs(figs[c.year][k]) // 4) for k in keys} for c in cols}
    for per_year in values.values():
        per_year["sbc_total"] = sum(per_year[k] for k in keys)
    b = Builder(cfg, figs, "sbc", cols)
    for k in keys:
        b.add(labels[k], k, values=values)
    b.add("Total share-based compensation expense", "sbc_total", kind="total", values=values)
    return note_table(cfg, b, title, instant=False)


def build_net_debt(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Net debt: borrowings less cash, at each balance-sheet date."""
    lb = functools.partial(_label, cfg)
    b = Builder(cfg, figs, "netdebt", cols)
    values: Figures = {
        c.year: {"nd": figs[c.year]["stb"] + figs[c.year]["ltb"] - figs[c.year]["cash"]} for c in cols
    }
    b.add(lb("cash", "Cash and cash equivalents"), "cash", sign=-1)
    b.add("Short-term borrowings", "stb")
    b.add("Long-term borrowings", "ltb")
    b.add("Net debt", "nd", kind="total", values=values)
    return note_table(cfg, b, "Reconciliation of net debt", instant=True)


def build_equity_sections(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Share capital and share premium, one roll-forward each, in the order of the years."""
    b = Builder(cfg, figs, "eqsec", cols)
    values: Figures = {}
    closing = abs(figs[min(cfg.years)]["te"]) // 3
    for year in sorted(cfg.years):
        net = abs(figs[year]["net"])
        awards, issued, other = net // 20, net // 50, -(net // 200 + 1)
        values[year] = {
            "cap": 2,
            "nil": 0,
            "open": closing,
            "awards": awards,
            "issued": issued,
            "other": other,
            "close": closing + awards + issued + other,
        }
        closing = values[year]["close"]
    capital = [
        ("Balance, beginning of year", "cap"),
        ("Shares issued", "nil"),
        ("Balance, end of year", "cap"),
    ]
    b.headed("Share capital:", capital, values)
    premium = [
        ("Balance, beginning of year", "open"),
        ("Share-based compensation", "awards"),
        ("Shares issued under employee plans", "issued"),
        ("Other", "other"),
        ("Balance, end of year", "close"),
    ]
    b.headed("Share premium:", premium, values)
    return note_table(cfg, b, "Statement of changes in share capital and premium", instant=False)


def build_buybacks(cfg: DocConfig) -> TableSpec:
    """Shares bought back each month of the year's second half, quarter totals, and what may yet be spent."""
    year = max(cfg.years)
    remaining = 9_000  # tenths of a million
    rows: list[TRow] = []

    def row(label: str, shares: int, cents: int, left: int) -> None:
        texts = (f"{shares:,}", fmt_units(cents, 2), fmt_units(left, 1))
        rows.append(TRow(label, tuple(TCell(t) for t in texts)))

    for name, months in (("Q3", (7, 8, 9)), ("Q4", (10, 11, 12))):
        bought, spent = 0, 0
        for month in months:
            shares = 120_000 + 37_000 * (month % 5) + 1_000 * month
            cents = 4_510 + 70 * month
            remaining -= round(shares * cents / 10_000_000)  # dollars spent, in tenths of a million
            bought, spent = bought + shares, spent + shares * cents
            row(f"{MONTHS[month - 1][:3]} {year}", shares, cents, remaining)
        row(f"Total {name}", bought, round(spent / bought), remaining)
    return TableSpec(
        "buybacks",
        "Issuer purchases of equity securities",
        None,
        None,
        ((("Shares", 0, 0), ("Price", 1, 1), ("May yet be purchased ($m)", 2, 2)),),
        tuple(rows),
        3,
        None,
        title_size=10.0,
    )


def build_net_of_first(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Deferred fees, the costs and reserves they are net of, and the net line."""
    b = Builder(cfg, figs, "fees", cols)
    values: Figures = {}
    for c in cols:
        fees = abs(figs[c.year]["revenue"]) // 3
        costs, reserves = fees // 4, fees // 5
        values[c.year] = {
            "fees": fees,
            "costs": -costs,
            "reserves": -reserves,
            "net": fees - costs - reserves,
        }
    b.add("Deferred card and other fees", "fees", values=values)
    b.add("Deferred direct acquisition costs", "costs", values=values)
    b.add("Reserves for membership cancellations", "reserves", values=values)
    b.add("Deferred card and other fees, net", "net", values=values)
    return note_table(cfg, b, "Deferred fees", instant=True)


def build_ppe_note(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Property at cost by class, its gross line, accumulated depreciation (negative) and the net line."""
    b = Builder(cfg, figs, "ppe_note", cols)
    values: Figures = {}
    for c in cols:
        net = abs(figs[c.year]["ppe"])
        gross = net * 5 // 3 + 17
        land, buildings, machinery = gross // 20, gross * 3 // 10, gross // 2
        values[c.year] = {
            "land": land,
            "buildings": buildings,
            "machinery": machinery,
            "cip": gross - land - buildings - machinery,
            "gross": gross,
            "dep": net - gross,
            "net": net,
        }
    b.section("Property, plant and equipment - at cost")
    b.add("Land", "land", values=values)
    b.add("Buildings and leasehold improvements", "buildings", values=values)
    b.add("Machinery and equipment", "machinery", values=values)
    b.add("Construction in progress", "cip", values=values)
    b.add("Gross property, plant and equipment", "gross", values=values)
    b.add("Accumulated depreciation", "dep", values=values)
    b.add("Property, plant and equipment - net", "net", values=values)
    return note_table(cfg, b, "Property, plant and equipment", instant=True)


def build_payables_note(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Trade and other payables by kind, adding up to the balance sheet's line, which titles the note."""
    b = Builder(cfg, figs, "payables", cols)
    values: Figures = {}
    for c in cols:
        total = abs(figs[c.year]["pay"])
        comp, interest, taxes, other = total // 5, total // 25 + 3, total // 9, total // 14
        trade = total - comp - interest - taxes - other
        values[c.year] = {
            "trade": trade, "comp": comp, "interest": interest, "taxes": taxes, "other": other, "total": total
        }  # fmt: skip
    b.add("Trade payables", "trade", values=values)
    b.add("Accrued compensation and benefits", "comp", values=values)
    b.add("Accrued interest", "interest", values=values)
    b.add("Sales and other taxes", "taxes", values=values)
    b.add("Other accrued liabilities", "other", values=values)
    # The note is titled as its total line, the balance sheet's (eBay: "Accrued Expenses and Other Current
    # Liabilities"); the line's label alone says it is the total.
    label = _label(cfg, "pay", "Trade and other payables")
    b.add(label, "total", kind="total", values=values)
    return note_table(cfg, b, label, instant=True)


def build_tax_benefits(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Unrecognized tax benefits, from each year's opening balance to its closing one: small figures."""
    b = Builder(cfg, figs, "utb", cols)
    values: Figures = {}
    balance = 150 + abs(figs[min(c.year for c in cols)]["revenue"]) % 97
    for k, year in enumerate(sorted(c.year for c in cols)):
        moves = {"prior_up": 14 + k, "prior_down": -(2 + 3 * k), "current_up": 18 + 26 * k}
        moves |= {"settled": -(11 + 6 * k), "lapse": -(52 - 27 * k)}
        closing = balance + sum(moves.values())
        values[year] = {"opening": balance, **moves, "closing": closing}
        balance = closing
    gross = "Gross {} in unrecognized tax benefits – {} year tax positions"
    for label, key in (
        ("Beginning balance", "opening"),
        (gross.format("increases", "prior"), "prior_up"),
        (gross.format("decreases", "prior"), "prior_down"),
        (gross.format("increases", "current"), "current_up"),
        ("Settlements with taxing authorities", "settled"),
        ("Lapse of statute of limitations", "lapse"),
        ("Ending balance", "closing"),
    ):
        b.add(label, key, values=values)
    return note_table(cfg, b, "Unrecognized tax benefits", instant=False)


def build_maturities(cfg: DocConfig, figs: Figures, col: Col) -> TableSpec:
    """Lease payments due in each of the next five years, thereafter and in total, in one column."""
    b = Builder(cfg, figs, "leases", [col])
    base = abs(figs[col.year]["revenue"]) // 6
    due = {f"y{k}": base * (12 - k) // 10 + 7 * k for k in range(1, 6)}
    due["later"] = base * 3 + 11
    due["total"] = sum(due.values())
    values: Figures = {col.year: due}
    for k in range(1, 6):
        b.add(str(col.year + k), f"y{k}", values=values)
    b.add("Thereafter", "later", values=values)
    b.add("Total", "total", values=values)
    return note_table(cfg, b, "Maturities of lease liabilities", instant=True)


SECURITIES = (
    "Corporate bonds",
    "Government bonds",
    "Asset-backed securities",
    "Commercial paper",
    "Municipal bonds",
    "Money market funds",
    "Certificates of deposit",
)


def build_securities(cfg: DocConfig, figs: Figures, year: int) -> TableSpec:
    """Securities at cost, their unrealized gains and losses and fair value, one row each and no total row.

    The fair value column adds up the other three in every row; its head does not say it is a total.
    """
    base = abs(figs[year]["revenue"]) // 4
    rows: list[TRow] = []
    for k, name in enumerate(SECURITIES):
        cost = base // (k + 2) + 37 * k + 11
        gains, losses = cost // (19 + 3 * k) + 2, -(cost // (23 + 2 * k)) - 1
        units = (cost, gains, losses, cost + gains + losses)
        rows.append(_amounts_row(cfg, name, units))
    title = f"Available-for-sale securities at {date_text(cfg, year, 'us')}"
    return _headed_table(cfg, "afs", title, ("Cost", "Gains", "Losses", "Fair value"), rows)


def _amounts_row(cfg: DocConfig, label: str, units: Sequence[int], indent: int = 0) -> TRow:
    """A row of amounts printed as the issuer prints them, outside a :class:`Builder` (no truth)."""
    return TRow(
        label, tuple(TCell(fmt_amount(u, cfg.decimals, cfg.neg, cfg.nil)) for u in units), indent=indent
    )


def _headed_table(
    cfg: DocConfig, tid: str, title: str, heads: Sequence[str], rows: Sequence[TRow]
) -> TableSpec:
    """A note table with a head over each value column, under the issuer's unit caption."""
    header = (tuple((head, i, i) for i, head in enumerate(heads)),)
    return _captioned_table(cfg, tid, title, header, rows, len(heads))


def _captioned_table(
    cfg: DocConfig,
    tid: str,
    title: str,
    header: tuple[tuple[tuple[str, int, int], ...], ...],
    rows: Sequence[TRow],
    n_cols: int,
) -> TableSpec:
    """A note table under the issuer's unit caption, its heads in rows of (text, first column, last)."""
    caption = _label(cfg, "bs_caption", _label(cfg, "is_caption", cfg.unit_caption))
    return TableSpec(tid, title, None, caption or None, header, tuple(rows), n_cols)


def build_signed_headings(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """EBITDA, less depreciation, finance costs, tax and exceptional items, add associates: the profit."""
    b = Builder(cfg, figs, "ebitda", cols)
    values: Figures = {}
    for c in cols:
        f = figs[c.year]
        less = {k: abs(f[k]) for k in ("dep", "fin_cost", "tax")} | {"exceptional": abs(f["revenue"]) // 200}
        associates = abs(f["revenue"]) // 150
        ebitda = f["net"] + sum(less.values()) - associates
        values[c.year] = {"ebitda": ebitda, **less, "associates": associates, "net": f["net"]}
    b.add("EBITDA", "ebitda", values=values)
    b.section("Less:")
    for label, key in (
        ("Depreciation and amortisation", "dep"),
        ("Net finance costs", "fin_cost"),
        ("Income tax expense", "tax"),
        ("Exceptional items", "exceptional"),
    ):
        b.add(label, key, values=values, indent=1)
    b.section("Add:")
    b.add("Share of profit of associates", "associates", values=values, indent=1)
    b.add(_label(cfg, "net", "Profit for the year"), "net", values=values)
    return note_table(cfg, b, "Reconciliation of EBITDA to profit for the year", instant=False)


ALLOWANCES = ("Allowance for doubtful accounts", "Allowance for sales returns", "Tax valuation allowance")


def build_valuation_accounts(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Each allowance rolled forward a row a year, across columns, to the balance at the end of the year."""
    seed = abs(figs[min(cfg.years)]["revenue"]) % 89
    rows: list[TRow] = []
    for k, name in enumerate(ALLOWANCES):
        rows.append(TRow(name, (), "section"))
        balance = 40 + 23 * k + seed
        for j, year in enumerate(sorted(cfg.years)):
            charged = 60 + 17 * j + 9 * k + seed // 3
            deducted = -(charged - 11 + 7 * ((j + k) % 3) - 8)
            units = (balance, charged, deducted, balance + charged + deducted)
            rows.append(_amounts_row(cfg, str(year), units, indent=1))
            balance = units[-1]
    heads = ("Beginning of year", "Charged to expense", "Deductions", "End of year")
    return _headed_table(cfg, "valuation", "Valuation and qualifying accounts", heads, rows)


def _pct_change_cell(cur: int, prev: int) -> TCell:
    """The percentage change of two amounts as an MD&A table prints it, to a tenth: "8.6%", "-3.2%"."""
    change = pct_change(cur, prev)
    return TCell(("-" if change < 0 else "") + fmt_tenths(change) + "%")


def _dates_style(cfg: DocConfig) -> str:
    """How the issuer prints a date in a label: "December 31, 2025" (US heads) or "31 December 2025"."""
    return "us" if "us" in (cfg.instant_header or "") else "uk"


def build_two_line_changes(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Revenue and its subscriptions in the last two years, the change and the percentage change."""
    cur, prev = sorted(cfg.years)[-1], sorted(cfg.years)[-2]
    rows: list[TRow] = []
    for label, (now, then) in (("Revenue", (20, 20)), ("Subscriptions", (15, 14))):  # twentieths
        a, b = figs[cur]["revenue"] * now // 20, figs[prev]["revenue"] * then // 20
        row = _amounts_row(cfg, label, (a, b, a - b), indent=0 if now == 20 else 1)
        rows.append(replace(row, cells=(*row.cells, _pct_change_cell(a, b))))
    heads = (str(cur), str(prev), "Increase/(decrease)", "% Change")
    return _headed_table(cfg, "changes", "Revenue", heads, rows)


def build_three_line_changes(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Revenue, gross profit and operating profit in the last two years and their percentage change."""
    cur, prev = sorted(cfg.years)[-1], sorted(cfg.years)[-2]
    rows: list[TRow] = []
    for key, label in (("revenue", "Revenue"), ("gross", "Gross profit"), ("opinc", "Operating profit")):
        a, b = figs[cur][key], figs[prev][key]
        row = _amounts_row(cfg, label, (a, b))
        rows.append(replace(row, cells=(*row.cells, _pct_change_cell(a, b))))
    return _headed_table(cfg, "pct_changes", "Results", (str(cur), str(prev), "% Change"), rows)


def build_option_rollforward(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Options outstanding at two moments, the grants, exercises and forfeitures between, a price each."""
    cur = max(cfg.years)
    seed = abs(figs[cur]["revenue"]) % 97
    style = _dates_style(cfg)
    start = f"at {date_text(cfg, cur - 1, style)}" if cfg.seed % 2 else "at the beginning of the year"
    opening = 3000 + 11 * seed
    moves = (("Granted", 590 + seed), ("Exercised", -(207 + seed // 2)), ("Forfeited", -(338 - seed // 3)))
    closing = opening + sum(n for _, n in moves)
    lines = [
        (f"Options outstanding {start}", opening, 4884),
        *((label, n, 3171 + 417 * k) for k, (label, n) in enumerate(moves)),
        (f"Options outstanding at {date_text(cfg, cur, style)}", closing, 4785),
        (f"Options exercisable at {date_text(cfg, cur, style)}", closing * 3 // 4, 5236),
    ]
    rows = [
        TRow(label, (TCell(fmt_amount(n, 0, cfg.neg, cfg.nil)), TCell(f"{cents // 100}.{cents % 100:02d}")))
        for label, n, cents in lines
    ]
    heads = ("Number of options (thousands)", "Weighted average exercise price")
    return _headed_table(cfg, "options", "Share options", heads, rows)


def build_restructuring_balances(cfg: DocConfig, figs: Figures) -> TableSpec:
    """A restructuring provision from its expense to the accrued balances at the year end, by kind."""
    cur = max(cfg.years)
    seed = abs(figs[cur]["revenue"]) % 83
    employee, asset = 125 + seed, 12 + seed // 7
    paid, adjusted = 24 + seed // 3, 17 + seed // 5
    style = _dates_style(cfg)
    lines = (
        (f"Expense incurred in {cur}", employee, asset),
        ("Non-cash changes", 0, -asset),
        ("Cash payments", -paid, 0),
        ("Adjustments", -adjusted, 0),
        (f"Accrued restructuring balances as of {date_text(cfg, cur, style)}", employee - paid - adjusted, 0),
    )
    units = 10**cfg.decimals  # whole units of the statements' scale
    rows = [_amounts_row(cfg, label, (e * units, a * units, (e + a) * units)) for label, e, a in lines]
    return _headed_table(
        cfg, "restructuring", "Restructuring", ("Employee-related", "Asset-related", "Total"), rows
    )


def build_plan_asset_levels(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Plan assets by fair-value level, both years side by side under each level, funds at NAV in no level."""
    cur = max(cfg.years)
    header = (
        tuple((head, 2 * k, 2 * k + 1) for k, head in enumerate(("Level 1", "Level 2", "Total"))),
        tuple((str(year), i, i) for i, year in enumerate((cur, cur - 1) * 3)),
    )
    levels: dict[str, list[tuple[int, int, int]]] = {}  # line -> per year: level 1, level 2, at NAV
    for year in (cur, cur - 1):
        seed = abs(figs[year]["revenue"]) % 89
        for label, amounts in (
            ("Domestic", (1875 + 7 * seed, 0, 0)),
            ("International", (1465 + 3 * seed, 214 + seed, 0)),
            ("Funds at net asset value", (0, 0, 404 + seed)),
            ("Government", (1417 + 5 * seed, 716 + seed, 0)),
            ("Corporate", (0, 4620 + 2 * seed, 0)),
        ):
            levels.setdefault(label, []).append(amounts)
    units = 10**cfg.decimals  # whole units of the statements' scale

    def row(label: str, years: Sequence[Sequence[int]], nav: bool = False, indent: int = 0) -> TRow:
        by_level = [
            TCell("") if nav else TCell(fmt_amount(y[k] * units, cfg.decimals, cfg.neg, cfg.nil))
            for k in (0, 1)
            for y in years
        ]
        totals = [TCell(fmt_amount(sum(y) * units, cfg.decimals, cfg.neg, cfg.nil)) for y in years]
        return TRow(label, (*by_level, *totals), indent=indent)

    rows: list[TRow] = []
    for section, members in (
        ("Equities", ("Domestic", "International", "Funds at net asset value")),
        ("Fixed income", ("Government", "Corporate")),
    ):
        rows.append(TRow(section, (), "section"))
        rows.extend(row(m, levels[m], nav=m.endswith("net asset value"), indent=1) for m in members)
        sums = [tuple(map(sum, zip(*(levels[m][i] for m in members), strict=True))) for i in (0, 1)]
        rows.append(row(f"Total {section.lower()}", sums))
    return _captioned_table(cfg, "planassets", "Plan assets at fair value", header, rows, 6)


def build_plan_assets_twice(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Obligations beside plan assets for the plans underfunded on each measure, two lines a measure."""
    cur = max(cfg.years)
    units = 10**cfg.decimals  # whole units of the statements' scale
    rows: list[TRow] = []
    for k, (measure, obligation) in enumerate((("accumulated", 48134), ("projected", 48770))):
        amounts = []
        for year in (cur, cur - 1):
            seed = abs(figs[year]["revenue"]) % 97
            assets = 42491 + 13 * seed + (2206 + seed if k and cfg.seed % 2 else 0)  # odd seed: more plans
            amounts.append((obligation + 17 * seed + 636 * k, assets))
        labels = (f"{measure.capitalize()} benefit obligation", "Fair value of plan assets")
        rows.extend(
            _amounts_row(cfg, label, [a[i] * units for a in amounts]) for i, label in enumerate(labels)
        )
    return _headed_table(cfg, "underfunded", "Underfunded plans", (str(cur), str(cur - 1)), rows)


def build_plans_by_group(cfg: DocConfig, figs: Figures, title: str) -> TableSpec:
    """Obligations and plan assets of the domestic and the foreign plans, the name over each date."""
    cur = max(cfg.years)
    units = 10**cfg.decimals  # whole units of the statements' scale
    seed = abs(figs[cur]["revenue"]) % 89
    amounts = {  # (domestic, foreign) at (cur, cur - 1)
        "Projected obligation": ((1840 + seed, 1795), (162 + seed, 181)),
        "Accumulated obligation": ((1712 + seed, 1688), (155 + seed, 174)),
        "Plan assets": ((1391, 1402 + seed), (75, 76 + seed)),
    }
    rows = [
        _amounts_row(cfg, label, [u * units for group in groups for u in group])
        for label, groups in amounts.items()
    ]
    style = "us" if cfg.instant_header in ("us_span", "two_line_us") else "uk"
    # The group's name over each of its columns, over the column's balance-sheet date.
    groups = ("Domestic", "Domestic", "Foreign", "Foreign")
    dates = [date_text(cfg, y, style) for y in (cur, cur - 1)] * 2
    header = (tuple((g, i, i) for i, g in enumerate(groups)), tuple((d, i, i) for i, d in enumerate(dates)))
    return _captioned_table(cfg, "plangroups", title, header, rows, 4)


def build_levels_per_date(cfg: DocConfig, figs: Figures, year: int) -> TableSpec:
    """Plan assets at one year end by level of the fair-value hierarchy, funds at net asset value apart."""
    seed = abs(figs[year]["revenue"]) % 89
    government, corporate, equity, funds = 121 + seed, 596 - seed, 218 + 2 * seed, 205 + seed
    units = 10**cfg.decimals  # whole units of the statements' scale
    lines = (  # (label, level 1, level 2); level 3 holds nothing
        ("Government bonds", government, 0),
        ("Corporate bonds and other fixed-income securities", 0, corporate),
        ("Total fixed-income securities", government, corporate),
        ("Equity securities", equity, 0),
        ("Investments in the hierarchy", government + equity, corporate),
    )
    rows = [_amounts_row(cfg, label, [(a + b) * units, a * units, b * units, 0]) for label, a, b in lines]
    for label, amount in (
        ("Investments measured at net asset value", funds),
        ("Total plan assets at fair value", government + corporate + equity + funds),
    ):
        cells = (TCell(fmt_amount(amount * units, cfg.decimals, cfg.neg, cfg.nil)), *(TCell(""),) * 3)
        rows.append(TRow(label, cells))
    heads = ("Total fair value", "Level 1", "Level 2", "Level 3")
    return _headed_table(cfg, f"levels{year}", "Postretirement plan assets", heads, rows)


def build_trusts_by_level(cfg: DocConfig, figs: Figures, year: int) -> TableSpec:
    """Trust assets at one year end by level, a section a trust, each with funds at net asset value."""
    seed = abs(figs[year]["revenue"]) % 79
    latest = year == max(cfg.years)
    units = 10**cfg.decimals  # whole units of the statements' scale
    sections = (
        (
            "Decommissioning trusts",
            (
                ("Equity securities", 2504 + seed, 0),
                *((("Money market funds", 118 + seed, 0),) if latest else ()),
                ("Fixed-income securities", 1158 - seed, 866 + seed),
            ),
            31 + seed,
        ),
        ("Disability trust", (("Short-term investments", 6 + seed % 7, 0),), 132 + seed),
    )
    rows: list[TRow] = []
    for title, lines, funds in sections:
        rows.append(TRow(title, (), "section"))
        rows.extend(
            _amounts_row(cfg, label, [one * units, two * units, 0, (one + two) * units])
            for label, one, two in lines
        )
        rows.append(_amounts_row(cfg, "Assets measured at net asset value", [0, 0, 0, funds * units]))
        one, two = sum(x[1] for x in lines), sum(x[2] for x in lines)
        rows.append(
            _amounts_row(
                cfg, f"Total {title.lower()}", [one * units, two * units, 0, (one + two + funds) * units]
            )
        )
    heads = ("Level 1", "Level 2", "Level 3", "Total")
    return _headed_table(cfg, f"trusts{year}", "Trust assets at fair value", heads, rows)


def build_lease_kinds(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Undiscounted lease payments a year, operating and finance leases side by side, then the liabilities."""
    cur = max(cfg.years)
    seed = abs(figs[cur]["revenue"]) % 71
    operating = [115 + seed, 99 + seed // 2, 89, 74 + seed // 3, 63, 218 + seed]
    finance = [11, 11, 6, 2, 2, 26 + seed % 9]
    if cfg.lease_split:  # 3M's finance leases: large enough that the column proves a line of two
        finance = [f * 3 for f in finance]
    labels = [f"Fiscal year {cur + k}" for k in range(1, 6)] + ["Thereafter"]
    units = 10**cfg.decimals  # whole units of the statements' scale
    rows = [
        _amounts_row(cfg, label, (o * units, f * units))
        for label, o, f in zip(labels, operating, finance, strict=True)
    ]
    payments = (sum(operating), sum(finance))
    interest = (-(sum(operating) // 9), -(sum(finance) // 7))
    if cfg.lease_split:
        rows += _lease_split_rows(cfg, payments, interest, (operating[0], finance[0]))
    else:
        rows += [
            _amounts_row(cfg, "Total lease payments", [p * units for p in payments]),
            _amounts_row(cfg, "Less: imputed interest", [i * units for i in interest]),
            _amounts_row(
                cfg,
                "Total lease liabilities",
                [(p + i) * units for p, i in zip(payments, interest, strict=True)],
            ),
        ]
    return _headed_table(cfg, "leasekinds", "Lease maturities", ("Operating leases", "Finance leases"), rows)


def _lease_split_rows(
    cfg: DocConfig, payments: Sequence[int], interest: Sequence[int], first_year: Sequence[int]
) -> list[TRow]:
    """The liabilities under the payments as 3M prints them (``lease_split``): the deductions positive."""
    units = 10**cfg.decimals
    present = [p + i for p, i in zip(payments, interest, strict=True)]
    current = [first_year[0] * 4 // 5, first_year[1] - 2]
    long_term = [v - c for v, c in zip(present, current, strict=True)]

    def line(label: str, values: Sequence[int], kind: RowKind = "item") -> TRow:
        return replace(_amounts_row(cfg, label, [v * units for v in values]), kind=kind)

    return [
        line("Total", payments),
        line("Less: Amounts representing interest", [-i for i in interest]),
        line("Present value of future minimum lease payments", present, "total"),
        line("Less: Current obligations", current),
        line("Long-term obligations", long_term, "total"),
    ]


def build_fx_neutral_changes(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Revenue as reported and at the prior year's rates, with each year's change on both bases."""
    cur, prev = sorted(cfg.years)[-1], sorted(cfg.years)[-2]
    seed = abs(figs[cur]["revenue"]) % 83
    units = 10**cfg.decimals  # whole units of the statements' scale
    # label → (reported, exchange-rate effect, reported the year before, hedging now, hedging before)
    lines: dict[str, tuple[int, int, int, int, int]] = {
        "Volume": (85003 + 40 * seed, 2362 - seed, 87608, 0, 0),
        "Transactions": (9772 + seed, 180 + seed % 7, 8243, 120, 15),
        "Advertising": (648, 8, 646 - seed % 5, 0, 0),
    }
    t, a = lines["Transactions"], lines["Advertising"]
    lines["Total"] = (t[0] + a[0], t[1] + a[1], t[2] + a[2], 0, 0)
    rows: list[TRow] = []
    for label, (now, effect, then, hedged, hedged_then) in lines.items():
        if label == "Transactions":
            rows.append(TRow("Revenues:", (), "section"))
        row = _amounts_row(cfg, label, [u * units for u in (now, effect, now - effect, then)])
        changes = (_pct_change_cell(now, then), _pct_change_cell(now - effect + hedged, then + hedged_then))
        rows.append(replace(row, cells=(*row.cells, *changes)))
    years = ((f"Year ended {cur}", 0, 2), (str(prev), 3, 3))
    heads = (
        ("As", "Exchange", "FX-neutral", "As", "Reported", "FX-neutral"),
        ("reported", "rate effect", "", "reported", "% change", "% change"),
    )
    header = (years, *(tuple((head, i, i) for i, head in enumerate(line)) for line in heads))
    return _captioned_table(cfg, "fxneutral", "FX-neutral revenues", header, rows, 6)


def build_equity_statement(cfg: DocConfig, figs: Figures, year: int) -> TableSpec:
    """One year's statement of changes in equity: its period spanning the components, its closing total the
    balance sheet's equity, its dividends the cash paid and its buy-back the cash paid and, in the latest
    year, a round amount still to be settled."""
    f, units = figs[year], 10**cfg.decimals
    outstanding = 100 * units if year == max(cfg.years) and f["buyback"] else 0
    moves = {"net": (0, f["net"], 0), "div": (0, f["div"], 0), "buyback": (0, 0, f["buyback"] - outstanding)}
    capital = abs(figs[min(cfg.years)]["te"]) // 10 // units * units
    closing = (capital, f["te"] - capital + 2 * capital // 3, -2 * capital // 3)
    opening = tuple(c - sum(m[k] for m in moves.values()) for k, c in enumerate(closing))
    lines = [
        ("Balance at beginning of year", opening),
        (_label(cfg, "net", "Net income"), moves["net"]),
        (_label(cfg, "div", "Dividends paid"), moves["div"]),
        (_label(cfg, "buyback", "Purchase of own shares"), moves["buyback"]),
        ("Balance at end of year", closing),
    ]
    rows = [_amounts_row(cfg, label, [*amounts, sum(amounts)]) for label, amounts in lines]
    period = ((f"Year ended {date_text(cfg, year, _dates_style(cfg))}", 0, 3),)
    # each component's name on two lines, as narrow columns print them
    first = tuple((head, i, i) for i, head in enumerate(("Share", "Retained", "Treasury", "")))
    second = tuple((head, i, i) for i, head in enumerate(("capital", "earnings", "shares", "Total")))
    heads = (period, first, second)
    return _captioned_table(cfg, f"eqstmt{year}", "Statement of changes in equity", heads, rows, 4)


def _draw_equity_notes(r: Renderer, cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> None:
    """The share capital and premium note; the statement of changes in equity of the latest year, then of
    the year before."""
    if cfg.equity_sections:
        r.heading("7. Share capital and premium", 10)
        r.table(build_equity_sections(cfg, figs, cols))
    if cfg.equity_statement:
        r.heading("16. Changes in equity", 10)
        for year in sorted(cfg.years)[-1:-3:-1]:
            r.table(build_equity_statement(cfg, figs, year))


def build_change_effects(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Comprehensive income under the prior method and as adjusted, two years: the lines the change moved.

    As adjusted, net income is the income statement's; under the prior method it is a round amount less (a
    figure that differs from the statements' by one digit, as a keying error would, and is no copy of it).
    """
    cur, prev = sorted(cfg.years)[-1], sorted(cfg.years)[-2]
    seed = abs(figs[cur]["revenue"]) % 61
    units = 10**cfg.decimals  # whole units of the statements' scale
    moved = 100 * (1 + seed % 3) * units  # the change moves net income and the pension line by as much
    columns: list[tuple[int, int, int, int]] = []  # (net income, pension line, the section, the total)
    for year, pension, other in ((cur, 171 + seed, 305), (prev, -560 + seed, 139)):
        net, pension, other = figs[year]["net"], pension * units, other * units
        for shift in (moved, 0):  # the prior method, then as adjusted
            columns.append((net - shift, pension + shift, pension + other + shift, net + pension + other))
    labels = (
        "Net income",
        "Pension and postretirement plans adjustment",
        "Total other comprehensive income, net of tax",
        "Comprehensive income",
    )
    rows = [_amounts_row(cfg, label, [c[k] for c in columns]) for k, label in enumerate(labels)]
    rows.insert(1, TRow("Other comprehensive income, net of tax:", (), "section"))
    years = ((str(cur), 0, 1), (str(prev), 2, 3))
    # Each method's name on two lines ("Prior" over "method"), as a narrow column prints it.
    first = tuple((head, i, i) for i, head in enumerate(("Prior", "As") * 2))
    second = tuple((head, i, i) for i, head in enumerate(("method", "adjusted") * 2))
    return _captioned_table(cfg, "changefx", "Comprehensive income", (years, first, second), rows, 4)


_DATED_NOTES: tuple[tuple[str, str, str, Callable[[DocConfig, Figures, int], TableSpec]], ...] = (
    (
        "levels_per_date",
        "24. Postretirement plan assets",
        "The fair value of the plan assets at {date} by level of the fair value hierarchy:",
        build_levels_per_date,
    ),
    (
        "trusts_by_level",
        "25. Trust assets",
        "The trusts' assets measured at fair value at {date}:",
        build_trusts_by_level,
    ),
)
"""Notes of one table a balance-sheet date, the latest two, each a trait: (trait, heading, lead-in, table)."""


def _draw_dated_notes(r: Renderer, cfg: DocConfig, figs: Figures) -> None:
    """The notes of :data:`_DATED_NOTES` the issuer prints, each on a page of its own (no table split by a
    page break), a lead-in over each date's table."""
    style = _dates_style(cfg)
    for trait, heading, lead_in, build in _DATED_NOTES:
        if getattr(cfg, trait):
            r.heading(heading, 10, new_page=True)
            for year in sorted(cfg.years, reverse=True)[:2]:
                r.paragraph(lead_in.format(date=date_text(cfg, year, style)))
                r.table(build(cfg, figs, year))


_INTRODUCED_NOTES: tuple[tuple[str, str, str, Callable[[DocConfig, Figures], TableSpec]], ...] = (
    (
        "three_line_changes",
        "18. Results compared",
        "The year's results against the year before:",
        build_three_line_changes,
    ),
    (
        "restructuring_balances",
        "19. Restructuring",
        "Restructuring actions, including cash and non-cash impacts, follow:",
        build_restructuring_balances,
    ),
    (
        "plan_asset_levels",
        "20. Pension plan assets",
        "The fair values of the plan assets by level of the fair value hierarchy follow:",
        build_plan_asset_levels,
    ),
    (
        "plan_assets_twice",
        "21. Underfunded pension plans",
        "Key information for the plans with obligations in excess of plan assets as of the year end:",
        build_plan_assets_twice,
    ),
    (
        "lease_kinds",
        "22. Leases",
        "The maturities of the lease liabilities at the year end follow:",
        build_lease_kinds,
    ),
    (
        "option_rollforward",
        "17. Share-based payments",
        "Share option activity in the year:",
        build_option_rollforward,
    ),
    (
        "two_line_changes",
        "16. Results of operations",
        "Revenue and its subscriptions compared with the year before:",
        build_two_line_changes,
    ),
    (
        "fx_neutral_changes",
        "15. Revenue at constant exchange rates",
        "Revenue as reported and FX-neutral (at the prior year's rates, excluding hedging activity):",
        build_fx_neutral_changes,
    ),
    (
        "change_effects",
        "14. Change in accounting principle",
        "The effect of the change on the statement of comprehensive income, the lines it changed:",
        build_change_effects,
    ),
)
"""Notes of one table under a sentence that introduces it, each a trait: (trait, heading, lead-in, table)."""


def build_tax_note(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Current and deferred tax by jurisdiction, each section without a total, then the tax charge."""
    b = Builder(cfg, figs, "taxnote", cols)
    values: Figures = {}
    for c in cols:
        tax = abs(figs[c.year]["tax"])
        current, deferred = tax * 4 // 5, tax - tax * 4 // 5
        values[c.year] = {
            "cur_dom": current // 2,
            "cur_reg": current // 5,
            "cur_for": current - current // 2 - current // 5,
            "def_dom": deferred * 2,
            "def_reg": deferred // 3,
            "def_for": deferred - deferred * 2 - deferred // 3,
            "all": tax,
        }
    places = (("Domestic", "dom"), ("Regional", "reg"), ("Foreign", "for"))
    for heading, section in (("Current:", "cur"), ("Deferred:", "def")):
        b.headed(heading, [(label, f"{section}_{place}") for label, place in places], values)
    b.add("Charge for taxation on profit", "all", values=values)
    return note_table(cfg, b, "The tax charge comprises:", instant=False)


def build_titled_note(cfg: DocConfig, figs: Figures, cols: Sequence[Col]) -> TableSpec:
    """Receivables: three lines and a last line named as the table is, their total."""
    b = Builder(cfg, figs, "recv_note", cols)
    values: Figures = {}
    for c in cols:
        whole = figs[c.year]["recv"]
        trade, contract = whole * 6 // 10, whole // 4
        values[c.year] = {
            "trade": trade,
            "contract": contract,
            "other": whole - trade - contract,
            "all": whole,
        }
    b.add("Trade receivables", "trade", values=values)
    b.add("Contract assets", "contract", values=values)
    b.add("Other receivables", "other", values=values)
    b.add("Receivables", "all", kind="total", values=values)
    return note_table(cfg, b, "Receivables", instant=True)


SUMMARY_ROWS: dict[str, tuple[str, str, str | None, bool]] = {
    # key: (default label, model key, metric, is balance-sheet instant)
    "revenue": ("Revenue", "revenue", "revenue", False),
    "gross": ("Gross profit", "gross", "gross_profit", False),
    "opinc": ("Operating profit", "opinc", "operating_income", False),
    "pbt": ("Profit before tax", "pbt", "profit_before_tax", False),
    "net": ("Profit for the year", "net", "net_income", False),
    "ocf": ("Net cash from operating activities", "ocf", "operating_cash_flow", False),
    "capex": ("Capital expenditure", "capex", "capital_expenditure", False),
    "ta": ("Total assets", "ta", "total_assets", True),
    "te": ("Total equity", "te", "total_equity", True),
    "cash": ("Cash and cash equivalents", "cash", "cash_and_cash_equivalents", True),
}


FIVE_YEAR_ROWS = ("revenue", "opinc", "net", "ocf", "ta")
"""The lines of the five-year record (:data:`SUMMARY_ROWS` names)."""


def earlier_years(cfg: DocConfig, figs: Figures, n: int) -> Figures:
    """The five-year record's lines for the ``n`` years before the statements' first, each year's figures
    the next year's over one year's growth (drawn from the issuer's range)."""
    rng = random.Random(cfg.seed * 13 + 5)
    keys = [SUMMARY_ROWS[name][1] for name in FIVE_YEAR_ROWS]
    out: Figures = {}
    later = figs[min(cfg.years)]
    for year in range(min(cfg.years) - 1, min(cfg.years) - 1 - n, -1):
        growth = 1 + rng.uniform(*cfg.growth)
        later = out[year] = {k: round(later[k] / growth) for k in keys}
    return out


def build_five_year_record(cfg: DocConfig, figs: Figures) -> TableSpec:
    """Key figures of the last five years, in the statements' scale and column order."""
    values = {**earlier_years(cfg, figs, 5 - len(cfg.years)), **{y: figs[y] for y in cfg.years}}
    years = sorted(values, reverse=not cfg.prior_first)
    b = Builder(cfg, values, "fiveyr", [Col(y, f"FY{y}") for y in years])
    for name in FIVE_YEAR_ROWS:
        default, key, _, _ = SUMMARY_ROWS[name]
        b.add(_label(cfg, f"sum_{name}", default), key)
    return note_table(cfg, b, "Five-year record", instant=False)


def build_summary(
    cfg: DocConfig, figs: Figures, cols: Sequence[Col], overrides: dict[tuple[str, int], int]
) -> TableSpec:
    """The key-figures table; it may use a coarser scale than the statements and a change column."""
    scale, decimals = cfg.summary_scale or (cfg.scale, cfg.decimals)
    # Units of the statement per unit of the summary (e.g. 100 thousands-units per tenth of a million).
    factor = 10 ** ((scale - decimals) - (cfg.scale - cfg.decimals))
    rows: list[TRow] = []
    first = True
    for name in cfg.summary_rows:
        default, key, metric, instant = SUMMARY_ROWS[name]
        sign = -1 if name == "capex" and cfg.summary_capex_positive else 1
        cells: list[TCell] = []
        shown: list[int] = []
        for col in cols:
            units = round_div(figs[col.year][key] * sign, factor)
            units = overrides.get((name, col.year), units)
            shown.append(units)
            text = fmt_amount(units, decimals, cfg.neg, cfg.nil)
            text += cfg.summary_markers.get((name, col.year), "")
            period = instant_key(cfg, col.year) if instant else f"FY{col.year}"
            cells.append(TCell(text, key, metric, period, units, scale, decimals))
        if cfg.summary_change_col:
            # Change of the newest over the prior year, computed from the figures as printed.
            by_year = dict(zip([c.year for c in cols], shown, strict=True))
            ys = sorted(by_year)
            ch = pct_change(by_year[ys[-1]], by_year[ys[-2]])
            cells.append(TCell(("+" if ch > 0 else "-" if ch < 0 else "") + fmt_tenths(ch)))
        label = _label(cfg, f"sum_{name}", default)
        dollar = cfg.dollar_col and first
        first = False
        rows.append(TRow(label, tuple(cells), "item", 0, "", dollar, False, key))
    years = [c.year for c in cols]
    style = cfg.summary_header or cfg.duration_header
    header = header_rows(replace(cfg, unit_col="", duration_header=style), years, instant=False)
    if cfg.summary_change_col:
        header[-1].append(("Change %", len(cols), len(cols)))
    n = len(cols) + (1 if cfg.summary_change_col else 0)
    unit = _label(cfg, "sum_caption", cfg.unit_caption)
    return TableSpec(
        "sum",
        _label(cfg, "sum_title", "Summary financial information"),
        None,
        unit or None,
        tuple(tuple(r) for r in header),
        tuple(rows),
        n,
        None,
        title_size=12.0,
    )


# --------------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Printed:
    """A numeric cell as drawn: where it landed and what it means."""

    tid: str
    key: str | None
    metric: str | None
    period: str | None
    page: int
    text: str
    units: int
    scale: int
    decimals: int

    @property
    def base(self) -> int:
        """Value in base units as an exact integer when the scale is at least the decimals."""
        return int(self.units * 10 ** (self.scale - self.decimals))


BLACK = (0.0, 0.0, 0.0)
GREY = (0.35, 0.35, 0.35)


class TableGeometry:
    """Where one table's columns stand on a page between ``left`` and ``right``, and its line height."""

    def __init__(self, cfg: DocConfig, spec: TableSpec, left: float, right: float) -> None:
        self.spec = spec
        self.size = size = cfg.table_size
        # Columns widen to fit their longest header line or figure, as typesetters size them.
        widest = max(
            [text_width(t, cfg.bold, size) for hrow in spec.header for t, a, b in hrow if a == b]
            + [text_width(c.text, cfg.bold, size) for row in spec.rows for c in row.cells]
        )
        col_w = max(cfg.col_width, widest + 10)
        # The $ sign of a 10-K sits in its own narrow column left of the figure.
        self.dollar_w = dollar_w = 9.0 if cfg.dollar_col else 0.0
        # A table of many columns narrows them, down to their figures' width, before a label's longest word
        # would run into the first column ("Transactions9,823.00" is one word to a reader).
        word = max(
            (text_width(w, cfg.bold, size) for row in spec.rows for w in row.label.split()), default=0.0
        )
        room = right - left - 8 - word - 4 - (34 if spec.notes_header else 0)
        if spec.n_cols * (col_w + dollar_w) > room:
            col_w = max(widest + 4, room / spec.n_cols - dollar_w)
        self.col_w = col_w
        self.col_rights = [right - (spec.n_cols - 1 - i) * (col_w + dollar_w) for i in range(spec.n_cols)]
        self.notes_x = self.col_rights[0] - col_w - dollar_w - 34 if spec.notes_header else None
        self.label_w = min(
            cfg.label_width, (self.notes_x or self.col_rights[0] - col_w - dollar_w) - left - 8
        )
        self.line_h = size * 1.25
        # Ruled cells keep their figures off the cell border.
        self.inset = 4.0 if cfg.style == "grid" else 0.0

    def col_span(self, first: int, last: int) -> tuple[float, float]:
        """The left and right edges of the columns ``first`` to ``last``."""
        return self.col_rights[first] - self.col_w - self.dollar_w + 4, self.col_rights[last]


class Renderer:
    """Flows headings, paragraphs and tables onto pages and records where every figure lands."""

    def __init__(self, cfg: DocConfig) -> None:
        self.cfg = cfg
        self.doc = pymupdf.open()
        self.width, self.height = cfg.page_size
        self.margin = 56.0 if self.width < 600 else 64.0
        self.bottom = self.height - 60.0
        self.page: Any = None
        self.y = 0.0
        self.printed: list[Printed] = []
        self.tag_pages: dict[str, set[int]] = {}

    # -- pages ---------------------------------------------------------------------------------

    @property
    def page_no(self) -> int:
        """1-based number of the current page."""
        return int(self.doc.page_count)

    def new_page(self) -> None:
        """Start a page with the running header and footer."""
        self.page = self.doc.new_page(width=self.width, height=self.height)
        self.y = self.margin
        if self.page_no == 1:
            return
        cfg = self.cfg
        if cfg.running_header:
            self.text(self.margin, self.margin - 22, cfg.running_header, cfg.font, 7.5, GREY)
        number = self.page_no + cfg.footer_offset
        y = self.height - 34
        if cfg.footer == "center":
            label = str(number)
            self.text((self.width - text_width(label, cfg.font, 8.5)) / 2, y, label, cfg.font, 8.5)
        elif cfg.footer == "page":
            label = f"Page {number}"
            self.text(self.width - self.margin - text_width(label, cfg.font, 8), y, label, cfg.font, 8)
        else:
            self.page.draw_line(
                (self.margin, y - 12), (self.width - self.margin, y - 12), color=GREY, width=0.4
            )
            self.text(self.margin, y, f"{cfg.issuer}  |  {cfg.title}", cfg.font, 7.5, GREY)
            label = str(number)
            self.text(self.width - self.margin - text_width(label, cfg.font, 8), y, label, cfg.font, 8)

    def ensure(self, height: float) -> None:
        """Break the page when ``height`` points do not fit."""
        if self.page is None or self.y + height > self.bottom:
            self.new_page()

    def text(
        self, x: float, y: float, text: str, font: str, size: float, color: tuple[float, ...] = BLACK
    ) -> None:
        """Draw ``text`` with its baseline at ``y``."""
        self.page.insert_text((x, y), winansi(text), fontname=font, fontsize=size, color=color)

    def hline(self, x0: float, x1: float, y: float, width: float = 0.5) -> None:
        """Draw a horizontal rule."""
        self.page.draw_line((x0, y), (x1, y), color=BLACK, width=width)

    # -- flow blocks ---------------------------------------------------------------------------

    def cover(self, lines: Sequence[str]) -> None:
        """The cover page: issuer, document type and date."""
        cfg = self.cfg
        self.new_page()
        band = pymupdf.Rect(0, self.height * 0.30, self.width, self.height * 0.30 + 6)
        self.page.draw_rect(band, color=None, fill=(0.12, 0.22, 0.40))
        y = self.height * 0.30 - 60
        self.text(self.margin, y, cfg.issuer, cfg.bold, 26)
        self.text(self.margin, y + 34, cfg.title, cfg.font, 18)
        y = self.height * 0.30 + 50
        for line in lines:
            self.text(self.margin, y, line, cfg.font, 11)
            y += 18

    def title_block(self, lines: Sequence[str]) -> None:
        """Issuer, document type and date at the top of the first page, for a document without a cover."""
        cfg = self.cfg
        self.new_page()
        self.y += 20
        self.text(self.margin, self.y, cfg.issuer, cfg.bold, 20)
        self.y += 24
        self.text(self.margin, self.y, cfg.title, cfg.font, 14)
        self.y += 8
        for line in lines:
            self.y += 14
            self.text(self.margin, self.y, line, cfg.font, 10)
        self.y += 10
        self.hline(self.margin, self.width - self.margin, self.y, 0.8)
        self.y += 16

    def heading(self, text: str, size: float = 13.0, *, new_page: bool = False) -> None:
        """A section heading in a bigger bold font; keeps some room below it."""
        if new_page:
            self.new_page()
        self.ensure(size * 4)
        self.y += size * 0.2
        for line in wrap(text, self.cfg.bold, size, self.width - 2 * self.margin):
            self.y += size * 1.2
            self.text(self.margin, self.y, line, self.cfg.bold, size)
        self.y += size * 0.7

    def paragraph(self, text: str, tags: Sequence[str] = (), size: float | None = None) -> None:
        """A wrapped body paragraph; ``tags`` record the pages it lands on (for narrative truth)."""
        cfg = self.cfg
        size = size or cfg.body_size
        lead = size * 1.38
        for line in wrap(text, cfg.font, size, self.width - 2 * self.margin):
            self.ensure(lead)
            self.y += lead
            self.text(self.margin, self.y, line, cfg.font, size)
            for tag in tags:
                self.tag_pages.setdefault(tag, set()).add(self.page_no)
        self.y += lead * 0.6

    def footnotes(self, notes: Sequence[str]) -> None:
        """Small footnote lines under a table."""
        for note in notes:
            self.paragraph(note, size=self.cfg.table_size - 1)

    # -- tables --------------------------------------------------------------------------------

    def table(self, spec: TableSpec, *, new_page: bool = False, keep_rows: bool = True) -> None:
        """Draw a table, continuing it on the next page with a repeated header when it runs over.

        ``keep_rows``: the title and heads break to a new page unless two rows fit under them.
        """
        geo = TableGeometry(self.cfg, spec, self.margin, self.width - self.margin)
        if new_page:
            self.new_page()
        self.table_title(geo, continued=False, keep_rows=keep_rows)
        for row in spec.rows:
            self.table_row(geo, row)
        self.y += geo.line_h

    def heads_at_foot(self, heading: str, spec: TableSpec, lead_in: str | None = None, rows: int = 0) -> None:
        """A note's heading (and lead-in), then its table set so that its title, heads and first ``rows``
        rows end the page: the rest begins the next one."""
        scratch = Renderer(self.cfg)
        scratch.new_page()
        top = scratch.y
        scratch.heading(heading, 10)
        if lead_in:
            scratch.paragraph(lead_in)
        geo = TableGeometry(self.cfg, spec, self.margin, self.width - self.margin)
        scratch.table_title(geo, continued=False)
        for row in spec.rows[:rows]:
            scratch.table_row(geo, row)
        height = scratch.y - top
        if self.y + height > self.bottom:
            self.new_page()
        self.y = self.bottom - height - 1.0
        self.heading(heading, 10)
        if lead_in:
            self.paragraph(lead_in)
        self.table(spec, keep_rows=False)

    def table_one_line_short(self, spec: TableSpec, *, new_page: bool = False) -> None:
        """Draw a table so low on its page that its last line runs over onto the next one.

        The space above is left blank: the page's room runs out one line before the table's end, as when a
        statement is set after other matter.
        """
        if new_page:
            self.new_page()
        whole = table_height(self.cfg, spec)
        short = table_height(self.cfg, replace(spec, rows=spec.rows[:-1]))
        line_h = TableGeometry(self.cfg, spec, self.margin, self.width - self.margin).line_h
        start = self.bottom - short + line_h - (whole - short) / 2
        if start < self.y:
            self.new_page()
        self.y = max(self.y, start)
        self.table(spec)

    def table_title(self, geo: TableGeometry, *, continued: bool, keep_rows: bool = True) -> None:
        """A table's title, caption and column heads; on a continuation the title says "(continued)"."""
        cfg, spec, size = self.cfg, geo.spec, geo.size
        titles = spec.title.split("\n")
        titles[-1] += " (continued)" if continued else ""
        # The scale caption goes under the title (the default), on the title's own line, or above
        # explanatory paragraphs that separate it from the table (then not repeated on a continuation).
        one_line = cfg.title_caption_one_line and spec.caption is not None
        above = cfg.caption_placement == "above_prose" and spec.tid in STATEMENT_PROSE
        caption = None if one_line or (above and continued) else spec.caption
        if keep_rows:
            self.ensure(spec.title_size * 3 + geo.line_h * (len(spec.header) + 2))
        for title in titles:
            self.y += spec.title_size * 1.2
            self.text(self.margin, self.y, title, cfg.bold, spec.title_size)
        if one_line and spec.caption:
            x = self.margin + text_width(titles[-1] + " ", cfg.bold, spec.title_size)
            self.text(x, self.y, spec.caption, cfg.font, spec.title_size)
        for sub in (spec.subtitle, caption):
            if sub:
                self.y += size * 1.5
                self.text(self.margin, self.y, sub, cfg.italic if sub == spec.caption else cfg.font, size)
        if above and not continued:
            self.y += size * 0.8
            for para in STATEMENT_PROSE[spec.tid]:
                self.paragraph(para)
            self.ensure(geo.line_h * (len(spec.header) + 3))
        self.y += size * 1.2
        self.table_header(geo)

    def table_header(self, geo: TableGeometry) -> None:
        """The column heads, ruled as the table's style rules them."""
        cfg, spec, size, col_span = self.cfg, geo.spec, geo.size, geo.col_span
        for i, hrow in enumerate(spec.header):
            top = self.y
            self.y += geo.line_h
            for text, first, last in hrow:
                x0, x1 = col_span(first, last)
                if last > first:
                    # A spanning caption is centred over its columns and ruled underneath.
                    w = text_width(text, cfg.bold, size)
                    self.text((x0 + x1 - w) / 2, self.y, text, cfg.bold, size)
                    if cfg.style != "whitespace":
                        self.hline(x0, x1, self.y + 3, 0.4)
                else:
                    x1 -= geo.inset
                    self.text(x1 - text_width(text, cfg.bold, size), self.y, text, cfg.bold, size)
            if spec.notes_header and geo.notes_x is not None and i == len(spec.header) - 1:
                w = text_width(spec.notes_header, cfg.bold, size)
                self.text(geo.notes_x + 14 - w / 2, self.y, spec.notes_header, cfg.bold, size)
            if cfg.style == "grid":
                # Each header line is ruled on its own so that spanning captions are not cut.
                bottom = self.y + (4 if i == len(spec.header) - 1 else 3)
                starts = [col_span(a, b)[0] - 4 for _, a, b in hrow]
                self.grid_row(top + (2 if i else -2), bottom, starts, geo.col_rights, geo.notes_x)
        self.y += 4
        if cfg.style == "filing":
            for i in range(spec.n_cols):
                x0, x1 = col_span(i, i)
                self.hline(x0, x1, self.y, 0.6)
        self.y += 2

    def table_row(self, geo: TableGeometry, row: TRow) -> None:
        """One row: its label, wrapped, and its cells; a new page first (with the heads again) if it does
        not fit or the row asks for one."""
        cfg, spec, size, col_span = self.cfg, geo.spec, geo.size, geo.col_span
        font = (
            cfg.bold
            if row.kind in ("total", "section") or (row.kind == "subtotal" and cfg.style != "filing")
            else cfg.font
        )
        indent = 10.0 * row.indent
        lines = wrap(row.label, font, size, geo.label_w - indent) if row.label else [""]
        height = geo.line_h * len(lines) + cfg.row_gap
        if row.kind == "total":
            height += 3
        if row.break_before or self.y + height > self.bottom:
            self.new_page()
            if cfg.repeat_header_on_break:
                self.table_title(geo, continued=True)
        top = self.y
        if row.kind in ("subtotal", "total") and cfg.style == "filing":
            for i in range(len(row.cells)):
                x0, x1 = col_span(i, i)
                self.hline(x0, x1, self.y + 1.5, 0.5)
            self.y += 2
        for j, line in enumerate(lines):
            self.y += geo.line_h
            # Wrapped labels continue with a hanging indent, as in printed statements.
            self.text(self.margin + indent + (6 if j else 0), self.y, line, font, size)
        text_rights = [x - geo.inset for x in geo.col_rights]
        self.draw_cells(spec, row, text_rights, geo.col_w, geo.dollar_w, geo.notes_x, font, size)
        self.y += cfg.row_gap
        if row.kind == "total" and cfg.style == "filing":
            for i in range(len(row.cells)):
                x0, x1 = col_span(i, i)
                self.hline(x0, x1, self.y, 0.5)
                self.hline(x0, x1, self.y + 1.8, 0.5)
            self.y += 3
        if cfg.style == "grid":
            starts = [col_span(i, i)[0] - 4 for i in range(spec.n_cols)]
            self.grid_row(top, self.y, starts, geo.col_rights, geo.notes_x)

    def grid_row(
        self,
        top: float,
        bottom: float,
        starts: Sequence[float],
        col_rights: Sequence[float],
        notes_x: float | None,
    ) -> None:
        """Rule a fully gridded row: outer box, a separator left of each cell and a bottom line."""
        left = self.margin - 4
        right = col_rights[-1] + 4
        xs = [left, *starts, right]
        if notes_x is not None:
            xs.append(notes_x - 2)
        for x in xs:
            self.page.draw_line((x, top), (x, bottom), color=BLACK, width=0.4)
        self.hline(left, right, top, 0.4)
        self.hline(left, right, bottom, 0.4)

    def draw_cells(
        self,
        spec: TableSpec,
        row: TRow,
        col_rights: Sequence[float],
        col_w: float,
        dollar_w: float,
        notes_x: float | None,
        font: str,
        size: float,
    ) -> None:
        """Draw the note reference and the value cells of a row on the current baseline."""
        cfg = self.cfg
        if row.note and notes_x is not None:
            self.text(
                notes_x + 14 - text_width(row.note, cfg.font, size) / 2, self.y, row.note, cfg.font, size
            )
        for i, cell in enumerate(row.cells):
            x1 = col_rights[i]
            # Keep positive figures aligned with the digits of negatives printed as "(1,234)".
            pad = 0.0 if cell.text.endswith(")") or cfg.neg == "minus" or not cell.units else 3.5
            if cell.text.endswith(")") and "(" in cell.text[1:]:
                pad = 0.0
            self.text(x1 - pad - text_width(cell.text, font, size), self.y, cell.text, font, size)
            if row.dollar and cell.units is not None:
                self.text(x1 - col_w - dollar_w + 4, self.y, self.dollar_sign(), font, size)
            if cell.units is not None:
                self.printed.append(
                    Printed(
                        spec.tid,
                        cell.key,
                        cell.metric,
                        cell.period,
                        self.page_no,
                        cell.text,
                        cell.units,
                        cell.scale,
                        cell.decimals,
                    )
                )

    def dollar_sign(self) -> str:
        """The currency symbol printed in the 10-K style currency column."""
        return {"USD": "$", "GBP": "£", "EUR": "€", "JPY": "¥"}.get(self.cfg.currency, "")

    def finish(self) -> bytes:
        """Serialise with fixed metadata so that the bytes are reproducible."""
        self.doc.set_metadata(
            {
                "title": f"{self.cfg.issuer} {self.cfg.title}",
                "author": self.cfg.issuer,
                "subject": "tieout sample document (synthetic)",
                "keywords": "",
                "creator": "tieout sample_docs.generate",
                "producer": "tieout sample_docs.generate",
                "creationDate": FIXED_DATE,
                "modDate": FIXED_DATE,
            }
        )
        # ``clean`` merges the many small content streams that insert_text creates (a tenfold size saving).
        data: bytes = self.doc.tobytes(garbage=3, deflate=True, clean=True, no_new_id=True)
        return data


# --------------------------------------------------------------------------------------------------
# Narrative
# --------------------------------------------------------------------------------------------------


@dataclass
class Narrative:
    """Builds MD&A sentences from the printed figures and plants a narrative mismatch when asked."""

    cfg: DocConfig
    figs: Figures
    injection: Injection | None
    cur: int
    prev: int

    def money(self, units: int, *, distort: bool = False) -> str:
        """An amount in the narrative's style, converted from statement units."""
        cfg = self.cfg
        if distort:
            units = transpose_digits(units)
        style = cfg.narrative
        if style in ("us", "eu", "code"):
            # Statements in thousands, prose in rounded millions or billions, as US and EU issuers write.
            symbol = {"us": "$", "eu": "€"}.get(style, f"{cfg.currency} ")
            shift = 6 - cfg.scale + cfg.decimals - 1
            millions = round_div(units, 10**shift) if shift >= 0 else units * 10**-shift
            if abs(millions) >= 10_000:
                # Rounded once, from the printed figure: 1,014.97 million is 1.01 billion, not 1.015 → 1.02.
                billions = round_div(units, 10 ** (shift + 2)) if shift >= 0 else round_div(millions, 100)
                return f"{symbol}{fmt_units(billions, 2)} billion"
            return f"{symbol}{fmt_units(millions, 1)} million"
        amount = fmt_units(units, cfg.decimals)
        return {
            "uk": f"£{amount}m",
            "jp": f"¥{amount} million",
            "ch": f"CHF {amount} million",
            "in": f"Rs. {amount} crore",
        }[style]

    def is_target(self, key: str, mode: str) -> bool:
        """True when the narrative injection targets this statement."""
        inj = self.injection
        return inj is not None and inj.key == key and inj.mode == mode

    def change(self, key: str, noun: str, *, verb_up: str = "increased", verb_down: str = "decreased") -> str:
        """ "Revenue increased by 8.4% to £1,338.2m (2024: £1,234.5m)"."""
        cur, prev = self.figs[self.cur][key], self.figs[self.prev][key]
        ch = pct_change(cur, prev)
        if self.is_target(key, "pct"):
            # Off by one full point, in the same direction, as an editing slip would be.
            ch += 10 if ch >= 0 else -10
        verb = verb_up if ch >= 0 else verb_down
        amount = self.money(cur, distort=self.is_target(key, "abs"))
        return f"{noun} {verb} by {fmt_tenths(ch)}% to {amount} ({self.prev}: {self.money(prev)})"

    def value(self, key: str) -> str:
        """The current-year amount of ``key`` in prose."""
        return self.money(self.figs[self.cur][key], distort=self.is_target(key, "abs"))

    def margin(self, key: str) -> str:
        """Current-year ``key`` as a percentage of revenue with the prior year for comparison."""
        cur = ratio_pct(self.figs[self.cur][key], self.figs[self.cur]["revenue"])
        prev = ratio_pct(self.figs[self.prev][key], self.figs[self.prev]["revenue"])
        return f"{fmt_tenths(cur)}% ({self.prev}: {fmt_tenths(prev)}%)"


def narrative_paragraphs(
    cfg: DocConfig, figs: Figures, segs: dict[int, dict[str, int]]
) -> list[tuple[str, str]]:
    """MD&A paragraphs as (text, tag) pairs; the tag names the metric a paragraph states."""
    years = sorted(cfg.years, reverse=True)
    inj = next((i for i in cfg.injections if i.kind == "narrative_mismatch"), None)
    n = Narrative(cfg, figs, inj, years[0], years[1])
    lb = functools.partial(_label, cfg)
    rev_noun = lb("nar_revenue", "Revenue")
    seg_cur, seg_prev = segs[years[0]], segs[years[1]]
    best = max(
        range(len(cfg.segments)), key=lambda i: pct_change(seg_cur[f"segrev{i}"], seg_prev[f"segrev{i}"])
    )
    seg_ch = pct_change(seg_cur[f"segrev{best}"], seg_prev[f"segrev{best}"])
    # The explanations follow the direction of the figures so that the prose never contradicts them.
    if seg_ch >= 0:
        seg_text = (
            f"The strongest performance came from {cfg.segments[best]}, where revenue grew by "
            f"{fmt_tenths(seg_ch)}% to {n.money(seg_cur[f'segrev{best}'])}, reflecting higher volumes, the "
            "full-year effect of contracts won in the prior year and selective price increases."
        )
    else:
        seg_text = (
            f"The most resilient business was {cfg.segments[best]}, where revenue declined by only "
            f"{fmt_tenths(seg_ch)}% to {n.money(seg_cur[f'segrev{best}'])}, as lower volumes were partly "
            "offset by price increases."
        )
    paras: list[tuple[str, str]] = [(f"{n.change('revenue', rev_noun)}. {seg_text}", "revenue")]
    etr = ratio_pct(figs[years[0]]["tax"], figs[years[0]]["pbt"])
    cur_gm = ratio_pct(figs[years[0]]["gross"], figs[years[0]]["revenue"])
    prev_gm = ratio_pct(figs[years[1]]["gross"], figs[years[1]]["revenue"])
    why = (
        "as procurement savings and a better mix more than offset higher freight and energy costs"
        if cur_gm >= prev_gm
        else "as higher freight and energy costs were only partly offset by procurement savings"
    )
    if cfg.is_kind != "in":
        paras.append(
            (
                f"Gross margin was {n.margin('gross')} {why}. "
                f"{n.change('opinc', lb('nar_opinc', 'Operating profit'))}, "
                f"giving an operating margin of {n.margin('opinc')}.",
                "opinc",
            )
        )
    paras.append(
        (
            f"{lb('nar_pbt', 'Profit before tax')} was {n.value('pbt')} and the tax charge was "
            f"{n.value('tax')}, an effective tax rate of {fmt_tenths(etr)}%. "
            f"{n.change('net', lb('nar_net', 'Profit for the year'))}.",
            "net",
        )
    )
    capex = -figs[years[0]]["capex"]
    paras.append(
        (
            f"{lb('nar_ocf', 'Net cash from operating activities')} was {n.value('ocf')}, with working "
            f"capital broadly stable. Capital expenditure of {n.money(capex)} was focused on capacity "
            "and automation, and the Group ended the year with cash and cash equivalents of "
            f"{n.value('cash')}.",
            "ocf",
        )
    )
    return paras


# --------------------------------------------------------------------------------------------------
# Documents
# --------------------------------------------------------------------------------------------------

FILLER = (
    "The Group's principal risks are unchanged from the prior year and are described in the risk section "
    "of this report. The directors have considered the Group's liquidity, covenant headroom and committed "
    "facilities over the going concern assessment period and have a reasonable expectation that it has "
    "adequate resources to continue in operational existence."
)
BASIS = (
    "The consolidated financial statements have been prepared under the historical cost convention, except "
    "for derivative financial instruments, which are measured at fair value. Amounts are rounded to the "
    "nearest unit stated; totals may therefore differ from the sum of rounded components only where noted."
)


# Explanatory paragraphs printed between a statement's scale caption and its table
# (``caption_placement="above_prose"``); they state no figure and no unit.
STATEMENT_PROSE: dict[str, tuple[str, ...]] = {
    "is": (
        "The consolidated income statement presents the revenue, costs and results of the Group for the "
        "financial year. Costs are analysed by function: cost of sales comprises the direct costs of "
        "materials, labour and production overheads, including the depreciation of production assets.",
        "Operating profit is stated before finance income, finance costs and taxation. Items that are "
        "material by their size or nature are disclosed separately in the notes so that the underlying "
        "performance of the Group can be understood.",
        "Earnings per share is calculated by dividing the profit attributable to equity holders of the "
        "parent by the weighted average number of ordinary shares in issue during the year, excluding "
        "shares held in treasury.",
    ),
    "bs": (
        "The consolidated balance sheet presents the assets and liabilities of the Group at the reporting "
        "date. Assets and liabilities are classified as current when they are expected to be realised or "
        "settled within twelve months of the reporting date.",
        "Borrowings are carried at amortised cost. Provisions are recognised when the Group has a present "
        "obligation as a result of a past event and a reliable estimate of the outflow can be made.",
    ),
    "cf": (
        "The consolidated cash flow statement is prepared using the indirect method. Operating profit is "
        "adjusted for non-cash items and for movements in working capital.",
        "Cash and cash equivalents comprise cash at bank and in hand and short-term deposits with an "
        "original maturity of three months or less, net of bank overdrafts repayable on demand.",
    ),
}


def apply_injections(cfg: DocConfig, figs: Figures) -> dict[tuple[str, int], int]:
    """Plant the statement-level injections in ``figs``; return summary-table overrides."""
    overrides: dict[tuple[str, int], int] = {}
    for inj in cfg.injections:
        f = figs[inj.year]
        if inj.kind == "sum_mismatch":
            # Mis-keyed component: its subtotal (computed from the true figures) no longer adds up.
            f[inj.key] = transpose_digits(f[inj.key])
        elif inj.kind == "balance_identity":
            # An asset line and every total above it move together, so each subtotal still adds up.
            delta = round(f["ta"] * 0.0125)
            for key in (inj.key, "tnca" if inj.key in ("ppe", "intang", "other_nca") else "tca", "ta"):
                f[key] += delta
        elif inj.kind == "cross_reference_mismatch":
            scale, decimals = cfg.summary_scale or (cfg.scale, cfg.decimals)
            factor = 10 ** ((scale - decimals) - (cfg.scale - cfg.decimals))
            key = SUMMARY_ROWS[inj.key][1]
            shown = round_div(f[key], factor)
            overrides[(inj.key, inj.year)] = (
                stale_copy(shown) if inj.mode == "stale" else transpose_digits(shown)
            )
    return overrides


@dataclass(frozen=True)
class Layout:
    """One document being laid out: its settings, its figures, its period columns and its renderer."""

    cfg: DocConfig
    figs: Figures
    years: list[int]
    dur_cols: list[Col]
    inst_cols: list[Col]
    r: Renderer


def render_document(cfg: DocConfig, model_years: Sequence[int] = ()) -> tuple[bytes, dict[str, Any]]:
    """Lay out one document and derive its truth entry from what was drawn.

    The parts, in page order: the front (cover and key figures), the operating review, the primary
    statements and the notes. ``model_years``: the years of the issuer's model when it has more than the
    document prints (the same issuer's reports of other years print the same figures for a shared year).
    """
    model = replace(cfg, years=tuple(model_years)) if model_years else cfg
    figs = build_figures(model)
    segs = segment_figures(model, figs)
    if model_years:
        figs, segs = ({y: f[y] for y in sorted(cfg.years)} for f in (figs, segs))
    overrides = apply_injections(cfg, figs)
    years = ordered_years(cfg)
    dur_cols = [Col(y, f"FY{y}") for y in years]
    inst_cols = [Col(y, instant_key(cfg, y)) for y in years]
    doc = Layout(cfg, figs, years, dur_cols, inst_cols, Renderer(cfg))
    draw_front(doc, overrides)
    draw_review(doc, segs)
    draw_statements(doc)
    draw_notes(doc)
    data = doc.r.finish()
    truth = build_truth(cfg, doc.r, data, figs)
    return data, truth


def draw_front(doc: Layout, overrides: dict[tuple[str, int], int]) -> None:
    """The front of the document: its opening over the key figures of the most recent years."""
    cfg, figs = doc.cfg, doc.figs
    recent = [c for c in doc.dur_cols if c.year in sorted(cfg.years)[-cfg.summary_years :]]
    draw_opening(doc.r, cfg, build_summary(cfg, figs, recent, overrides))


def draw_opening(r: Renderer, cfg: DocConfig, summary: TableSpec) -> None:
    """The cover (or a title block), the introduction, the key figures and the review's heading."""
    if cfg.cover_page:
        r.cover(cfg.cover_lines)
        r.new_page()
    else:
        r.title_block(cfg.cover_lines)
    if cfg.document_scale_note and cfg.document_note_at == "start":
        r.paragraph(cfg.document_scale_note)
    for text in cfg.intro:
        r.paragraph(text)
    r.table(summary)
    r.footnotes(cfg.summary_footnotes)
    r.paragraph(FILLER)
    r.heading(_label(cfg, "mdna_title", "Operating and financial review"), 14, new_page=True)


def draw_review(doc: Layout, segs: Figures) -> None:
    """The operating and financial review: its prose, the segment table and the trait tables it holds."""
    cfg, figs, r, dur_cols, inst_cols = doc.cfg, doc.figs, doc.r, doc.dur_cols, doc.inst_cols
    two = [c for c in dur_cols if c.year in sorted(cfg.years)[-2:]]
    paras = narrative_paragraphs(cfg, figs, segs)
    r.heading(_label(cfg, "mdna_results", "Group results"), 11)
    for text, tag in paras[:2]:
        r.paragraph(text, (tag,))
    r.table(build_segment_table(cfg, figs, segs, two))
    if cfg.sbc_twice:
        r.paragraph("Share-based compensation expense was included in the following lines:")
        r.table(build_sbc_table(cfg, figs, dur_cols, "Share-based compensation by line"))
    if cfg.net_debt:
        r.paragraph("Net debt is borrowings less cash and cash equivalents:")
        (r.table_one_line_short if cfg.spilled_totals else r.table)(build_net_debt(cfg, figs, inst_cols))
    if cfg.buybacks:
        r.paragraph("The following table sets out the shares we purchased in the second half of the year:")
        r.table(build_buybacks(cfg))
    if cfg.five_year_record:
        r.paragraph("The five-year record sets out our key figures over a longer period:")
        r.table(build_five_year_record(cfg, figs))
    r.heading(_label(cfg, "mdna_cash", "Profit, tax and cash flow"), 11)
    for text, tag in paras[2:]:
        r.paragraph(text, (tag,))
    r.paragraph(FILLER)


def draw_statements(doc: Layout) -> None:
    """The income statement, the balance sheet and the cash-flow statement."""
    cfg, figs, r, dur_cols, inst_cols = doc.cfg, doc.figs, doc.r, doc.dur_cols, doc.inst_cols
    if cfg.document_scale_note and cfg.document_note_at == "statements":
        # The scale is stated once, at the start of the statements, and on none of them.
        r.heading(_label(cfg, "fs_title", "Consolidated financial statements"), 14, new_page=True)
        r.paragraph(cfg.document_scale_note)
        r.table(build_income_statement(cfg, figs, dur_cols))
    else:
        r.table(build_income_statement(cfg, figs, dur_cols), new_page=True)
    r.paragraph(
        _label(
            cfg, "is_footer", "The notes form an integral part of these consolidated financial statements."
        ),
        size=cfg.table_size,
    )
    # Without a forced break the balance sheet follows the income statement and overflows naturally.
    r.table(build_balance_sheet(cfg, figs, inst_cols), new_page=cfg.bs_break_before is not None)
    draw = r.table_one_line_short if cfg.spilled_totals else r.table
    draw(build_cash_flow(cfg, figs, dur_cols), new_page=cfg.cf_new_page)


def table_height(cfg: DocConfig, spec: TableSpec) -> float:
    """How far down a page the table runs, drawn at the top of a page of its own (on a scratch document)."""
    scratch = Renderer(cfg)
    scratch.new_page()
    top = scratch.y
    scratch.table(spec)
    return scratch.y - top


def draw_notes(doc: Layout) -> None:
    """The notes to the financial statements: two of prose, then the note of each trait switched on."""
    cfg, figs, r, dur_cols, inst_cols = doc.cfg, doc.figs, doc.r, doc.dur_cols, doc.inst_cols
    r.heading(_label(cfg, "notes_title", "Notes to the financial statements"), 13, new_page=True)
    r.heading("1. Basis of preparation", 10)
    r.paragraph(BASIS)
    r.heading("2. Going concern", 10)
    r.paragraph(FILLER)
    if cfg.eps_note and cfg.eps_shares:
        r.heading("3. Earnings per share", 10)
        r.table(build_eps_note(cfg, figs, dur_cols))
    if cfg.sbc_twice:
        r.heading("4. Share-based compensation", 10)
        r.paragraph("The expense recognised for share-based awards in each line of the income statement:")
        r.table(build_sbc_table(cfg, figs, dur_cols, "Share-based compensation expense"))
    if cfg.tax_sections:
        r.heading("5. Taxation", 10)
        r.table(build_tax_note(cfg, figs, dur_cols))
    if cfg.titled_note:
        if cfg.orphaned_heads:
            r.heads_at_foot("6. Receivables", build_titled_note(cfg, figs, inst_cols))
        else:
            r.heading("6. Receivables", 10)
            r.table(build_titled_note(cfg, figs, inst_cols))
    if cfg.net_of_first:
        r.heading("8. Deferred fees", 10)
        r.table(build_net_of_first(cfg, figs, inst_cols))
    if cfg.tax_benefits:
        r.heading("13. Uncertain tax positions", 10)
        r.paragraph("The changes in the gross amount of unrecognized tax benefits were as follows:")
        r.table(build_tax_benefits(cfg, figs, dur_cols))
    if cfg.ppe_note:
        r.heading("12. Property, plant and equipment", 10)
        r.table(build_ppe_note(cfg, figs, inst_cols))
    if cfg.notes_back_to_back:
        # The property table is placed to end at the page's foot; the payables note starts the next page.
        ppe = build_ppe_note(cfg, figs, inst_cols)
        r.heading("14. Other balance sheet items", 10, new_page=True)
        r.paragraph("The property, plant and equipment and the payables in the balance sheet comprise:")
        r.y = max(r.y, r.bottom - table_height(cfg, ppe) - 2)
        r.table(ppe)
        r.table(build_payables_note(cfg, figs, inst_cols), new_page=True)
    if cfg.plans_by_group:
        r.heading("23. Pension plans", 10)
        for measure in ("accumulated", "projected"):
            r.paragraph(f"The plans whose {measure} benefit obligations exceed their assets at the year end:")
            r.table(build_plans_by_group(cfg, figs, f"Plans underfunded on the {measure} obligation"))
    _draw_dated_notes(r, cfg, figs)
    if cfg.maturities:
        schedule = build_maturities(cfg, figs, max(inst_cols, key=lambda c: c.year))
        lead_in = "Undiscounted lease payments fall due as follows:"
        if cfg.schedule_at_foot:
            r.heads_at_foot("9. Leases", schedule, lead_in, rows=1)
        else:
            r.heading("9. Leases", 10)
            r.paragraph(lead_in)
            r.table(schedule)
    if cfg.ratio_sentence:
        r.heading("11. Margins", 10)
        r.paragraph(
            f"As a percentage of revenue, {_label(cfg, 'cogs', 'Cost of sales').lower()} decreased by 1%."
        )
    if cfg.signed_headings:
        r.heading("15. Alternative performance measures", 10)
        r.table(build_signed_headings(cfg, figs, dur_cols))
    if cfg.valuation_accounts:
        r.heading("14. Valuation and qualifying accounts", 10)
        r.table(build_valuation_accounts(cfg, figs))
    for trait, heading, lead_in, build in _INTRODUCED_NOTES:
        if getattr(cfg, trait):
            r.heading(heading, 10)
            r.paragraph(lead_in)
            r.table(build(cfg, figs))
    if cfg.fair_value_columns:
        r.heading("10. Investments", 10)
        r.table(build_securities(cfg, figs, max(doc.years)))
    _draw_equity_notes(r, cfg, figs, dur_cols)


# --------------------------------------------------------------------------------------------------
# Truth
# --------------------------------------------------------------------------------------------------


def matches(fact_base: int, p: Printed) -> bool:
    """True when a printed copy shows exactly ``fact_base``, sign included.

    A copy at a coarser scale (a key-figures table in millions over statements in thousands) or with the
    opposite sign convention (capital expenditure shown positive) is a different printed figure: the
    engine reads it as a different value, so it is not listed among the fact's pages.
    """
    return p.base == fact_base


def build_facts(printed: Sequence[Printed]) -> list[dict[str, Any]]:
    """One fact per (metric, period): the primary statement's value and every page that prints it."""
    facts: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], int] = {}
    for p in printed:
        if p.metric is None or p.period is None:
            continue
        ident = (p.metric, p.period)
        if ident in seen:
            continue
        primaries = [q for q in printed if (q.metric, q.period) == ident and q.tid == PRIMARY[p.metric]]
        source = primaries[0] if primaries else p
        seen[ident] = source.base
    for (metric, period), base in seen.items():
        pages = sorted(
            {q.page for q in printed if (q.metric, q.period) == (metric, period) and matches(base, q)}
        )
        facts.append({"metric": metric, "period": period, "value": float(base), "pages": pages})
    facts.sort(key=lambda f: (list(PRIMARY).index(f["metric"]), f["period"]))
    return facts


def _pages(printed: Sequence[Printed], tid: str, keys: Sequence[str], period: str) -> list[int]:
    return sorted({p.page for p in printed if p.tid == tid and p.key in keys and p.period == period})


SUBTOTAL_OF: dict[str, tuple[str, tuple[str, ...]]] = {
    "recv": ("tca", ("inv", "recv", "other_ca", "cash")),
    "inv": ("tca", ("inv", "recv", "other_ca", "cash")),
    "other_ca": ("tca", ("inv", "recv", "other_ca", "cash")),
    "ppe": ("tnca", ("ppe", "intang", "other_nca")),
    "pay": ("tcl", ("pay", "stb", "ctax")),
    "cogs": ("gross", ("revenue", "cogs")),
}
TOTAL_LABELS = {
    "tca": "Total current assets",
    "tnca": "Total non-current assets",
    "tcl": "Total current liabilities",
    "gross": "Gross profit",
}
KEY_METRIC = {k: m for k, (_, _, m, _) in SUMMARY_ROWS.items() if m} | {"tax": "income_tax"}


def _describe(cfg: DocConfig, r: Renderer, figs: Figures, inj: Injection) -> dict[str, Any]:
    """Truth entry of one planted inconsistency, with the printed figures on both sides."""
    printed = r.printed
    dur, inst = f"FY{inj.year}", instant_key(cfg, inj.year)
    f = figs[inj.year]

    def num(units: int) -> str:
        return fmt_amount(units, cfg.decimals, cfg.neg, cfg.nil)

    metric: str | None
    if inj.kind == "sum_mismatch":
        total, parts = SUBTOTAL_OF[inj.key]
        period = dur if inj.key == "cogs" else inst
        pages = _pages(printed, "is" if inj.key == "cogs" else "bs", (total, *parts), period)
        metric = "gross_profit" if total == "gross" else None
        if inj.key == "cogs":
            desc = (
                f"Gross profit {num(f['gross'])} does not equal revenue {num(f['revenue'])} less cost of "
                f"sales {num(f['cogs'])} in the {inj.year} column (cost of sales mis-keyed)"
            )
        else:
            desc = (
                f"{TOTAL_LABELS[total]} {num(f[total])} does not equal the sum of its components "
                f"({num(sum(f[k] for k in parts))}); "
                f"{_label(cfg, inj.key, inj.key)} mis-keyed as {num(f[inj.key])}"
            )
        return {"kind": inj.kind, "metric": metric, "period": period, "pages": pages, "description": desc}
    if inj.kind == "balance_identity":
        pages = _pages(printed, "bs", ("ta", "tl", "te", "tle"), inst)
        if cfg.bs_kind == "in":
            # Schedule III prints no total liabilities line; the check is against the grand total.
            desc = f"Total assets {num(f['ta'])} do not equal total equity and liabilities {num(f['tle'])}"
        else:
            desc = (
                f"Total assets {num(f['ta'])} do not equal total liabilities {num(f['tl'])} plus total "
                f"equity {num(f['te'])} ({num(f['tl'] + f['te'])})"
            )
        desc += f" at {inst}"
        return {
            "kind": inj.kind,
            "metric": "total_assets",
            "period": inst,
            "pages": pages,
            "description": desc,
        }
    if inj.kind == "cross_reference_mismatch":
        _, key, metric, instant = SUMMARY_ROWS[inj.key]
        period = inst if instant else dur
        # Every table copy of the figure is involved: an engine may cite any of them against the summary.
        pages = sorted({p.page for p in printed if p.metric == metric and p.period == period})
        shown = next(p.text for p in printed if p.tid == "sum" and p.key == key and p.period == period)
        desc = f"Summary table shows {metric} {period} as {shown}; the statement prints {num(f[key])}"
        return {"kind": inj.kind, "metric": metric, "period": period, "pages": pages, "description": desc}
    metric = KEY_METRIC[inj.key]
    # The narrative page plus every table that prints the figure it contradicts.
    tables = {p.page for p in printed if p.metric == metric and p.period == dur}
    pages = sorted(r.tag_pages[inj.key] | tables)
    prev = figs[inj.year - 1][inj.key]
    if inj.mode == "pct":
        true = pct_change(f[inj.key], prev)
        said = true + (10 if true >= 0 else -10)
        desc = (
            f"Narrative gives a {metric} change of {fmt_tenths(said)}%; "
            f"the statements give {fmt_tenths(true)}%"
        )
    else:
        desc = (
            f"Narrative states {metric} of {fmt_units(transpose_digits(f[inj.key]), cfg.decimals)}; "
            f"the statements print {num(f[inj.key])}"
        )
    return {"kind": inj.kind, "metric": metric, "period": dur, "pages": pages, "description": desc}


def build_inconsistencies(cfg: DocConfig, r: Renderer, figs: Figures) -> list[dict[str, Any]]:
    """Describe each planted inconsistency with every page involved."""
    return [_describe(cfg, r, figs, inj) for inj in cfg.injections]


def build_truth(cfg: DocConfig, r: Renderer, data: bytes, figs: Figures) -> dict[str, Any]:
    """The truth entry of one document."""
    facts = build_facts(r.printed)
    for fact in facts:
        fact["currency"] = cfg.currency
    ordered = [{k: f[k] for k in ("metric", "period", "value", "currency", "pages")} for f in facts]
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        n_pages = int(doc.page_count)
    return {
        "file": cfg.file,
        "clean": not cfg.injections,
        "currency": cfg.currency,
        "scale": cfg.scale,
        "pages": n_pages,
        "facts": ordered,
        "inconsistencies": build_inconsistencies(cfg, r, figs),
    }


# --------------------------------------------------------------------------------------------------
# The sample set
# --------------------------------------------------------------------------------------------------

UK_LABELS: dict[str, str] = {
    "is_title": "Consolidated income statement",
    "is_subtitle": "For the year ended 31 December 2025",
    "bs_title": "Consolidated balance sheet",
    "bs_subtitle": "As at 31 December 2025",
    "cf_title": "Consolidated cash flow statement",
    "cf_opinc": "Operating profit",
    "cf_op_head": "Cash flows from operating activities",
    "ocf": "Net cash generated from operating activities",
    "tax": "Taxation",
    "net_assets": "Net assets",
    "te": "Total equity",
    "eq_head": "Equity",
    "sum_title": "Summary financial information",
    "sum_opinc": "Operating profit(1)",
    "sum_capex": "Capital expenditure",
    "sum_net": "Profit for the year",
    "seg_title": "Revenue and operating profit by segment",
    "central": "Central costs",
    "seg_op_total": "Group operating profit",
    "seg_total": "Group revenue",
    "mdna_title": "Chief Financial Officer's review",
    "mdna_results": "Trading performance",
    "d_recv": "Increase in trade and other receivables before the effect of acquisitions and "
    "foreign exchange",
}

US_LABELS: dict[str, str] = {
    "revenue": "Net sales",
    "cogs": "Cost of sales",
    "gross": "Gross profit",
    "opex1": "Selling, general and administrative",
    "opex3": "Research and development",
    "opex2": "Amortization of acquired intangible assets",
    "opinc": "Operating income",
    "fin_inc": "Interest and other income, net",
    "fin_cost": "Interest expense",
    "pbt": "Income before income taxes",
    "tax": "Provision for income taxes",
    "net": "Net income",
    "is_title": "HALVORSEN INDUSTRIES, INC.\nCONSOLIDATED STATEMENTS OF OPERATIONS",
    "bs_title": "CONSOLIDATED BALANCE SHEETS",
    "cf_title": "CONSOLIDATED STATEMENTS OF CASH FLOWS",
    "assets_head": "ASSETS",
    "ca_head": "Current assets:",
    "cash": "Cash and cash equivalents",
    "recv": "Accounts receivable, net of allowance for credit losses",
    "inv": "Inventories",
    "other_ca": "Prepaid expenses and other current assets",
    "tca": "Total current assets",
    "nca_head": "Non-current assets:",
    "ppe": "Property, plant and equipment, net",
    "intang": "Goodwill and intangible assets, net",
    "other_nca": "Other assets",
    "ta": "Total assets",
    "le_head": "LIABILITIES AND STOCKHOLDERS' EQUITY",
    "cl_head": "Current liabilities:",
    "pay": "Accounts payable and accrued expenses",
    "stb": "Current portion of long-term debt",
    "ctax": "Income taxes payable",
    "tcl": "Total current liabilities",
    "ncl_head": "Non-current liabilities:",
    "ltb": "Long-term debt, net of current portion",
    "prov": "Other long-term liabilities",
    "tncl": "Total non-current liabilities",
    "tl": "Total liabilities",
    "eq_head": "Stockholders' equity:",
    "sc": "Common stock, $0.01 par value; 500,000 shares authorized",
    "prem": "Additional paid-in capital",
    "ret": "Retained earnings",
    "te": "Total stockholders' equity",
    "tle": "Total liabilities and stockholders' equity",
    "cf_op_head": "Cash flows from operating activities:",
    "cf_net": "Net income",
    "dep": "Depreciation and amortization",
    "other_adj": "Stock-based compensation and other, net",
    "d_inv": "Inventories",
    "d_recv": "Accounts receivable",
    "d_pay": "Accounts payable and accrued expenses",
    "ocf": "Net cash provided by operating activities",
    "cf_inv_head": "Cash flows from investing activities:",
    "capex": "Purchases of property, plant and equipment",
    "disposals": "Proceeds from sale of property and equipment",
    "acq": "Acquisitions, net of cash acquired",
    "icf": "Net cash used in investing activities",
    "cf_fin_head": "Cash flows from financing activities:",
    "borrow": "Proceeds from issuance of long-term debt",
    "repay": "Repayments of long-term debt",
    "div": "Dividends paid",
    "buyback": "Repurchases of common stock",
    "fcf": "Net cash used in financing activities",
    "net_change": "Net increase (decrease) in cash and cash equivalents",
    "fx": "Effect of exchange rate changes on cash",
    "cash_begin": "Cash and cash equivalents, beginning of year",
    "cash_end": "Cash and cash equivalents, end of year",
    "sum_title": "Financial Highlights",
    "sum_caption": "(in millions)",
    "sum_revenue": "Net sales",
    "sum_opinc": "Operating income",
    "sum_net": "Net income",
    "sum_ocf": "Net cash provided by operating activities",
    "sum_capex": "Purchases of property, plant and equipment",
    "sum_ta": "Total assets",
    "sum_cash": "Cash and cash equivalents",
    "seg_title": "Net Sales by Segment",
    "seg_total": "Total net sales",
    "mdna_title": "Item 7. Management's Discussion and Analysis of Financial Condition and Results of "
    "Operations",
    "mdna_results": "Results of Operations",
    "mdna_cash": "Liquidity and Capital Resources",
    "nar_revenue": "Net sales",
    "nar_opinc": "Operating income",
    "nar_pbt": "Income before income taxes",
    "nar_net": "Net income",
    "nar_ocf": "Net cash provided by operating activities",
    "notes_title": "Notes to Consolidated Financial Statements",
    "is_footer": "See accompanying notes to consolidated financial statements.",
}

EU_LABELS: dict[str, str] = {
    "is_title": "Consolidated statement of profit or loss",
    "is_subtitle": "for the financial years ended 31 December 2025, 2024 and 2023",
    "opex1": "Selling expenses",
    "opex2": "General and administrative expenses",
    "opex3": "Research and development expenses",
    "other_op": "Other operating income and expenses, net",
    "opinc": "Operating profit (EBIT)",
    "pbt": "Earnings before taxes",
    "tax": "Income taxes",
    "net": "Net profit for the year",
    "bs_title": "Consolidated statement of financial position",
    "tle": "Total equity and liabilities",
    "sc": "Subscribed capital",
    "prem": "Capital reserves",
    "ret": "Retained earnings and other reserves",
    "cf_title": "Consolidated statement of cash flows",
    "cf_net": "Net profit for the year",
    "ocf": "Cash flow from operating activities",
    "icf": "Cash flow from investing activities",
    "fcf": "Cash flow from financing activities",
    "capex": "Payments for investments in property, plant and equipment",
    "net_change": "Change in cash and cash equivalents",
    "cash_begin": "Cash and cash equivalents at the beginning of the period",
    "cash_end": "Cash and cash equivalents at the end of the period",
    "fx": "Effect of exchange rate fluctuations",
    "sum_title": "Selected consolidated financial information",
    "sum_opinc": "Operating profit (EBIT)",
    "sum_net": "Net profit for the year",
    "sum_ocf": "Cash flow from operating activities",
    "sum_capex": "Payments for property, plant and equipment",
    "seg_title": "Revenue by operating segment",
    "seg_total": "Group revenue",
    "mdna_title": "Management's discussion and analysis of net assets, financial position and results",
    "mdna_results": "Results of operations",
    "mdna_cash": "Earnings, taxes and liquidity",
    "nar_pbt": "Earnings before taxes",
    "nar_net": "Net profit for the year",
    "nar_ocf": "Cash flow from operating activities",
}

JP_LABELS: dict[str, str] = {
    "revenue": "Net sales",
    "sga": "Selling, general and administrative expenses",
    "opinc": "Operating profit",
    "fin_inc": "Non-operating income",
    "fin_cost": "Non-operating expenses",
    "ordinary": "Ordinary profit",
    "extra": "Extraordinary losses",
    "pbt": "Profit before income taxes",
    "tax": "Income taxes",
    "net": "Profit",
    "is_title": "Consolidated Statements of Income",
    "bs_title": "Consolidated Balance Sheets",
    "cf_title": "Consolidated Statements of Cash Flows",
    "assets_head": "Assets",
    "ca_head": "Current assets",
    "cash": "Cash and cash equivalents",
    "recv": "Notes and accounts receivable - trade",
    "inv": "Merchandise and finished goods",
    "other_ca": "Other",
    "tca": "Total current assets",
    "nca_head": "Non-current assets",
    "ppe": "Property, plant and equipment",
    "intang": "Intangible assets",
    "other_nca": "Investments and other assets",
    "tnca": "Total non-current assets",
    "le_head": "Liabilities",
    "cl_head": "Current liabilities",
    "pay": "Notes and accounts payable - trade",
    "stb": "Short-term borrowings",
    "ctax": "Income taxes payable",
    "ncl_head": "Non-current liabilities",
    "ltb": "Long-term borrowings",
    "prov": "Retirement benefit liability",
    "tl": "Total liabilities",
    "eq_head": "Net assets",
    "sc": "Share capital",
    "prem": "Capital surplus",
    "ret": "Retained earnings",
    "te": "Total net assets",
    "tle": "Total liabilities and net assets",
    "cf_op_head": "Cash flows from operating activities",
    "cf_pbt": "Profit before income taxes",
    "dep": "Depreciation",
    "int_add": "Interest expenses",
    "int_less": "Interest and dividend income",
    "other_adj": "Other, net",
    "d_recv": "Decrease (increase) in trade receivables",
    "d_inv": "Decrease (increase) in inventories",
    "d_pay": "Increase (decrease) in trade payables",
    "cash_gen": "Subtotal",
    "tax_paid": "Income taxes paid",
    "ocf": "Net cash provided by (used in) operating activities",
    "capex": "Purchase of property, plant and equipment",
    "disposals": "Proceeds from sale of property, plant and equipment",
    "acq": "Purchase of shares of subsidiaries resulting in change in scope of consolidation",
    "icf": "Net cash provided by (used in) investing activities",
    "borrow": "Proceeds from long-term borrowings",
    "repay": "Repayments of long-term borrowings",
    "div": "Dividends paid",
    "buyback": "Purchase of treasury shares",
    "fcf": "Net cash provided by (used in) financing activities",
    "fx": "Effect of exchange rate change on cash and cash equivalents",
    "net_change": "Net increase (decrease) in cash and cash equivalents",
    "cash_begin": "Cash and cash equivalents at beginning of period",
    "cash_end": "Cash and cash equivalents at end of period",
    "sum_title": "Consolidated Financial Highlights",
    "sum_revenue": "Net sales",
    "sum_net": "Profit",
    "sum_te": "Net assets",
    "sum_ocf": "Cash flows from operating activities",
    "seg_title": "Segment Information",
    "seg_rev_head": "Net sales",
    "seg_op_head": "Segment profit",
    "central": "Adjustments",
    "seg_total": "Total",
    "seg_op_total": "Operating profit",
    "mdna_title": "Management's Analysis of Operating Results",
    "mdna_results": "Overview of Operating Results",
    "mdna_cash": "Financial Position and Cash Flows",
    "nar_revenue": "Net sales",
    "nar_pbt": "Profit before income taxes",
    "nar_net": "Profit",
    "nar_ocf": "Net cash provided by operating activities",
}

CH_LABELS: dict[str, str] = {
    "revenue": "Net sales",
    "cogs": "Cost of goods sold",
    "opex1": "Marketing and sales",
    "opex3": "Research and development",
    "opex2": "General and administration",
    "other_op": "Other operating income/(expense), net",
    "opinc": "Operating result (EBIT)",
    "fin_inc": "Financial income",
    "fin_cost": "Financial expenses",
    "pbt": "Profit before taxes",
    "tax": "Income taxes",
    "net": "Net profit",
    "is_title": "Consolidated income statement",
    "bs_title": "Consolidated balance sheet",
    "cf_title": "Consolidated cash flow statement",
    "cf_net": "Net profit",
    "ocf": "Cash flow from operating activities",
    "capex": "Investments in property, plant and equipment",
    "icf": "Cash flow from investing activities",
    "fcf": "Cash flow from financing activities",
    "tle": "Total liabilities and equity",
    "le_head": "Liabilities and equity",
    "sc": "Share capital",
    "prem": "Capital reserves",
    "ret": "Retained earnings",
    "d_recv": "Change in trade receivables and other current assets not related to financing activities",
    "sum_title": "Key figures",
    "sum_revenue": "Net sales",
    "sum_gross": "Gross profit",
    "sum_opinc": "Operating result (EBIT)",
    "sum_net": "Net profit",
    "sum_ocf": "Cash flow from operating activities",
    "sum_capex": "Capital expenditure",
    "sum_te": "Equity",
    "seg_title": "Net sales by business area",
    "seg_total": "Group",
    "mdna_title": "Financial review",
    "mdna_results": "Sales and profitability",
    "mdna_cash": "Net profit and cash flow",
    "nar_revenue": "Net sales",
    "nar_opinc": "The operating result (EBIT)",
    "nar_pbt": "Profit before taxes",
    "nar_net": "Net profit",
    "nar_ocf": "Cash flow from operating activities",
}

IN_LABELS: dict[str, str] = {
    "is_title": "Consolidated Statement of Profit and Loss",
    "is_subtitle": "for the year ended 31 March 2025",
    "bs_title": "Consolidated Balance Sheet",
    "bs_subtitle": "as at 31 March 2025",
    "cf_title": "Consolidated Statement of Cash Flows",
    "nca_head": "Non-current assets",
    "ppe": "Property, plant and equipment",
    "intang": "Goodwill and other intangible assets",
    "other_nca": "Other non-current assets",
    "inv": "Inventories",
    "recv": "Trade receivables",
    "other_ca": "Other current assets",
    "eq_head": "Equity",
    "sc": "Equity share capital",
    "prem": "Securities premium",
    "ret": "Other equity",
    "te": "Total equity",
    "cl_head": "Current liabilities",
    "pay": "Trade payables",
    "stb": "Borrowings",
    "ctax": "Current tax liabilities (net)",
    "ltb": "Borrowings",
    "prov": "Provisions",
    "cf_op_head": "A. Cash flow from operating activities",
    "cf_pbt": "Profit before tax",
    "dep": "Depreciation and amortisation expense",
    "int_add": "Finance costs",
    "int_less": "Interest income",
    "other_adj": "Other non-cash adjustments",
    "d_recv": "(Increase)/decrease in trade receivables",
    "d_inv": "(Increase)/decrease in inventories",
    "d_pay": "Increase/(decrease) in trade payables",
    "cash_gen": "Cash generated from operations",
    "tax_paid": "Income taxes paid (net of refunds)",
    "ocf": "Net cash flow from operating activities (A)",
    "cf_inv_head": "B. Cash flow from investing activities",
    "capex": "Purchase of property, plant and equipment and intangible assets",
    "disposals": "Proceeds from sale of property, plant and equipment",
    "acq": "Investment in subsidiaries",
    "icf": "Net cash used in investing activities (B)",
    "cf_fin_head": "C. Cash flow from financing activities",
    "borrow": "Proceeds from long-term borrowings",
    "repay": "Repayment of long-term borrowings",
    "div": "Dividends paid",
    "buyback": "Buy-back of equity shares",
    "fcf": "Net cash used in financing activities (C)",
    "net_change": "Net increase/(decrease) in cash and cash equivalents (A+B+C)",
    "cash_begin": "Cash and cash equivalents at the beginning of the year",
    "cash_end": "Cash and cash equivalents at the end of the year",
    "sum_title": "Financial highlights",
    "sum_revenue": "Revenue from operations",
    "sum_pbt": "Profit before tax",
    "sum_net": "Profit for the year",
    "sum_te": "Net worth",
    "sum_ocf": "Net cash flow from operating activities",
    "seg_title": "Segment revenue",
    "seg_total": "Revenue from operations",
    "mdna_title": "Management Discussion and Analysis",
    "mdna_results": "Financial performance",
    "mdna_cash": "Profitability and cash flows",
    "nar_revenue": "Revenue from operations",
    "nar_ocf": "Net cash flow from operating activities",
    "notes_title": "Notes forming part of the consolidated financial statements",
}

# A US registrant's Form 10-K, as both 10-K issuers (a sample and a layout variant) print it: letter paper,
# costs printed positive, a $ column, US date heads, the balance sheet broken before its liabilities and
# "Table of Contents" atop every page.
us_form_10k = functools.partial(
    DocConfig,
    title="Form 10-K",
    currency="USD",
    page_size=(612.0, 792.0),
    nil="—",
    expense_sign=1,
    dollar_col=True,
    bs_kind="us",
    bs_break_before="le_head",
    cf_start="net",
    opex_rows=("opex1", "opex3", "opex2"),
    duration_header="us_span",
    instant_header="us_span",
    summary_header="fiscal",
    footer="center",
    running_header="Table of Contents",
    narrative="us",
)

DOCS: tuple[DocConfig, ...] = (
    DocConfig(
        file="northwind_2025_annual_report.pdf",
        seed=2025_01,
        issuer="Northwind Holdings plc",
        title="Annual Report 2025",
        cover_lines=(
            "Annual Report and Accounts for the year ended 31 December 2025",
            "Published 12 March 2026",
        ),
        currency="GBP",
        scale=6,
        decimals=1,
        unit_caption="",
        unit_col="£m",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=12345,
        growth=(0.06, 0.11),
        labels=UK_LABELS,
        notes_col="Notes",
        liab_sign=-1,
        bs_kind="uk",
        bs_break_before="cl_head",
        cf_start="opinc",
        segments=("United Kingdom", "Continental Europe", "North America"),
        segment_profit=True,
        summary_rows=("revenue", "opinc", "pbt", "net", "ocf", "capex", "te"),
        summary_change_col=True,
        summary_capex_positive=True,
        summary_footnotes=("(1) Operating profit is stated after restructuring costs, described in note 4.",),
        footer="rule",
        running_header="Northwind Holdings plc  Annual Report 2025",
        narrative="uk",
        intro=(
            "Northwind designs and manufactures specialist packaging for food, healthcare and industrial "
            "customers from 14 sites in the United Kingdom, continental Europe and North America.",
        ),
        injections=(
            Injection("narrative_mismatch", "revenue", 2025, "pct"),
            Injection("sum_mismatch", "recv", 2025),
        ),
    ),
    us_form_10k(
        file="halvorsen_2025_form_10k.pdf",
        seed=2025_02,
        issuer="Halvorsen Industries, Inc.",
        cover_lines=(
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "Washington, D.C. 20549",
            "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            "For the fiscal year ended December 31, 2025",
            "Commission File Number 001-38211",
        ),
        scale=3,
        decimals=0,
        unit_caption="(in thousands)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=1_238_412,
        growth=(0.03, 0.09),
        labels=US_LABELS,
        font="tiro",
        bold="tibo",
        italic="tiit",
        label_width=300.0,
        col_width=70.0,
        segments=("Industrial Solutions", "Medical Technologies", "Aerospace Components"),
        summary_rows=("revenue", "opinc", "net", "ocf", "capex", "ta", "cash"),
        summary_scale=(6, 1),
        footer_offset=30,
        injections=(
            Injection("cross_reference_mismatch", "ocf", 2025),
            Injection("balance_identity", "ppe", 2025),
        ),
    ),
    DocConfig(
        file="aurelia_2025_prospectus.pdf",
        seed=2025_03,
        issuer="Aurelia Logistik SE",
        title="Prospectus",
        cover_lines=(
            "Prospectus dated 16 March 2026",
            "for the public offering of 12,500,000 ordinary bearer shares with no par value",
            "and the admission to trading on the regulated market of the Frankfurt Stock Exchange",
        ),
        currency="EUR",
        scale=3,
        decimals=0,
        unit_caption="(in € thousand)",
        unit_col="",
        years=(2025, 2024, 2023),
        fy_end=(12, 31),
        revenue_base=386_214,
        growth=(0.04, 0.13),
        labels=EU_LABELS,
        style="grid",
        neg="minus",
        nil="–",
        notes_col="Note",
        bs_kind="eu",
        bs_break_before=None,
        has_other_op=True,
        duration_header="span",
        instant_header="two_line_uk",
        segments=("Contract Logistics", "Freight Forwarding", "E-commerce Fulfilment"),
        summary_rows=("revenue", "gross", "opinc", "net", "ocf", "capex", "te", "cash"),
        summary_years=3,
        summary_markers={("gross", 2023): "(1)"},
        summary_footnotes=(
            "(1) Adjusted for the change in presentation of freight costs described in note 2.",
        ),
        footer="page",
        narrative="eu",
        intro=(
            "The selected consolidated financial information below has been taken or derived from the "
            "audited consolidated financial statements of the Company as of and for the financial years "
            "ended 31 December 2025, 2024 and 2023, prepared in accordance with IFRS as adopted by the EU.",
        ),
    ),
    DocConfig(
        file="kaizen_fy2025_annual_report.pdf",
        seed=2025_04,
        issuer="Kaizen Precision Co., Ltd.",
        title="Annual Report 2025",
        cover_lines=("Integrated report for the fiscal year ended March 31, 2025", "Tokyo, June 20, 2025"),
        currency="JPY",
        scale=6,
        decimals=0,
        unit_caption="(Millions of yen)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(3, 31),
        revenue_base=284_512,
        growth=(0.02, 0.07),
        labels=JP_LABELS,
        style="whitespace",
        neg="minus",
        nil="—",
        expense_sign=1,
        prior_first=True,
        label_width=230.0,
        col_width=78.0,
        is_kind="jp",
        bs_kind="jp",
        bs_break_before="le_head",
        cf_start="pbt",
        has_opex3=False,
        opex_rows=("sga",),
        duration_header="two_line_us",
        instant_header="two_line_us",
        segments=("Machine Tools", "Automotive Parts", "Semiconductor Equipment"),
        segment_profit=True,
        summary_rows=("revenue", "opinc", "net", "ocf", "ta", "te"),
        footer="center",
        narrative="jp",
        injections=(
            Injection("sum_mismatch", "cogs", 2024),
            Injection("cross_reference_mismatch", "te", 2024),
            Injection("narrative_mismatch", "opinc", 2025, "abs"),
        ),
    ),
    DocConfig(
        file="alpenglow_2025_annual_report.pdf",
        seed=2025_05,
        issuer="Alpenglow Instruments AG",
        title="Annual Report 2025",
        cover_lines=("Geschäftsbericht / Annual Report 2025", "Zug, 26 February 2026"),
        currency="CHF",
        scale=6,
        decimals=1,
        unit_caption="in CHF million",
        unit_col="CHF m",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=21_453,
        growth=(-0.06, -0.02),
        labels=CH_LABELS,
        font="tiro",
        bold="tibo",
        italic="tiit",
        label_width=175.0,
        col_width=58.0,
        table_size=8.8,
        has_other_op=True,
        bs_kind="eu",
        bs_break_before=None,
        cf_start="net",
        has_fx=True,
        duration_header="plain",
        instant_header="swiss",
        segments=("Laboratory Instruments", "Process Analytics", "Service and Software"),
        summary_rows=("revenue", "gross", "opinc", "net", "ocf", "capex", "te"),
        summary_change_col=True,
        summary_capex_positive=True,
        summary_markers={("capex", 2024): "(2)"},
        summary_footnotes=("(2) Including CHF 4.1 million for the new Baar site.",),
        footer="page",
        narrative="ch",
    ),
    DocConfig(
        file="sundaram_fy2025_annual_report.pdf",
        seed=2025_06,
        issuer="Sundaram Textiles Limited",
        title="Annual Report 2024-25",
        cover_lines=(
            "Annual Report for the financial year 2024-25",
            "CIN: L17111TZ1962PLC000421",
            "Coimbatore, 22 May 2025",
        ),
        currency="INR",
        scale=7,
        decimals=2,
        unit_caption="(All amounts in Rs. crore, unless otherwise stated)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(3, 31),
        revenue_base=412_367,
        growth=(0.07, 0.15),
        labels=IN_LABELS,
        expense_sign=1,
        nil="-",
        notes_col="Note No.",
        label_width=230.0,
        col_width=66.0,
        is_kind="in",
        bs_kind="in",
        bs_break_before="le_head",
        cf_start="pbt",
        has_fx=False,
        duration_header="two_line_uk",
        instant_header="two_line_uk",
        segments=("Yarn", "Fabrics", "Home textiles"),
        summary_rows=("revenue", "pbt", "net", "ocf", "ta", "te"),
        footer="rule",
        narrative="in",
        injections=(Injection("balance_identity", "ppe", 2024),),
    ),
)


# --------------------------------------------------------------------------------------------------
# Layout variants: documents generated at test time, never committed (tests/test_layouts.py)
# --------------------------------------------------------------------------------------------------

THORNBURY_LABELS: dict[str, str] = {
    **UK_LABELS,
    "is_subtitle": "",
    "bs_subtitle": "",
    "bs_caption": "(in GBP millions)",
    "cf_caption": "(in GBP millions)",
    "bs_title": "Consolidated statement of financial position",
    "le_head": "Equity and liabilities",
    "tle": "Total equity and liabilities",
    "sum_caption": "(in GBP millions)",
    "seg_caption": "(in GBP millions)",
    "sum_opinc": "Operating profit",
    "seg_title": "Revenue and operating profit by division",
    "inv": "Inventories",
    "eps_basic": "Basic earnings per share (GBP)",
    "eps_diluted": "Diluted earnings per share (GBP)",
}

RHEINFELD_LABELS: dict[str, str] = {
    **EU_LABELS,
    "is_title": "Consolidated income statement",
    "is_subtitle": "",
    "bs_title": "Consolidated statement of financial position",
    "cf_title": "Consolidated statement of cash flows",
    "sum_title": "Key figures",
    "seg_title": "Revenue by segment",
    "mdna_title": "Combined management report",
    "mdna_results": "Results of operations",
    "notes_title": "Notes to the consolidated financial statements",
}

BRIGHTWATER_LABELS: dict[str, str] = {
    **US_LABELS,
    "is_title": "BRIGHTWATER ANALYTICS, INC.\nCONSOLIDATED STATEMENTS OF OPERATIONS",
    "opex1": "Sales and marketing",
    "opex3": "Research and development",
    "opex2": "General and administrative",
    "sc": "Common stock and additional paid-in capital",
    "prem": "Accumulated other comprehensive income",
    "fs_title": "Item 8. Financial Statements and Supplementary Data",
    "sum_caption": "(in millions)",
    "seg_caption": "(in millions)",
    "seg_title": "Revenue by Product Line",
    "seg_total": "Total revenue",
    "revenue": "Revenue",
    "sum_revenue": "Revenue",
    "nar_revenue": "Revenue",
}

KESTREL_LABELS: dict[str, str] = {
    **UK_LABELS,
    "is_subtitle": "",
    "bs_subtitle": "",
    "is_title": "Consolidated income statement",
    "bs_title": "Consolidated balance sheet",
    "cf_title": "Consolidated cash flow statement",
    "revenue": "Net sales",
    "cogs": "Cost of goods sold",
    "opex1": "Marketing and sales",
    "opex3": "Research and development",
    "opex2": "General and administration",
    "pbt": "Profit before taxes",
    "tax": "Income taxes",
    "net": "Net profit",
    "cf_opinc": "Operating result (EBIT)",
    "opinc": "Operating result (EBIT)",
    "sum_title": "Key figures",
    "sum_caption": "(in CHF millions)",
    "sum_revenue": "Net sales",
    "sum_opinc": "Operating result (EBIT)",
    "sum_net": "Net profit",
    "seg_title": "Net sales by business area",
    "seg_total": "Group",
    "nar_revenue": "Net sales",
    "nar_opinc": "The operating result (EBIT)",
    "nar_pbt": "Profit before taxes",
    "nar_net": "Net profit",
    "mdna_title": "Financial review",
    "mdna_results": "Sales and profitability",
    "mdna_cash": "Net profit and cash flow",
}

MARLOW_LABELS: dict[str, str] = {
    **UK_LABELS,
    "is_subtitle": "",
    "bs_subtitle": "",
    "is_title": "Group income statement",
    "bs_title": "Group balance sheet",
    "cf_title": "Group cash flow statement",
    "cogs": "Cost of sales",
    "opex1": "Distribution costs",
    "opex2": "Administrative expenses",
    "opex3": "Pre-opening and other operating costs",
    "sum_title": "Financial highlights",
    "sum_opinc": "Operating profit",
    "seg_title": "Revenue by region",
    "seg_total": "Group revenue",
    "mdna_title": "Financial review",
}

OAKRIDGE_LABELS: dict[str, str] = {
    **US_LABELS,
    "is_title": "Consolidated Statements of Earnings",
    "bs_title": "Consolidated Balance Sheets",
    "cf_title": "Consolidated Statements of Cash Flows",
    "revenue": "Sales",
    "cogs": "Cost of products sold",
    "opex1": "Selling and distribution",
    "opex3": "Depreciation of selling and administrative assets",
    "opex2": "General and administrative",
    "opinc": "Operating earnings",
    "pbt": "Earnings before income taxes",
    "tax": "Income tax expense",
    "net": "Net earnings",
    "cf_net": "Net earnings",
    "le_head": "LIABILITIES AND SHAREHOLDERS' EQUITY",
    "eq_head": "Shareholders' equity:",
    "sc": "Share capital",
    "prem": "Contributed surplus",
    "te": "Total shareholders' equity",
    "tle": "Total liabilities and shareholders' equity",
    "sum_title": "Five-minute summary",
    "sum_caption": "",
    "sum_revenue": "Sales",
    "sum_opinc": "Operating earnings",
    "sum_net": "Net earnings",
    "sum_te": "Shareholders' equity",
    "seg_title": "Sales by product group",
    "seg_total": "Total sales",
    "mdna_title": "Management's Discussion and Analysis",
    "nar_revenue": "Sales",
    "nar_opinc": "Operating earnings",
    "nar_pbt": "Earnings before income taxes",
    "nar_net": "Net earnings",
    "pay": "Accounts payable and accrued liabilities",
}

WATTLE_LABELS: dict[str, str] = {
    **UK_LABELS,
    "is_title": "Consolidated statement of profit or loss",
    "is_subtitle": "",
    "bs_title": "Consolidated statement of financial position",
    "bs_subtitle": "",
    "cf_title": "Consolidated statement of cash flows",
    "revenue": "Revenue from contracts with customers",
    "cogs": "Cost of sales",
    "opex1": "Distribution expenses",
    "opex2": "Corporate and administration expenses",
    "opex3": "Exploration and evaluation expenses",
    "tax": "Income tax expense",
    "net": "Profit for the year",
    "pay": "Trade and other payables",
    "sum_title": "Financial summary",
    "sum_caption": "(in AUD thousands)",
    "sum_opinc": "Operating profit",
    "seg_caption": "(in AUD thousands)",
    "seg_title": "Revenue by commodity",
    "seg_total": "Total revenue",
    "mdna_title": "Operating and financial review",
}

VARIANT_TRAITS: dict[str, str] = {
    "thornbury_2025_annual_report.pdf": "scale caption above two or three paragraphs of prose on each "
    "statement (not repeated on the balance sheet's continuation); costs printed positive; per-share rows "
    "under a '(in GBP millions, except per share data)' caption",
    "rheinfeld_2025_annual_report.pdf": "title and scale caption on one line on every table; prior year "
    "first; Times; whitespace tables; minus-sign negatives",
    "brightwater_2025_form_10k.pdf": "scale stated once at the start of the financial statements, no caption "
    "or unit head on any statement; Courier; $ column; costs printed positive",
    "kestrel_2025_annual_report.pdf": "statements flow into each other and run over page breaks with no "
    "'(continued)' and no repeated column heads; liabilities in parentheses with 'Net assets'; key figures "
    "in CHF millions over statements in CHF thousands",
    "marlow_2025_annual_report.pdf": "title and caption on one line; liabilities in parentheses with 'Net "
    "assets'; costs printed positive; page breaks without repeated heads; prior year first; 30 June "
    "year end; 2 decimal places",
    "oakridge_2025_annual_report.pdf": "scale stated once for the whole document on its first page, no "
    "caption on any table; no cover page; costs printed positive; balance sheet continued with repeated "
    "heads but no scale",
    "wattle_2025_annual_report.pdf": "scale caption above prose and statements that run over page breaks "
    "with no heads repeated, so the continuation is far from any scale; fully ruled grid; liabilities in "
    "parentheses with 'Net assets'; 30 June year end",
}


LAYOUT_VARIANTS: tuple[DocConfig, ...] = (
    DocConfig(
        file="thornbury_2025_annual_report.pdf",
        seed=2025_11,
        issuer="Thornbury Foods plc",
        title="Annual Report 2025",
        cover_lines=(
            "Annual Report and Accounts for the year ended 31 December 2025",
            "Published 4 March 2026",
        ),
        currency="GBP",
        scale=6,
        decimals=1,
        unit_caption="(in GBP millions, except per share data)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=8_734,
        growth=(0.04, 0.09),
        labels=THORNBURY_LABELS,
        expense_sign=1,
        bs_kind="eu",
        bs_break_before="le_head",
        cf_start="opinc",
        segments=("Bakery", "Chilled foods", "Ingredients"),
        summary_rows=("revenue", "opinc", "pbt", "net", "ocf", "te"),
        footer="rule",
        narrative="uk",
        cover_page=False,
        caption_placement="above_prose",
        eps_shares=412_500_000,
        injections=(Injection("sum_mismatch", "inv", 2024),),
    ),
    DocConfig(
        file="rheinfeld_2025_annual_report.pdf",
        seed=2025_12,
        issuer="Rheinfeld Antriebstechnik AG",
        title="Annual Report 2025",
        cover_lines=("Annual Report 2025", "Düsseldorf, 18 March 2026"),
        currency="EUR",
        scale=3,
        decimals=0,
        unit_caption="(in EUR thousands)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=512_806,
        growth=(0.02, 0.06),
        labels=RHEINFELD_LABELS,
        font="tiro",
        bold="tibo",
        italic="tiit",
        style="whitespace",
        neg="minus",
        prior_first=True,
        notes_col="Note",
        label_width=230.0,
        # A 13-point gutter between the two-line date heads (the generator's minimum is 10 points).
        col_width=80.0,
        bs_kind="eu",
        bs_break_before="le_head",
        has_other_op=True,
        duration_header="span",
        instant_header="two_line_uk",
        segments=("Industrial Drives", "Rail Systems", "Service"),
        summary_rows=("revenue", "opinc", "net", "ocf", "capex", "te"),
        footer="page",
        narrative="eu",
        title_caption_one_line=True,
    ),
    us_form_10k(
        file="brightwater_2025_form_10k.pdf",
        seed=2025_13,
        issuer="Brightwater Analytics, Inc.",
        cover_lines=(
            "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
            "For the fiscal year ended December 31, 2025",
        ),
        scale=6,
        decimals=0,
        unit_caption="",
        unit_col="",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=4_862,
        growth=(0.08, 0.15),
        labels=BRIGHTWATER_LABELS,
        font="cour",
        bold="cobo",
        italic="coit",
        label_width=280.0,
        col_width=60.0,
        table_size=8.0,
        body_size=9.0,
        segments=("Platform subscriptions", "Professional services", "Data licensing"),
        summary_rows=("revenue", "opinc", "net", "ocf", "ta", "cash"),
        document_scale_note="All amounts are in USD millions unless otherwise stated.",
        document_note_at="statements",
        injections=(Injection("cross_reference_mismatch", "ta", 2025),),
    ),
    DocConfig(
        file="kestrel_2025_annual_report.pdf",
        seed=2025_14,
        issuer="Kestrel Präzisionstechnik AG",
        title="Annual Report 2025",
        cover_lines=("Annual Report 2025", "Winterthur, 3 March 2026"),
        currency="CHF",
        scale=3,
        decimals=0,
        unit_caption="(in CHF thousands)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=684_215,
        growth=(0.01, 0.05),
        labels=KESTREL_LABELS,
        # Airy rows: the balance sheet breaks between current liabilities and their total, and the
        # cash-flow statement, which follows it, inside the financing section.
        table_size=9.5,
        row_gap=7.5,
        liab_sign=-1,
        bs_kind="uk",
        bs_break_before=None,
        cf_start="opinc",
        duration_header="plain",
        instant_header="swiss",
        segments=("Motion Control", "Sensors", "Aftermarket"),
        summary_rows=("revenue", "opinc", "net", "ocf", "ta", "te"),
        summary_scale=(6, 1),
        footer="page",
        narrative="code",
        cover_page=False,
        repeat_header_on_break=False,
        cf_new_page=False,
        injections=(Injection("balance_identity", "ppe", 2025),),
    ),
    DocConfig(
        file="marlow_2025_annual_report.pdf",
        seed=2025_15,
        issuer="Marlow Leisure Group plc",
        title="Annual Report 2025",
        cover_lines=("Annual Report for the year ended 30 June 2025", "Dublin, 9 September 2025"),
        currency="EUR",
        scale=6,
        decimals=2,
        unit_caption="(€ million)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(6, 30),
        revenue_base=93_417,
        growth=(0.05, 0.12),
        labels=MARLOW_LABELS,
        font="tiro",
        bold="tibo",
        italic="tiit",
        expense_sign=1,
        liab_sign=-1,
        prior_first=True,
        label_width=220.0,
        bs_kind="uk",
        bs_break_before="cl_head",
        cf_start="net",
        duration_header="span",
        instant_header="span",
        segments=("Ireland", "United Kingdom", "Spain"),
        summary_rows=("revenue", "opinc", "pbt", "net", "ocf", "te"),
        footer="rule",
        narrative="eu",
        title_caption_one_line=True,
        repeat_header_on_break=False,
    ),
    DocConfig(
        file="oakridge_2025_annual_report.pdf",
        seed=2025_16,
        issuer="Oakridge Timber Products Ltd.",
        title="Annual Report 2025",
        cover_lines=("Annual Report for the year ended December 31, 2025", "Vancouver, British Columbia"),
        currency="CAD",
        scale=3,
        decimals=0,
        unit_caption="",
        unit_col="",
        years=(2025, 2024),
        fy_end=(12, 31),
        revenue_base=1_486_302,
        growth=(0.03, 0.08),
        labels=OAKRIDGE_LABELS,
        style="whitespace",
        nil="—",
        expense_sign=1,
        label_width=260.0,
        col_width=70.0,
        bs_kind="us",
        bs_break_before="le_head",
        cf_start="net",
        duration_header="two_line_us",
        instant_header="two_line_us",
        segments=("Lumber", "Panels", "Pulp"),
        summary_rows=("revenue", "opinc", "net", "ocf", "capex", "te"),
        footer="center",
        narrative="code",
        cover_page=False,
        document_scale_note=(
            "All amounts in this report are in thousands of Canadian dollars unless otherwise stated."
        ),
        document_note_at="start",
        injections=(
            Injection("sum_mismatch", "pay", 2024),
            Injection("cross_reference_mismatch", "revenue", 2025),
        ),
    ),
    DocConfig(
        file="wattle_2025_annual_report.pdf",
        seed=2025_17,
        issuer="Wattle Creek Resources Limited",
        title="Annual Report 2025",
        cover_lines=("Annual Report for the year ended 30 June 2025", "Perth, Western Australia"),
        currency="AUD",
        scale=3,
        decimals=0,
        unit_caption="(in AUD thousands)",
        unit_col="",
        years=(2025, 2024),
        fy_end=(6, 30),
        revenue_base=734_906,
        growth=(0.06, 0.14),
        labels=WATTLE_LABELS,
        style="grid",
        liab_sign=-1,
        label_width=230.0,
        bs_kind="uk",
        bs_break_before=None,
        cf_start="opinc",
        duration_header="two_line_uk",
        instant_header="two_line_uk",
        segments=("Iron ore", "Lithium", "Copper"),
        summary_rows=("revenue", "opinc", "net", "ocf", "te"),
        footer="center",
        narrative="code",
        cover_page=False,
        caption_placement="above_prose",
        repeat_header_on_break=False,
        cf_new_page=False,
    ),
)
"""Documents whose layouts none of the six samples has, generated at test time and never committed.

Each is a new issuer with its own currency, scale and fonts; the traits are in ``VARIANT_TRAITS``.
"""


def layout_variants() -> list[DocConfig]:
    """The layout variants (:data:`LAYOUT_VARIANTS`), as a list a caller may change."""
    return list(LAYOUT_VARIANTS)


def render_variant(cfg: DocConfig) -> tuple[bytes, dict[str, Any]]:
    """Render one layout variant in memory: its PDF bytes and its truth entry (same shape as truth.json)."""
    return render_document(cfg)


def write_documents(out: Path, configs: Sequence[DocConfig]) -> dict[str, Any]:
    """Write each document's PDF and their ``truth.json`` into ``out``; return the truth document."""
    out.mkdir(parents=True, exist_ok=True)
    documents = []
    for cfg in configs:
        data, truth = render_document(cfg)
        (out / cfg.file).write_bytes(data)
        documents.append(truth)
    truth_doc: dict[str, Any] = {"schema": 1, "documents": documents}
    (out / "truth.json").write_text(truth_json(truth_doc), encoding="utf-8")
    return truth_doc


def generate_variants(out: Path) -> dict[str, Any]:
    """Write every layout variant and their ``truth.json`` into ``out`` for inspection."""
    return write_documents(out, layout_variants())


def generate(out: Path) -> dict[str, Any]:
    """Write every sample PDF and ``truth.json`` into ``out``; return the truth document."""
    return write_documents(out, DOCS)


def truth_json(truth: dict[str, Any]) -> str:
    """Serialise the truth file: stable key order, one fact per line so that diffs stay readable."""
    return json.dumps(truth, indent=1, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=SAMPLE_DIR, help="output folder (default: sample_docs/)")
    parser.add_argument(
        "--variants",
        type=Path,
        metavar="DIR",
        help="write the layout variants (never committed) and their truth.json to DIR instead",
    )
    args = parser.parse_args(argv)
    truth = generate_variants(args.variants) if args.variants else generate(args.out)
    for doc in truth["documents"]:
        kinds = ", ".join(i["kind"] for i in doc["inconsistencies"]) or "clean"
        print(f"{doc['file']}: {doc['pages']} pages, {len(doc['facts'])} facts, {kinds}")
        if doc["file"] in VARIANT_TRAITS:
            print(f"    {VARIANT_TRAITS[doc['file']]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
