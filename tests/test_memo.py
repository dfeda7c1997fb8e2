"""pipeline.memo: a pure function of a frozen record computed once per record in a document's run."""

from __future__ import annotations

from pipeline.figures.grid import table_key, table_rows
from pipeline.memo import document_scope, per_document, scoped
from schemas.models import Table
from tests.support.tables import make_table

calls: list[Table] = []


@per_document(key=table_key)
def _width(table: Table) -> int:
    calls.append(table)
    return max(c.col for c in table.cells) + 1


def _table(table_id: str = "t1") -> Table:
    return make_table([("Revenue", ["12", "10"])], table_id=table_id)


def test_within_a_scope_each_record_is_computed_once() -> None:
    calls.clear()
    a, b = _table("t1"), _table("t2")
    with document_scope():
        assert [_width(a), _width(a), _width(b), _width(a), _width(b)] == [3, 3, 3, 3, 3]
    assert len(calls) == 2 and calls[0] is a and calls[1] is b


def test_another_record_under_the_same_id_is_computed_for_itself() -> None:
    calls.clear()
    a = _table()
    copy = a.model_copy(update={"cells": [c for c in a.cells if c.col < 2]})  # the same id, other cells
    with document_scope():
        assert (_width(a), _width(copy), _width(copy)) == (3, 2, 2)
    assert len(calls) == 2 and calls[1] is copy


def test_outside_a_scope_nothing_is_kept() -> None:
    calls.clear()
    a = _table()
    _width(a)
    _width(a)
    assert len(calls) == 2 and scoped(_width) is None


def test_a_nested_scope_shares_the_outer_one_and_the_run_ends_with_the_outer() -> None:
    calls.clear()
    a = _table()
    with document_scope():
        _width(a)
        with document_scope():
            _width(a)
        _width(a)
    with document_scope():  # another document's run starts empty
        _width(a)
    assert len(calls) == 2


def test_callers_get_their_own_list_of_the_shared_rows() -> None:
    table = _table()
    with document_scope():
        first = table_rows(table)
        first.clear()  # a caller's list is its own
        again = table_rows(table)
    assert [r.label for r in again] == ["Revenue"]
