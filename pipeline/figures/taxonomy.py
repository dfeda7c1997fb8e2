"""The metric taxonomy: canonical metric ids, their XBRL concepts, and label matching.

Labels are matched EXACTLY after normalisation, never by substring: "Deferred revenue" is a liability
and "Revenue recognition" a policy heading, and neither is revenue. The normalisation only removes what
does not change the meaning of a label (case, footnote markers, note references, dot leaders,
"(loss)" variants, punctuation).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypedDict

import yaml

__all__ = [
    "Balance",
    "FactMetric",
    "MetricDef",
    "MetricUnit",
    "PeriodType",
    "Taxonomy",
    "TaxonomyError",
    "load_taxonomy",
    "normalise_label",
    "parse_taxonomy",
]

MetricUnit = Literal["currency", "per_share", "shares", "percent"]
Balance = Literal["debit", "credit"]
PeriodType = Literal["duration", "instant"]

_UNITS: frozenset[str] = frozenset({"currency", "per_share", "shares", "percent"})


class FactMetric(TypedDict):
    """The fields of a ``schemas.models.Fact`` that say which metric it is (:meth:`MetricDef.of_fact`)."""

    metric: str
    concept_us_gaap: str | None
    concept_ifrs: str | None
    unit: MetricUnit


@dataclass(frozen=True, slots=True)
class MetricDef:
    """One canonical metric.

    Attributes:
        id: Canonical snake_case id, e.g. ``revenue``.
        us_gaap: US GAAP element (``us-gaap:Revenues``) or None when the taxonomy has none.
        ifrs: IFRS element (``ifrs-full:Revenue``) or None.
        unit: Unit class of the figures.
        balance: Natural balance, when monetary.
        sign: ``"expense"`` when filers print the figure with either sign, so places are compared by
            magnitude; None otherwise.
        period_type: Whether the figure is for a duration or at an instant.
        is_total: True when the row is normally a computed total or subtotal.
        synonyms: Labels as printed (un-normalised, for documentation and text search).
        patterns: Anchored regular expressions over normalised labels (labels naming the company).
        opening_synonyms: Labels of the balance at the start of a column's period ("Cash and cash
            equivalents at beginning of year").
    """

    id: str
    us_gaap: str | None
    ifrs: str | None
    unit: MetricUnit
    balance: Balance | None = None
    sign: str | None = None
    period_type: PeriodType = "duration"
    is_total: bool = False
    synonyms: tuple[str, ...] = ()
    patterns: tuple[str, ...] = field(default=(), repr=False)
    opening_synonyms: tuple[str, ...] = field(default=(), repr=False)

    @property
    def magnitude_only(self) -> bool:
        """True when the sign of a printed figure is a presentation choice (costs, tax, capex)."""
        return self.sign == "expense"

    def of_fact(self) -> FactMetric:
        """What a fact of this metric says it is, whether a table or a sentence states it.

        The metric id, its elements in both taxonomies and its unit (a ``schemas.models.Unit`` value).
        """
        return FactMetric(
            metric=self.id, concept_us_gaap=self.us_gaap, concept_ifrs=self.ifrs, unit=self.unit
        )


# --- label normalisation ------------------------------------------------------------------------

_QUOTES = str.maketrans({"‘": "'", "’": "'", "‛": "'", "′": "'", "“": '"', "”": '"', "`": "'"})
_DASHES = re.compile(r"[‐‑‒–—―−]")
_SUPERSCRIPTS = re.compile(r"[¹²³⁰⁴-⁹]+")
_FOOTNOTE_MARKS = re.compile(r"[*†‡§¶#]+")
# "(1)", "(a)", "(iv)", "[2]": footnote references. Longer words in parentheses carry meaning.
_FOOTNOTE_REF = re.compile(r"[(\[]\s*(?:\d{1,2}|[a-z]|[ivx]{1,4})\s*[)\]]")
_NOTE_REF = re.compile(r"\(?\bnotes?\s+\d+[a-z]?(?:\s*(?:,|and|&|-)\s*\d+[a-z]?)*\)?")
_SCALE_NOTE = re.compile(r"\((?:in\s+)?(?:[$£€]\s*)?(?:millions?|thousands?|billions?|m|bn|000s?|'000)\)")
# "(loss)", "/(loss)", "(deficit)", "(benefit from)" qualify a label without changing the concept.
_LOSS_VARIANTS = re.compile(
    r"\s*/?\s*\(\s*(?:loss|losses|deficit|benefit|benefit from|expense|accumulated deficit)\s*\)\s*/?\s*"
)
_SLASH_LOSS = re.compile(r"\s*/\s*(?:loss|losses)\b")
_DOT_LEADERS = re.compile(r"(?:\.\s*){2,}|…+")
_LEADING_OPERATOR = re.compile(r"^(?:less|add|plus|deduct)\s*:?\s+")
_TRAILING_DIGITS = re.compile(r"(?<=[a-z])\d{1,2}$")
# "Revenue 3", "Income taxes 7": a note number printed in the label column.
_TRAILING_NOTE = re.compile(r"(?<=[a-z]) \d{1,2}[a-z]?$")
# "Net income attributable to 3M": a name that begins with a digit, printed with a capital, is no note "3m".
_NAME_AT_END = re.compile(r"\s\d{1,2}[A-Z][\W_]*$")
_PUNCT = re.compile(r"[^\w%]+")


@functools.lru_cache(maxsize=1 << 15)
def normalise_label(label: str) -> str:
    """Normalise a printed row label for exact lookup.

    Casefolds, unifies quotes and dashes, drops footnote markers ("(1)", "(a)", "*", superscripts),
    note references ("Note 5"), scale notes ("(in millions)"), "(loss)"-style qualifiers, dot leaders,
    a leading "Less:" and all punctuation except "%"; apostrophes are removed so "shareholders'" and
    "shareholders" compare equal.

    Args:
        label: The label as printed.

    Returns:
        Lower-case words separated by single spaces ('' when nothing is left).
    """
    # NFKC turns superscript digits into plain digits, so strip them from the raw label first.
    text = _SUPERSCRIPTS.sub(" ", label.translate(_QUOTES))
    named = _NAME_AT_END.search(text) is not None
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _DASHES.sub("-", text)
    text = _DOT_LEADERS.sub(" ", text)
    text = _NOTE_REF.sub(" ", text)
    text = _SCALE_NOTE.sub(" ", text)
    text = _FOOTNOTE_REF.sub(" ", text)
    text = _FOOTNOTE_MARKS.sub(" ", text)
    text = _LOSS_VARIANTS.sub(" ", text)
    text = _SLASH_LOSS.sub(" ", text)
    text = text.replace("&", " and ").replace("'", "")
    text = _PUNCT.sub(" ", text).strip()
    text = _TRAILING_DIGITS.sub("", text).strip()
    text = " ".join(text.split())
    text = text if named else _TRAILING_NOTE.sub("", text).strip()
    text = _LEADING_OPERATOR.sub("", text)
    return " ".join(text.replace("_", " ").split())


_DROPPED_WORDS = frozenset(
    {
        # words normalise_label may drop with a phrase: a note reference ("Notes 5 and 6"), a scale note
        # ("(in millions)"), a "(loss)" variant, a leading operator ("Less:")
        *("note", "notes", "and", "in", "m", "bn"),
        *("loss", "losses", "deficit", "benefit", "from", "expense", "accumulated"),
        *("less", "add", "plus", "deduct"),
    }
)
_ROMAN = re.compile(r"[ivx]+")
_LETTERS = re.compile(r"[a-z]+")


def _kept_word(word: str) -> bool:
    """Whether a lower-cased ASCII word is in the normalised label as it is.

    A word of letters alone is changed by no step of :func:`normalise_label`; it is dropped only inside a
    phrase that step removes: a footnote reference of one letter or a roman numeral ("( iv )"), or one of
    :data:`_DROPPED_WORDS`.
    """
    return word.isalpha() and len(word) > 1 and word not in _DROPPED_WORDS and not _ROMAN.fullmatch(word)


def _required_words(pattern: str) -> frozenset[str]:
    """Words every match of an anchored ``pattern`` holds: its plain words outside any group.

    Groups, character classes and escapes are not read, nor a word a quantifier follows ("interests?");
    a pattern with an alternative at its top level requires nothing.
    """
    top: list[str] = []
    depth, i = 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            top.append("  ")
            i += 2
            continue
        if ch == "[":
            close = pattern.find("]", i + 2)
            if close < 0:
                return frozenset()
            top.append(" " * (close - i + 1))
            i = close + 1
            continue
        if ch == "|" and depth == 0:
            return frozenset()
        depth += (ch == "(") - (ch == ")")
        top.append(ch if depth == 0 and ch != ")" else " ")
        i += 1
    return frozenset(m.group(1) for m in re.finditer(r"(?<![\w.])([a-z]{3,})(?![\w?*{+])", "".join(top)))


# --- the taxonomy --------------------------------------------------------------------------------


class TaxonomyError(ValueError):
    """The taxonomy file is malformed (duplicate ids, colliding synonyms, bad units)."""


class Taxonomy:
    """Metric definitions and an exact, normalised label index."""

    def __init__(self, metrics: list[MetricDef]) -> None:
        """Build the lookup tables.

        Args:
            metrics: Metric definitions; ids must be unique and no normalised synonym may map to two
                metrics.

        Raises:
            TaxonomyError: On duplicate ids or colliding synonyms.
        """
        self._metrics: dict[str, MetricDef] = {}
        self._index: dict[str, tuple[MetricDef, bool]] = {}
        self._memo: dict[str, tuple[MetricDef, bool] | None] = {}
        patterns: list[tuple[re.Pattern[str], MetricDef]] = []
        for metric in metrics:
            if metric.id in self._metrics:
                raise TaxonomyError(f"duplicate metric id {metric.id!r}")
            self._metrics[metric.id] = metric
            labels = [(s, False) for s in metric.synonyms] + [(s, True) for s in metric.opening_synonyms]
            for synonym, opening in labels:
                key = normalise_label(synonym)
                other = self._index.get(key)
                if other is not None and other != (metric, opening):
                    raise TaxonomyError(f"synonym {synonym!r} maps to both {other[0].id} and {metric.id}")
                self._index[key] = (metric, opening)
            patterns.extend((re.compile(p), metric) for p in metric.patterns)
        self._patterns = tuple(patterns)
        self._vocabulary = frozenset(word for key in self._index for word in key.split())
        self._pattern_words = tuple(_required_words(p.pattern) for p, _ in patterns)
        # Longest synonyms first so a text search prefers "total net sales" over "sales".
        self._synonyms_by_length = tuple(sorted(self._index, key=len, reverse=True))

    @property
    def metrics(self) -> Mapping[str, MetricDef]:
        """All metrics by id."""
        return self._metrics

    def __iter__(self) -> Iterator[MetricDef]:
        return iter(self._metrics.values())

    def __len__(self) -> int:
        return len(self._metrics)

    def ids(self) -> list[str]:
        """Every metric id, in file order."""
        return list(self._metrics)

    def get(self, metric_id: str) -> MetricDef | None:
        """Return the metric with this id, or None."""
        return self._metrics.get(metric_id)

    def match(self, label: str) -> MetricDef | None:
        """Map a printed label to a metric by exact lookup of its normalised form.

        Args:
            label: A row label or a narrative subject as printed.

        Returns:
            The metric, or None when the normalised label is not a known synonym (substrings never
            match).
        """
        found = self.lookup(label)
        return found[0] if found is not None and not found[1] else None

    def lookup(self, label: str) -> tuple[MetricDef, bool] | None:
        """Like :meth:`match`, but also finds opening-balance labels.

        Args:
            label: A row label as printed.

        Returns:
            ``(metric, opening)`` where ``opening`` is True for a balance at the start of the column's
            period ("Cash and cash equivalents at beginning of year"), or None.
        """
        # Labels repeat across tables and pages; the pattern scan for unknown labels is the costly part.
        if label in self._memo:
            return self._memo[label]
        result = self._lookup(label)
        if len(self._memo) < 50_000:
            self._memo[label] = result
        return result

    def _lookup(self, label: str) -> tuple[MetricDef, bool] | None:
        if self._cannot_match(label):
            return None
        key = normalise_label(label)
        if not key:
            return None
        found = self._index.get(key)
        if found is not None:
            return found
        for pattern, metric in self._patterns:
            if pattern.fullmatch(key):
                return metric, False
        return None

    def _cannot_match(self, label: str) -> bool:
        """Whether ``label`` matches nothing, told without normalising it (most labels are no metric).

        Normalising keeps every word of an ASCII label that is letters alone (:func:`_kept_word`), so a label
        with such a word that no synonym has matches no synonym, and a pattern only when it holds every
        word the pattern requires. '&' is left to the full path (normalising makes it "and").
        """
        if not label.isascii() or "&" in label:
            return False
        lowered = label.lower()
        if all(not _kept_word(w) or w in self._vocabulary for w in lowered.split()):
            return False
        # A key's word is a run of the label's letters (apostrophes dropped: "company's" -> "companys").
        runs = set(_LETTERS.findall(lowered.replace("'", "").replace("`", "")))
        return all(required and not required <= runs for required in self._pattern_words)

    def normalised_synonyms(self) -> tuple[str, ...]:
        """The normalised synonym keys, longest first."""
        return self._synonyms_by_length


def _str_or_none(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    return None if value is None else str(value)


def _metric_from_yaml(raw: Mapping[str, Any]) -> MetricDef:
    metric_id = str(raw["id"])
    unit = str(raw.get("unit", "currency"))
    if unit not in _UNITS:
        raise TaxonomyError(f"{metric_id}: unknown unit {unit!r}")
    balance = raw.get("balance")
    if balance not in (None, "debit", "credit"):
        raise TaxonomyError(f"{metric_id}: unknown balance {balance!r}")
    period_type = str(raw.get("period_type", "duration"))
    if period_type not in ("duration", "instant"):
        raise TaxonomyError(f"{metric_id}: unknown period_type {period_type!r}")
    return MetricDef(
        id=metric_id,
        us_gaap=_str_or_none(raw, "us_gaap"),
        ifrs=_str_or_none(raw, "ifrs"),
        unit=unit,  # type: ignore[arg-type]  # validated against _UNITS above
        balance=balance,
        sign=_str_or_none(raw, "sign"),
        period_type=period_type,  # type: ignore[arg-type]  # validated above
        is_total=bool(raw.get("total", False)),
        synonyms=tuple(str(s) for s in raw.get("synonyms") or ()),
        patterns=tuple(str(p) for p in raw.get("patterns") or ()),
        opening_synonyms=tuple(str(p) for p in raw.get("opening_synonyms") or ()),
    )


def parse_taxonomy(text: str) -> Taxonomy:
    """Build a taxonomy from YAML text (the format of ``pipeline/data/taxonomy.yaml``).

    Args:
        text: YAML with a top-level ``metrics`` list.

    Returns:
        The taxonomy.

    Raises:
        TaxonomyError: When the document is malformed.
    """
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("metrics"), list):
        raise TaxonomyError("taxonomy YAML needs a top-level 'metrics' list")
    return Taxonomy([_metric_from_yaml(m) for m in data["metrics"]])


@functools.cache
def _default_taxonomy() -> Taxonomy:
    text = resources.files("pipeline").joinpath("data/taxonomy.yaml").read_text(encoding="utf-8")
    return parse_taxonomy(text)


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Load a taxonomy; the packaged one is read once and cached.

    Args:
        path: A YAML file to read instead of the packaged ``pipeline/data/taxonomy.yaml``.

    Returns:
        The taxonomy.
    """
    if path is None:
        return _default_taxonomy()
    return parse_taxonomy(Path(path).read_text(encoding="utf-8"))
