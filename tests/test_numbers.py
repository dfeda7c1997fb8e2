"""Tests for pipeline.figures.numbers: figures as printed in 10-K, IFRS, UK, EU, Indian and Japanese
documents."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.figures import numbers
from pipeline.figures.numbers import ParsedNumber, find_numbers, is_numeric_token, parse_number
from pipeline.figures.periods import parse_period
from pipeline.figures.scale_captions import ScaleHint, detect_scale
from pipeline.figures.typed_numbers import to_typed
from tests.support.corpus import corpus_pdf


def _check(parsed: ParsedNumber | None, expected: dict[str, Any]) -> None:
    assert parsed is not None
    for field, value in expected.items():
        assert getattr(parsed, field) == value, (field, parsed)


# --------------------------------------------------------------------------------------------------
# parse_number
# --------------------------------------------------------------------------------------------------
PARSE_CASES: list[tuple[str, dict[str, Any]]] = [
    # US 10-K table cells.
    ("1,234", {"value": 1234.0, "decimals_printed": 0, "negative": False, "currency": None}),
    ("(1,234)", {"value": -1234.0, "negative": True}),
    ("$1,234", {"value": 1234.0, "currency": "USD"}),
    ("$ 1,234", {"value": 1234.0, "currency": "USD"}),
    ("$ (23,308)", {"value": -23308.0, "negative": True, "currency": "USD"}),
    ("$(1,234)", {"value": -1234.0, "currency": "USD"}),
    ("($1,234)", {"value": -1234.0, "currency": "USD"}),
    ("(1,234 )", {"value": -1234.0, "negative": True}),
    ("( 1,234)", {"value": -1234.0}),
    ("1,234.5", {"value": 1234.5, "decimals_printed": 1}),
    ("$4.44", {"value": 4.44, "decimals_printed": 2, "currency": "USD"}),
    ("$.50", {"value": 0.5, "decimals_printed": 2}),
    ("0.25", {"value": 0.25, "decimals_printed": 2}),
    ("12", {"value": 12.0, "decimals_printed": 0}),
    ("2025", {"value": 2025.0, "decimals_printed": 0}),
    ("1,234,567,890", {"value": 1234567890.0}),
    ("-12", {"value": -12.0, "negative": True}),
    ("−12", {"value": -12.0, "negative": True}),  # U+2212 minus
    ("–12", {"value": -12.0, "negative": True}),  # en dash used as a minus
    ("+3.4", {"value": 3.4, "negative": False}),
    # Percentages.
    ("12.5%", {"value": 12.5, "percent": True, "decimals_printed": 1}),
    ("8.4 %", {"value": 8.4, "percent": True}),
    ("(2.1)%", {"value": -2.1, "percent": True, "negative": True}),
    ("(2.1%)", {"value": -2.1, "percent": True}),
    ("(12)%", {"value": -12.0, "percent": True}),
    ("-0.5%", {"value": -0.5, "percent": True}),
    ("9.7 per cent", {"value": 9.7, "percent": True}),
    ("1.2pp", {"value": 1.2, "percent": True}),
    ("12.5％", {"value": 12.5, "percent": True}),  # full-width percent sign
    # Attached scales and currencies.
    ("$1.2bn", {"value": 1.2, "scale": 9, "currency": "USD", "decimals_printed": 1}),
    ("€340m", {"value": 340.0, "scale": 6, "currency": "EUR"}),
    ("£12k", {"value": 12.0, "scale": 3, "currency": "GBP"}),
    ("$4.5M", {"value": 4.5, "scale": 6}),
    ("$12MM", {"value": 12.0, "scale": 6}),
    ("1.2 million", {"value": 1.2, "scale": 6, "currency": None}),
    ("1.2bn", {"value": 1.2, "scale": 9}),
    ("3 billion", {"value": 3.0, "scale": 9}),
    ("US$3.5", {"value": 3.5, "currency": "USD"}),
    ("US$ 3.5 billion", {"value": 3.5, "currency": "USD", "scale": 9}),
    ("HK$1,234", {"currency": "HKD"}),
    ("C$12.3", {"currency": "CAD"}),
    ("USD 1,234", {"value": 1234.0, "currency": "USD"}),
    ("1,234 EUR", {"value": 1234.0, "currency": "EUR"}),
    ("CHF 12.5", {"currency": "CHF"}),
    ("RMB 1,000", {"currency": "CNY"}),
    ("¥1,234", {"currency": "JPY"}),
    # Indian style.
    ("1,23,45,678", {"value": 12345678.0}),
    ("Rs. 2.45 crore", {"value": 2.45, "scale": 7, "currency": "INR"}),
    ("₹ 1,23,456.78", {"value": 123456.78, "currency": "INR", "decimals_printed": 2}),
    ("4.5 lakh", {"value": 4.5, "scale": 5}),
    # European style, only where unambiguous.
    ("1.234,5", {"value": 1234.5, "decimals_printed": 1}),
    ("1.234.567", {"value": 1234567.0, "decimals_printed": 0}),
    ("1.234,5 €", {"value": 1234.5, "currency": "EUR"}),
    ("12,5", {"value": 12.5, "decimals_printed": 1}),
    ("0,125", {"value": 0.125, "decimals_printed": 3}),
    ("1\u00a0234,5", {"value": 1234.5}),
    ("1.234", {"value": 1.234, "decimals_printed": 3}),  # ambiguous: read the US way
    ("1'234.50", {"value": 1234.5, "decimals_printed": 2}),  # Swiss grouping
    # Japanese / Chinese.
    ("△1,234", {"value": -1234.0, "negative": True}),
    ("▲5", {"value": -5.0, "negative": True}),
    ("△0", {"value": 0.0, "negative": True}),
    ("１,２３４", {"value": 1234.0}),  # full-width digits
    ("1,234百万円", {"value": 1234.0, "scale": 6, "currency": "JPY"}),
    ("29.43%", {"value": 29.43, "percent": True}),
    # Footnote markers.
    ("1,234(1)", {"value": 1234.0, "footnote": "1"}),
    ("1,234 (a)", {"value": 1234.0, "footnote": "a"}),
    ("1,234.5 (a)", {"value": 1234.5, "footnote": "a"}),
    ("1,234*", {"value": 1234.0, "footnote": "*"}),
    ("1,234¹", {"value": 1234.0, "footnote": "1"}),
    ("5,000 [2]", {"value": 5000.0, "footnote": "2"}),
    ("(1,234) (b)", {"value": -1234.0, "footnote": "b"}),
    ("12%(1)", {"value": 12.0, "percent": True, "footnote": "1"}),
    # Ratio multiples.
    ("2.5x", {"value": 2.5, "decimals_printed": 1}),
    ("3.1×", {"value": 3.1}),
    # A PDF often splits an accounting negative across two words.
    ("(1,234", {"value": -1234.0, "negative": True}),
    ("1,234)", {"value": -1234.0, "negative": True}),
    # Accounting "(1)" in a cell is minus one.
    ("(1)", {"value": -1.0}),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_number(text: str, expected: dict[str, Any]) -> None:
    parsed = parse_number(text)
    _check(parsed, expected)
    assert parsed is not None
    assert parsed.text == text.strip()
    assert parsed.is_dash is False


DASH_CASES: list[tuple[str, str | None]] = [
    ("—", None),
    ("-", None),
    ("–", None),
    ("―", None),  # Japanese filings
    ("—  ", None),
    ("--", None),
    ("$ —", "USD"),
    ("$—", "USD"),
    ("€ -", "EUR"),
    ("(—)", None),
    ("nil", None),
    ("Nil", None),
]


@pytest.mark.parametrize(("text", "currency"), DASH_CASES)
def test_parse_dash(text: str, currency: str | None) -> None:
    parsed = parse_number(text)
    _check(parsed, {"is_dash": True, "value": 0.0, "decimals_printed": 0, "currency": currency})


def test_dash_percent_and_footnote() -> None:
    _check(parse_number("— %"), {"is_dash": True, "percent": True})
    _check(parse_number("— (1)"), {"is_dash": True, "footnote": "1"})


NOT_NUMBERS = [
    "",
    "   ",
    "Revenue",
    "Total net sales",
    "Note 12",
    "Page 12",
    "Notes",
    "31 December 2025",
    "December 31, 2017",
    "Dec. 31, 2017",
    "12/31/2017",
    "31.12.2025",
    "10-K",
    "10-Q",
    "1Q21",
    "Q1",
    "FY2025",
    "COVID-19",
    "3M",  # a company, not 3 million: one-letter scales need a currency
    "12m",
    "10K",
    "(a)",
    "$",
    "%",
    "n/a",
    "NM",
    "(212) 555-1234",
    "+1 212 555 1234",
    "1,2345",  # not a valid grouping in any convention
    "1,234,56",
    "2013-14",
    "1.2.3",
    "$1,234 $5,678",  # two numbers in one string
    "1,234 5,678",
    "2017.",  # sentence punctuation: find_numbers is for prose
    "2025,",
    "12 (123)",
    "Item 7A",
    "S-8",
    "ISIN US0378331005",
    "25bps",
]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_parse_number_rejects(text: str) -> None:
    assert parse_number(text) is None


SIMPLE_SHAPES = [
    "1,234",
    "(1,234)",
    "(1,234",
    "1,234)",
    "$1,234",
    "$ 1,234",
    "$ (23,308)",
    "$(1,234)",
    "(1,234 )",
    "1,234.56",
    "0.25",
    "0",
    "2025",
    "12.5%",
    "(2.1)%",
    "(2.1%)",
    "8.4 %",
    "1.234",
    "007",
    "(0)",
]


@pytest.mark.parametrize("text", SIMPLE_SHAPES)
def test_fast_path_agrees_with_full_grammar(text: str) -> None:
    # parse_number reads the commonest shapes with a small regex; it must read them as the full grammar does.
    assert numbers._SIMPLE.fullmatch(text) is not None
    assert parse_number(text) == numbers._parse_general(text, text, None)


def test_parse_number_strips_surrounding_whitespace() -> None:
    parsed = parse_number("  (1,234)\n")
    _check(parsed, {"text": "(1,234)", "value": -1234.0})


@pytest.mark.parametrize(
    ("text", "decimal_comma", "value", "decimals"),
    [
        ("1.234", True, 1234.0, 0),
        ("1.234,56", True, 1234.56, 2),
        ("1 234,5", True, 1234.5, 1),  # plain space grouping only when the convention is known
        ("12,5", True, 12.5, 1),
        ("1,234.5", False, 1234.5, 1),
        ("1.234", False, 1.234, 3),
    ],
)
def test_decimal_comma_modes(text: str, decimal_comma: bool, value: float, decimals: int) -> None:
    _check(parse_number(text, decimal_comma=decimal_comma), {"value": value, "decimals_printed": decimals})


@pytest.mark.parametrize(
    ("text", "decimal_comma"),
    [("1,234.5", True), ("1.234,5", False), ("12,5", False), ("1 234,5", None)],
)
def test_decimal_comma_modes_reject(text: str, decimal_comma: bool | None) -> None:
    assert parse_number(text, decimal_comma=decimal_comma) is None


# --------------------------------------------------------------------------------------------------
# is_numeric_token
# --------------------------------------------------------------------------------------------------
NUMERIC_TOKENS = [
    "1,234",
    "(1,234)",
    "$1,234",
    "12.5%",
    "—",
    "–",
    "-",
    "(12)%",
    "2025",
    "€340m",
    "1,234(1)",
    "1,234*",
    "△747",
    "(1,234",
    "1,234)",
    "0",
    ".5",
    "29.43%",
    "1.234,5",
    "nil",
]
WORD_TOKENS = [
    "Revenue",
    "December",
    "31,",
    "2017.",
    "2018,",
    "3M",
    "3M’s",
    "10-K",
    "1Q21",
    "4Q22",
    "FY2025",
    "COVID-19",
    "$",
    "%",
    "(",
    ")",
    "(a)",
    "Note",
    "12/31/2017",
    "10-year",
    "CET1",
    "2016-02,",
    "S-8",
    "u.s.",
    "当期純利益",
    "",
]


@pytest.mark.parametrize("token", NUMERIC_TOKENS)
def test_is_numeric_token_true(token: str) -> None:
    assert is_numeric_token(token)


@pytest.mark.parametrize("token", WORD_TOKENS)
def test_is_numeric_token_false(token: str) -> None:
    assert not is_numeric_token(token)


@pytest.mark.parametrize("token", NUMERIC_TOKENS + WORD_TOKENS + [c for c, _ in PARSE_CASES if " " not in c])
def test_is_numeric_token_agrees_with_parse_number(token: str) -> None:
    # Consumers filter words with is_numeric_token and then parse them: the two must never disagree.
    assert is_numeric_token(token) == (parse_number(token) is not None)


# --------------------------------------------------------------------------------------------------
# find_numbers
# --------------------------------------------------------------------------------------------------
def _found(text: str) -> list[tuple[str, float, int, str | None, bool]]:
    out = []
    for hit in find_numbers(text):
        assert text[hit.start : hit.end] == hit.number.text
        n = hit.number
        out.append((n.text, n.value, n.scale, n.currency, n.percent))
    return out


FIND_CASES: list[tuple[str, list[tuple[str, float, int, str | None, bool]]]] = [
    (
        "Revenue increased by 8.4% from $1,234.5 million in 2024 to $1,338.2 million in 2025.",
        [
            ("8.4%", 8.4, 0, None, True),
            ("$1,234.5 million", 1234.5, 6, "USD", False),
            ("2024", 2024.0, 0, None, False),
            ("$1,338.2 million", 1338.2, 6, "USD", False),
            ("2025", 2025.0, 0, None, False),
        ],
    ),
    (
        "Share buybacks of $2.8 billion in 2022 and $352 million in 4Q22.",
        [
            ("$2.8 billion", 2.8, 9, "USD", False),
            ("2022", 2022.0, 0, None, False),
            ("$352 million", 352.0, 6, "USD", False),
        ],
    ),
    (
        "Operating profit £340m (2024: £310m), up 9.7 per cent.",
        [
            ("£340m", 340.0, 6, "GBP", False),
            ("2024", 2024.0, 0, None, False),
            ("£310m", 310.0, 6, "GBP", False),
            ("9.7 per cent", 9.7, 0, None, True),
        ],
    ),
    (
        "Net profit rose to Rs. 2,345.67 crore; US$ 3.5bn was raised and €1.234,5 million repaid.",
        [
            ("Rs. 2,345.67 crore", 2345.67, 7, "INR", False),
            ("US$ 3.5bn", 3.5, 9, "USD", False),
            ("€1.234,5 million", 1234.5, 6, "EUR", False),
        ],
    ),
    (
        "As of December 31, 2017, 1,234,567 shares were outstanding (2016: 1,100,000).",
        [
            ("31", 31.0, 0, None, False),
            ("2017", 2017.0, 0, None, False),
            ("1,234,567", 1234567.0, 0, None, False),
            ("2016", 2016.0, 0, None, False),
            ("1,100,000", 1100000.0, 0, None, False),
        ],
    ),
    (
        "Dividends declared ($4.44 per share, Note 8)",
        [("$4.44", 4.44, 0, "USD", False), ("8", 8.0, 0, None, False)],
    ),
    ("approximately 1.2 million customers", [("1.2 million", 1.2, 6, None, False)]),
    ("売上高は1,234百万円", [("1,234百万円", 1234.0, 6, "JPY", False)]),
    # Identifiers, compounds, phone numbers and times are not figures.
    ("See our Form 10-K and 10-Q filings, the 401(k) plan and COVID-19.", []),
    ("Results for 1Q21, FY2025, H1 and Q4 were strong at 3M and CET1.", []),
    ("Call (212) 555-1234 or +44 (0)20 7123 4567.", []),
    ("the 2013-14 budget, 12/31/2017 at 10:30 under section 3.5.1 of v2.0", []),
    ("ranges of 5-10% are typical", []),
    ("No figures here at all.", []),
    ("", []),
]


@pytest.mark.parametrize(("text", "expected"), FIND_CASES)
def test_find_numbers(text: str, expected: list[tuple[str, float, int, str | None, bool]]) -> None:
    assert _found(text) == expected


def test_find_numbers_signs_and_parentheses() -> None:
    hits = find_numbers("a loss of $(12.3) million, a change of -5% and △5.2%; see (1) below")
    assert [(h.number.text, h.number.value, h.number.negative) for h in hits] == [
        ("$(12.3) million", -12.3, True),
        ("-5%", -5.0, True),
        ("△5.2%", -5.2, True),
        ("1", 1.0, False),  # an enumerator in prose is not minus one
    ]


def test_find_numbers_does_not_split_grouped_numbers() -> None:
    hits = find_numbers("a total of 1,234.5 and 12,345,678.90.")
    assert [h.number.value for h in hits] == [1234.5, 12345678.9]


def test_find_numbers_compound_adjectives_keep_their_number() -> None:
    # A hyphen after "%" or a scale word builds an adjective; after a digit it builds an identifier.
    assert [h.number.text for h in find_numbers("a 50%-owned subsidiary and a $5 million-plus deal")] == [
        "50%",
        "$5 million",
    ]
    assert find_numbers("3M-branded 10-K filings") == []


def test_find_numbers_em_dash_is_punctuation() -> None:
    hits = find_numbers("revenue—$12 million—rose")
    assert [(h.number.text, h.number.negative) for h in hits] == [("$12 million", False)]


def test_find_numbers_footnote_and_ratio() -> None:
    hits = find_numbers("net debt of 2.5x EBITDA and revenue of 1,234¹")
    assert [(h.number.text, h.number.footnote) for h in hits] == [("2.5x", None), ("1,234¹", "1")]


def test_find_numbers_spans_survive_unicode_normalisation() -> None:
    text = "Umsatz −12 und １,２３４ Stück"
    hits = find_numbers(text)
    assert [text[h.start : h.end] for h in hits] == ["−12", "１,２３４"]
    assert [h.number.value for h in hits] == [-12.0, 1234.0]


# --------------------------------------------------------------------------------------------------
# detect_scale
# --------------------------------------------------------------------------------------------------
SCALE_CASES: list[tuple[str, int, str | None]] = [
    ("(in millions)", 6, None),
    ("(In millions)", 6, None),
    ("(in millions, except ratios)", 6, None),
    ("(Dollars in millions, except per share data)", 6, "USD"),
    ("(Amounts in millions, except per share amounts)", 6, None),
    ("(In millions - except per share amounts)", 6, None),
    ("($ in millions)", 6, "USD"),
    ("$ in thousands", 3, "USD"),
    ("(In thousands, except share data)", 3, None),
    ("[In thousands]", 3, None),
    ("(Shares in thousands)", 3, None),
    ("(in billions)", 9, None),
    ("(In billions of dollars)", 9, "USD"),
    ("In millions of U.S. dollars", 6, "USD"),
    ("Amounts in thousands of euros", 3, "EUR"),
    ("All figures are in millions of U.S. dollars unless otherwise stated", 6, "USD"),
    ("(in millions of Canadian dollars)", 6, "CAD"),
    ("Information about operating expenses is as follows (in millions):", 6, None),
    ("£m", 6, "GBP"),
    ("€m", 6, "EUR"),
    ("$m", 6, "USD"),
    ("2025 £m", 6, "GBP"),
    ("$'000", 3, "USD"),
    ("US$000", 3, "USD"),
    ("RMB'000", 3, "CNY"),
    ("HK$'000", 3, "HKD"),
    ("€ million", 6, "EUR"),
    ("EUR million", 6, "EUR"),
    ("(€ million)", 6, "EUR"),
    ("(millions)", 6, None),
    ("Millions of euros", 6, "EUR"),
    ("(000s)", 3, None),
    ("$000s", 3, "USD"),
    ("Number of shares '000", 3, None),
    ("(Rs. in crore)", 7, "INR"),
    ("(Rs. in lakh)", 5, "INR"),
    ("(Rs. in 000)", 3, "INR"),
    ("(₹ in crore)", 7, "INR"),
    ("(` Billion)", 9, "INR"),  # the Rupee Foradian font encodes ₹ as a backtick
    ("TEUR", 3, "EUR"),
    ("Mio. €", 6, "EUR"),
    ("in €m", 6, "EUR"),
    ("百万円", 6, "JPY"),
    ("千円", 3, "JPY"),
    ("(単位：百万円)", 6, "JPY"),
    ("单位：万元", 4, "CNY"),
    ("单位：元", 0, "CNY"),
    ("(단위: 백만원)", 6, "KRW"),
]


@pytest.mark.parametrize(("text", "scale", "currency"), SCALE_CASES)
def test_detect_scale(text: str, scale: int, currency: str | None) -> None:
    hint = detect_scale(text)
    assert hint is not None
    assert (hint.scale, hint.currency) == (scale, currency)
    assert hint.text


NO_SCALE = [
    "we have millions of customers",
    "Millions of customers rely on us",
    "hundreds of millions of dollars",
    "(hundreds of millions of dollars)",
    "(in millions of cases)",
    "(unaudited)",
    "Revenue was $5 million in 2025.",
    "Total net sales",
    "Year ended December 31, 2025",
    "We invested in thousands of stores",
    "売上高は1,234百万円",
    "",
]


@pytest.mark.parametrize("text", NO_SCALE)
def test_detect_scale_ignores_prose(text: str) -> None:
    assert detect_scale(text) is None


def test_detect_scale_returns_phrase() -> None:
    assert detect_scale("Consolidated Balance Sheets (in millions)") == ScaleHint(6, None, "(in millions)")


# --------------------------------------------------------------------------------------------------
# to_typed
# --------------------------------------------------------------------------------------------------
def _parsed(text: str) -> ParsedNumber:
    parsed = parse_number(text)
    assert parsed is not None
    return parsed


def test_to_typed_applies_table_scale() -> None:
    typed = to_typed(_parsed("1,234.5"), scale=6, currency="USD")
    assert typed.value == 1234.5
    assert typed.scale == 6
    assert typed.base_value == 1_234_500_000.0
    assert typed.decimals == -5
    assert typed.unit == "currency"
    assert typed.currency == "USD"


def test_to_typed_own_scale_wins() -> None:
    typed = to_typed(_parsed("$1.1bn"), scale=6)
    assert (typed.scale, typed.base_value, typed.decimals) == (9, 1_100_000_000.0, -8)


def test_to_typed_percent_never_scaled() -> None:
    typed = to_typed(_parsed("(2.1)%"), scale=6, currency="USD")
    assert (typed.unit, typed.scale, typed.currency, typed.base_value, typed.decimals) == (
        "percent",
        0,
        None,
        -2.1,
        1,
    )
    assert typed.negative


def test_to_typed_ratio_never_scaled() -> None:
    typed = to_typed(_parsed("2.5x"), scale=6, currency="USD")
    assert (typed.unit, typed.scale, typed.currency, typed.base_value) == ("ratio", 0, None, 2.5)


def test_to_typed_plain_number() -> None:
    typed = to_typed(_parsed("1,234"))
    assert (typed.unit, typed.currency, typed.scale, typed.base_value, typed.decimals) == (
        "number",
        None,
        0,
        1234.0,
        0,
    )


def test_to_typed_table_currency_replaces_bare_dollar() -> None:
    assert to_typed(_parsed("$1,234"), currency="CAD").currency == "CAD"
    assert to_typed(_parsed("US$1,234"), currency="CAD").currency == "USD"
    assert to_typed(_parsed("€1,234"), currency="USD").currency == "EUR"
    assert to_typed(_parsed("¥1,234"), currency="CNY").currency == "CNY"


def test_to_typed_dash_and_period() -> None:
    period = parse_period("Year ended December 31, 2025")
    typed = to_typed(_parsed("$ —"), scale=6, period=period)
    assert typed.is_dash
    assert (typed.value, typed.base_value, typed.currency) == (0.0, 0.0, "USD")
    assert typed.period is not None and typed.period.key == "FY2025"


def test_to_typed_negative_and_thousands() -> None:
    typed = to_typed(_parsed("△1,234"), scale=6, currency="JPY")
    assert (typed.value, typed.base_value, typed.negative) == (-1234.0, -1_234_000_000.0, True)
    typed = to_typed(_parsed("(47,824,589)"), scale=3, currency="INR")
    assert (typed.base_value, typed.decimals) == (-47_824_589_000.0, -3)


def test_to_typed_base_value_has_no_float_noise() -> None:
    assert to_typed(_parsed("1.1"), scale=9).base_value == 1_100_000_000.0
    assert to_typed(_parsed("0.07"), scale=3).base_value == 70.0
    assert to_typed(_parsed("12.345"), scale=0).base_value == 12.345


# --------------------------------------------------------------------------------------------------
# Real documents (skipped when the corpus is absent).
# --------------------------------------------------------------------------------------------------
def _pdf_words(name: str, pages: range) -> list[str]:
    with corpus_pdf(name) as doc:
        return [w[4] for i in pages if i < doc.page_count for w in doc[i].get_text("words")]


@pytest.mark.corpus
def test_corpus_10k_statement_tokens() -> None:
    # 3M 2018 10-K, statement of changes in equity: "$", "(23,308)", "—" and dates in row labels.
    words = _pdf_words("financial/financebench__3M_2018_10K.pdf", range(56, 60))
    assert words
    for word in words:
        assert is_numeric_token(word) == (parse_number(word) is not None), word
    numeric = [w for w in words if is_numeric_token(w)]
    assert len(numeric) > 200
    assert "3M" not in numeric
    negatives = [parse_number(w) for w in numeric if w.startswith("(")]
    assert negatives and all(p is not None and p.negative for p in negatives)


@pytest.mark.corpus
def test_corpus_japanese_statement() -> None:
    # Kyokuyo 決算短信: △ negatives, ― nil cells and a (単位：百万円) caption.
    with corpus_pdf("table/tabula__twotables.pdf") as doc:
        text = doc[0].get_text()
    assert detect_scale(text) == ScaleHint(6, "JPY", "単位：百万円")
    cells = [line.strip() for line in text.splitlines() if line.strip()]
    triangles = [parse_number(c) for c in cells if c.startswith("△")]
    assert triangles and all(p is not None and p.negative for p in triangles)
    assert _parsed("―").is_dash


@pytest.mark.corpus
def test_corpus_indian_budget_caption() -> None:
    with corpus_pdf("table/camelot__health.pdf") as doc:
        text = doc[0].get_text()
    hint = detect_scale(text)
    assert hint is not None and (hint.scale, hint.currency) == (3, "INR")
    assert _parsed("47,824,589").value == 47824589.0
