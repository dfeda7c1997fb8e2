"""Ordering and packaging of the PostgreSQL sink's migrations (no database needed)."""

from __future__ import annotations

import re

import pytest

from adapters.sinks.postgres import load_migrations, order_migrations


def test_migrations_apply_in_numeric_order_and_other_files_are_ignored() -> None:
    names = ["0010_tenth.sql", "README.md", "0002_second.sql", "0001_initial.sql"]
    assert order_migrations(names) == ["0001_initial.sql", "0002_second.sql", "0010_tenth.sql"]
    assert order_migrations([]) == []


@pytest.mark.parametrize(
    "names",
    [
        ["0001_initial.sql", "0001_other.sql"],  # same number: the order would be arbitrary
        ["1_initial.sql"],
        ["0001-initial.sql"],
        ["0001_Initial.sql"],
    ],
)
def test_ambiguous_or_misnamed_migrations_are_rejected(names: list[str]) -> None:
    with pytest.raises(ValueError):
        order_migrations(names)


def test_packaged_migrations_load() -> None:
    migrations = load_migrations()
    assert migrations[0].version == "0001_initial"
    assert "CREATE TABLE documents" in migrations[0].sql
    for m in migrations:  # each runs inside the sink's own transaction
        assert not transaction_control(m.sql), m.version


def transaction_control(sql: str) -> bool:
    """Whether ``sql`` has a BEGIN, COMMIT or ROLLBACK of its own (outside comments and function bodies).

    A PL/pgSQL body (``$$ BEGIN ... END $$``) is a block, not transaction control, so dollar-quoted
    bodies are left out.
    """
    code = "\n".join(line.split("--")[0] for line in sql.splitlines())
    code = re.sub(r"\$(\w*)\$.*?\$\1\$", "", code, flags=re.S).upper()
    return bool(re.search(r"\b(BEGIN|COMMIT|ROLLBACK)\b", code))


def test_transaction_control_is_found_outside_function_bodies() -> None:
    assert transaction_control("BEGIN;\nCREATE TABLE t (x int);")
    assert transaction_control("CREATE TABLE t (x int);\ncommit;")
    assert transaction_control("CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN END $$;\nROLLBACK;")
    assert not transaction_control("-- BEGIN here is a comment\nCREATE TABLE t (x int);")
    assert not transaction_control(
        "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $body$\nBEGIN\nEND\n$body$;"
    )
