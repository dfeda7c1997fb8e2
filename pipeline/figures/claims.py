"""Narrative claims: what a sentence states about a metric ("revenue rose 12% to $1.2bn in 2025").

The parser behind the narrative checks (:mod:`pipeline.checks.narrative`) and the text facts
(:mod:`pipeline.figures.text_facts`): each sentence is split into clauses around its verbs, and every amount
in a clause gets a role (the current value, the prior value, the change, the percentage change) and a
period, or is left out when it cannot be given one for certain.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from pipeline.figures.numbers import find_numbers
from pipeline.figures.taxonomy import MetricDef, Taxonomy
from pipeline.knobs import Knobs
from pipeline.memo import scoped
from schemas.models import Block

__all__ = [
    "CLAIM_SETTINGS",
    "Amount",
    "ClaimSettings",
    "NarrativeClaim",
    "PeriodRef",
    "parse_claims",
]


class ClaimSettings(Knobs):
    """The claim parser's tuning knobs, named and documented; unknown keys raise.

    As for the table finder's (:class:`pipeline.parse.table_types.TableFinderSettings`, after pdfplumber's
    ``table_settings``). The regexes below are not knobs but the wording of financial narrative, grouped by
    what they recognise.
    """

    change_window: int = Field(
        40,
        ge=1,
        description="Characters read either side of a percentage for the words that make it a change "
        '("up 5%", "5% higher") or a level ("a margin of 38.5%").',
    )
    amount_window: int = Field(
        60,
        ge=1,
        description="Characters read after an amount for the words that give its period or role "
        '("in the prior year", "per share").',
    )
    first_year: int = Field(
        1900, description="A bare whole number from this year to ``last_year`` is a year, not an amount."
    )
    last_year: int = Field(2100, description="The last number read as a year (see ``first_year``).")
    subject_passes: int = Field(
        3,
        ge=1,
        description='Times period phrases are stripped from a clause subject ("In the fourth quarter of '
        '2025, total revenue" → "total revenue"), at most.',
    )


CLAIM_SETTINGS = ClaimSettings()
"""The settings :func:`parse_claims` reads."""

# --- narrative claims --------------------------------------------------------------------------

PeriodKind = Literal["FY", "Q", "H1", "9M", "instant"]
_KIND_MONTHS: dict[str, int] = {"FY": 12, "Q": 3, "H1": 6, "9M": 9}


@dataclass(frozen=True, slots=True)
class PeriodRef:
    """A period as a narrative sentence states it.

    Attributes:
        kind: Fiscal year, quarter, first half, nine months, or an instant (balance at a year end).
        year: Fiscal year.
        quarter: Quarter number for ``kind == "Q"``.
        explicit: True when the sentence names the kind of period; False when it was assumed (a bare
            "Revenue increased 5%" is read as the document's current fiscal year).
    """

    kind: PeriodKind
    year: int
    quarter: int | None = None
    explicit: bool = False

    @property
    def key(self) -> str:
        """The ``Period.key`` a table column for this period would carry."""
        if self.kind == "FY":
            return f"FY{self.year}"
        if self.kind == "Q":
            return f"Q{self.quarter}-{self.year}"
        if self.kind in ("H1", "9M"):
            return f"{self.kind}-{self.year}"
        return str(self.year)

    @property
    def months(self) -> int | None:
        """Length of the duration in months, None for an instant."""
        return _KIND_MONTHS.get(self.kind)

    @property
    def label(self) -> str:
        """Human-readable period for messages."""
        if self.kind == "FY":
            return str(self.year)
        if self.kind == "Q":
            return f"Q{self.quarter} {self.year}"
        if self.kind == "instant":
            return f"end of {self.year}"
        return f"{self.kind} {self.year}"

    def shifted(self, years: int) -> PeriodRef:
        """The same kind of period ``years`` later (negative for earlier)."""
        return PeriodRef(self.kind, self.year + years, self.quarter, self.explicit)

    def with_year(self, year: int) -> PeriodRef:
        """The same kind of period in another year."""
        return PeriodRef(self.kind, year, self.quarter, self.explicit)


@dataclass(frozen=True, slots=True)
class Amount:
    """A figure found in a sentence; ``start``/``end`` index the sentence, values are in base units."""

    start: int
    end: int
    text: str
    value: float
    decimals: int
    scale: int
    currency: str | None
    percent: bool
    printed_value: float


@dataclass(frozen=True, slots=True)
class NarrativeClaim:
    """What one clause states about one metric.

    Attributes:
        metric: The metric its subject maps to.
        subject: The subject as printed ("Operating profit").
        block: The block the sentence is in.
        sentence: The sentence text (whitespace collapsed).
        offset: Start of the sentence in the block text (whitespace collapsed).
        current: The figure stated for the current period, if any.
        current_period: Period of ``current`` (and of the change's end point).
        prior: The comparative figure, if any.
        prior_period: Period of ``prior`` (and of the change's starting point).
        change: The stated percentage change (its ``value`` is unsigned as printed), if any.
        direction: +1 for an increase, -1 for a decrease, 0 when the sentence does not say.
        change_amount: The stated amount of change ("up $50 million"), unsigned as printed, if any.
        direction_word: The direction the clause's verb gives (+1 "increased", -1 "fell", 0 "was").
    """

    metric: MetricDef
    subject: str
    block: Block
    sentence: str
    offset: int
    current: Amount | None
    current_period: PeriodRef | None
    prior: Amount | None
    prior_period: PeriodRef | None
    change: Amount | None
    direction: int
    change_amount: Amount | None = None
    direction_word: int = 0

    @property
    def signed_change(self) -> float | None:
        """The stated change with the sign the wording gives it (None when no change is stated)."""
        if self.change is None:
            return None
        magnitude = abs(self.change.value)
        if self.direction:
            return self.direction * magnitude
        return self.change.value


# --- the wording of narrative claims -------------------------------------------------------------------
# Compiled once, and module constants: the words financial narrative states figures with, not thresholds to
# tune (those are CLAIM_SETTINGS). Grouped by what they recognise.

# Sentences and clauses: where a sentence ends, its verbs and the direction they give, where a clause's
# subject begins (_BOUNDARY) and where its figures end (_CUT: causes and offsets follow).
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“‘$£€])")
_YEAR = r"(?:19|20)\d{2}"
"""A year, as a pattern to build the period regexes with."""
_VERB = re.compile(
    r"\b(?P<verb>increased|decreased|rose|fell|grew|declined|dropped|climbed|improved|"
    r"(?:was|were)(?:\s+(?:up|down))?|totall?ed|amounted\s+to|reached|came\s+in\s+at|stood\s+at|up|down|of)\b",
    re.IGNORECASE,
)
_UP_WORDS = frozenset({"increased", "rose", "grew", "climbed", "improved", "up", "was up", "were up"})
_DOWN_WORDS = frozenset({"decreased", "fell", "declined", "dropped", "down", "was down", "were down"})
# "up"/"down"/"of" are only verbs when a figure follows ("Revenue of $1.3 billion", "Sales up 5%").
_FIGURE_AHEAD = re.compile(r"\s+(?:by\s+)?(?:[A-Z]{0,2}[$£€¥]|[A-Z]{3}\s)?\s?\d")
_CHANGE_NOUN_BEFORE = re.compile(
    r"(?:increase|decrease|decline|growth|rise|improvement|reduction|change|gain|drop)\s*$", re.IGNORECASE
)
_BOUNDARY = re.compile(r"[;:()]\s*|,\s+|\b(?:and|while|whereas|but|with)\s+", re.IGNORECASE)
# Forward-looking, hypothetical or non-GAAP wording: the figures are not the reported ones; and "as a
# percentage of net sales, selling … expenses decreased by 1%": the change of a ratio, not of the amount.
_SKIP_CLAUSE = re.compile(
    r"\bas\s+a\s+(?:percent(?:age)?|%|share|proportion)\s+of\b|"
    r"\b(?:expect\w*|anticipat\w*|guidance|outlook|forecast\w*|target\w*|project(?:ed|ion)s?|plan(?:s|ned)?|"
    r"will|would|could|should|might|estimat\w*|intend\w*|aim\w*|assum\w*|pro\s+forma|organic\w*|"
    r"constant\s+(?:currency|exchange)|currency[- ]neutral|adjust(?:ed|ing)|underlying|like[- ]for[- ]like|"
    r"non-?gaap|excluding|exclusive\s+of|before\s+(?:special|exceptional|non-?recurring)|"
    r"segment|division)\b",
    re.IGNORECASE,
)
_CUT = re.compile(
    r";|\b(?:driven|due|primarily|mainly|largely|partly|partially|reflecting|reflects|reflected|offset|"
    r"attributable|resulting|including|excluding|led|because|which|whereas|while|but|despite|thanks|following|"
    r"supported|benefit(?:ing|ed)|as\s+a\s+result|as\s+well\s+as|compared\s+with\s+an?\s|of\s+which)\b",
    re.IGNORECASE,
)

# Periods: which kind of period a clause is about (a quarter, a half, nine months, the year; _OTHER_SPAN a
# span no table column is keyed by), and the year its subject names (_SUBJECT_YEAR).
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER = re.compile(
    r"\b(first|second|third|fourth)[- ]quarter\b|\bQ([1-4])\b|(?<![\d.,])\b([1-4])Q\b", re.IGNORECASE
)
# "(?<![\d.,])" keeps "£1,368.9m" from reading as "9M" (nine months).
_HALF = re.compile(
    r"\b(?:first[- ]half|half[- ]year|six[- ]months|interim\s+period)\b|(?<![\d.,])\bH1\b", re.I
)
_NINE = re.compile(r"\bnine[- ]months\b|(?<![\d.,])\b9M\b", re.IGNORECASE)
_OTHER_SPAN = re.compile(
    r"\b(?:year[- ]to[- ]date|ytd|second[- ]half|H2|\d+\s+weeks|three[- ]months)\b", re.I
)
_QUARTER_WORD = re.compile(r"\bquarter(?:ly)?\b", re.IGNORECASE)
_FY_WORDS = re.compile(r"\b(?:full[- ]year|fiscal[- ]year|financial[- ]year|twelve[- ]months|annual)\b", re.I)
_SUBJECT_YEAR = re.compile(
    rf"\b(?:in|for|during)\s+(?:the\s+)?(?:(?:fiscal|financial)\s+(?:year\s+)?|fy\s*)?({_YEAR})\b"
    rf"|\b(?:fiscal|fy|financial\s+year)\s*({_YEAR})\b|^\s*({_YEAR})\b"
    rf"|\bquarter\s+of\s+(?:fiscal\s+)?({_YEAR})\b|\bended\s+[A-Za-z]+\s+\d{{1,2}},?\s+({_YEAR})\b"
    rf"|\bended\s+\d{{1,2}}\s+[A-Za-z]+\s+({_YEAR})\b",
    re.IGNORECASE,
)
_PERIOD_PHRASE = re.compile(
    rf"\b(?:in|for|during|over)\s+(?:the\s+)?(?:(?:fiscal|financial|full)[- ])?"
    rf"(?:(?:first|second|third|fourth)[- ]quarter|first[- ]half|half[- ]year|"
    rf"(?:three|six|nine|twelve)\s+months|year|quarter|period)(?:\s+ended\s+(?:[A-Za-z]+\s+\d{{1,2}},?|\d{{1,2}}\s+[A-Za-z]+)\s+{_YEAR})?"
    rf"(?:\s+(?:of\s+)?(?:fiscal\s+)?{_YEAR})?"
    rf"|\b(?:in|for|during)\s+(?:(?:fiscal|financial)\s+(?:year\s+)?|fy\s*)?{_YEAR}\b"
    rf"|^(?:(?:fiscal|fy)\s*)?{_YEAR}\s+"
    rf"|^(?:full[- ]year|fiscal[- ]year|annual|quarterly|(?:first|second|third|fourth)[- ]quarter|q[1-4]|"
    rf"h1|first[- ]half)\s+",
    re.IGNORECASE,
)
# Subjects: the words stripped from a clause's subject before it is looked up in the taxonomy ("Our").
_SUBJECT_FILLER = re.compile(
    r"^(?:the|our|its|their|group|consolidated|total|reported|gaap|company's|company’s|the\s+company's)\s+",
    re.IGNORECASE,
)

# Roles of amounts, by the words just before (..._BEFORE) or after (..._AFTER) each: approximate figures and
# amounts of change are left out; the others are the prior period's, the current one's, or a year's.
_APPROX_BEFORE = re.compile(
    r"(?:approximately|approx\.?|about|around|roughly|nearly|almost|over|more\s+than|less\s+than|"
    r"in\s+excess\s+of|up\s+to|at\s+least|some|close\s+to|just\s+(?:over|under)|~)\s*$",
    re.IGNORECASE,
)
_CHANGE_AMOUNT_BEFORE = re.compile(
    r"(?:\bby|\bup|\bdown|(?:increase|decrease|decline|growth|rise|improvement|reduction|change|gain|drop)"
    r"\s+of)\s*$",
    re.IGNORECASE,
)
_PRIOR_BEFORE = re.compile(
    r"(?:\bfrom|compared\s+(?:with|to)|\bversus|\bvs\.?|\bagainst|relative\s+to)\s+"
    r"(?:the\s+)?(?:(?:prior|previous|last)[- ]year(?:'s)?\s+|last\s+year's\s+)?$",
    re.IGNORECASE,
)
# A clause introduced as the comparison: "…, compared with net income of $8.1 billion a year ago".
_COMPARED_BEFORE = re.compile(r"\b(?:compared\s+(?:with|to)|versus|vs\.?|against)\s+(?:the\s+)?[^,;]*$", re.I)
_CURRENT_BEFORE = re.compile(r"\bto\s*$", re.IGNORECASE)
_YEAR_BEFORE = re.compile(rf"\(\s*(?:fiscal\s+|fy\s*)?({_YEAR})\s*[:,-]?\s*$", re.IGNORECASE)
_YEAR_AFTER = re.compile(
    rf"^\s*(?:in|for|during|at)\s+(?:the\s+)?(?:fy\s*)?(?:[A-Za-z-]+,?\s+|\d{{1,2}},?\s+){{0,6}}?({_YEAR})\b",
    re.IGNORECASE,
)
_PRIOR_AFTER = re.compile(
    r"^\s*(?:(?:in|for|during)\s+(?:the\s+)?(?:prior|previous|preceding|comparable|last|same)[- ]"
    r"(?:fiscal[- ])?(?:year|period|quarter)|(?:a\s+)?year[- ]ago|last\s+year|"
    r"in\s+(?:fiscal\s+)?prior\s+year)",
    re.IGNORECASE,
)
_PER_SHARE_AFTER = re.compile(r"^\s*(?:per|a)\s+(?:\w+\s+)?(?:share|unit|ads)\b", re.IGNORECASE)

# Percentages: a change, with the direction its words give, or a level (a margin, a share, a rate).
_CHANGE_PCT_AFTER = re.compile(
    r"^\s*(?:increase|decrease|decline|growth|rise|improvement|reduction|higher|lower|up|down|"
    r"year[- ]over[- ]year|yoy|from|compared|versus|vs\b|over\s+(?:the\s+)?(?:prior|previous|last))",
    re.IGNORECASE,
)
_RATIO_PCT_AFTER = re.compile(
    r"^\s*(?:of\b|margin|points|pts|percentage\s+points?|share|stake|interest|owned|rate)", re.IGNORECASE
)
# "an increase of 14.1 percent on a per diluted share basis": the change of the per-share figure.
_PER_SHARE_PCT_AFTER = re.compile(
    r"^\s*(?:percent\s+)?(?:on\s+(?:a\s+)?)?per\s+(?:diluted\s+|basic\s+)?share", re.I
)
_PCT_UP_AFTER = re.compile(r"^\s*(?:increase|growth|rise|improvement|higher|up)\b", re.IGNORECASE)
_PCT_DOWN_AFTER = re.compile(r"^\s*(?:decrease|decline|reduction|lower|down|drop)\b", re.IGNORECASE)
_PCT_UP_BEFORE = re.compile(r"(?:increase|growth|rise|improvement|\bup)\s*(?:of|by)?\s*$", re.IGNORECASE)
_PCT_DOWN_BEFORE = re.compile(r"(?:decrease|decline|reduction|\bdown|drop)\s*(?:of|by)?\s*$", re.IGNORECASE)


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    """Split collapsed text into sentences with their offsets (decimal points never split)."""
    start = 0
    for m in _SENTENCE_SPLIT.finditer(text):
        yield start, text[start : m.start()]
        start = m.end()
    if start < len(text):
        yield start, text[start:]


def _amounts(sentence: str) -> list[Amount]:
    """The figures of a sentence (dashes left out), percentages unscaled, amounts in base units."""
    out: list[Amount] = []
    for tn in find_numbers(sentence):
        n = tn.number
        if n.is_dash:
            continue
        scale = 0 if n.percent else n.scale
        out.append(
            Amount(
                start=tn.start,
                end=tn.end,
                text=sentence[tn.start : tn.end],
                value=n.value * 10.0**scale,
                decimals=n.decimals_printed - scale,
                scale=scale,
                currency=n.currency,
                percent=n.percent,
                printed_value=n.value,
            )
        )
    return out


def _is_year(a: Amount) -> bool:
    """Whether a figure is a year printed in the text ("in 2025"), not an amount."""
    return (
        not a.percent
        and a.currency is None
        and a.scale == 0
        and a.decimals == 0
        and CLAIM_SETTINGS.first_year <= a.value <= CLAIM_SETTINGS.last_year
        and a.text.strip().isdigit()
    )


def _clean_subject(text: str) -> str:
    """Strip period phrases and fillers from a clause subject ("In 2025, total revenue" → "total revenue")."""
    subject = text.strip(" ,")
    for _ in range(CLAIM_SETTINGS.subject_passes):
        stripped = _PERIOD_PHRASE.sub(" ", subject)
        stripped = " ".join(stripped.split()).strip(" ,")
        if stripped == subject:
            break
        subject = stripped
    return subject


def _match_subject(text: str, taxonomy: Taxonomy) -> tuple[str, MetricDef] | None:
    """Map a clause subject to a metric: exact synonym, possibly after leading fillers ("Our", "Group")."""
    subject = _clean_subject(text)
    while subject:
        metric = taxonomy.match(subject)
        if metric is not None:
            return subject, metric
        shorter = _SUBJECT_FILLER.sub("", subject, count=1)
        if shorter == subject:
            return None
        subject = shorter
    return None


def _has_period_words(text: str) -> bool:
    """Whether a clause names a kind of period or a year of its own."""
    return any(
        p.search(text) for p in (_QUARTER, _QUARTER_WORD, _HALF, _NINE, _OTHER_SPAN, _FY_WORDS, _SUBJECT_YEAR)
    )


def _clause_period(
    kind_text: str, subject_zone: str, default_year: int | None, instant: bool
) -> PeriodRef | None:
    """The period a clause is about; None when it is ambiguous or unknown.

    Args:
        kind_text: Text that says which kind of period (quarter, half, year) the clause is about.
        subject_zone: Text before the clause's verb: only years stated there set the current year,
            because years after the verb belong to figures ("… compared with $2.1m in 2024").
        default_year: The document's current fiscal year.
        instant: The metric is a balance at a date.
    """
    if _OTHER_SPAN.search(kind_text):
        return None
    quarters = {
        _QUARTER_WORDS[m.group(1).lower()] if m.group(1) else int(m.group(2) or m.group(3))
        for m in _QUARTER.finditer(kind_text)
    }
    half, nine = bool(_HALF.search(kind_text)), bool(_NINE.search(kind_text))
    if len(quarters) > 1 or (quarters and (half or nine)) or (half and nine):
        return None
    if not quarters and _QUARTER_WORD.search(kind_text):
        return None  # "the quarter" without saying which one
    years = {int(next(g for g in m.groups() if g)) for m in _SUBJECT_YEAR.finditer(subject_zone)}
    if len(years) > 1:
        return None
    stated = bool(years)
    year = years.pop() if years else default_year
    if year is None:
        return None
    if instant:
        return PeriodRef("instant", year, explicit=stated)
    if quarters:
        return PeriodRef("Q", year, quarters.pop(), explicit=True)
    if half:
        return PeriodRef("H1", year, explicit=True)
    if nine:
        return PeriodRef("9M", year, explicit=True)
    return PeriodRef("FY", year, explicit=bool(_FY_WORDS.search(kind_text)))


@dataclass(frozen=True, slots=True)
class _Verb:
    """A verb that starts a clause, and the direction of change it gives (+1, -1, 0)."""

    start: int
    end: int
    direction: int


def _verbs(sentence: str) -> list[_Verb]:
    """The clause verbs of a sentence; "up", "down" and "of" only when a figure follows."""
    out: list[_Verb] = []
    for m in _VERB.finditer(sentence):
        word = " ".join(m.group("verb").lower().split())
        if word in ("up", "down", "of") and not _FIGURE_AHEAD.match(sentence, m.end()):
            continue
        if word == "of" and _CHANGE_NOUN_BEFORE.search(sentence, 0, m.start()):
            continue  # "an increase of 8.4%" qualifies a figure; it does not start a clause
        direction = 1 if word in _UP_WORDS else -1 if word in _DOWN_WORDS else 0
        out.append(_Verb(m.start(), m.end(), direction))
    return out


def _without_amounts(text: str, offset: int, amounts: Sequence[Amount]) -> str:
    """A slice of the sentence with its figures blanked out (to see whether words remain)."""
    chars = list(text)
    for a in amounts:
        for i in range(max(a.start - offset, 0), min(a.end - offset, len(chars))):
            chars[i] = " "
    return "".join(chars)


def _region_end(sentence: str, verb: _Verb, later: Sequence[_Verb], amounts: Sequence[Amount]) -> int:
    """Where the figures of a clause end: a cue word, or the start of the next clause with a subject."""
    end = len(sentence)
    cut = _CUT.search(sentence, verb.end)
    if cut is not None:
        end = cut.start()
    for nxt in later:
        if nxt.start >= end:
            break
        bounds = [m.end() for m in _BOUNDARY.finditer(sentence, verb.end, nxt.start)]
        start = bounds[-1] if bounds else verb.end
        subject = _without_amounts(sentence[start : nxt.start], start, amounts)
        if re.search(r"[A-Za-z]{2,}", subject):
            return min(end, start)
    return end


def _pct_role(sentence: str, a: Amount, region_start: int, verb_direction: int) -> int | None:
    """Direction hint of a percentage that states a change (0 = no hint), or None when it is a level.

    After a neutral verb ("Gross margin was 38.5%") a bare percentage is a level, not a change; only a
    change word ("up 5%", "an increase of 5%", "5% higher") makes it one.
    """
    window = CLAIM_SETTINGS.change_window
    after = sentence[a.end : a.end + window]
    before = sentence[max(region_start, a.start - window) : a.start]
    if _RATIO_PCT_AFTER.match(after) or _PER_SHARE_PCT_AFTER.match(after):
        return None
    if _PCT_UP_AFTER.match(after) or _PCT_UP_BEFORE.search(before):
        return 1
    if _PCT_DOWN_AFTER.match(after) or _PCT_DOWN_BEFORE.search(before):
        return -1
    if _CHANGE_PCT_AFTER.match(after):
        return 0
    if verb_direction and (not before.strip() or re.fullmatch(r"\s*by\s*", before)):
        return 0
    return None


@dataclass(slots=True)
class _Roles:
    """A clause's amounts by role: current, prior, unlabelled (loose), and amounts of change."""

    current: list[tuple[Amount, int | None]]
    prior: list[tuple[Amount, int | None]]
    loose: list[tuple[Amount, int | None]]
    changes: list[Amount] = field(default_factory=list)


def _money_roles(
    sentence: str, money: Sequence[Amount], verb: _Verb, metric: MetricDef, comparative: bool
) -> _Roles:
    """Sort a clause's amounts into current, prior and unlabelled figures.

    Amounts of change are left out: "increased by $50 million", and also "increased $50 million" (an
    amount right after a verb of change is how much it changed; the level is stated with "to").
    In a comparative clause ("…, compared with net income of $8.1 billion, a year ago") every figure is
    the prior period's.
    """
    roles = _Roles([], [], [])
    previous_end = verb.end
    for i, a in enumerate(money):
        before = sentence[previous_end : a.start]
        after = sentence[a.end : a.end + CLAIM_SETTINGS.amount_window]
        previous_end = a.end
        if _APPROX_BEFORE.search(before):
            continue
        if _CHANGE_AMOUNT_BEFORE.search(before) or (i == 0 and verb.direction and not before.strip()):
            roles.changes.append(a)  # "up $50 million", "increased $1.7 billion": how much it changed
            continue
        if metric.unit != "per_share" and _PER_SHARE_AFTER.match(after):
            continue
        if comparative:
            roles.prior.append((a, None))
            continue
        year_m = _YEAR_AFTER.match(after) or _YEAR_BEFORE.search(before)
        year = int(year_m.group(1)) if year_m else None
        if _PRIOR_AFTER.match(after) or _PRIOR_BEFORE.search(before):
            roles.prior.append((a, year))
        elif year is not None and _YEAR_BEFORE.search(before):
            roles.prior.append((a, year))  # "(2024: £219.3m)" is the comparative
        elif _CURRENT_BEFORE.search(before):
            roles.current.append((a, year))
        else:
            roles.loose.append((a, year))
    return roles


def _single(items: Sequence[tuple[Amount, int | None]]) -> tuple[Amount, int | None] | None:
    """The one item of a role, or None when there are none or several (ambiguous)."""
    return items[0] if len(items) == 1 else None


def _build_claim(
    block: Block,
    sentence: str,
    offset: int,
    subject: str,
    metric: MetricDef,
    verb: _Verb,
    context: tuple[str, str],
    region: tuple[int, int],
    amounts: Sequence[Amount],
    default_year: int | None,
    comparative: bool = False,
) -> NarrativeClaim | None:
    """The claim one clause states, or None when its period or figures cannot be read for certain."""
    base = _clause_period(context[0], context[1], default_year, metric.period_type == "instant")
    if base is None:
        return None
    inside = [a for a in amounts if region[0] <= a.start and a.end <= region[1] and not _is_year(a)]
    changes: list[tuple[Amount, int]] = []
    for a in inside:
        if a.percent:
            hint = _pct_role(sentence, a, region[0], verb.direction)
            if hint is not None:
                changes.append((a, hint or verb.direction))
    money = [a for a in inside if not a.percent and (a.currency is not None or a.scale != 0)]
    if metric.unit == "percent":
        return None
    roles = _money_roles(sentence, money, verb, metric, comparative)
    # An explicitly current figure ("to $X") wins; otherwise a single unlabelled figure is the current one.
    current = _single(roles.current) if roles.current else _single(roles.loose)
    prior = _single(roles.prior)
    cur_period = base.with_year(current[1]) if current and current[1] else base
    if prior is not None and prior[1] is not None:
        prior_period = base.with_year(prior[1])
    else:
        prior_period = cur_period.shifted(-1)
    if prior_period.year >= cur_period.year:
        return None  # the comparative must precede the current figure; otherwise the reading is wrong
    change, direction = changes[0] if len(changes) == 1 else (None, 0)
    change_amount = roles.changes[0] if len(roles.changes) == 1 else None
    if current is None and prior is None and change is None and change_amount is None:
        return None
    return NarrativeClaim(
        metric=metric,
        subject=subject,
        block=block,
        sentence=sentence,
        offset=offset,
        current=current[0] if current else None,
        current_period=cur_period,
        prior=prior[0] if prior else None,
        prior_period=prior_period,
        change=change,
        direction=direction,
        change_amount=change_amount,
        direction_word=verb.direction,
    )


_DIGIT = re.compile(r"\d")
"""Any digit: a sentence without one states no figure."""


def _sentence_claims(
    block: Block, sentence: str, offset: int, taxonomy: Taxonomy, default_year: int | None
) -> list[NarrativeClaim]:
    # Most sentences state no figure at all; skip them before the costlier number scan.
    """The claims of one sentence, clause by clause, in reading order."""
    if _DIGIT.search(sentence) is None:
        return []
    amounts = _amounts(sentence)
    if not any(not _is_year(a) for a in amounts):
        return []
    verbs = _verbs(sentence)
    claims: list[NarrativeClaim] = []
    floor = 0
    lead: str | None = None
    for i, verb in enumerate(verbs):
        if verb.start < floor:
            continue
        starts = [floor] + [m.end() for m in _BOUNDARY.finditer(sentence, floor, verb.start)]
        found: tuple[str, MetricDef] | None = None
        for s in starts:  # longest subject first
            found = _match_subject(sentence[s : verb.start], taxonomy)
            if found is not None:
                break
        if found is None:
            continue
        end = _region_end(sentence, verb, verbs[i + 1 :], amounts)
        clause = sentence[floor:end]
        zone = sentence[floor : verb.start]
        comparative = bool(_COMPARED_BEFORE.search(zone))
        if lead is None:
            lead = zone
        elif not _SUBJECT_YEAR.search(zone):
            zone = lead  # "In 2025, revenue … and operating income …": the lead phrase covers both
        if not _SUBJECT_YEAR.search(zone):
            # "Net cash used … in the six months ended June 30, 2022 was due to …, and purchases of
            # property of $366 million": a later clause is about the period an earlier one named.
            earlier = {
                int(next(g for g in m.groups() if g)) for m in _SUBJECT_YEAR.finditer(sentence, 0, floor)
            }
            if len(earlier) > 1:
                floor = end
                continue
            if earlier:
                zone = f"in {earlier.pop()} {zone}"
        floor = end
        if _SKIP_CLAUSE.search(clause):
            continue
        # A clause that names no period inherits the sentence's ("In the fourth quarter, …, while …").
        kind_text = clause if _has_period_words(clause) else sentence[:end]
        claim = _build_claim(
            block,
            sentence,
            offset,
            found[0],
            found[1],
            verb,
            (kind_text, zone),
            (verb.end, end),
            amounts,
            default_year,
            comparative,
        )
        if claim is not None:
            claims.append(claim)
    return claims


def parse_claims(block: Block, taxonomy: Taxonomy, *, default_year: int | None) -> list[NarrativeClaim]:
    """Read what the sentences of a text block state about metrics.

    A clause yields a claim only when its subject is exactly a taxonomy synonym (after period phrases
    and fillers such as "In 2025," or "Our" are removed), its period can be resolved, and it is not
    forward-looking, hypothetical or non-GAAP. Figures are assigned to the current or prior period by
    their wording ("from … to …", "(2024: …)", "compared with … in the prior year", "in 2024");
    approximate figures ("about $1.3 billion") and amounts of change ("up $50 million") are ignored.

    Args:
        block: A narrative text block.
        taxonomy: The metric taxonomy.
        default_year: The document's current fiscal year, for sentences that name none.

    Returns:
        Claims in reading order.
    """
    # Facts and the narrative check both read the same blocks: within one document's run (see
    # pipeline.memo.document_scope) each block is parsed once.
    if _DIGIT.search(block.text) is None:
        return []
    cache: dict[_ClaimsKey, tuple[NarrativeClaim, ...]] | None = scoped(parse_claims)
    key = (block, default_year, taxonomy)  # a Taxonomy hashes by identity: the very one this run reads
    if cache is not None and key in cache:
        return list(cache[key])
    text = " ".join(block.text.split())
    claims: list[NarrativeClaim] = []
    for offset, sentence in _sentences(text):
        claims.extend(_sentence_claims(block, sentence, offset, taxonomy, default_year))
    if cache is not None:
        cache[key] = tuple(claims)
    return claims


_ClaimsKey = tuple[Block, int | None, Taxonomy]
