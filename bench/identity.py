"""Identity extraction against the file names: issuer, form and period end of every corpus filing.

Runs the engine's ``identity`` stage alone (:func:`pipeline.engine.identify_bytes`: only the first pages'
words are read) over every PDF of ``../shared/corpus/financial`` and ``../shared/corpus/filings`` and the
generated ``sample_docs/``, and compares what it read with what the file's name says. The name is the
truth of this benchmark only; the stage never sees it.

* ``financebench__3M_2022_10K.pdf``: issuer ``3M``, fiscal year 2022, form 10-K; ``_2023Q2_10Q``: a
  10-Q of fiscal 2023's second quarter; ``_EARNINGS``: an earnings release; ``_annualreport``: an annual
  report. ``sample_docs/halvorsen_2025_form_10k.pdf``: issuer ``halvorsen``, 2025, a 10-K.
* **issuer** matches when the name keys (:func:`pipeline.parse.identity.name_key`: "3M Company" → ``3m``,
  "PG&E Corporation" → ``pge``) contain one another, or the initials of the name read are the name's key
  ("Advanced Micro Devices" ~ ``AMD``);
* **form** matches when it is the one the name says (an earnings release may be an 8-K's exhibit);
* **period** is consistent when the period end's year is the name's, or the year after for a fiscal
  year that ends by March (retailers name the fiscal year that ends in January 2023 "2022"; others
  "2023"). A quarter's calendar month is not compared: the name counts fiscal quarters.

Files whose name says none of this (``pdfplumber__issue-912.pdf``) are listed without a verdict. The
validation split (MANIFEST.tsv notes) is reported as totals only: its files are for measuring, never for
fixing rules.

Usage::

    python -m bench.identity [--json bench/results/identity.json] [FILES...]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/identity.py``: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gt import corpus_dir
from bench.meta import run_meta
from bench.planted.running import split_of
from pipeline.engine import DocumentError, identify_bytes
from pipeline.parse.identity import name_key, name_words
from schemas.models import DocumentIdentity

ROOT = Path(__file__).resolve().parents[1]
_FINANCEBENCH = re.compile(
    r"^financebench__(?P<issuer>.+)_(?P<year>\d{4})(?:Q(?P<quarter>[1-4]))?_(?P<kind>10K|10Q|8K|EARNINGS|annualreport)$"
)
_GENERATED = re.compile(
    r"^(?P<issuer>[a-z]+)_(?:fy)?(?P<year>\d{4})_(?P<kind>annual_report|prospectus|form_10k)$"
)
_FORMS = {
    "10K": {"10-K", "10-K/A"},
    "form_10k": {"10-K", "10-K/A"},
    "10Q": {"10-Q", "10-Q/A"},
    "8K": {"8-K", "8-K/A"},
    "EARNINGS": {"earnings release", "8-K"},
    "annualreport": {"annual report"},
    "annual_report": {"annual report"},
    "prospectus": {"prospectus", "424B", "S-1", "F-1"},
}


@dataclass(frozen=True)
class NameTruth:
    """What a file's name says."""

    issuer: str
    year: int
    quarter: int | None
    kind: str


@dataclass
class Row:
    """One file: what the stage read, and whether it agrees with the name."""

    file: str
    split: str
    issuer: str | None
    form: str | None
    period_end: str | None
    issuer_ok: bool | None
    form_ok: bool | None
    period_ok: bool | None


def name_truth(stem: str) -> NameTruth | None:
    """What a corpus file's name says about it; None for names that say nothing of it."""
    m = _FINANCEBENCH.match(stem) or _GENERATED.match(stem)
    if m is None:
        return None
    quarter = m.groupdict().get("quarter")
    return NameTruth(m["issuer"], int(m["year"]), int(quarter) if quarter else None, m["kind"])


