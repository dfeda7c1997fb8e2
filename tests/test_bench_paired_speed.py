"""bench.paired_speed: runs alternate their order between pairs, and the ratio is head over base."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import paired_speed


def test_pairs_alternate_and_the_ratio_is_of_the_means(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []
    seconds = {"base": iter([100.0, 90.0]), "head": iter([110.0, 108.0])}

    def fake_run(checkout: Path, inputs: list[Path], workers: int) -> float:
        order.append(checkout.name)
        return next(seconds[checkout.name])

    monkeypatch.setattr(paired_speed, "timed_run", fake_run)
    got = paired_speed.compare(Path("base"), Path("head"), [], pairs=2, workers=2)
    assert order == ["base", "head", "head", "base"]
    assert [r["first"] for r in got["runs"]] == ["base", "head"]
    assert got["runs"][1]["ratio"] == pytest.approx(108.0 / 90.0)
    assert got["ratio"] == pytest.approx(109.0 / 95.0)
