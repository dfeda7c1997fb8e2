"""Typing a parsed figure: the table's scale, currency and period applied, as a ``TypedNumber``.

Split from :mod:`pipeline.figures.numbers` (which still exports :func:`to_typed`): parsing reads what is
printed, while typing decides what the figure means in the table that prints it. It runs once per kept
figure, not per word, and is the only place the pydantic model is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from pipeline.figures import number_grammar as _grammar
from schemas.models import Period, ScaleSource, TypedNumber, Unit

if TYPE_CHECKING:  # numbers imports this module to re-export to_typed; annotations only here
    from pipeline.figures.numbers import ParsedNumber

__all__ = ["to_typed"]


# Bound by assignment rather than imported by name, so that ``_RATIO_TAIL.search`` compiles to a method call
# (see :mod:`pipeline.figures.numbers`); this runs once per figure kept.
_RATIO_TAIL: Final = _grammar.RATIO_TAIL
_BARE_SYMBOL: Final = _grammar.BARE_SYMBOL


def _ambiguous_symbol(text: str, currency: str | None) -> bool:
    """True when the currency came from a bare ``$`` or ``¥``, which many countries print."""
    return currency in ("USD", "JPY") and _BARE_SYMBOL.search(text) is not None


def to_typed(
    parsed: ParsedNumber,
    *,
    scale: int | None = 0,
    source: ScaleSource | None = "cell",
    currency: str | None = None,
    period: Period | None = None,
) -> TypedNumber:
    """Turn a parsed figure into a ``TypedNumber``, applying the table's unit where the figure has none.

    Args:
        parsed: The figure as parsed by :func:`parse_number` or :func:`find_numbers`.
        scale: Power of ten the table or caption declares (3, 6, 9); used when the figure carries none.
            None when nothing establishes it: the figure then keeps no scale, base value or decimals.
        source: Where ``scale`` was established (see :data:`schemas.models.ScaleSource`); a figure that
            carries its own scale ("$1.3bn"), or takes none (a percentage, a multiple), has ``cell``.
        currency: ISO code the table or caption declares; used when the figure carries none, and also
            in place of a bare ``$`` or ``¥`` (``C$`` filings print ``$``).
        period: The period of the figure's column, if known.

    Returns:
        The typed number. Percentages and multiples ("2.5x") never take a scale or currency; ``base_value`` is
        ``value * 10**scale``; ``decimals`` is the printed precision in base units
        (``decimals_printed - scale``), as XBRL's ``decimals``.
    """
    unit: Unit
    eff_currency: str | None
    eff_scale: int | None
    eff_source: ScaleSource | None
    if parsed.percent:
        eff_scale, eff_source, eff_currency, unit = 0, "cell", None, "percent"
    elif _RATIO_TAIL.search(parsed.text):
        # A multiple ("2.5x") is a pure number: the table's money unit does not apply to it.
        eff_scale, eff_source, eff_currency, unit = 0, "cell", None, "ratio"
    else:
        eff_scale, eff_source = (parsed.scale, "cell") if parsed.scale else (scale, source)
        if eff_scale is None:
            eff_source = None
        eff_currency = parsed.currency or currency
        if currency and parsed.currency and _ambiguous_symbol(parsed.text, parsed.currency):
            eff_currency = currency
        unit = "currency" if eff_currency else "number"
    decimals: int | None = None
    base_value: float | None = None
    if eff_scale is not None:
        decimals = parsed.decimals_printed - eff_scale
        # Rounding to the printed precision removes binary noise such as 1.1 * 10**9 = 1100000000.0000002.
        base_value = round(parsed.value * 10**eff_scale, max(decimals, 0))
    # model_construct: every field is typed above (the parser's own values), and a filing has tens of
    # thousands of figures; tests/test_sample_structure.py validates every cell, numbers included.
    return TypedNumber.model_construct(
        text=parsed.text,
        value=parsed.value,
        scale=eff_scale,
        scale_source=eff_source,
        base_value=base_value,
        decimals=decimals,
        places=max(parsed.decimals_printed, 0),
        unit=unit,
        currency=eff_currency,
        negative=parsed.negative,
        is_dash=parsed.is_dash,
        period=period,
    )
