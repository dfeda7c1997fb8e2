"""Ground-truth tables of the real-document corpus and the cell-level F1 metric.

The corpus (``../shared/corpus`` from the repository root, or ``$TIEOUT_CORPUS``) ships three kinds of
cell-level table ground truth under ``table/``:

* Camelot ``<stem>.gt.camelot-*.csv``: camelot's asserted output (stream flavour), one table, page 1.
* tabula-java ``<stem>.gt.tabula-lattice*.csv``: tabula's asserted output, page 1. ``twotables`` holds
  *two* tables concatenated in one CSV; the sibling ``.json`` has both tables with their row counts and
  page number, which is how the CSV is split.
* ICDAR-2013 ``<stem>.gt.tableN-pP.csv``: derived from ``-str.xml``, one table per file, on page ``P``
  (1-based).

Every loader returns :class:`GTTable` records with rectangular ``cells`` (short rows padded with ``""``).
"""

from __future__ import annotations

import csv
import json
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]

_ICDAR_RE = re.compile(r"^(?P<stem>.+)\.gt\.table(?P<n>\d+)-p(?P<page>\d+)\.csv$")
_CAMELOT_RE = re.compile(r"^(?P<stem>.+)\.gt\.camelot-[^.]+\.csv$")
_TABULA_RE = re.compile(r"^(?P<stem>.+)\.gt\.tabula-lattice[^.]*\.csv$")
# Camelot's ``flag_size=True`` wraps superscripts as ``<s>…</s>``: markup, not text on the page.
_SUPERSCRIPT_RE = re.compile(r"</?s>")
_WHITESPACE_RE = re.compile(r"\s+")

Grid = list[list[str]]


