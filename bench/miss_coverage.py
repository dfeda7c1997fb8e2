"""Why planted errors were missed: in no relation the checks evaluate, or in one that did not flag.

``bench.planted_errors --json`` keeps the development files' plants. For each one it missed, this bench
plants the same error again (the same candidate: page, printed text and box), parses it, and runs the
checks stage with a relation log (:func:`pipeline.checks.stage.run_checks`' ``relations``)
to see every relation they evaluated, holding or not. A missed figure that enters no relation is a
*coverage* miss: no rule relates it to anything (a figure printed once, in a note without totals). One
that enters a relation is a *detection* miss: the relation was evaluated and either held within rounding
or broke without a flag. The split says which work would raise the catch rate: new relations, or the
rules' proofs and tolerances.

What the log holds: the footings and cross-footings (TOT001, TOT002), the copies of a figure (XREF001,
XST001, repeated columns, carried and closing balances) and ratio rows. The balance identity, change and
share columns, per-share figures, narrative sentences and ledgers test their relations outside it, so a
figure only they relate reads as a coverage miss here (Salesforce's change from nothing, tested by CHG001
since 963e0e5, did).

The validation split's plants are never stored, so they are never read here.

Usage::

    python -m bench.miss_coverage PLANTED.json [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

if __package__ in (None, ""):  # run as ``python bench/miss_coverage.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir
from bench.planted.planting import plant, scan_document
from pipeline.checks.localize import Equation, RelationLog, Term
from pipeline.checks.stage import run_checks
from pipeline.engine import parse_bytes
from schemas.models import BBox

__all__ = ["Coverage", "main", "miss_coverage", "relations_of"]

NEAR_PT = 3.0
"""How far (points) a relation's figure may lie from the planted box and still be the planted figure: the
engine's box is the word's, the plant's the span's."""


class Coverage(TypedDict):
    """One missed plant: where it is, and the relations its figure entered."""

    file: str
    seed: int
    kind: str
    statement: str
    page: int
    old: str
    new: str
    relations: int
    failing: int
    rules: list[str]
    verdict: str


def _is_plant(term: Term, page: int, box: BBox, text: str) -> bool:
    """Whether ``term`` is the planted figure: same page and printed text, its box over the plant's."""
    if term.page != page or term.bbox is None or term.text.strip() != text.strip():
        return False
    x0, y0, x1, y1 = term.bbox
    return (
        x0 <= box[2] + NEAR_PT
        and x1 >= box[0] - NEAR_PT
        and y0 <= box[3] + NEAR_PT
        and y1 >= box[1] - NEAR_PT
    )


def relations_of(data: bytes, page: int, box: BBox, text: str) -> list[Equation]:
    """Every relation the checks evaluate on the PDF ``data`` that holds the figure ``text`` at ``box``.

    Args:
        data: The PDF.
        page: The figure's page, from 1.
        box: Its box, in points.
        text: Its printed text.

    Returns:
        The relations, holding or not, in the order the checks recorded them.
    """
    log = RelationLog()
    run_checks(parse_bytes(data, source="miss_coverage.pdf"), relations=log)
    return [eq for eq in log.equations if any(_is_plant(t, page, box, text) for t in eq.terms)]


def _coverage(plant_rec: dict[str, Any], corpus: Path) -> Coverage | None:
    """One missed plant replanted and its relations found; None when its file or candidate is gone."""
    found = sorted(corpus.rglob(plant_rec["file"]))
    if not found:
        return None
    data = found[0].read_bytes()
    box = tuple(plant_rec["bbox"])
    candidates = [
        c for c in scan_document(data) if c.page == plant_rec["page"] and c.text == plant_rec["old"]
    ]
    if not candidates:
        return None
    cand = min(candidates, key=lambda c: sum(abs(a - b) for a, b in zip(c.bbox, box, strict=True)))
    planted = plant(data, cand, plant_rec["new"])
    if planted is None:
        return None
    eqs = relations_of(planted, cand.page, cand.bbox, plant_rec["new"])
    failing = [eq for eq in eqs if not eq.holds]
    verdict = "coverage" if not eqs else ("detection: a relation broke" if failing else "detection: held")
    return Coverage(
        file=plant_rec["file"],
        seed=plant_rec["seed"],
        kind=plant_rec["kind"],
        statement=plant_rec["statement"],
        page=plant_rec["page"],
        old=plant_rec["old"],
        new=plant_rec["new"],
        relations=len(eqs),
        failing=len(failing),
        rules=sorted({eq.rule for eq in eqs}),
        verdict=verdict,
    )


def miss_coverage(results: dict[str, Any], corpus: Path) -> list[Coverage]:
    """The development split's missed plants of a ``planted_errors --json`` run, each with its relations.

    Args:
        results: The run's JSON.
        corpus: The corpus folder the run read.

    Returns:
        One record per missed plant that could be planted again.
    """
    plants = results["splits"]["development"]["plants"]
    missed = [p for p in plants if p["status"] == "ok" and not p["caught"]]
    out: list[Coverage] = []
    for i, p in enumerate(missed, start=1):
        rec = _coverage(p, corpus)
        if rec is not None:
            out.append(rec)
            print(
                f"{i}/{len(missed)} {rec['file']} p{rec['page']} {rec['kind']}: {rec['verdict']}", flush=True
            )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print how many missed plants no relation covers, and how many a relation held or broke silently."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, help="a planted_errors --json output")
    ap.add_argument("--json", type=Path, help="write the records here")
    args = ap.parse_args(argv)
    records = miss_coverage(json.loads(args.results.read_text()), corpus_dir())
    counts = Counter(r["verdict"] for r in records)
    print(f"\n{len(records)} missed plants: " + ", ".join(f"{v} {n}" for v, n in counts.most_common()))
    by_statement = Counter((r["statement"], r["verdict"]) for r in records)
    for (statement, verdict), n in sorted(by_statement.items()):
        print(f"  {statement:14s} {verdict:28s} {n}")
    if args.json:
        args.json.write_text(json.dumps({"records": records, "counts": dict(counts)}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
