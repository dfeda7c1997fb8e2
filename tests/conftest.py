"""Shared fixtures: where the shared corpus and the sample documents are; a review console's config."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.corpus import CORPUS, REPO

if TYPE_CHECKING:
    from console.app import ConsoleConfig

SAMPLES = REPO / "sample_docs"


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        # In CI the corpus is part of the contract: a missing corpus must fail, not pass by skipping.
        if os.environ.get("CI"):
            pytest.fail(f"shared corpus not found at {CORPUS} (set TIEOUT_CORPUS)")
        pytest.skip(f"shared corpus not found at {CORPUS}")
    return CORPUS


def _settings_env_names() -> frozenset[str]:
    """The environment variables :class:`adapters.settings.Settings` reads (lower-cased)."""
    from pydantic import AliasChoices

    from adapters.settings import Settings

    names: set[str] = set()
    for field, info in Settings.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(str(choice) for choice in alias.choices)
        else:
            names.add(alias if isinstance(alias, str) else field)
    return frozenset(n.lower() for n in names)


@pytest.fixture(autouse=True)
def _no_exported_settings(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read the environment: a shell that sourced ``.tieout/stack.env`` must not reach a unit test.

    The integration tier keeps the environment: it runs the infra scripts, which read the same variables
    (S3_SECRET_KEY, TOPIC_PREFIX, …), and builds its settings from an explicit environment of its own.
    """
    if request.node.get_closest_marker("integration"):
        return
    names = _settings_env_names()
    for name in list(os.environ):
        if name.lower() in names:
            monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the console tests' sample PDFs plus a hostile flag: markup, script, RTL, a very long label."""
    from tests.support.review import add_hostile_flag, make_run

    return add_hostile_flag(make_run(tmp_path_factory.mktemp("hostile-run")))


@pytest.fixture
def console_config(hostile_run: Path, tmp_path: Path) -> Iterator[ConsoleConfig]:
    """A console over the test's own copy of :func:`hostile_run`, so decisions do not leak between tests."""
    from tests.support.review import copy_run, make_config

    cfg = make_config(copy_run(hostile_run, tmp_path / "run"), tmp_path)
    yield cfg
    cfg.store.close()


@pytest.fixture
def unbuildable_xbrl(monkeypatch: pytest.MonkeyPatch) -> str:
    """No document's xBRL report can be built (as under a bug of the export); the error's message."""
    from adapters.xbrl import artifact

    message = "no period for a published fact"

    def broken(result: object) -> object:
        raise ValueError(message)

    monkeypatch.setattr(artifact, "xbrl_report", broken)
    return message