@dataclass(frozen=True)
class GTTable:
    """One ground-truth table.

    Attributes:
        pdf: The PDF the table is printed in.
        page: 1-based page number of the table.
        name: Stable identifier, ``<pdf stem>:<label>`` (e.g. ``icdar2013__us-018:table3-p3``).
        cells: Rectangular grid of cell texts, row-major, as in the ground-truth file.
    """

    pdf: Path
    page: int
    name: str
    cells: Grid

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the grid."""
        return len(self.cells), (len(self.cells[0]) if self.cells else 0)


def corpus_dir() -> Path:
    """Where the real-document corpus lives.

    Returns:
        ``$TIEOUT_CORPUS`` when set, else ``../shared/corpus`` relative to the repository root. The path
        may not exist: callers skip when it is absent.
    """
    env = os.environ.get("TIEOUT_CORPUS")
    return Path(env) if env else (REPO_ROOT.parent / "shared" / "corpus").resolve()


def open_pdf(*args: Any, **kwargs: Any) -> Any:
    """``pymupdf.open`` with the arguments passed through, imported lazily.

    PyMuPDF's ``Document.__init__`` is unannotated, so calling ``pymupdf.open`` directly is a
    ``no-untyped-call`` error under ``mypy --strict``; going through a ``Callable[..., Any]`` keeps the
    callers clean whether or not the project later exempts PyMuPDF (``untyped_calls_exclude``). The lazy
    import keeps ``bench.gt`` cheap to import (PyMuPDF costs ~200 MB RSS and ~1.5 s).

    Returns:
        A ``pymupdf.Document``.
    """
    import pymupdf

    opener: Callable[..., Any] = pymupdf.open
    return opener(*args, **kwargs)


def normalise(text: str) -> str:
    """Normalise a cell text for comparison.

    The ground truth comes from three tools with different whitespace conventions (camelot keeps line
    breaks inside words such as ``"N\\net Asset Value"``, tabula keeps ``\\r`` between lines of a
    multi-line cell, ICDAR joins them with spaces), so *all* whitespace is removed rather than collapsed:
    the metric then measures whether the right characters landed in one cell, not how a tool spelled the
    line breaks. NFKC folds full-width digits and compatibility forms; camelot's ``<s>``/``</s>``
    superscript markup is dropped; casefolding ignores case-only differences.

    Args:
        text: Raw cell text.

    Returns:
        The comparison key ("" for a blank cell).
    """
    text = unicodedata.normalize("NFKC", text)
    text = _SUPERSCRIPT_RE.sub("", text)
    return _WHITESPACE_RE.sub("", text).casefold()


def _cell_multiset(cells: Iterable[Sequence[str | None]]) -> Counter[str]:
    """Multiset of normalised non-empty cell texts (``None`` cells, as pdfplumber returns, count as empty)."""
    keys = (normalise(text) for row in cells for text in row if text)
    return Counter(key for key in keys if key)


def cell_f1(
    gt_cells: Iterable[Sequence[str | None]], extracted_cells: Iterable[Sequence[str | None]]
) -> float:
    """Cell-text F1 between a ground-truth grid and an extracted one.

    Both grids are reduced to multisets of normalised non-empty cell texts, so the metric rewards getting
    each cell's content right (no merged or split cells) and ignores grid positions, which the tools
    number differently (header rows, spanning cells).

    Args:
        gt_cells: Ground-truth rows of cell texts.
        extracted_cells: Extracted rows of cell texts.

    Returns:
        ``2PR / (P + R)`` with ``P = |GT ∩ X| / |X|`` and ``R = |GT ∩ X| / |GT|``; 0.0 when either side
        has no non-empty cell.
    """
    gt = _cell_multiset(gt_cells)
    got = _cell_multiset(extracted_cells)
    n_gt, n_got = gt.total(), got.total()
    if n_gt == 0 or n_got == 0:
        return 0.0
    hits = (gt & got).total()
    if hits == 0:
        return 0.0
    precision, recall = hits / n_got, hits / n_gt
    return 2 * precision * recall / (precision + recall)


def best_f1(gt: GTTable, tables_on_page: Sequence[Sequence[Sequence[str | None]]]) -> float:
    """Best cell F1 of a ground-truth table against the tables extracted on its page.

    A table that spans pages must be passed as its cells on ``gt.page`` only.

    Args:
        gt: The ground-truth table.
        tables_on_page: Every table extracted on ``gt.page``, each a grid of cell texts.

    Returns:
        The maximum F1 over the extracted tables (0.0 when there are none).
    """
    return max((cell_f1(gt.cells, table) for table in tables_on_page), default=0.0)


def _rectangular(rows: Iterable[list[str]]) -> Grid:
    """Pad short rows with "" and drop blank CSV lines (``csv`` yields ``[]`` for them)."""
    kept = [row for row in rows if row]
    width = max((len(row) for row in kept), default=0)
    return [row + [""] * (width - len(row)) for row in kept]


def _read_csv(path: Path) -> list[list[str]]:
    # newline="" keeps line breaks inside quoted cells, as the csv module requires.
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.reader(fh))


def _pdf_for(gt_path: Path, stem: str) -> Path:
    return gt_path.with_name(f"{stem}.pdf")


def load_camelot(path: Path) -> list[GTTable]:
    """Load a camelot ``<stem>.gt.camelot-*.csv`` file (one table, page 1).

    Args:
        path: The CSV file.

    Returns:
        A one-element list.
    """
    match = _CAMELOT_RE.match(path.name)
    if match is None:
        raise ValueError(f"not a camelot GT file: {path.name}")
    stem = match["stem"]
    return [GTTable(_pdf_for(path, stem), 1, f"{stem}:camelot", _rectangular(_read_csv(path)))]


def load_tabula(path: Path) -> list[GTTable]:
    """Load a tabula ``<stem>.gt.tabula-lattice*.csv`` file.

    When a sibling ``.json`` exists it lists the tables serialised in the CSV (tabula concatenates them
    without a separator), so the CSV is split by the JSON's row counts and each table takes the JSON's
    ``page_number``. Otherwise the CSV is one table on page 1.

    Args:
        path: The CSV file.

    Returns:
        One GTTable per serialised table, named ``<stem>:tabula`` or ``<stem>:tabula-tN`` (N from 1).

    Raises:
        ValueError: if the JSON's row counts do not add up to the CSV's.
    """
    match = _TABULA_RE.match(path.name)
    if match is None:
        raise ValueError(f"not a tabula GT file: {path.name}")
    stem = match["stem"]
    rows = [row for row in _read_csv(path) if row]
    json_path = path.with_suffix(".json")
    if not json_path.exists():
        return [GTTable(_pdf_for(path, stem), 1, f"{stem}:tabula", _rectangular(rows))]
    specs = json.loads(json_path.read_text(encoding="utf-8"))
    counts = [len(spec["data"]) for spec in specs]
    if sum(counts) != len(rows):
        raise ValueError(f"{json_path.name}: {sum(counts)} rows in JSON, {len(rows)} in CSV")
    tables: list[GTTable] = []
    start = 0
    for index, (spec, count) in enumerate(zip(specs, counts, strict=True), start=1):
        grid = _rectangular(rows[start : start + count])
        tables.append(
            GTTable(_pdf_for(path, stem), int(spec["page_number"]), f"{stem}:tabula-t{index}", grid)
        )
        start += count
    return tables


def load_icdar(path: Path) -> list[GTTable]:
    """Load an ICDAR-derived ``<stem>.gt.tableN-pP.csv`` file (one table on page P, 1-based).

    Args:
        path: The CSV file.

    Returns:
        A one-element list, named ``<stem>:tableN-pP``.
    """
    match = _ICDAR_RE.match(path.name)
    if match is None:
        raise ValueError(f"not an ICDAR GT file: {path.name}")
    stem, n, page = match["stem"], match["n"], int(match["page"])
    return [GTTable(_pdf_for(path, stem), page, f"{stem}:table{n}-p{page}", _rectangular(_read_csv(path)))]


def load_all(corpus: Path | None = None) -> list[GTTable]:
    """Load every ground-truth table under ``<corpus>/table``.

    Args:
        corpus: Corpus root; defaults to :func:`corpus_dir`.

    Returns:
        All GT tables sorted by name (empty when the corpus is absent).
    """
    table_dir = (corpus or corpus_dir()) / "table"
    if not table_dir.is_dir():
        return []
    tables: list[GTTable] = []
    for path in sorted(table_dir.glob("*.gt.*.csv")):
        if _CAMELOT_RE.match(path.name):
            tables.extend(load_camelot(path))
        elif _TABULA_RE.match(path.name):
            tables.extend(load_tabula(path))
        elif _ICDAR_RE.match(path.name):
            tables.extend(load_icdar(path))
    return sorted(tables, key=lambda table: table.name)