def issuer_matches(found: str, named: str) -> bool:
    """Whether a name as printed is the issuer a file's name abbreviates (see the module docstring)."""
    a, b = name_key(found), name_key(named)
    return bool(a and b) and (a in b or b in a or "".join(w[0] for w in name_words(found)) == b)


def period_consistent(end: str, truth: NameTruth) -> bool:
    """Whether a period end is in the year the name says (or the next, for a year that ends by March)."""
    d = date.fromisoformat(end)
    return d.year == truth.year or (d.month <= 3 and d.year == truth.year + 1)


def score(path: Path, split: str, identity: DocumentIdentity) -> Row:
    """One file's row."""
    truth = name_truth(path.stem)
    issuer, form, end = identity.issuer.value, identity.form.value, identity.period_end.value
    row = Row(path.name, split, issuer, form, end, None, None, None)
    if truth is not None:
        row.issuer_ok = issuer is not None and issuer_matches(issuer, truth.issuer)
        row.form_ok = form in _FORMS[truth.kind]
        row.period_ok = end is not None and period_consistent(end, truth)
    return row


def _mark(ok: bool | None) -> str:
    return "" if ok is None else ("ok" if ok else "NO")


def totals(rows: list[Row]) -> dict[str, int]:
    """Files with a named truth, and how many of them agree on each field and on all three."""
    named = [r for r in rows if r.issuer_ok is not None]
    return {
        "files": len(rows),
        "named": len(named),
        "issuer": sum(1 for r in named if r.issuer_ok),
        "form": sum(1 for r in named if r.form_ok),
        "period": sum(1 for r in named if r.period_ok),
        "all_three": sum(1 for r in named if r.issuer_ok and r.form_ok and r.period_ok),
        "issuer_unknown": sum(1 for r in named if r.issuer is None),
        "form_unknown": sum(1 for r in named if r.form is None),
        "period_unknown": sum(1 for r in named if r.period_end is None),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="PDFs (default: the corpus and sample_docs)")
    ap.add_argument("--json", type=Path, help="Write the rows and totals here.")
    args = ap.parse_args(argv)
    corpus = corpus_dir()
    paths: list[Path] = list(args.files) or [
        *sorted((corpus / "financial").glob("*.pdf")),
        *sorted((corpus / "filings").glob("*.pdf")),
        *sorted((ROOT / "sample_docs").glob("*.pdf")),
    ]
    splits = split_of(paths)
    meta = run_meta()
    started = time.monotonic()
    rows: list[Row] = []
    for path in paths:
        split = "generated" if path.resolve().parent == ROOT / "sample_docs" else splits[path.name]
        try:
            identity = identify_bytes(path.read_bytes())
        except DocumentError as exc:
            print(f"{path.name}: not read ({exc.category})")
            continue
        rows.append(score(path, split, identity))
    seconds = time.monotonic() - started

    shown = [r for r in rows if r.split != "validation"]  # the validation split: totals only
    print(f"{'file':<48} {'issuer found':<34} {'form found':<17} {'period end':<11} issuer form period")
    for r in shown:
        print(
            f"{r.file[:48]:<48} {(r.issuer or '?')[:34]:<34} {(r.form or '?'):<17}"
            f" {(r.period_end or '?'):<11} {_mark(r.issuer_ok):<6} {_mark(r.form_ok):<4} {_mark(r.period_ok)}"
        )
    by_split = {
        s: totals([r for r in rows if r.split == s]) for s in ("development", "validation", "generated")
    }
    print(f"\n{'split':<12}" + "".join(f"{k:>16}" for k in next(iter(by_split.values()))))
    for split, t in by_split.items():
        print(f"{split:<12}" + "".join(f"{v:>16}" for v in t.values()))
    print(f"\n{len(rows)} documents identified in {seconds:.1f} s")
    if args.json:
        out = {
            "meta": meta,
            "seconds": round(seconds, 2),
            "totals": by_split,
            "rows": [asdict(r) for r in shown],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
