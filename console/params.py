"""Reading a request's parameters, typed: a value that is not one the console accepts is a 400 page.

Every handler reads its query and form parameters through these functions. A bad value raises
:class:`BadParameter`, which :func:`console.app.create_app` answers with the console's error page (400)
naming the parameter and what it accepts, never Python's own message (``invalid literal for int()``…).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

from adapters.review.decision_rules import ReviewError
from adapters.review.store import decode_cursor

__all__ = ["BadParameter", "choice", "cursor", "number", "one_of", "whole_number"]

_S = TypeVar("_S", bound=str)


class BadParameter(ValueError):
    """A parameter whose value the console does not accept.

    Attributes:
        name: The parameter's name, as in the URL or the form.
        accepted: What it accepts, in words ("a whole number from 1 to 500").
    """

    def __init__(self, name: str, accepted: str) -> None:
        """``name`` had a value other than ``accepted``."""
        super().__init__(f"The parameter “{name}” must be {accepted}.")
        self.name = name
        self.accepted = accepted


def _given(params: Mapping[str, Any], name: str) -> str | None:
    """The parameter's value, stripped; None when it is absent or empty."""
    value = str(params.get(name, "")).strip()
    return value or None


def whole_number(params: Mapping[str, Any], name: str, default: int | None, *, low: int, high: int) -> int:
    """Parameter ``name`` as a whole number within ``low..high``; ``default`` when absent (None: required)."""
    value = _given(params, name)
    accepted = f"a whole number from {low} to {high}"
    if value is None:
        if default is None:
            raise BadParameter(name, accepted)
        return default
    # ASCII digits only: int() would also take "٣", "1_000" or " +7"
    if not value.lstrip("-").isascii() or not value.lstrip("-").isdigit() or len(value) > 12:
        raise BadParameter(name, accepted)
    n = int(value)
    if not low <= n <= high:
        raise BadParameter(name, accepted)
    return n


def number(
    params: Mapping[str, Any], name: str, *, low: float, high: float, allowed: Collection[float] = ()
) -> float | None:
    """Parameter ``name`` as a number within ``low..high`` (one of ``allowed`` if given); None when absent."""
    value = _given(params, name)
    if value is None:
        return None
    accepted = (
        "one of " + ", ".join(f"{a:g}" for a in allowed) if allowed else f"a number from {low:g} to {high:g}"
    )
    try:
        x = float(value) if value.isascii() and len(value) <= 32 else math.nan
    except ValueError:
        x = math.nan
    if not low <= x <= high or (allowed and x not in allowed):  # NaN fails every comparison
        raise BadParameter(name, accepted)
    return x


def one_of(params: Mapping[str, Any], name: str, choices: Collection[_S]) -> _S:
    """Parameter ``name``, which must be given and be one of ``choices``.

    Returns:
        The element of ``choices`` it equals (typed as they are).
    """
    value = _given(params, name)
    for c in choices:
        if c == value:
            return c
    raise BadParameter(name, "one of " + ", ".join(choices))


def choice(params: Mapping[str, Any], name: str, choices: Collection[_S]) -> _S | None:
    """Parameter ``name`` as :func:`one_of` ``choices``; None when it is absent or empty."""
    return None if _given(params, name) is None else one_of(params, name, choices)


def cursor(params: Mapping[str, Any], name: str) -> str | None:
    """Parameter ``name`` as a paging cursor of the queue's own (from a Previous or Next link)."""
    value = _given(params, name)
    try:
        decode_cursor(value)
    except ReviewError as exc:
        raise BadParameter(name, "a paging position from the queue's Previous or Next link") from exc
    return value
