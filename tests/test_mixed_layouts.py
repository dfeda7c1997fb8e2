"""The mixed layouts decide every setting of a document, reproducibly, and plant nothing."""

from __future__ import annotations

from dataclasses import fields

from sample_docs.generate import DocConfig
from sample_docs.mixed import _covered, mixed_layouts


def test_every_setting_is_decided_by_the_mixer() -> None:
    # A new DocConfig field must be placed with the issuer, in a layout group or among the traits.
    assert _covered() == {f.name for f in fields(DocConfig)}


def test_the_draw_is_reproducible_and_clean() -> None:
    first, again = mixed_layouts(5, 7), mixed_layouts(5, 7)
    assert first == again and first != mixed_layouts(5, 8)
    assert all(not cfg.injections for cfg in first)
    assert len({cfg.file for cfg in first}) == 5
