"""The generated layout variants with one trait switched on, and keying errors planted in them.

Each regression test of a class of miss or false flag draws the seven layout variants of
``sample_docs.generate.layout_variants`` with the trait that shows the class, runs the engine on the clean
document, and plants a keying error (``bench.planted_errors``) in a figure found by the words of its line.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import pymupdf
import pytest

from bench.planted_errors import Candidate, mutations, plant
from pipeline.engine import process_bytes
from sample_docs.generate import DocConfig, layout_variants, render_variant
from schemas.models import DocumentResult, Flag, LineItem

Word = tuple[float, float, float, float, str]


class Caught(NamedTuple):
    """A planted keying error and the flags that caught it (:meth:`LayoutCases.caught`)."""

    target: Candidate
    new: str
    hits: list[Flag]


class LayoutCases:
    """The layout variants with ``traits`` set (and no planted inconsistency), each rendered once.

    ``adjust``: a last change of each variant's settings that depends on the variant (a share count that
    suits its earnings).
    """

    def __init__(
        self, prefix: str, *, adjust: Callable[[DocConfig], DocConfig] = lambda c: c, **traits: Any
    ) -> None:
        self.cases: dict[str, DocConfig] = {
            f"{prefix}-{c.file}": adjust(replace(c, file=f"{prefix}-{c.file}", injections=(), **traits))
            for c in layout_variants()
        }
        self._data: dict[str, bytes] = {}
        self._clean: dict[str, DocumentResult] = {}

    def names(self) -> list[str]:
        return sorted(self.cases)

    def rendered(self, name: str) -> bytes:
        if name not in self._data:
            self._data[name] = render_variant(self.cases[name])[0]
        return self._data[name]

    def clean(self, name: str) -> DocumentResult:
        if name not in self._clean:
            self._clean[name] = process_bytes(self.rendered(name), source=name)
        return self._clean[name]

    def quiet(self, name: str) -> DocumentResult:
        """The clean document's result, which must raise no flag."""
        result = self.clean(name)
        assert not result.flags, [f.message for f in result.flags]
        return result

    def quiet_test(self) -> Callable[[str], None]:
        """A test over the variants: each clean document raises no flag (assign it to a ``test_`` name)."""

        @pytest.mark.parametrize("name", self.names())
        def test(name: str) -> None:
            self.quiet(name)

        return test

    def proven_total_test(self, label: str, children: int) -> Callable[[str], None]:
        """A test over the variants: each clean document raises no flag and proves its one line labelled
        ``label`` a total of ``children`` lines, as :meth:`proven_total` asserts (assign it to a ``test_``
        name)."""

        @pytest.mark.parametrize("name", self.names())
        def test(name: str) -> None:
            self.proven_total(name, label, children)

        return test

    def lines(self, name: str, label: str) -> list[LineItem]:
        """The statement lines labelled ``label`` in the clean document, which must raise no flag."""
        return [line for s in self.quiet(name).statements for line in s.lines if line.label == label]

    def proven_total(self, name: str, label: str, children: int, *, count: int = 1) -> None:
        """The clean document raises no flag and prints ``count`` statement lines labelled ``label``, the last
        of them a proven total of ``children`` lines."""
        lines = self.lines(name, label)
        assert len(lines) == count and lines[-1].proven and len(lines[-1].children) == children, lines

    def planted_flags(
        self, name: str, target: Candidate, new: str, rule: str
    ) -> tuple[list[Flag], list[Flag]]:
        """The flags of ``rule`` on the target's page after planting ``new``, and every flag raised."""
        planted = plant(self.rendered(name), target, new)
        assert planted is not None, (target, new)
        flags = process_bytes(planted, source=name).flags
        return [f for f in flags if target.page in f.pages and f.rule == rule], flags

    def caught(
        self, name: str, first: Sequence[str], kind: str, rule: str, *, column: int = 0, occurrence: int = 0
    ) -> Caught:
        """Plant the ``kind`` re-keying of a figure (found as :func:`figure` finds it): some flag of ``rule``
        on its page must print the re-keyed figure in its evidence."""
        target = figure(self.rendered(name), first, column, occurrence)
        new = rekeyed(target.text, kind)
        hits, flags = self.planted_flags(name, target, new, rule)
        assert evidence_of(hits, new), [f.message for f in flags]
        return Caught(target, new, hits)


def lines_starting(data: bytes, first: Sequence[str]) -> list[tuple[int, list[Word]]]:
    """Every printed line whose first words are ``first``, with the words that hold a digit after them."""
    out: list[tuple[int, list[Word]]] = []
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for number, page in enumerate(doc, 1):
            words = [tuple(w[:5]) for w in page.get_text("words")]
            for w in words:
                line = sorted((o for o in words if abs(o[3] - w[3]) < 2), key=lambda o: o[0])
                if line[0] != w or [o[4] for o in line[: len(first)]] != list(first):
                    continue
                figures = [o for o in line[len(first) :] if any(ch.isdigit() for ch in o[4])]
                if figures:
                    out.append((number, figures))
    return out


def figure(data: bytes, first: Sequence[str], column: int = 0, occurrence: int = 0) -> Candidate:
    """The ``column``-th figure of the ``occurrence``-th line starting with ``first`` (negative: from the
    end)."""
    found = lines_starting(data, first)
    assert found, f"no line starting {' '.join(first)!r} with figures"
    page, figures = found[occurrence]
    w = figures[column]
    return Candidate(page, (w[0], w[1], w[2], w[3]), w[4])


def rekeyed(text: str, kind: str) -> str:
    """The first ``kind`` mutation of a printed figure; for figures too small to be bench candidates
    ("93.34", "(44.33)"), its first two adjacent digits that differ swapped, or its sign flipped."""
    found = mutations(text, kind)
    if found:
        return next(iter(found))
    if kind == "sign":
        body = text.strip("()-")
        return body if text != body else f"({body})"
    digits = [k for k, ch in enumerate(text) if ch.isdigit()]
    i, j = next((a, b) for a, b in itertools.pairwise(digits) if text[a] != text[b])
    return text[:i] + text[j] + text[i + 1 : j] + text[i] + text[j + 1 :]


def evidence_of(flags: Sequence[Flag], new: str) -> bool:
    """Some flag's evidence prints the re-keyed figure."""
    return any(e.text.endswith(f": {new}") for f in flags for e in f.evidence)
