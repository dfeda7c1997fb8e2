"""Prior-period consistency on consecutive years of one issuer (issue 27, PRI001/PRI002).

For every pair of consecutive annual reports of one issuer among the corpus' development files (named
``financebench__<ISSUER>_<YEAR>_<10K|annualreport>.pdf``: the names pair the files, as ground truth of the
bench only; the product finds issuer and period on the pages):

1. **Untouched.** The engine runs on both years; the later year's published figures are compared with the
   earlier year's (:func:`pipeline.across.prior.compare_with_history` via :mod:`adapters.history`). The
   report gives the keys compared (and how many are printed more than once in a year), the printings
   agreeing, restated (with the quoted reason), inconsistent and unproven (tables that agree on nothing
   else), and inconsistencies per 100 pages of the later year: each of them a false alarm unless the
   filings really disagree.
2. **Planted.** For every seed and error kind, one figure the two years agree on is drawn with
   ``random.Random(f"{seed}:{pair}:{kind}")``, in the earlier year's current column or in the later year's
   comparative column (alternating by kind and seed), mutated as :mod:`bench.planted.mutations` does and
   typeset in place (:func:`bench.planted.planting.plant`, verified by reading the words back). The engine
   runs on the planted copy, which is compared with the other, untouched year. The plant is *caught* when
   its figure is an inconsistency (PRI001) at the planted page and box; the report also says what a missed
   plant became (restatement, unproven, no longer compared).

Validation-split files are never used: the consecutive years are all development files.

Usage::

    python -m bench.prior_period [--seeds 1,2,3] [--kinds swap,drop,double,sign,scale] [--workers 2]
        [--cache DIR] [--no-plants] [--generated] [--json OUT]

``--generated`` adds two consecutive years of each generated layout variant (:mod:`sample_docs.years`),
layouts no filing has and nothing was tuned on, measured the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/prior_period.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir
from bench.planted.mutations import KINDS
from bench.planted.running import split_of
from pipeline.across.prior import PriorReport, Reason, Verdict, compare_with_history
from schemas.models import PublishedFigure

_NAME = re.compile(r"^financebench__(?P<issuer>.+)_(?P<year>\d{4})_(?P<form>10K|annualreport)\.pdf$")
_TRIES = 8
DEFAULT_CACHE = Path.home() / ".cache" / "tieout" / "prior-period"
TARGET_CAUGHT = 0.90
TARGET_FALSE_PER_100 = 0.1


@dataclass(frozen=True)
class Published:
    """What one run of the engine on one copy publishes: its figures, stated reasons and page count."""

    figures: tuple[PublishedFigure, ...]
    reasons: tuple[Reason, ...]
    pages: int


@dataclass(frozen=True)
class Plant:
    """One planted copy: which pair, side, kind and seed, the figure and its new text (None: no plant)."""

    pair: str
    side: str
    kind: str
    seed: int
    pdf: Path
    page: int = 0
    bbox: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    old: str = ""
    new: str = ""


def pairs(paths: Sequence[Path]) -> list[tuple[Path, Path]]:
    """Consecutive annual reports of one issuer among the development files, earlier year first."""
    splits = split_of(paths)
    by_issuer: dict[str, dict[int, Path]] = {}
    for p in paths:
        m = _NAME.match(p.name)
        if m and splits[p.name] == "development":
            by_issuer.setdefault(m["issuer"], {})[int(m["year"])] = p
    return [
        (years[y], years[y + 1])
        for _, years in sorted(by_issuer.items())
        for y in sorted(years)
        if y + 1 in years
    ]


def _published(pdf: Path, data: bytes | None, cache: Path | None, stem: str) -> Published:
    """Run the engine (or read the cache) and keep what the document publishes."""
    cached = cache / f"{stem}.json" if cache else None
    if cached is not None and cached.exists():
        raw = json.loads(cached.read_text())
    else:
        from adapters.history.published import published_figures
        from pipeline.across.prior import restatement_reasons
        from pipeline.engine import process_bytes

        result = process_bytes(data if data is not None else pdf.read_bytes(), source=pdf.name)
        raw = {
            "figures": [f.model_dump(mode="json") for f in published_figures(result, "bench", None)],
            "reasons": [[r.page, r.quote, r.kind] for r in restatement_reasons(result.blocks)],
            "pages": result.stats.pages,
        }
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(raw))
    return Published(
        tuple(PublishedFigure.model_validate(f) for f in raw["figures"]),
        tuple(Reason(*r) for r in raw["reasons"]),
        raw["pages"],
    )


def _clean(pdf: Path, cache: Path | None) -> Published:
    return _published(pdf, None, cache, pdf.stem)


def _planted(plant: Plant, cache: Path | None) -> Published:
    from bench.planted.candidates import Candidate
    from bench.planted.planting import plant as typeset

    data = typeset(plant.pdf.read_bytes(), Candidate(plant.page, plant.bbox, plant.old), plant.new)
    assert data is not None  # chosen by _choose, which verified it
    where = "_".join(str(round(x)) for x in plant.bbox)
    stem = f"{plant.pdf.stem}.prior.{plant.kind}.{plant.seed}.p{plant.page}_{where}.{plant.new}"
    return _published(plant.pdf, data, cache, stem)


def _compare(later: Published, earlier: Published) -> PriorReport:
    return compare_with_history(later.figures, earlier.figures, later.reasons)


def _choose(report: PriorReport, pair: tuple[Path, Path], kind: str, seed: int, side: str) -> Plant | None:
    """The plant of one kind and seed: an agreeing figure drawn at random, mutated, verified in place."""
    from bench.planted.candidates import Candidate
    from bench.planted.mutations import mutate
    from bench.planted.planting import plant as typeset

    name = f"{pair[0].stem}>{pair[1].stem}"
    rng = random.Random(f"{seed}:{name}:{kind}")
    agreeing = sorted(
        (m.earlier if side == "earlier" else m.current for m in report.matches if m.verdict == "agree"),
        key=lambda f: f.key,
    )
    rng.shuffle(agreeing)
    pdf = pair[0] if side == "earlier" else pair[1]
    data = pdf.read_bytes()
    tries = 0
    for figure in agreeing:
        if figure.bbox is None or tries >= _TRIES:
            continue
        new = mutate(figure.printed, kind, rng)
        if new is None:
            continue
        tries += 1
        if typeset(data, Candidate(figure.page, figure.bbox, figure.printed), new) is not None:
            return Plant(name, side, kind, seed, pdf, figure.page, figure.bbox, figure.printed, new)
    return None


def _overlaps(a: tuple[float, ...] | None, b: tuple[float, ...]) -> bool:
    return a is not None and a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _fate(report: PriorReport, plant: Plant) -> str:
    """What became of a planted figure: its verdict, or 'not compared'."""
    fates = [
        m.verdict
        for m in report.matches
        if (f := m.earlier if plant.side == "earlier" else m.current).page == plant.page
        and _overlaps(f.bbox, plant.bbox)
    ]
    # A planted printing may stand in several matches (a line printed twice): the finding counts.
    for verdict in ("inconsistency", "restatement", "unproven", "agree"):
        if verdict in fates:
            return verdict
    return "not compared"


Pair = tuple[Path, Path]
_VERDICTS: tuple[Verdict, ...] = ("agree", "restatement", "inconsistency", "unproven")
_COLUMNS = ("pages", "compared", *_VERDICTS, "several")
_HEADS = ("pages", "compared", "agree", "restated", "inconsistent", "unproven", "several")


def _line(name: str, values: Sequence[object]) -> str:
    """One row of the untouched table: the pair, then its counts right-aligned under the heads."""
    return f"{name:44}" + "".join(f" {v!s:>{len(h)}}" for v, h in zip(values, _HEADS, strict=True))


def _short(pdf: Path) -> str:
    return pdf.stem.removeprefix("financebench__")


def _disagreements(report: PriorReport) -> list[dict[str, object]]:
    """Every restatement and inconsistency of a pair, with the printings and the reason quoted."""
    return [
        {
            "verdict": m.verdict,
            "line": m.current.label,
            "period": m.current.period,
            "later": [m.current.printed, m.current.page],
            "earlier": [m.earlier.printed, m.earlier.page],
            "keying": m.relation,
            "reason": None if m.reason is None else [m.reason.page, m.reason.kind, m.reason.quote],
        }
        for m in report.matches
        if m.verdict in ("restatement", "inconsistency")
    ]


def untouched(
    found: Sequence[Pair], clean: dict[Path, Published]
) -> tuple[dict[Pair, PriorReport], dict[str, object]]:
    """Step 1: compare each later year with the earlier one; print the table; the reports and the figures."""
    reports: dict[Pair, PriorReport] = {}
    rows: list[dict[str, object]] = []
    totals: Counter[str] = Counter()
    print(_line("pair", _HEADS))
    for earlier, later in found:
        report = reports[(earlier, later)] = _compare(clean[later], clean[earlier])
        counts = {"pages": clean[later].pages, "compared": report.compared, "several": report.several}
        counts |= {v: report.count(v) for v in _VERDICTS}
        totals.update(counts)
        print(_line(f"{_short(earlier)} > {_short(later)}", [counts[c] for c in _COLUMNS]))
        rows.append(
            {"earlier": earlier.name, "later": later.name, **counts, "disagreements": _disagreements(report)}
        )
    print(_line("all", [totals[c] for c in _COLUMNS]))
    per_100 = 100.0 * totals["inconsistency"] / max(1, totals["pages"])
    print(
        f"inconsistencies on untouched filings: {per_100:.3f} per 100 pages (target ≤ {TARGET_FALSE_PER_100})"
    )
    return reports, {"pairs": rows, "totals": dict(totals), "inconsistencies_per_100_pages": per_100}


def planted(
    found: Sequence[Pair],
    clean: dict[Path, Published],
    reports: dict[Pair, PriorReport],
    kinds: Sequence[str],
    seeds: Sequence[int],
    run: Callable[[Sequence[Plant]], list[Published]],
) -> dict[str, object]:
    """Step 2: draw, typeset and run the plants; print what became of them; the figures."""
    plants: list[tuple[Pair, Plant]] = []
    for pair in found:
        for seed in seeds:
            for i, kind in enumerate(kinds):
                side = "earlier" if (i + seed) % 2 == 0 else "later"
                if (chosen := _choose(reports[pair], pair, kind, seed, side)) is not None:
                    plants.append((pair, chosen))
    runs = run([p for _, p in plants])
    by_kind: dict[str, Counter[str]] = {k: Counter() for k in kinds}
    rows = []
    for ((earlier, later), plant), copy in zip(plants, runs, strict=True):
        report = _compare(clean[later], copy) if plant.side == "earlier" else _compare(copy, clean[earlier])
        fate = _fate(report, plant)
        by_kind[plant.kind][fate] += 1
        rows.append(
            {k: getattr(plant, k) for k in ("pair", "side", "kind", "seed", "page", "old", "new")}
            | {"fate": fate}
        )
    fates: Counter[str] = sum(by_kind.values(), Counter())
    n, caught = len(plants), fates["inconsistency"]
    drawn = len(found) * len(seeds) * len(kinds)
    share = 100.0 * caught / max(1, n)
    print(
        f"\nplanted: {n} plants ({drawn} drawn), caught {caught} = {share:.1f} % "
        f"(target ≥ {TARGET_CAUGHT:.0%})"
    )
    for kind, c in by_kind.items():
        missed = {k: v for k, v in c.items() if k != "inconsistency"}
        print(f"  {kind:7} {c['inconsistency']}/{sum(c.values())}  missed: {missed}")
    return {
        "plants": n,
        "caught": caught,
        "fates": dict(fates),
        "by_kind": {k: dict(v) for k, v in by_kind.items()},
        "rows": rows,
    }


def generated_pairs(folder: Path) -> list[Pair]:
    """Two consecutive years of each generated layout variant, written into ``folder`` (earlier first).

    Layouts no filing has and nothing here was tuned on: each variant's issuer reports 2024 and 2025 from
    one model of its business (:mod:`sample_docs.years`).
    """
    from sample_docs.generate import LAYOUT_VARIANTS
    from sample_docs.years import consecutive_years

    out: list[Pair] = []
    for base in LAYOUT_VARIANTS:
        written = []
        for name, data, _ in consecutive_years(2025, 2, base=base):
            (folder / name).write_bytes(data)
            written.append(folder / name)
        out.append((written[0], written[1]))
    return out


def _measure(
    found: Sequence[Pair], pool: ProcessPoolExecutor, cache: Path | None, args: argparse.Namespace
) -> dict[str, object]:
    """Steps 1 and 2 over some pairs: the untouched table, then the plants unless ``--no-plants``."""
    files = sorted({p for pair in found for p in pair})
    clean = dict(zip(files, pool.map(_clean, files, [cache] * len(files)), strict=True))
    reports, summary = untouched(found, clean)
    if not args.no_plants:
        kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]

        def run(plants: Sequence[Plant]) -> list[Published]:
            return list(pool.map(_planted, plants, [cache] * len(plants)))

        summary["planted"] = planted(found, clean, reports, kinds, seeds, run)
    return summary


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print its tables (and write them as JSON)."""
    ap = argparse.ArgumentParser(description="Prior-period consistency on consecutive years of one issuer.")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="keep each run's published figures here"
    )
    ap.add_argument("--no-plants", action="store_true", help="untouched pairs only")
    ap.add_argument(
        "--generated", action="store_true", help="also two years of each generated layout variant"
    )
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    corpus = corpus_dir()
    found = pairs(sorted([*corpus.glob("filings/*.pdf"), *corpus.glob("financial/*.pdf")]))
    if not found and not args.generated:
        print(f"no consecutive years found (corpus {corpus}; set TIEOUT_CORPUS)")
        return 2
    summary: dict[str, object] = {
        "command": " ".join(["python -m bench.prior_period", *(argv or sys.argv[1:])])
    }
    with ProcessPoolExecutor(max(1, args.workers)) as pool:
        if found:
            print("real filings, consecutive years (development split)")
            summary["filings"] = _measure(found, pool, args.cache, args)
        if args.generated:
            with tempfile.TemporaryDirectory(prefix="tieout-years-") as tmp:
                print("\ngenerated layouts, two years each (nothing tuned on them)")
                summary["generated"] = _measure(generated_pairs(Path(tmp)), pool, None, args)
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
