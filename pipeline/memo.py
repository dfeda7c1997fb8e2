"""Work shared within one document's run: what a pure function makes of a frozen record, computed once.

Every check reads a table's body rows and column heads, and several read the rows the calculation tree
sees; computed afresh by each reader, the same rows of the same table were built ten times over
(a tenth of a filing's time). A scope is opened for one document's run (:func:`document_scope`; a nested
scope shares the outer one), and a function marked :func:`per_document` keeps its value for each record
there. Outside a scope nothing is kept: a function called alone (a test, a notebook) computes afresh.

Each value is kept under the record's identifier within the document (a table's id) beside the record
itself, and used only for that very record: a record is frozen, so what is computed from it stays true
while it lives, and the scope keeps it alive until the run ends. Values are shared between callers, which
must not change them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["document_scope", "per_document", "scoped"]

_T = TypeVar("_T")
_R = TypeVar("_R")

_SCOPE: ContextVar[dict[object, dict[Any, Any]] | None] = ContextVar("tieout_document_scope", default=None)


@contextmanager
def document_scope() -> Iterator[None]:
    """Share computed values between the stages of one document's run (nested scopes share one)."""
    if _SCOPE.get() is not None:
        yield
        return
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def scoped(owner: object) -> dict[Any, Any] | None:
    """The open scope's store for ``owner`` (a function, a name), or None outside a scope."""
    scope = _SCOPE.get()
    return None if scope is None else scope.setdefault(owner, {})


def per_document(key: Callable[[_T], Hashable]) -> Callable[[Callable[[_T], _R]], Callable[[_T], _R]]:
    """Mark a function of one frozen record as computed once per record in a document's scope.

    Args:
        key: The record's identifier within a document (a table's ``table_id``). A record found under its
            key is used only if it is the very record asked about: another record under the same key (a
            table copied with other cells) is computed afresh and takes the key's place.

    Returns:
        The decorator. The value is shared by every caller in the scope: callers must not change it.
    """

    def decorate(fn: Callable[[_T], _R]) -> Callable[[_T], _R]:
        @functools.wraps(fn)
        def once(record: _T) -> _R:
            store = scoped(once)
            if store is None:
                return fn(record)
            k = key(record)
            hit = store.get(k)
            if hit is not None and hit[0] is record:
                value: _R = hit[1]
                return value
            value = fn(record)
            store[k] = (record, value)
            return value

        return once

    return decorate
